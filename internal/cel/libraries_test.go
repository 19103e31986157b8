package cel

import (
	"math/bits"
	"slices"
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// overloadIDs returns the overload ids of every function of env.
func overloadIDs(env *cel.Env) map[string][]string {
	out := map[string][]string{}
	for name, fn := range env.Functions() {
		for _, o := range fn.OverloadDecls() {
			out[name] = append(out[name], o.ID())
		}
	}
	return out
}

// TestLibrariesDeclaring compares librariesDeclaring with what each library
// declares: every function that a library adds or extends names it, and no
// other.
func TestLibrariesDeclaring(t *testing.T) {
	standard, err := NewEnvOf(0)
	require.NoError(t, err)
	std := overloadIDs(standard)
	declaredBy := map[string]Libraries{}
	for i := range bits.Len32(uint32(AllLibraries)) {
		lib := Libraries(1) << i
		env, err := NewEnvOf(lib)
		require.NoError(t, err, "library %b alone", lib)
		for name, ids := range overloadIDs(env) {
			if !slices.Equal(ids, std[name]) {
				declaredBy[name] |= lib
			}
		}
	}
	require.NotEmpty(t, declaredBy)
	for name, want := range declaredBy {
		assert.Equal(t, want, librariesDeclaring(name), "function %s", name)
	}
	for name := range std {
		if declaredBy[name] == 0 {
			assert.Zero(t, librariesDeclaring(name), "standard function %s", name)
		}
	}
}

// TestLibraryMacroKeys compares LibraryMacroKeys with the macros of the
// whole environment beyond the standard ones.
func TestLibraryMacroKeys(t *testing.T) {
	whole, err := NewEnv()
	require.NoError(t, err)
	standard, err := NewEnvOf(0)
	require.NoError(t, err)
	var stdKeys, extra []string
	for _, m := range standard.Macros() {
		stdKeys = append(stdKeys, m.MacroKey())
	}
	var standardKeys []string
	for _, m := range cel.StandardMacros {
		standardKeys = append(standardKeys, m.MacroKey())
	}
	assert.ElementsMatch(t, standardKeys, stdKeys, "the standard environment has cel.StandardMacros")
	for _, m := range whole.Macros() {
		if !slices.Contains(stdKeys, m.MacroKey()) {
			extra = append(extra, m.MacroKey())
		}
	}
	assert.ElementsMatch(t, extra, LibraryMacroKeys())
}

func TestEnvOptionsAreAllLibraries(t *testing.T) {
	assert.Len(t, EnvOptions(), len(envOptionsOf(AllLibraries, StoredFlavor)))
	assert.Len(t, envOptionsOf(0, StoredFlavor), 6, "the options that belong to no library")
	assert.Equal(t, 15, bits.OnesCount32(uint32(AllLibraries)))
}

func TestLibrariesOf(t *testing.T) {
	env, err := NewEnv(
		cel.Variable("request", cel.MapType(cel.StringType, cel.DynType)),
		cel.Variable("s", cel.StringType),
	)
	require.NoError(t, err)
	isVariable := func(name string) bool { return name == "request" || name == "s" }
	tests := []struct {
		expr  string
		libs  Libraries
		whole bool
	}{
		{expr: "has(request.resourceAttributes)"},
		{expr: "request.resourceAttributes.namespace == 'kube-system'"},
		{expr: "!('system:serviceaccounts:kube-system' in request.groups)"},
		{expr: "request.groups.exists(g, g.startsWith('system:'))"},
		{expr: "[1, 2].map(x, x * 2).size() == 2"},
		{expr: "request['x'] == 1", libs: LibraryOptional},          // optional types extend _[_]
		{expr: "request.?x.orValue(1) == 1", libs: LibraryOptional}, // optional select
		{expr: "[?request.?x] == []", libs: LibraryOptional},
		{expr: "{?'a': request.?x} == {}", libs: LibraryOptional},
		{expr: "s.indexOf('a') == 0", libs: LibraryStrings | LibraryLists},
		{expr: "isURL(s) && url(s).getHost() == ''", libs: LibraryURLs},
		{expr: "s.matches('a') && s.find('a') == ''", libs: LibraryRegex},
		{expr: "string(s) == s", libs: LibraryIP | LibraryCIDR},
		{expr: "quantity(s).compareTo(quantity('1')) == 0", libs: LibraryQuantity | LibrarySemver},
		{expr: "[3, 1].sum() == 4", libs: LibraryLists},
		// The macro is the library's; its expansion calls standard functions.
		{expr: "request.x.all(k, v, v)"},
		{expr: "request.x.transformMap(k, v, v)", libs: LibraryTwoVarComprehensions},
		{expr: "request.x.y.z.f()"},
		// Identifiers other than variables: a library may declare them.
		{expr: "lists.range(3).size() == 3", whole: true},
		{expr: "optional.of(1).hasValue()", whole: true},
		{expr: "sets.contains([1], [1])", whole: true},
		{expr: "format.dns1123Label().validate(s).hasValue()", whole: true},
		{expr: "type(s) == string", whole: true},
		{expr: "undeclared == 1", whole: true},
		{expr: "google.protobuf.Duration{seconds: 1} == duration('1s')", whole: true},
		// Comprehension variables are in scope only inside the loop.
		{expr: "[1].exists(x, x == 1) && x == 1", whole: true},
		{expr: "[[1]].exists(x, x.exists(y, y == 1 && x.size() == 1))"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			parsed, iss := env.Parse(tt.expr)
			require.NoError(t, iss.Err())
			libs, ok := LibrariesOf(parsed.NativeRep().Expr(), isVariable)
			assert.Equal(t, !tt.whole, ok, "the smaller environment suffices")
			if ok {
				assert.Equal(t, tt.libs, libs)
			}
		})
	}
}
