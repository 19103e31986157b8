package conformance

import (
	"context"
	gojson "encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/types/known/structpb"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/mutation"
	"k8s.io/apiserver/pkg/cel/mutation/dynamic"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"

	"github.com/gatehouse-dev/gatehouse/internal/mutationcel"
)

// The differential test of the CEL part of MutatingAdmissionPolicies:
// compilation of variables and mutations, and evaluation of a mutation into
// its patch (the ApplyConfiguration value that structured-merge-diff then
// types, or the JSON Patch document), against kube-apiserver's composited
// compiler and mutating evaluators.

// mutationCELCase is one policy (variables, one mutation) evaluated on one
// request.
type mutationCELCase struct {
	name       string
	variables  []admissionregistrationv1.Variable
	patchType  admissionregistrationv1.PatchType
	expression string
	params     map[string]any
	object     map[string]any
	oldObject  map[string]any
	namespace  *corev1.Namespace
	// typed admits the object as kube-apiserver admits a built-in kind: as
	// its Go type, seen through the schemaless typed view that match
	// conditions switch it to (gatehouse: Input.TypedView).
	typed bool
}

// typedObject is the Go object of an unstructured built-in object.
func typedObject(t testing.TB, u map[string]any) runtime.Object {
	t.Helper()
	gvk := (&unstructured.Unstructured{Object: u}).GroupVersionKind()
	obj, err := scheme.Scheme.New(gvk)
	require.NoError(t, err)
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(u, obj))
	return obj
}

// unstructuredOf is the unstructured form of a typed object.
func unstructuredOf(t testing.TB, obj runtime.Object) map[string]any {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	require.NoError(t, err)
	return m
}

// kubeMutationOutcome evaluates a case with kube-apiserver's compiler and
// evaluator, and builds the patch as its patchers do before applying it.
func kubeMutationOutcome(t testing.TB, c mutationCELCase) (applyConfiguration map[string]any, jsonPatch []byte, err error) {
	return kubeMutationEvaluator(t, c)()
}

// kubeMutationEvaluator compiles a case with kube-apiserver's composited
// compiler and returns its evaluation.
func kubeMutationEvaluator(t testing.TB, c mutationCELCase) func() (map[string]any, []byte, error) {
	t.Helper()
	compiler, cerr := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	require.NoError(t, cerr)
	opts := plugincel.OptionalVariableDeclarations{HasParams: c.params != nil, HasAuthorizer: true}
	var vars []plugincel.NamedExpressionAccessor
	for _, v := range c.variables {
		vars = append(vars, &validating.Variable{Name: v.Name, Expression: v.Expression})
	}
	compiler.CompileAndStoreVariables(vars, opts, environment.StoredExpressions)
	opts.HasPatchTypes = true
	var accessor plugincel.ExpressionAccessor
	if c.patchType == admissionregistrationv1.PatchTypeJSONPatch {
		accessor = &patch.JSONPatchCondition{Expression: c.expression}
	} else {
		accessor = &patch.ApplyConfigurationCondition{Expression: c.expression}
	}
	evaluator := compiler.CompileMutatingEvaluator(accessor, opts, environment.StoredExpressions)
	if errs := evaluator.CompilationErrors(); len(errs) > 0 {
		return func() (map[string]any, []byte, error) { return nil, nil, errors.Join(errs...) }
	}
	obj := &unstructured.Unstructured{Object: c.object}
	gvk := obj.GroupVersionKind()
	gvr := schema.GroupVersionResource{Group: gvk.Group, Version: gvk.Version, Resource: strings.ToLower(gvk.Kind) + "s"}
	var old *unstructured.Unstructured
	operation := admission.Create
	if c.oldObject != nil {
		old = &unstructured.Unstructured{Object: c.oldObject}
		operation = admission.Update
	}
	attrs := admission.NewAttributesRecord(obj, oldOrNil(old), gvk, obj.GetNamespace(), obj.GetName(), gvr, "", operation, nil, false,
		&user.DefaultInfo{Name: "alice", Groups: []string{"dev"}})
	versioned := &admission.VersionedAttributes{Attributes: attrs, VersionedObject: admission.NewLazyObject(obj), VersionedKind: gvk}
	if old != nil {
		versioned.VersionedOldObject = admission.NewLazyObject(old)
	}
	if c.typed {
		versioned.VersionedObject = admission.NewLazyObject(typedObject(t, c.object))
		//lint:ignore SA1019 kube-apiserver's match conditions set it, as here
		versioned.VersionedObject.UseSchemalessTypeRef = true
		if old != nil {
			versioned.VersionedOldObject = admission.NewLazyObject(typedObject(t, c.oldObject))
			//lint:ignore SA1019 as above
			versioned.VersionedOldObject.UseSchemalessTypeRef = true
		}
	}
	request := plugincel.CreateAdmissionRequest(attrs, metav1.GroupVersionResource(gvr), metav1.GroupVersionKind(gvk))
	bindings := plugincel.OptionalVariableBindings{}
	if c.params != nil {
		bindings.VersionedParams = &unstructured.Unstructured{Object: c.params}
	}
	return func() (map[string]any, []byte, error) {
		result, _, err := evaluator.ForInput(compiler.CreateContext(context.Background()), versioned, request, bindings, c.namespace, celconfig.RuntimeCELCostBudget)
		if err != nil {
			return nil, nil, err
		}
		if result.Error != nil {
			return nil, nil, result.Error
		}
		if c.patchType == admissionregistrationv1.PatchTypeJSONPatch {
			b, err := kubeJSONPatch(result.EvalResult)
			return nil, b, err
		}
		objVal, ok := result.EvalResult.(*dynamic.ObjectVal)
		if !ok {
			return nil, nil, fmt.Errorf("unsupported return type from ApplyConfiguration expression: %v", result.EvalResult.Type())
		}
		if err := objVal.CheckTypeNamesMatchFieldPathNames(); err != nil {
			return nil, nil, fmt.Errorf("type mismatch: %w", err)
		}
		value, ok := objVal.Value().(map[string]any)
		if !ok {
			return nil, nil, fmt.Errorf("invalid return type: %T", result.EvalResult)
		}
		return value, nil, nil
	}
}

// kubeCompileSidecar compiles a policy as kube-apiserver's compilePolicy
// does (it is not exported): a composited compiler on the base environment,
// the variables, the match conditions into a matcher, each mutation.
func kubeCompileSidecar(t testing.TB, pol *admissionregistrationv1.MutatingAdmissionPolicy) []error {
	compiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	require.NoError(t, err)
	opts := plugincel.OptionalVariableDeclarations{HasParams: pol.Spec.ParamKind != nil, HasAuthorizer: true}
	var vars []plugincel.NamedExpressionAccessor
	for _, v := range pol.Spec.Variables {
		vars = append(vars, &validating.Variable{Name: v.Name, Expression: v.Expression})
	}
	compiler.CompileAndStoreVariables(vars, opts, environment.StoredExpressions)
	var errs []error
	if len(pol.Spec.MatchConditions) > 0 {
		accessors := make([]plugincel.ExpressionAccessor, len(pol.Spec.MatchConditions))
		for i := range pol.Spec.MatchConditions {
			accessors[i] = (*matchconditions.MatchCondition)(&pol.Spec.MatchConditions[i])
		}
		cond := compiler.CompileCondition(accessors, opts, environment.StoredExpressions)
		_ = matchconditions.NewMatcher(cond, pol.Spec.FailurePolicy, "policy", "validate", pol.Name)
		errs = append(errs, cond.CompilationErrors()...)
	}
	opts.HasPatchTypes = true
	for _, m := range pol.Spec.Mutations {
		if m.ApplyConfiguration != nil {
			ev := compiler.CompileMutatingEvaluator(&patch.ApplyConfigurationCondition{Expression: m.ApplyConfiguration.Expression}, opts, environment.StoredExpressions)
			errs = append(errs, ev.CompilationErrors()...)
		}
		if m.JSONPatch != nil {
			ev := compiler.CompileMutatingEvaluator(&patch.JSONPatchCondition{Expression: m.JSONPatch.Expression}, opts, environment.StoredExpressions)
			errs = append(errs, ev.CompilationErrors()...)
		}
	}
	return errs
}

// oldOrNil keeps a nil old object a nil interface.
func oldOrNil(o *unstructured.Unstructured) runtime.Object {
	if o == nil {
		return nil
	}
	return o
}

// kubeJSONPatch builds the JSON Patch of a JSONPatch expression's value as
// kube-apiserver's jsonPatcher does (its evaluatePatchExpression, which is
// not exported), encoded.
func kubeJSONPatch(val any) ([]byte, error) {
	iter, ok := val.(traits.Lister)
	if !ok {
		return nil, fmt.Errorf("type mismatch: JSONPatchType.expression should evaluate to array")
	}
	var ops []map[string]*gojson.RawMessage
	raw := func(s string) *gojson.RawMessage { m := gojson.RawMessage(s); return &m }
	for it := iter.Iterator(); it.HasNext() == types.True; {
		native, err := it.Next().ConvertToNative(reflect.TypeOf(&mutation.JSONPatchVal{}))
		if err != nil {
			return nil, fmt.Errorf("type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch: %w", err)
		}
		op := native.(*mutation.JSONPatchVal)
		o := map[string]*gojson.RawMessage{"op": raw(strconv.Quote(op.Op)), "path": raw(strconv.Quote(op.Path))}
		if op.From != "" {
			o["from"] = raw(strconv.Quote(op.From))
		}
		if op.Val != nil {
			if objVal, ok := op.Val.(*dynamic.ObjectVal); ok {
				if err := objVal.CheckTypeNamesMatchFieldPathNames(); err != nil {
					return nil, fmt.Errorf("type mismatch: %w", err)
				}
			}
			v, err := op.Val.ConvertToNative(reflect.TypeOf(&structpb.Value{}))
			if err != nil {
				return nil, fmt.Errorf("JSONPath valueExpression evaluated to a type that could not marshal to JSON: %w", err)
			}
			b, err := gojson.Marshal(v)
			if err != nil {
				return nil, fmt.Errorf("JSONPath valueExpression evaluated to a type that could not marshal to JSON: %w", err)
			}
			o["value"] = raw(string(b))
		}
		ops = append(ops, o)
	}
	if ops == nil {
		return []byte("[]"), nil
	}
	return gojson.Marshal(ops)
}

// gatehouseMutationOutcome evaluates a case with gatehouse.
func gatehouseMutationOutcome(t testing.TB, compiler *mutationcel.Compiler, c mutationCELCase) (map[string]any, []byte, error) {
	out, err := gatehouseMutationEvaluator(t, compiler, c)(context.Background())
	return out.ApplyConfiguration, out.JSONPatch, err
}

// gatehouseMutationEvaluator compiles a case with gatehouse and returns its
// evaluation.
func gatehouseMutationEvaluator(t testing.TB, compiler *mutationcel.Compiler, c mutationCELCase) func(context.Context) (mutationcel.Patch, error) {
	t.Helper()
	pol := &admissionregistrationv1.MutatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "p"}}
	pol.Spec.Variables = c.variables
	if c.params != nil {
		pol.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
	}
	m := admissionregistrationv1.Mutation{PatchType: c.patchType}
	if c.patchType == admissionregistrationv1.PatchTypeJSONPatch {
		m.JSONPatch = &admissionregistrationv1.JSONPatch{Expression: c.expression}
	} else {
		m.ApplyConfiguration = &admissionregistrationv1.ApplyConfiguration{Expression: c.expression}
	}
	pol.Spec.Mutations = []admissionregistrationv1.Mutation{m}
	p := compiler.Compile(pol)
	require.Equal(t, 1, p.MutationCount())
	obj := &unstructured.Unstructured{Object: c.object}
	gvk := obj.GroupVersionKind()
	operation := admissionv1.Create
	if c.oldObject != nil {
		operation = admissionv1.Update
	}
	gvr := metav1.GroupVersionResource{Group: gvk.Group, Version: gvk.Version, Resource: strings.ToLower(gvk.Kind) + "s"}
	mgvk := metav1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind}
	in := &mutationcel.Input{
		Request: &admissionv1.AdmissionRequest{
			Kind: mgvk, Resource: gvr, RequestKind: &mgvk, RequestResource: &gvr,
			Name: obj.GetName(), Namespace: obj.GetNamespace(), Operation: operation,
			UserInfo: authenticationUser("alice", "dev"),
			DryRun:   ptrTo(false),
		},
		Object:    c.object,
		OldObject: c.oldObject,
		Params:    c.params,
		Namespace: c.namespace,
		TypedView: c.typed,
	}
	if c.typed {
		in.Object = unstructuredOf(t, typedObject(t, c.object))
		if c.oldObject != nil {
			in.OldObject = unstructuredOf(t, typedObject(t, c.oldObject))
		}
	}
	return func(ctx context.Context) (mutationcel.Patch, error) { return p.EvaluateMutation(ctx, 0, in) }
}

func authenticationUser(name string, groups ...string) authenticationv1.UserInfo {
	return authenticationv1.UserInfo{Username: name, Groups: groups}
}

// mutationApplyConfigExprs are ApplyConfiguration expressions of the spec,
// of its quirks and of their errors.
var mutationApplyConfigExprs = []string{
	`Object{spec: Object.spec{initContainers: [Object.spec.initContainers{name: "mesh-proxy", image: "mesh/proxy:v1.0.0", args: ["proxy", "sidecar"], restartPolicy: "Always"}]}}`,
	`Object{metadata: Object.metadata{labels: {"copied": object.metadata.labels.app}}}`,
	`Object{metadata: Object.metadata{annotations: {"k": jsonpatch.escapeKey("k8s.io/x~y")}}}`,
	`Object{spec: Object.spec{containers: [Object.spec.containers.item{name: "x"}]}}`,
	`Object{spec: Object.spec{containers: [Object.spec.containers{name: "x"}, Object.spec.initContainers{name: "y"}]}}`,
	`Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers.item{name: "x"}]}}}}`,
	`"x"`,
	`Object.spec.metadata{}`,
	`dyn(Object{})`,
	`Object{}`,
	`Object{spec: {"replicas": 3}}`,
	`Object{spec: {"template": {"spec": {"x": 1}}}}`,
	`Object{spec: Object.spec{containers: [{"name": "x"}]}}`,
	`Object{spec: Object.spec{replicas: null}}`,
	`Object{metadata: Object.metadata{labels: {"a": object.metadata.missing}}}`,
	`Object{spec: Object.spec{containers: object.spec.containers}}`,
	`Object{spec: object.spec}`,
	`Object{metadata: Object.metadata{?labels: optional.none()}}`,
	`Object{metadata: Object.metadata{?labels: optional.of({"x": "y"})}}`,
	`Object{spec: Object.spec{x: [[1, 2], [3]]}}`,
	`Object{spec: Object.spec{x: {"a": [1]}}}`,
	`Object{spec: Object.spec{y: [{"b": 2}]}}`,
	`Object{spec: Object.spec{containers: [Object.spec.containers{name: "app", env: [{"name": "A"}]}]}}`,
	`Object{spec: Object.spec{containers: [Object.spec.containers{name: "app", image: "app:2"}, Object.spec.containers{name: "side", image: "side:1"}]}}`,
	`Object{spec: Object.spec{containers: [Object.spec.containers{name: "d"}, Object.spec.containers{name: "d"}]}}`,
	`Object{spec: Object.spec{containers: [Object.spec.containers{name: "app", ports: [Object.spec.containers.ports{containerPort: 80, protocol: "TCP"}]}]}}`,
	`Object{spec: Object.spec{template: Object.spec.template{metadata: Object.spec.template.metadata{labels: {"new": "x"}}}}}`,
	`Object{spec: Object.spec{selector: Object.spec.selector{matchLabels: {"a": "b"}}}}`,
	`Object{spec: Object.spec{nodeSelector: {"disk": "ssd"}}}`,
	`Object{spec: Object.spec{replicas: "three"}}`,
	`Object{spec: Object.spec{replicasx: 1}}`,
	`Object{metadata: Object.metadata{labels: {"a": 1}}}`,
	`Object{apiVersion: "v2", kind: "Other", metadata: Object.metadata{labels: {"k": "v"}}}`,
	`Object{spec: Object.spec{tolerations: [Object.spec.tolerations{key: "k", operator: "Exists"}]}}`,
	`Object{spec: Object.spec{x: {1: "a"}}}`,
	`Object{spec: Object.spec{x: [Object.spec.x{a: {"b": Object.spec.x.a{}}}]}}`,
	`Object{status: Object.status{replicas: 5}}`,
	`Object{spec: Object.spec{replicas: 2.0}}`,
	`Object{spec: Object.spec{minReadySeconds: 10u}}`,
	`Object{metadata: Object.metadata{annotations: {"d": duration("1s")}}}`,
	`Object{metadata: Object.metadata{creationTimestamp: timestamp("2024-01-01T00:00:00Z")}}`,
	`Object{metadata: Object.metadata{annotations: {"b": b"abc"}}}`,
	`Object{metadata: Object.metadata{labels: {"ns": namespaceObject.metadata.labels.env, "op": request.operation, "user": request.userInfo.username}}}`,
	`Object{metadata: Object.metadata{labels: {"team": params.data.label}}}`,
	`Object{metadata: Object.metadata{name: object.metadata.name + "-" + string(size(object.spec.containers))}}`,
	`has(object.spec.replicas) ? Object{spec: Object.spec{replicas: object.spec.replicas + 1}} : Object{}`,
	`Object{spec: Object.spec{x: Object{a: 1}.a}}`,
	`Object{spec: Object.spec{x: has(Object{a: 1}.a)}}`,
	`Object{spec: Object.spec{x: Object{a: 1} == Object{a: 1}}}`,
	`Object{spec: Object.spec{x: Object{a: 1} == Object.x{a: 1}}}`,
	`Object{spec: Object.spec{x: [1, 2].map(i, Object.spec.x{v: i})}}`,
	`Object{spec: Object.spec{x: {"a": Object.spec.x{v: 1}}}}`,
	`Object{metadata: Object.metadata{labels: object.metadata.labels.transformMap(k, v, v + "-x")}}`,
	`Object{spec: Object.spec{x: [1,2,3].all(i, i > 0)}}`,
	`Object{metadata: Object.metadata{labels: {"v1": variables.v1, "v2": string(variables.v2)}}}`,
	`Object{spec: Object.spec{x: variables.bad}}`,
	`Object{spec: Object.spec{x: variables.nocompile}}`,
	`Object{spec: Object.spec{x: variables.missing}}`,
	`Object{spec: Object.spec{x: [1,2,3,4,5,6,7,8,9,10].map(a, [1,2,3,4,5,6,7,8,9,10].map(b, [1,2,3,4,5,6,7,8,9,10].map(c, [1,2,3,4,5,6,7,8,9,10].map(d, [1,2,3,4,5,6,7,8,9,10].map(e, a))))))}}`,
	`Object{spec: Object.spec{x: authorizer.group("").resource("pods").check("get").allowed()}}`,
	`Object{`,
	`Object{spec: Object.spec{x: Object.spec.y{}}}`,
	`Object{spec: Object.spec{x: oldObject.metadata.name}}`,
	`Object{spec: Object.spec{x: [1, 2].includes(1)}}`,
}

// mutationJSONPatchExprs are JSONPatch expressions of the same kind.
var mutationJSONPatchExprs = []string{
	`[JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("example.com/x"), value: "y"}]`,
	`[JSONPatch{op: "copy", from: "/a", path: "/b"}, JSONPatch{op: "add", path: "/spec/x", value: Object.spec.x{a: [dyn(1), dyn(2.5), dyn("s")], b: {"c": true}}}]`,
	`[JSONPatch{op: "add", path: "/x", value: 1}].filter(x, false)`,
	`[]`,
	`dyn([])`,
	`[JSONPatch{op: "add", path: "/x"}][0]`,
	`[JSONPatch{op: 1, path: "/x"}]`,
	`[JSONPatch{op: "add", foo: 1}]`,
	`[JSONPatch{op: "invalid", path: "no-slash"}]`,
	`[JSONPatch{op: "add", path: "/spec/x", value: Object.spec.y{a: 1}}]`,
	`[JSONPatch{op: "add", path: "/spec/x", value: Object.spec.x{a: Object.spec.x.b{}}}]`,
	`[JSONPatch{op: "add", path: "/spec/x", value: {"a": 1, "b": [null, 2.5, -3, 9007199254740993]}}]`,
	`[JSONPatch{op: "add", path: "/spec/x", value: object.spec.containers}]`,
	`[JSONPatch{op: "add", path: "/spec/x", value: null}]`,
	`[JSONPatch{op: "add", path: "/spec/x", value: duration("1s")}]`,
	`[JSONPatch{op: "add", path: "/spec/x", value: b"abc"}]`,
	`[JSONPatch{op: "add", path: "/spec/x", value: 1u}]`,
	`[JSONPatch{op: "add", path: "/spec/x", value: {1: 2}}]`,
	`[JSONPatch{op: "add", path: "/é\"\\/x", value: "\u2028"}]`,
	`[JSONPatch{op: "test", path: "/metadata/name", value: "web"}, JSONPatch{op: "replace", path: "/metadata/name", value: "x"}]`,
	`object.spec.containers.map(c, JSONPatch{op: "add", path: "/metadata/labels/" + c.name, value: c.image})`,
	`[JSONPatch{op: "add", path: "/metadata/labels/p", value: params.data.image}]`,
	`[JSONPatch{op: "add", path: "/metadata/labels/p", value: variables.v1}]`,
	`[JSONPatch{op: "add", path: "/x", value: JSONPatch{op: "add"}.op}, JSONPatch{op: "add", path: "/y", value: has(JSONPatch{op: "add"}.path)}]`,
	`[JSONPatch{op: "add", path: "/x", value: JSONPatch{op: "add", value: 1} == JSONPatch{op: "add", value: 1}}]`,
	`[JSONPatch{op: "add", path: "/x", value: Object{}}]`,
	`[JSONPatch{op: "foo", path: "/metadata/labels/a", value: "x"}]`,
	`[JSONPatch{op: "add", path: "", value: "x"}]`,
	`[JSONPatch{op: "add", path: "/metadata/annotations/a", value: "x"}]`,
	`[JSONPatch{op: "remove", path: "/metadata/annotations/x"}]`,
	`[JSONPatch{op: "remove", path: "/metadata/labels/zz"}]`,
	`[JSONPatch{op: "add", path: "/spec/containers/5", value: {"name": "x", "image": "y"}}]`,
	`[JSONPatch{op: "replace", path: "/spec/containers/-", value: {"name": "x", "image": "y"}}]`,
	`[JSONPatch{op: "move", path: "/metadata/labels/b"}]`,
	`[JSONPatch{op: "copy", from: "/metadata/missing", path: "/metadata/labels/b"}]`,
	`[JSONPatch{op: "copy", from: "/metadata/name", path: "/metadata/labels/copied"}]`,
	`[JSONPatch{op: "add", path: "/spec/containers/-", value: {"name": "side", "image": "side:1"}}]`,
	`[JSONPatch{op: "add", path: "/spec/containers/-1", value: {"name": "neg", "image": "n:1"}}]`,
	`[JSONPatch{op: "add", path: "/spec/containers/00", value: {"name": "z", "image": "z:1"}}]`,
	`[JSONPatch{op: "add", path: "spec/replicas", value: 4}]`,
	`[JSONPatch{op: "add", path: "/metadata/labels/a", value: "1"}, JSONPatch{op: "test", path: "/metadata/name", value: "other"}]`,
	`[JSONPatch{op: "add", path: "/spec/bogus", value: 1}]`,
	`[JSONPatch{op: "replace", path: "/spec/replicas", value: "many"}]`,
	`[JSONPatch{op: "replace", path: "/metadata/name", value: null}]`,
	`[JSONPatch{op: "remove", path: "/metadata/labels"}, JSONPatch{op: "add", path: "/metadata/labels", value: {"only": "me"}}]`,
	`[JSONPatch{op: "replace", path: "/kind", value: "Other"}]`,
}

// mutationCELVariables are the variables of the corpus' policies.
var mutationCELVariables = []admissionregistrationv1.Variable{
	{Name: "v1", Expression: `object.metadata.name + "-v"`},
	{Name: "v2", Expression: `variables.v1.size()`},
	{Name: "bad", Expression: `object.nope`},
	{Name: "nocompile", Expression: `Object{}`},
}

// mutationCELCorpus is the corpus: expressions of the spec and of published
// policies, on a Pod and a Deployment.
func mutationCELCorpus(t *testing.T) []mutationCELCase {
	pod := func() map[string]any {
		return map[string]any{
			"apiVersion": "v1", "kind": "Pod",
			"metadata": map[string]any{"name": "web", "namespace": "default", "labels": map[string]any{"app": "web"},
				"annotations": map[string]any{"example.com/a": "1"}},
			"spec": map[string]any{
				"containers":     []any{map[string]any{"name": "app", "image": "nginx", "args": []any{"a"}}},
				"initContainers": []any{map[string]any{"name": "init", "image": "busybox"}},
			},
		}
	}
	deployment := func() map[string]any {
		return map[string]any{
			"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": map[string]any{"name": "api", "namespace": "prod", "labels": map[string]any{"tier": "api"}},
			"spec": map[string]any{"replicas": int64(1), "selector": map[string]any{"matchLabels": map[string]any{"app": "api"}},
				"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "api"}},
					"spec": map[string]any{"containers": []any{map[string]any{"name": "api", "image": "api:1"}}}}},
		}
	}
	params := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "cfg"},
		"data": map[string]any{"image": "proxy:2", "label": "team-a"}}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default", Labels: map[string]string{"env": "prod"}}}

	applyConfig, jsonPatch := mutationApplyConfigExprs, mutationJSONPatchExprs
	variables := mutationCELVariables
	var cases []mutationCELCase
	for _, obj := range []func() map[string]any{pod, deployment} {
		for i, e := range applyConfig {
			cases = append(cases, mutationCELCase{name: fmt.Sprintf("applyConfiguration/%d", i), patchType: admissionregistrationv1.PatchTypeApplyConfiguration,
				expression: e, object: obj(), variables: variables, params: params, namespace: ns})
		}
		for i, e := range jsonPatch {
			cases = append(cases, mutationCELCase{name: fmt.Sprintf("jsonPatch/%d", i), patchType: admissionregistrationv1.PatchTypeJSONPatch,
				expression: e, object: obj(), variables: variables, params: params, namespace: ns})
		}
		// Without params, without a namespace, on update.
		cases = append(cases,
			mutationCELCase{name: "no params", patchType: admissionregistrationv1.PatchTypeApplyConfiguration,
				expression: `Object{metadata: Object.metadata{labels: {"team": params.data.label}}}`, object: obj()},
			mutationCELCase{name: "null namespace", patchType: admissionregistrationv1.PatchTypeApplyConfiguration,
				expression: `Object{metadata: Object.metadata{labels: {"n": string(namespaceObject == null)}}}`, object: obj()},
			mutationCELCase{name: "update", patchType: admissionregistrationv1.PatchTypeApplyConfiguration,
				expression: `Object{metadata: Object.metadata{labels: {"old": oldObject.metadata.name}}}`, object: obj(), oldObject: obj()},
		)
	}
	// The Pod as a typed object, in the view match conditions leave.
	for i, e := range applyConfig {
		cases = append(cases, mutationCELCase{name: fmt.Sprintf("typed/applyConfiguration/%d", i), patchType: admissionregistrationv1.PatchTypeApplyConfiguration,
			expression: e, object: pod(), variables: variables, params: params, namespace: ns, typed: true})
	}
	for i, e := range jsonPatch {
		cases = append(cases, mutationCELCase{name: fmt.Sprintf("typed/jsonPatch/%d", i), patchType: admissionregistrationv1.PatchTypeJSONPatch,
			expression: e, object: pod(), variables: variables, params: params, namespace: ns, typed: true})
	}
	cases = append(cases, mutationCELCase{name: "typed/update", patchType: admissionregistrationv1.PatchTypeJSONPatch,
		expression: `[JSONPatch{op: "add", path: "/x", value: oldObject.metadata.labels}]`, object: pod(), oldObject: pod(), typed: true})
	return append(cases, realworldMutationCELCases(t, pod(), params, ns)...)
}

// realworldMutationCELCases are the mutations of the published policies.
func realworldMutationCELCases(t *testing.T, object, params map[string]any, ns *corev1.Namespace) []mutationCELCase {
	dir := filepath.Join("..", "mutation", "testdata", "realworld")
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files, dir)
	var cases []mutationCELCase
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, doc := range strings.Split(string(data), "\n---") {
			var pol admissionregistrationv1.MutatingAdmissionPolicy
			if err := yaml.Unmarshal([]byte(doc), &pol); err != nil || pol.Kind != "MutatingAdmissionPolicy" {
				continue
			}
			var p map[string]any
			if pol.Spec.ParamKind != nil {
				p = params
			}
			for i, m := range pol.Spec.Mutations {
				c := mutationCELCase{name: fmt.Sprintf("%s/%d", filepath.Base(f), i), patchType: m.PatchType, variables: pol.Spec.Variables,
					object: object, params: p, namespace: ns}
				switch {
				case m.ApplyConfiguration != nil:
					c.expression = m.ApplyConfiguration.Expression
				case m.JSONPatch != nil:
					c.expression = m.JSONPatch.Expression
				default:
					continue
				}
				cases = append(cases, c)
			}
		}
	}
	return cases
}

// comparableCEL makes a patch value comparable with assert.Equal: the CEL
// values that kube-apiserver leaves in it (a map literal nested in a map
// literal, say) are replaced by their type and their own comparable form.
func comparableCEL(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = comparableCEL(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = comparableCEL(e)
		}
		return out
	case map[ref.Val]ref.Val:
		out := map[string]any{}
		for k, e := range v {
			out[fmt.Sprintf("%T:%v", k, k.Value())] = comparableCEL(e)
		}
		return map[string]any{"map[ref.Val]ref.Val": out}
	case []ref.Val:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = comparableCEL(e)
		}
		return map[string]any{"[]ref.Val": out}
	case ref.Val:
		inner := v.Value()
		if iv, ok := inner.(ref.Val); ok && iv == v {
			return fmt.Sprintf("%T:%v", v, v)
		}
		return map[string]any{fmt.Sprintf("%T", v): comparableCEL(inner)}
	}
	return v
}

func TestMutationCELMatchesKubeAPIServer(t *testing.T) {
	compiler, err := mutationcel.NewCompiler()
	require.NoError(t, err)
	cases := mutationCELCorpus(t)
	var applied, patched, failed int
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantAC, wantJP, wantErr := kubeMutationOutcome(t, c)
			gotAC, gotJP, gotErr := gatehouseMutationOutcome(t, compiler, c)
			if wantErr != nil {
				failed++
				require.Error(t, gotErr, "expression %s", c.expression)
				assert.Equal(t, wantErr.Error(), gotErr.Error(), "expression %s", c.expression)
				return
			}
			require.NoError(t, gotErr, "expression %s", c.expression)
			if c.patchType == admissionregistrationv1.PatchTypeJSONPatch {
				patched++
				assert.JSONEq(t, string(wantJP), string(gotJP), "expression %s", c.expression)
				return
			}
			applied++
			assert.Equal(t, comparableCEL(wantAC), comparableCEL(gotAC), "expression %s", c.expression)
		})
	}
	t.Logf("%d cases: %d ApplyConfiguration values, %d JSON patches, %d errors", len(cases), applied, patched, failed)
	assert.GreaterOrEqual(t, applied, 40)
	assert.GreaterOrEqual(t, patched, 20)
	assert.GreaterOrEqual(t, failed, 30)
}
