package validatingpolicy

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/gatehouse-dev/gatehouse/internal/admissioncel"
	"github.com/gatehouse-dev/gatehouse/internal/builtintypes"
	icel "github.com/gatehouse-dev/gatehouse/internal/cel"
	"github.com/gatehouse-dev/gatehouse/internal/celdecl"
	"github.com/gatehouse-dev/gatehouse/internal/crdschema"
	"github.com/gatehouse-dev/gatehouse/internal/kubeversions"
	"github.com/gatehouse-dev/gatehouse/kube"
)

// maxTypesToCheck is the most kinds kube-apiserver's type checker resolves
// for a policy.
const maxTypesToCheck = 10

// TypeCheckOptions are the sources of [Compiler.TypeCheck].
type TypeCheckOptions struct {
	// RESTMapper maps the resources of the policy's matchConstraints to
	// kinds, as kube-controller-manager's discovery mapper does (a resource
	// in the empty group matches every group). Nil is a mapper of every
	// version of every built-in kind, each under the resource
	// meta.UnsafeGuessKindToResource names, as kube-apiserver's tests map
	// them: unlike a cluster's discovery, it also maps the versions a
	// cluster does not serve (alpha APIs are off by default) and the kinds
	// that are no resource (Scale, Eviction...), so a policy may be checked
	// against more kinds than the cluster's controller checks it against.
	// Pass a mapper of the cluster's discovery to check exactly as it does.
	RESTMapper meta.RESTMapper
	// CustomResources are the schemas of custom resources; the kinds of
	// built-in resources are always known. With a nil RESTMapper, their
	// resources are mapped to their kinds too.
	CustomResources *CustomResources
}

// CustomResources are the schemas of the served versions of
// CustomResourceDefinitions, for [Compiler.TypeCheck]. It is safe for
// concurrent use.
type CustomResources struct {
	mu sync.RWMutex
	// kinds is bounded by the served versions of the CRDs added.
	kinds  map[schema.GroupVersionKind]customResource
	mapper *meta.DefaultRESTMapper
}

// customResource is one served version of a CRD.
type customResource struct {
	schema           *crdschema.Props // nil: no schema
	plural, singular string
	scope            meta.RESTScope
}

// NewCustomResources returns an empty set of custom resources.
func NewCustomResources() *CustomResources {
	return &CustomResources{kinds: map[schema.GroupVersionKind]customResource{}, mapper: meta.NewDefaultRESTMapper(nil)}
}

// AddCRD adds the served versions of a CustomResourceDefinition
// (apiextensions.k8s.io/v1, one YAML or JSON document, as kube-apiserver
// accepted it): their schemas, as kube-apiserver publishes them, and their
// resources. A CRD of a kind added before replaces it.
func (r *CustomResources) AddCRD(data []byte) error {
	crd, err := crdschema.Decode(data)
	if err != nil {
		return fmt.Errorf("decoding the CRD: %w", err)
	}
	if crd.Spec.Names.Plural == "" {
		return fmt.Errorf("CRD %s.%s: spec.names.plural is required", crd.Spec.Names.Kind, crd.Spec.Group)
	}
	singular := crd.Spec.Names.Singular
	if singular == "" {
		singular = strings.ToLower(crd.Spec.Names.Kind)
	}
	scope := meta.RESTScopeNamespace
	if crd.Spec.Scope == "Cluster" {
		scope = meta.RESTScopeRoot
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for gvk := range r.kinds {
		if gvk.Group == crd.Spec.Group && gvk.Kind == crd.Spec.Names.Kind {
			delete(r.kinds, gvk)
		}
	}
	for _, v := range crd.Spec.Versions {
		if !v.Served {
			continue
		}
		gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
		cr := customResource{plural: crd.Spec.Names.Plural, singular: singular, scope: scope}
		if v.Schema != nil {
			cr.schema = v.Schema.OpenAPIV3Schema
		}
		r.kinds[gvk] = cr
	}
	r.mapper = meta.NewDefaultRESTMapper(nil)
	for gvk, cr := range r.kinds {
		gv := gvk.GroupVersion()
		r.mapper.AddSpecific(gvk, gv.WithResource(cr.plural), gv.WithResource(cr.singular), cr.scope)
	}
	return nil
}

// decl declares the type of a custom resource's kind; ok is false for
// another kind.
func (r *CustomResources) decl(gvk schema.GroupVersionKind, name string) (*celdecl.Decl, bool) {
	if r == nil {
		return nil, false
	}
	r.mu.RLock()
	cr, ok := r.kinds[gvk]
	r.mu.RUnlock()
	if !ok {
		return nil, false
	}
	return admissioncel.CRDDecl(cr.schema, name), true
}

// kindsFor maps a resource to the kinds of the custom resources.
func (r *CustomResources) kindsFor(gvr schema.GroupVersionResource) ([]schema.GroupVersionKind, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.mapper.KindsFor(gvr)
}

// TypeCheck returns the warnings kube-apiserver's type checker (the
// ValidatingAdmissionPolicy status controller of kube-controller-manager)
// writes into the policy's status.typeChecking.expressionWarnings: each
// validation's expression and messageExpression checked against every kind
// the policy's matchConstraints name (at most 10, resources with wildcards
// or subresources skipped), object and oldObject typed by the kind's schema,
// params by the paramKind's, variables by their expressions. Nil means no
// warning.
func (c *Compiler) TypeCheck(p *admissionregistrationv1.ValidatingAdmissionPolicy, o TypeCheckOptions) []admissionregistrationv1.ExpressionWarning {
	if p == nil {
		return nil
	}
	if o.RESTMapper == nil {
		o.RESTMapper = builtinRESTMapper()
		if o.CustomResources != nil {
			o.RESTMapper = meta.MultiRESTMapper{o.RESTMapper, kindsForMapper{crds: o.CustomResources}}
		}
	}
	ctx := newTypeCheckContext(p, o, c.kube)
	var warnings []admissionregistrationv1.ExpressionWarning
	fieldRef := field.NewPath("spec", "validations")
	for i, v := range p.Spec.Validations {
		if w := ctx.check(v.Expression); w != "" {
			warnings = append(warnings, admissionregistrationv1.ExpressionWarning{FieldRef: fieldRef.Index(i).Child("expression").String(), Warning: w})
		}
		if v.MessageExpression == "" {
			continue
		}
		if w := ctx.check(v.MessageExpression); w != "" {
			warnings = append(warnings, admissionregistrationv1.ExpressionWarning{FieldRef: fieldRef.Index(i).Child("messageExpression").String(), Warning: w})
		}
	}
	return warnings
}

// declType declares the CEL type of a custom resource from its schema (see
// admissioncel.CRDDecl) or of a built-in kind from its Go type (see
// admissioncel.GoTypeDecl). found is false for any other kind, which has no
// schema here (kube-apiserver does not check against a kind without one); a
// schema that declares no type (a root without a type) is a nil Decl, dyn
// in kube-apiserver.
func declType(crds *CustomResources, gvk schema.GroupVersionKind, name string) (d *celdecl.Decl, found bool) {
	if d, ok := crds.decl(gvk, name); ok {
		return d, true
	}
	scheme, err := builtintypes.Scheme()
	if err != nil {
		return nil, false
	}
	t, ok := scheme.AllKnownTypes()[gvk]
	if !ok {
		return nil, false
	}
	return admissioncel.GoTypeDecl(t, name), true
}

// typeName is the name of a kind's object type. kube-apiserver names it
// after the kind and the nanoseconds of the clock when it is built; here
// the nanoseconds are always 0 for the matched kinds and 1 for the params'
// kind, so that the warnings do not change from one run to the next and
// object and params of different versions of one kind have distinct types.
func typeName(kind string) string { return kind + "0" }

// paramsTypeName is the name of the params' type (see typeName).
func paramsTypeName(kind string) string { return kind + "1" }

type typeCheckContext struct {
	gvks      []schema.GroupVersionKind
	decls     []*celdecl.Decl
	hasParams bool
	params    *celdecl.Decl
	variables []admissionregistrationv1.Variable
	// envs are the environments of each kind, with the variables, built
	// on first use.
	envs []*admissioncel.PolicyEnv
	errs []error
}

func newTypeCheckContext(p *admissionregistrationv1.ValidatingAdmissionPolicy, o TypeCheckOptions, t kube.Target) *typeCheckContext {
	ctx := &typeCheckContext{variables: p.Spec.Variables}
	for _, gvk := range typesToCheck(p, o.RESTMapper) {
		d, found := declType(o.CustomResources, gvk, typeName(gvk.Kind))
		if !found {
			continue
		}
		ctx.gvks = append(ctx.gvks, gvk)
		ctx.decls = append(ctx.decls, d)
	}
	if pk := p.Spec.ParamKind; pk != nil {
		if gv, err := schema.ParseGroupVersion(pk.APIVersion); err == nil {
			gvk := gv.WithKind(pk.Kind)
			// kube-apiserver's paramsGVK: an empty group version kind
			// declares no params.
			ctx.hasParams = !gvk.Empty()
			if ctx.hasParams {
				ctx.params, _ = declType(o.CustomResources, gvk, paramsTypeName(gvk.Kind))
				// Before 1.36, params are declared only when their kind's
				// schema resolves.
				if ctx.params == nil && !kubeversions.Has(t, kubeversions.TypeCheckParamsWithoutSchema) {
					ctx.hasParams = false
				}
			}
		}
	}
	ctx.envs = make([]*admissioncel.PolicyEnv, len(ctx.gvks))
	ctx.errs = make([]error, len(ctx.gvks))
	return ctx
}

// env builds the environment of kind i as kube-apiserver's buildEnvSet and
// composited compiler do, and compiles the variables in it.
func (ctx *typeCheckContext) env(i int) (*admissioncel.PolicyEnv, error) {
	if ctx.envs[i] != nil || ctx.errs[i] != nil {
		return ctx.envs[i], ctx.errs[i]
	}
	decls := []func(types.Adapter) *celdecl.Decl{
		func(types.Adapter) *celdecl.Decl { return admissioncel.NamespaceDecl() },
		func(types.Adapter) *celdecl.Decl { return admissioncel.AdmissionRequestDecl() },
	}
	objectType := types.DynType
	if object := ctx.decls[i]; object != nil {
		decls = append(decls, func(types.Adapter) *celdecl.Decl { return object })
		objectType = object.CELType()
	}
	opts := []cel.EnvOption{
		cel.Variable(admissioncel.NamespaceVarName, types.NewObjectType(admissioncel.NamespaceTypeName)),
		cel.Variable(admissioncel.RequestVarName, types.NewObjectType(admissioncel.AdmissionRequestTypeName)),
		cel.Variable(admissioncel.ObjectVarName, objectType),
		cel.Variable(admissioncel.OldObjectVarName, objectType),
	}
	if ctx.hasParams {
		paramsType := types.DynType
		if ctx.params != nil {
			params := ctx.params
			decls = append(decls, func(types.Adapter) *celdecl.Decl { return params })
			paramsType = params.CELType()
		}
		opts = append(opts, cel.Variable(admissioncel.ParamsVarName, paramsType))
	}
	// kube-apiserver's type checker declares authorizer, but not
	// authorizer.requestResource.
	opts = append(opts, cel.Variable(admissioncel.AuthorizerVarName, icel.AuthorizerType))
	opts = append(opts, celdecl.DeclaredTypes(decls...))
	base, err := icel.NewEnv(opts...)
	if err != nil {
		ctx.errs[i] = err
		return nil, err
	}
	vars := celdecl.NewObjectRegistration(admissioncel.VariablesTypeName)
	env, err := admissioncel.WithVariables(base, vars, false, icel.StoredFlavor)
	if err != nil {
		ctx.errs[i] = err
		return nil, err
	}
	for _, v := range ctx.variables {
		checked, cerr := env.Check(v.Expression)
		var typ *types.Type
		if cerr == nil {
			typ = checked.OutputType()
		}
		vars.SetField(v.Name, admissioncel.VariableFieldType(typ))
	}
	ctx.envs[i] = env
	return env, nil
}

// check returns the warning of one expression: for each kind whose check
// fails, "<gvk>: <issues>\n", joined by newlines.
func (ctx *typeCheckContext) check(expression string) string {
	var lines []string
	for i, gvk := range ctx.gvks {
		env, err := ctx.env(i)
		if err != nil {
			// kube-apiserver logs an environment it cannot build and
			// checks against the next kind.
			continue
		}
		if _, cerr := env.Check(expression); cerr != nil {
			lines = append(lines, fmt.Sprintf("%v: %s\n", gvk, strings.TrimPrefix(cerr.Detail, "compilation failed: ")))
		}
	}
	return strings.Join(lines, "\n")
}

// typesToCheck returns the kinds a policy's resource rules name, as
// kube-apiserver's type checker finds them: rules with a wildcard group or
// version are skipped, and resources with a wildcard or a subresource; at
// most maxTypesToCheck kinds are resolved; the kinds come sorted by group,
// version and kind.
func typesToCheck(p *admissionregistrationv1.ValidatingAdmissionPolicy, mapper meta.RESTMapper) []schema.GroupVersionKind {
	mc := p.Spec.MatchConstraints
	if mc == nil || len(mc.ResourceRules) == 0 {
		return nil
	}
	seen := map[schema.GroupVersionKind]bool{}
	var gvks []schema.GroupVersionKind
	done := func() []schema.GroupVersionKind {
		sort.Slice(gvks, func(i, j int) bool {
			a, b := gvks[i], gvks[j]
			if a.Group != b.Group {
				return a.Group < b.Group
			}
			if a.Version != b.Version {
				return a.Version < b.Version
			}
			return a.Kind < b.Kind
		})
		return gvks
	}
	for _, rule := range mc.ResourceRules {
		groups := withoutWildcards(rule.APIGroups, "*", true)
		versions := withoutWildcards(rule.APIVersions, "*", true)
		resources := withoutWildcards(rule.Resources, "*/", false)
		if len(groups) == 0 || len(versions) == 0 || len(resources) == 0 {
			continue
		}
		// kube-apiserver counts the kinds each rule resolves, duplicates
		// included, and stops at the tenth.
		count := 0
		for _, g := range groups {
			for _, v := range versions {
				for _, r := range resources {
					kinds, err := mapper.KindsFor(schema.GroupVersionResource{Group: g, Version: v, Resource: r})
					if err != nil {
						continue
					}
					for _, k := range kinds {
						if k.Empty() {
							continue
						}
						if !seen[k] {
							seen[k] = true
							gvks = append(gvks, k)
						}
						count++
						if count == maxTypesToCheck {
							return done()
						}
					}
				}
			}
		}
	}
	return done()
}

// withoutWildcards returns a sorted copy of list: nil if an entry has one of
// chars and all is set, else without such entries.
func withoutWildcards(list []string, chars string, all bool) []string {
	out := make([]string, 0, len(list))
	for _, s := range list {
		if strings.ContainsAny(s, chars) {
			if all {
				return nil
			}
			continue
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// builtinRESTMapper maps the resources of the built-in kinds to their kinds.
var builtinRESTMapper = sync.OnceValue(func() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	if scheme, err := builtintypes.Scheme(); err == nil {
		for gvk := range scheme.AllKnownTypes() {
			m.Add(gvk, meta.RESTScopeNamespace)
		}
	}
	return m
})

// kindsForMapper is a meta.RESTMapper of custom resources that only maps
// resources to kinds.
type kindsForMapper struct {
	meta.RESTMapper
	crds *CustomResources
}

func (m kindsForMapper) KindsFor(gvr schema.GroupVersionResource) ([]schema.GroupVersionKind, error) {
	return m.crds.kindsFor(gvr)
}
