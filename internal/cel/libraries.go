package cel

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/overloads"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/ext"

	"github.com/gatehouse-dev/gatehouse/internal/kubeversions"
	"github.com/gatehouse-dev/gatehouse/kube"
)

// Libraries is a set of the libraries of the base environment. Most
// expressions call a few functions of the standard library only; an
// environment of the standard library and the libraries an expression calls
// checks it exactly as the whole environment does, and costs a small part of
// it to build (see NewEnvOf and LibrariesOf).
type Libraries uint32

// The libraries of the base environment, in its order.
const (
	LibraryURLs Libraries = 1 << iota
	LibraryRegex
	LibraryAuthz
	LibraryOptional // cel-go's optional types
	LibraryQuantity
	LibraryStrings // cel-go's ext.Strings, version 2
	LibrarySets    // cel-go's ext.Sets
	LibraryIP
	LibraryCIDR
	LibraryFormat
	LibraryAuthzSelectors
	LibraryTwoVarComprehensions // cel-go's ext.TwoVarComprehensions
	LibrarySemver
	LibraryExtLists // cel-go's ext.Lists, version 3
	LibraryLists

	// AllLibraries is the whole base environment.
	AllLibraries = LibraryLists<<1 - 1
)

// Flavor is which kube-apiserver's CEL an environment is, where the versions
// gatehouse answers for differ: the version of the lists library its
// expressions see (kube-apiserver's environments for stored and for new
// expressions, at its version and its compatibility version), and the
// behaviours of the cel-go it links. FlavorOf gives a kube.Target's.
type Flavor struct {
	// ListsIncludes: the lists library at version 1, with includes()
	// (stored expressions from 1.37, new ones from 1.38); version 0
	// otherwise.
	ListsIncludes bool
	// CELGo026: kube-apiserver 1.36 and before link cel-go 0.26, where
	// duration(int) compiles (and fails at every evaluation), the global
	// matches() costs as any call, and startsWith and endsWith cost by the
	// length of the string searched, not of the prefix.
	CELGo026 bool
	// QuantityShallowCopy: the quantity library's add and sub of
	// kube-apiserver 1.36 and before, which change their receiver when it
	// holds an inf.Dec (a huge or very precise quantity).
	QuantityShallowCopy bool
	// CIDRIsMask: the CIDR library at version 1, with cidr(...).isMask(),
	// declared after the other libraries (stored expressions from 1.38);
	// version 0, among the libraries of 1.30, otherwise.
	CIDRIsMask bool
}

// NewEnv returns the base environment of the flavor extended with opts.
func (f Flavor) NewEnv(opts ...cel.EnvOption) (*cel.Env, error) {
	return cel.NewEnv(append(envOptionsOf(AllLibraries, f), opts...)...)
}

// CostEstimator is the flavor's cost model, for estimates (Env.EstimateCost)
// and, through a Planner built WithFlavor, runtime costs.
func (f Flavor) CostEstimator() *CostEstimator {
	return &CostEstimator{CELGo026: f.CELGo026}
}

// envOptionsOf returns the options of the base environment of flavor f that
// belong to libs or to no library, in the base environment's order (which
// is the order of the overloads of functions that several libraries
// extend): the lists library of version 0 early (1.0 to 1.36), of version 1
// late (from 1.37).
func envOptionsOf(libs Libraries, f Flavor) []cel.EnvOption {
	opts := make([]cel.EnvOption, 0, 24)
	add := func(lib Libraries, opt cel.EnvOption) {
		if lib == 0 || libs&lib != 0 {
			opts = append(opts, opt)
		}
	}
	// 1.0
	add(0, cel.HomogeneousAggregateLiterals())
	add(0, cel.EagerlyValidateDeclarations(true))
	add(0, cel.DefaultUTCTimeZone(true))
	add(LibraryURLs, cel.Lib(urlsLibrary{}))
	add(LibraryRegex, cel.Lib(regexLibrary{}))
	add(0, cel.CostEstimatorOptions(checker.PresenceTestHasCost(false)))
	// 1.0 to 1.36
	if !f.ListsIncludes {
		add(LibraryLists, cel.Lib(listsLibrary{}))
	}
	// 1.27
	add(LibraryAuthz, cel.Lib(authzLibrary{}))
	// 1.28
	add(0, cel.CrossTypeNumericComparisons(true))
	add(LibraryOptional, cel.OptionalTypes())
	add(LibraryQuantity, cel.Lib(quantityLibrary{shallowCopy: f.QuantityShallowCopy}))
	// 1.29
	add(0, cel.ASTValidators(
		cel.ValidateDurationLiterals(),
		cel.ValidateTimestampLiterals(),
		cel.ValidateRegexLiterals(),
		cel.ValidateHomogeneousAggregateLiterals(),
	))
	add(LibraryStrings, ext.Strings(ext.StringsVersion(2)))
	add(LibrarySets, ext.Sets())
	// 1.30
	add(LibraryIP, cel.Lib(ipLibrary{}))
	if !f.CIDRIsMask {
		add(LibraryCIDR, cel.Lib(cidrLibrary{}))
	}
	// 1.31
	add(LibraryFormat, cel.Lib(formatLibrary{}))
	add(LibraryAuthzSelectors, cel.Lib(authzSelectorsLibrary{}))
	// 1.32
	add(LibraryTwoVarComprehensions, ext.TwoVarComprehensions())
	// 1.33
	add(LibrarySemver, cel.Lib(semverLibrary{}))
	// 1.34
	add(LibraryExtLists, ext.Lists(ext.ListsVersion(3)))
	// 1.37
	if f.ListsIncludes {
		add(LibraryLists, cel.Lib(listsLibrary{withIncludes: true}))
	}
	// 1.38
	if f.CIDRIsMask {
		add(LibraryCIDR, cel.Lib(cidrLibrary{withIsMask: true}))
	}
	if f.CELGo026 {
		add(0, durationFromInt)
	}
	return opts
}

// durationFromInt is cel-go 0.26's duration(int) overload, which kube-apiserver
// 1.36 and before declare: it type-checks, and fails at every evaluation
// (cel-go 0.29 removed it).
var durationFromInt = cel.Function(overloads.TypeConvertDuration,
	cel.Overload("int64_to_duration", []*cel.Type{cel.IntType}, cel.DurationType,
		cel.UnaryBinding(func(ref.Val) ref.Val {
			return types.NewErr("type conversion error from 'int' to 'google.protobuf.Duration'")
		})))

// NewEnvOf returns the environment of the standard library and libs,
// extended with opts. It checks an expression exactly as the whole base
// environment does when libs holds LibrariesOf the expression.
func NewEnvOf(libs Libraries, opts ...cel.EnvOption) (*cel.Env, error) {
	return StoredFlavor.NewEnvOf(libs, opts...)
}

// NewEnvOf is NewEnvOf in flavor f.
func (f Flavor) NewEnvOf(libs Libraries, opts ...cel.EnvOption) (*cel.Env, error) {
	return cel.NewEnv(append(envOptionsOf(libs, f), opts...)...)
}

// NewExpressionsEnv returns the environment in which kube-apiserver 1.37
// checks an expression that a write adds or changes
// (environment.NewExpressions at its default compatibility version, 1.36),
// extended with opts: the base environment, but with the Lists library of
// 1.36 (no includes(), and its overloads before those of the later
// libraries). Use it to validate what a client writes; expressions already
// stored, and evaluation, use NewEnv.
func NewExpressionsEnv(opts ...cel.EnvOption) (*cel.Env, error) {
	return NewExpressionsFlavor.NewEnv(opts...)
}

// The flavors of kube-apiserver 1.37, the newest release: its stored
// expressions and its new ones (at compatibility version 1.36).
var (
	StoredFlavor         = Flavor{ListsIncludes: true}
	NewExpressionsFlavor = Flavor{}
)

// librariesDeclaring returns the libraries that declare a function of that
// name, or add overloads to one of the standard library. A test compares it
// with the functions each library declares.
func librariesDeclaring(function string) Libraries {
	switch function {
	case "getEscapedPath", "getHost", "getHostname", "getPort", "getQuery", "getScheme", "isURL", "url":
		return LibraryURLs
	case "find", "findAll":
		return LibraryRegex
	case "allowed", "check", "error", "errored", "group", "name", "namespace", "path", "reason", "resource",
		"serviceAccount", "subresource":
		return LibraryAuthz
	case "_?._", "_[?_]", "_[_]", "first", "hasValue", "last", "optional.none", "optional.of",
		"optional.ofNonZeroValue", "optional.unwrap", "or", "orValue", "unwrapOpt", "value":
		return LibraryOptional
	case "add", "asApproximateFloat", "asInteger", "isInteger", "isQuantity", "quantity", "sign", "sub":
		return LibraryQuantity
	case "compareTo", "isGreaterThan", "isLessThan":
		return LibraryQuantity | LibrarySemver
	case "charAt", "format", "join", "lowerAscii", "replace", "split", "strings.quote", "substring", "trim", "upperAscii":
		return LibraryStrings
	case "indexOf", "lastIndexOf":
		return LibraryStrings | LibraryLists
	case "sets.contains", "sets.equivalent", "sets.intersects":
		return LibrarySets
	case "ip", "string":
		return LibraryIP | LibraryCIDR
	case "family", "ip.isCanonical", "isGlobalUnicast", "isIP", "isLinkLocalMulticast", "isLinkLocalUnicast", "isLoopback", "isUnspecified":
		return LibraryIP
	case "cidr", "containsCIDR", "containsIP", "isCIDR", "isMask", "masked", "prefixLength":
		return LibraryCIDR
	case "format.byte", "format.date", "format.datetime", "format.dns1035Label", "format.dns1035LabelPrefix",
		"format.dns1123Label", "format.dns1123LabelPrefix", "format.dns1123Subdomain", "format.dns1123SubdomainPrefix",
		"format.labelValue", "format.named", "format.qualifiedName", "format.uri", "format.uuid", "validate":
		return LibraryFormat
	case "fieldSelector", "labelSelector":
		return LibraryAuthzSelectors
	case "cel.@mapInsert":
		return LibraryTwoVarComprehensions
	case "isSemver", "major", "minor", "patch", "semver":
		return LibrarySemver
	case "@sortByAssociatedKeys", "distinct", "flatten", "lists.range", "reverse", "slice", "sort":
		return LibraryExtLists
	case "includes", "isSorted", "max", "min", "sum":
		return LibraryLists
	}
	return 0
}

// LibraryMacroKeys returns the keys (name:args:receiver) of the macros that
// libraries add to the standard ones. A parser without them must leave an
// expression that calls one to the whole environment's parser.
func LibraryMacroKeys() []string {
	return []string{
		// TwoVarComprehensions
		"all:3:true", "exists:3:true", "existsOne:3:true", "exists_one:3:true",
		"transformList:3:true", "transformList:4:true", "transformMap:3:true", "transformMap:4:true",
		"transformMapEntry:3:true", "transformMapEntry:4:true",
		// ExtLists
		"sortBy:2:true",
		// Optional
		"optMap:2:true", "optFlatMap:2:true",
	}
}

// LibrariesOf returns the libraries that the checker may consult for a
// parsed expression: those that declare a function it calls, under its name
// or a qualified name made of the identifiers before it (optional.of,
// lists.range). It returns false when the expression needs the whole
// environment: it names an identifier other than a variable (isVariable) or
// a comprehension variable in scope, which could be a type or a qualified
// name that a library declares.
func LibrariesOf(e ast.Expr, isVariable func(string) bool) (Libraries, bool) {
	w := libraryWalker{isVariable: isVariable}
	w.walk(e)
	return w.libs, !w.whole
}

type libraryWalker struct {
	isVariable func(string) bool
	scope      []string // comprehension variables in scope
	libs       Libraries
	whole      bool
}

func (w *libraryWalker) inScope(name string) bool {
	for _, v := range w.scope {
		if v == name {
			return true
		}
	}
	return w.isVariable(name)
}

func (w *libraryWalker) walk(e ast.Expr) {
	if w.whole {
		return
	}
	switch e.Kind() {
	case ast.IdentKind:
		if !w.inScope(e.AsIdent()) {
			w.whole = true
		}
	case ast.SelectKind:
		w.walk(e.AsSelect().Operand())
	case ast.CallKind:
		call := e.AsCall()
		w.libs |= librariesDeclaring(call.FunctionName())
		if call.IsMemberFunction() {
			// a.b.f(x) may be the global function a.b.f or b.f.
			qualified := call.FunctionName()
			for t := call.Target(); ; {
				if t.Kind() == ast.IdentKind {
					w.libs |= librariesDeclaring(t.AsIdent() + "." + qualified)
					break
				}
				if t.Kind() != ast.SelectKind {
					break
				}
				qualified = t.AsSelect().FieldName() + "." + qualified
				w.libs |= librariesDeclaring(qualified)
				t = t.AsSelect().Operand()
			}
			w.walk(call.Target())
		}
		for _, arg := range call.Args() {
			w.walk(arg)
		}
	case ast.ListKind:
		list := e.AsList()
		if len(list.OptionalIndices()) > 0 {
			w.libs |= LibraryOptional
		}
		for _, elem := range list.Elements() {
			w.walk(elem)
		}
	case ast.MapKind:
		for _, entry := range e.AsMap().Entries() {
			me := entry.AsMapEntry()
			if me.IsOptional() {
				w.libs |= LibraryOptional
			}
			w.walk(me.Key())
			w.walk(me.Value())
		}
	case ast.StructKind:
		// A message type name is resolved by the type provider.
		w.whole = true
	case ast.ComprehensionKind:
		c := e.AsComprehension()
		w.walk(c.IterRange())
		w.walk(c.AccuInit())
		n := len(w.scope)
		w.scope = append(w.scope, c.IterVar(), c.AccuVar())
		if c.HasIterVar2() {
			w.scope = append(w.scope, c.IterVar2())
		}
		w.walk(c.LoopCondition())
		w.walk(c.LoopStep())
		w.walk(c.Result())
		w.scope = w.scope[:n]
	}
}

// FlavorOf is the flavor of kube-apiserver t's environment for stored
// expressions (stored), or for new ones (at its compatibility version, one
// minor version back).
func FlavorOf(t kube.Target, stored bool) Flavor {
	includes := kubeversions.NewListsIncludes
	if stored {
		includes = kubeversions.StoredListsIncludes
	}
	return Flavor{ListsIncludes: kubeversions.Has(t, includes), CELGo026: !kubeversions.Has(t, kubeversions.CELGo029),
		QuantityShallowCopy: !kubeversions.Has(t, kubeversions.QuantityArithmeticCopies),
		CIDRIsMask:          stored && kubeversions.Has(t, kubeversions.StoredCIDRIsMask)}
}
