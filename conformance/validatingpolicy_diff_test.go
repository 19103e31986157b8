package conformance

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/utils/ptr"

	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/gatehouse-dev/gatehouse/validatingpolicy"
)

// vapWorld is one cluster state: policies, bindings, namespaces and
// ConfigMap params, and the requests made to it.
type vapWorld struct {
	name     string
	static   bool
	policies []*admissionregistrationv1.ValidatingAdmissionPolicy
	bindings []*admissionregistrationv1.ValidatingAdmissionPolicyBinding
	objects  []runtime.Object
	requests []vapRequest
}

// vapRequest is one admission request of a world, with typed objects.
type vapRequest struct {
	name        string
	operation   admission.Operation
	object, old runtime.Object
	resource    string
	subresource string
	user        *user.DefaultInfo
	dryRun      bool
	options     runtime.Object
	// kind, objName and namespace are set for a CONNECT, whose object (the
	// options) has neither the resource's kind nor metadata.
	kind               schema.GroupVersionKind
	objName, namespace string
}

// vapSetup is a world in both implementations.
type vapSetup struct {
	kube *kubeVAP
	ours *validatingpolicy.Dispatcher
}

func newVAPSetup(t testing.TB, w *vapWorld, compiler *validatingpolicy.Compiler) *vapSetup {
	t.Helper()
	return &vapSetup{
		kube: newKubeVAP(t, w.policies, w.bindings, w.static, w.objects...),
		ours: newGatehouseVAP(t, w, compiler, kube.Target{}),
	}
}

// newGatehouseVAP is gatehouse's dispatcher over a world, answering as
// target: ConfigMaps are the only paramKind known, the widgets' versions
// are equivalent.
func newGatehouseVAP(t testing.TB, w *vapWorld, compiler *validatingpolicy.Compiler, target kube.Target) *validatingpolicy.Dispatcher {
	t.Helper()
	var params []runtime.Object
	namespaces := map[string]*corev1.Namespace{}
	for _, o := range w.objects {
		switch o := o.(type) {
		case *corev1.Namespace:
			namespaces[o.Name] = o
		case *corev1.ConfigMap:
			// The informer's objects carry no apiVersion and kind.
			u := mdUnstructured(t, o)
			u.SetAPIVersion("v1")
			u.SetKind("ConfigMap")
			delete(u.Object, "apiVersion")
			delete(u.Object, "kind")
			params = append(params, &paramObject{u})
		}
	}
	configMaps := validatingpolicy.NewParamObjects(nil, params...)
	d, err := validatingpolicy.NewDispatcher(w.policies, w.bindings, validatingpolicy.Options{
		Compiler: compiler,
		Kube:     target,
		Params: validatingpolicy.ParamSourceFunc(func(kind schema.GroupVersionKind) (validatingpolicy.Params, error) {
			if kind != corev1.SchemeGroupVersion.WithKind("ConfigMap") {
				return nil, validatingpolicy.ErrParamKindNotKnown
			}
			return configMaps.Params(kind)
		}),
		Namespaces: validatingpolicy.NamespaceLookupFunc(func(_ context.Context, name string) (*corev1.Namespace, error) {
			if ns, ok := namespaces[name]; ok {
				return ns, nil
			}
			return nil, apierrors.NewNotFound(corev1.Resource("namespaces"), name)
		}),
		Authorizer:  gatehouseAllowAll{},
		Static:      w.static,
		Equivalents: vapEquivalents,
		Converter:   validatingpolicy.ConverterFunc(convertWidget),
	})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// paramObject is a ConfigMap param as the informer holds it: typed (its
// apiVersion and kind empty), so kube-apiserver adds the paramKind's; the
// source is keyed by kind, hence the GroupVersionKind answered here.
type paramObject struct{ *unstructured.Unstructured }

func (p *paramObject) GetObjectKind() schema.ObjectKind { return configMapKind{} }

type configMapKind struct{}

func (configMapKind) SetGroupVersionKind(schema.GroupVersionKind) {}
func (configMapKind) GroupVersionKind() schema.GroupVersionKind {
	return corev1.SchemeGroupVersion.WithKind("ConfigMap")
}

func TestValidatingPolicyMatchesKubeAPIServer(t *testing.T) {
	compiler, err := validatingpolicy.NewCompiler()
	if err != nil {
		t.Fatal(err)
	}
	worlds := vapGenerate(rand.New(rand.NewSource(37)), 60, 24)
	cases, denied, warned, annotated := 0, 0, 0, 0
	// Requests that reached the rarer paths: a budget run out, an object
	// converted to an equivalent version, a CONNECT.
	budget, converted, connects := 0, 0, 0
	for wi := range worlds {
		w := &worlds[wi]
		t.Run(w.name, func(t *testing.T) {
			s := newVAPSetup(t, w, compiler)
			for ri := range w.requests {
				r := &w.requests[ri]
				t.Run(r.name, func(t *testing.T) {
					want := vapCompare(t, s, r)
					cases++
					if want.err != nil {
						denied++
					}
					if len(want.warnings) > 0 {
						warned++
					}
					if len(want.annotations) > 0 {
						annotated++
					}
					text := fmt.Sprint(want.err, want.warnings, want.annotations)
					if strings.Contains(text, "running out of cost budget") {
						budget++
					}
					if strings.Contains(text, "request in v2") {
						converted++
					}
					if r.operation == admission.Connect && (want.err != nil || len(want.warnings) > 0) {
						connects++
					}
				})
			}
		})
	}
	t.Logf("%d requests: %d denied, %d with warnings, %d with audit annotations; %d out of budget, %d converted, %d CONNECTs acted on", cases, denied, warned, annotated, budget, converted, connects)
	if denied < cases/10 || warned < cases/20 || annotated < cases/20 || budget == 0 || converted == 0 || connects == 0 {
		t.Errorf("the corpus is too tame: %d requests, %d denied, %d warned, %d annotated, %d out of budget, %d converted, %d CONNECTs", cases, denied, warned, annotated, budget, converted, connects)
	}
}

// vapCompare validates one request in both and compares everything.
func vapCompare(t *testing.T, s *vapSetup, r *vapRequest) kubeVAPOutcome {
	t.Helper()
	id := vapIdentityOf(r)
	var obj, old runtime.Object
	if r.object != nil {
		obj = r.object.DeepCopyObject()
	}
	if r.old != nil {
		old = r.old.DeepCopyObject()
	}
	attrs := admission.NewAttributesRecord(obj, old, id.kind, id.namespace, id.name, id.resource, r.subresource, r.operation, r.options, r.dryRun, r.user)
	want := s.kube.validate(attrs)
	res, trace, err := s.ours.Explain(context.Background(), gatehouseVAPRequest(t, r, id))
	vapCompareOutcome(t, want, res, trace, err)
	return want
}

// vapIdentity is what a request addresses.
type vapIdentity struct {
	kind            schema.GroupVersionKind
	resource        schema.GroupVersionResource
	name, namespace string
}

// vapIdentityOf derives a request's kind, resource, name and namespace from
// its objects (a CONNECT's are its own).
func vapIdentityOf(r *vapRequest) vapIdentity {
	some := r.object
	if some == nil {
		some = r.old
	}
	gvk := some.GetObjectKind().GroupVersionKind()
	id := vapIdentity{kind: gvk, resource: gvk.GroupVersion().WithResource(r.resource)}
	if accessor, ok := some.(metav1.Object); ok {
		id.name, id.namespace = accessor.GetName(), accessor.GetNamespace()
	}
	if gvk.Kind == "Namespace" {
		id.namespace = id.name
	}
	if r.operation == admission.Connect {
		id = vapIdentity{kind: r.kind, resource: schema.GroupVersionResource{Version: "v1", Resource: r.resource}, name: r.objName, namespace: r.namespace}
	}
	return id
}

// gatehouseVAPRequest is r as gatehouse's request.
func gatehouseVAPRequest(t testing.TB, r *vapRequest, id vapIdentity) *validatingpolicy.Request {
	req := &validatingpolicy.Request{
		Operation: admissionv1.Operation(r.operation), Kind: id.kind, Resource: id.resource, SubResource: r.subresource,
		Name: id.name, Namespace: id.namespace, DryRun: r.dryRun, Options: r.options,
		UserInfo:  authenticationv1.UserInfo{Username: r.user.Name, UID: r.user.UID, Groups: r.user.Groups},
		Object:    mdUnstructured(t, r.object),
		OldObject: mdUnstructured(t, r.old),
		// The objects are the unstructured form of the typed ones: every
		// other request says so, and skips the conversion through the Go
		// type that the others take.
		Normalized: r.name[len(r.name)-1]%2 == 0,
	}
	for k, v := range r.user.Extra {
		if req.UserInfo.Extra == nil {
			req.UserInfo.Extra = map[string]authenticationv1.ExtraValue{}
		}
		req.UserInfo.Extra[k] = v
	}
	return req
}

// vapCompareOutcome compares gatehouse's answer (res, err, with its trace)
// with kube-apiserver's: the error's status, the warnings, the audit
// annotations.
func vapCompareOutcome(t *testing.T, want kubeVAPOutcome, res validatingpolicy.Result, trace *validatingpolicy.Trace, err error) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf(format, args...)
		t.Logf("trace:\n%s", trace)
	}
	if (err == nil) != (want.err == nil) {
		fail("error: gatehouse %v, kube-apiserver %v", err, want.err)
	} else if err != nil {
		gs, gok := err.(*apierrors.StatusError)
		ws, wok := want.err.(*apierrors.StatusError)
		if !gok || !wok {
			fail("error types: gatehouse %T, kube-apiserver %T", err, want.err)
		} else if !reflect.DeepEqual(gs.ErrStatus, ws.ErrStatus) {
			fail("status:\ngatehouse:      %#v\nkube-apiserver: %#v", gs.ErrStatus, ws.ErrStatus)
		}
	}
	if !reflect.DeepEqual(res.Warnings, want.warnings) {
		fail("warnings:\ngatehouse:      %q\nkube-apiserver: %q", res.Warnings, want.warnings)
	}
	if !reflect.DeepEqual(res.AuditAnnotations, want.annotations) {
		fail("audit annotations:\ngatehouse:      %q\nkube-apiserver: %q", res.AuditAnnotations, want.annotations)
	}
}

// The pools the generator draws from: every expression kind with values
// that pass, fail, err at run time, fail to compile, and spend budget.
var (
	vapValidations = []admissionregistrationv1.Validation{
		{Expression: `object.metadata.name.startsWith("a")`},
		{Expression: `object.metadata.name.startsWith("a")`, Message: "  name must start with a  "},
		{Expression: `has(object.metadata.labels) && 'team' in object.metadata.labels`, MessageExpression: `"missing team label on " + object.metadata.name`},
		{Expression: `has(object.metadata.labels) && 'team' in object.metadata.labels`, MessageExpression: `"line1\nline2"`, Message: "team required"},
		{Expression: `!has(object.spec) || !has(object.spec.replicas) || object.spec.replicas <= 3`, Reason: ptr.To(metav1.StatusReasonForbidden), MessageExpression: `"replicas " + string(object.spec.replicas) + " > 3"`},
		{Expression: `object.metadata.nosuch == 1`},
		{Expression: `object.metadata.nosuch == 1`, Reason: ptr.To(metav1.StatusReasonUnauthorized)},
		{Expression: `1 +`},
		{Expression: `"not a bool"`},
		{Expression: `request.operation == "CREATE"`, Reason: ptr.To(metav1.StatusReasonRequestEntityTooLarge), Message: "only creates"},
		{Expression: `oldObject == null || object == null || object.metadata.name == oldObject.metadata.name`},
		{Expression: `request.userInfo.username != "mallory"`, MessageExpression: `"user " + request.userInfo.username + " is not welcome"`},
		{Expression: `namespaceObject == null || !has(namespaceObject.metadata.labels) || namespaceObject.metadata.labels.?env.orValue("") != "prod"`, MessageExpression: `"namespace " + namespaceObject.metadata.name + " is prod"`},
		{Expression: `authorizer.group("").resource("pods").namespace("x").check("create").allowed()`},
		{Expression: `authorizer.requestResource.check("update").allowed()`, MessageExpression: `authorizer.path("/x").check("get").reason()`},
		{Expression: `request.dryRun == false`, MessageExpression: `"   "`, Message: "no dry runs"},
		{Expression: `request.subResource == ""`, MessageExpression: `string(object.metadata.nosuch)`},
		{Expression: `object == null || object.metadata.name.size() < 8`, MessageExpression: `object.metadata.name`},
		{Expression: `[1,2,3].all(x, x < 3)`, Message: "\n"},
		{Expression: `true`},
		{Expression: `true`, MessageExpression: `"unused"`},
		{Expression: `request.kind.kind != "ConfigMap" || !has(object.data) || object.data.size() < 2`, Reason: ptr.To(metav1.StatusReason("Teapot"))},
		{Expression: `params != null && has(params.data) && 'max' in params.data && object.metadata.name.size() <= int(params.data.max)`, MessageExpression: `"name too long for " + params.metadata.name`},
		{Expression: `params == null`, Message: "params given"},
		{Expression: `variables.isProd == false`, MessageExpression: `"prod object " + variables.name`},
		{Expression: `variables.broken == 1`},
		{Expression: `variables.allowed`, MessageExpression: `variables.denial`},
		{Expression: `request.options == null || !has(request.options.dryRun)`},
		{Expression: `type(object) == map`},
		{Expression: `request.kind.version != "v1" || object == null || !has(object.spec) || !has(object.spec.replicas) || object.spec.replicas < 3`, MessageExpression: `"v1 replicas " + string(object.spec.replicas) + ", request in " + request.requestKind.version`},
		{Expression: `object == null || !has(object.spec) || !has(object.spec.size)`, Message: "a size"},
		{Expression: `request.requestKind.version == request.kind.version`, MessageExpression: `"request in " + request.requestKind.version + " seen in " + request.kind.version + " with " + string(object.spec)`},
		{Expression: `request.operation != "CONNECT" || request.namespace != "prod"`, MessageExpression: `"no exec in prod: " + request.name + " " + string(object.command)`},
	}
	// vapHeavy costs about 900,000: twelve of them run out of a budget of
	// 10,000,000.
	vapHeavy        = admissionregistrationv1.Validation{Expression: heavyExpression, Message: "heavy"}
	vapMessageHeavy = admissionregistrationv1.Validation{
		Expression:        `false`,
		MessageExpression: heavyExpression + ` ? "heavy message" : "light"`,
	}
	vapVariables = []admissionregistrationv1.Variable{
		{Name: "isProd", Expression: `object != null && has(object.metadata.labels) && object.metadata.labels.?env.orValue("") == "prod"`},
		{Name: "name", Expression: `object != null ? string(object.metadata.name) : string(oldObject.metadata.name)`},
		{Name: "broken", Expression: `object.nosuch.deeper`},
		{Name: "allowed", Expression: `authorizer.group("apps").resource("deployments").check("delete").allowed()`},
		{Name: "denial", Expression: `"denied: " + variables.name`},
	}
	vapAnnotations = []admissionregistrationv1.AuditAnnotation{
		{Key: "name", ValueExpression: `string(object.metadata.name)`},
		{Key: "op", ValueExpression: `"operation " + request.operation`},
		{Key: "null", ValueExpression: `null`},
		{Key: "blank", ValueExpression: `"   "`},
		{Key: "broken", ValueExpression: `string(object.nosuch)`},
		{Key: "dyn", ValueExpression: `object.metadata.name`},
		{Key: "Bad Key!", ValueExpression: `"value"`},
		{Key: "ns", ValueExpression: `namespaceObject == null ? null : string(namespaceObject.metadata.name)`},
		{Key: "param", ValueExpression: `params == null ? "no param" : "param " + params.metadata.name`},
		{Key: "authz", ValueExpression: `authorizer.group("").resource("pods").check("get").allowed() ? "yes" : "no"`},
		{Key: "compile", ValueExpression: `)(`},
	}
	vapConditions = []admissionregistrationv1.MatchCondition{
		{Name: "not-kube-system", Expression: `request.namespace != "kube-system"`},
		{Name: "has-labels", Expression: `has(object.metadata.labels)`},
		{Name: "not-bool", Expression: `object.metadata`},
		{Name: "prod", Expression: `variables.isProd`},
		{Name: "error", Expression: `object.metadata.nosuch == "x"`},
		{Name: "alice", Expression: `request.userInfo.username == "alice"`},
	}
	vapFailurePolicies = []*admissionregistrationv1.FailurePolicyType{nil, ptr.To(admissionregistrationv1.Fail), ptr.To(admissionregistrationv1.Ignore), ptr.To(admissionregistrationv1.FailurePolicyType("Sometimes"))}
	vapActions         = [][]admissionregistrationv1.ValidationAction{
		{admissionregistrationv1.Deny},
		{admissionregistrationv1.Warn},
		{admissionregistrationv1.Audit},
		{admissionregistrationv1.Warn, admissionregistrationv1.Audit},
		{admissionregistrationv1.Deny, admissionregistrationv1.Audit},
		{admissionregistrationv1.Deny, admissionregistrationv1.Warn, admissionregistrationv1.Audit},
		{admissionregistrationv1.Audit, admissionregistrationv1.Audit},
		{},
	}
)

// vapRule is a rule on some resources for every operation.
// heavyExpression iterates 160,000 times.
const heavyExpression = `[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19].all(i, [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19].all(j, [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19].all(k, [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19].all(l, i+j+k+l >= 0))))`

func vapRule(group, version string, resources ...string) admissionregistrationv1.NamedRuleWithOperations {
	return admissionregistrationv1.NamedRuleWithOperations{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{group}, APIVersions: []string{version}, Resources: resources, Scope: ptr.To(admissionregistrationv1.AllScopes)},
	}}
}

// vapConstraints draws a policy's matchConstraints or a binding's
// matchResources (nil sometimes, for bindings: all requests).
func vapConstraints(rnd *rand.Rand, binding bool) *admissionregistrationv1.MatchResources {
	if binding && rnd.Intn(3) == 0 {
		return nil
	}
	mr := &admissionregistrationv1.MatchResources{
		NamespaceSelector: &metav1.LabelSelector{},
		ObjectSelector:    &metav1.LabelSelector{},
		MatchPolicy:       ptr.To(admissionregistrationv1.Equivalent),
	}
	switch rnd.Intn(9) {
	case 8:
		if rnd.Intn(2) == 0 {
			mr.ResourceRules = []admissionregistrationv1.NamedRuleWithOperations{vapRule("", "v1", "pods/exec", "pods")}
		} else {
			mr.ResourceRules = []admissionregistrationv1.NamedRuleWithOperations{vapRule("*", "*", "*/*")}
		}
	case 7:
		mr.ResourceRules = []admissionregistrationv1.NamedRuleWithOperations{vapRule("example.com", "v1", "widgets")}
		if rnd.Intn(3) == 0 {
			mr.MatchPolicy = ptr.To(admissionregistrationv1.Exact)
		}
	case 0:
		mr.ResourceRules = []admissionregistrationv1.NamedRuleWithOperations{vapRule("", "v1", "pods")}
	case 1:
		mr.ResourceRules = []admissionregistrationv1.NamedRuleWithOperations{vapRule("*", "*", "*")}
	case 2:
		mr.ResourceRules = []admissionregistrationv1.NamedRuleWithOperations{vapRule("apps", "v1", "deployments", "deployments/scale"), vapRule("", "v1", "configmaps")}
	case 3:
		mr.ResourceRules = []admissionregistrationv1.NamedRuleWithOperations{vapRule("*", "*", "*")}
		mr.ExcludeResourceRules = []admissionregistrationv1.NamedRuleWithOperations{vapRule("", "v1", "namespaces")}
	case 4:
		mr.ResourceRules = []admissionregistrationv1.NamedRuleWithOperations{vapRule("", "v1", "*")}
		mr.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}
	case 5:
		mr.ResourceRules = []admissionregistrationv1.NamedRuleWithOperations{vapRule("*", "*", "*")}
		mr.ObjectSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "team", Operator: metav1.LabelSelectorOpExists}}}
	case 6:
		r := vapRule("", "v1", "pods", "configmaps")
		r.ResourceNames = []string{"alpha", "alpine"}
		mr.ResourceRules = []admissionregistrationv1.NamedRuleWithOperations{r}
	}
	if !binding && rnd.Intn(25) == 0 {
		return nil
	}
	return mr
}

func vapPick[T any](rnd *rand.Rand, pool []T, max int) []T {
	n := rnd.Intn(max + 1)
	out := make([]T, 0, n)
	for range n {
		out = append(out, pool[rnd.Intn(len(pool))])
	}
	return out
}

// vapGenerate draws worlds of random policies, bindings, params and
// requests.
func vapGenerate(rnd *rand.Rand, worlds, requests int) []vapWorld {
	out := make([]vapWorld, 0, worlds)
	for wi := range worlds {
		w := vapWorld{name: fmt.Sprintf("world%02d", wi), static: rnd.Intn(6) == 0}
		w.objects = []runtime.Object{
			&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "dev", Labels: map[string]string{"env": "dev"}}},
			&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "prod", Labels: map[string]string{"env": "prod"}, Annotations: map[string]string{"a": "b"}}},
			&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kube-system"}},
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "limits", Namespace: "dev", Labels: map[string]string{"role": "limits"}}, Data: map[string]string{"max": "5"}},
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "limits", Namespace: "prod", Labels: map[string]string{"role": "limits"}}, Data: map[string]string{"max": "9"}},
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "other", Namespace: "prod", Labels: map[string]string{"role": "other"}}, Data: map[string]string{"max": "1"}},
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "shared", Namespace: "kube-system"}, Data: map[string]string{"max": "7"}},
		}
		npol := 1 + rnd.Intn(4)
		for pi := range npol {
			p := &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("policy-%d", pi)}}
			p.Spec.FailurePolicy = vapFailurePolicies[rnd.Intn(len(vapFailurePolicies))]
			p.Spec.MatchConstraints = vapConstraints(rnd, false)
			switch rnd.Intn(6) {
			case 0, 1:
				p.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
			case 2:
				if rnd.Intn(3) == 0 {
					p.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "example.com/v1", Kind: "Limits"}
				}
			}
			if rnd.Intn(2) == 0 {
				p.Spec.Variables = vapVariables
			}
			p.Spec.Validations = vapPick(rnd, vapValidations, 4)
			// In a few worlds, a policy on nodes (so that few requests pay
			// for them) whose validations, or messageExpressions, run out of
			// the budget of 10,000,000 together.
			onNodes := &admissionregistrationv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{}, ObjectSelector: &metav1.LabelSelector{},
				MatchPolicy: ptr.To(admissionregistrationv1.Equivalent), ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{vapRule("", "v1", "nodes")}}
			if pi == 0 && wi%20 == 5 {
				p.Spec.MatchConstraints = onNodes
				for range 12 {
					p.Spec.Validations = append(p.Spec.Validations, vapHeavy)
				}
			}
			if pi == 0 && wi%20 == 6 {
				p.Spec.MatchConstraints = onNodes
				for range 11 {
					p.Spec.Validations = append(p.Spec.Validations, vapMessageHeavy)
				}
			}
			p.Spec.AuditAnnotations = vapPick(rnd, vapAnnotations, 2)
			if rnd.Intn(3) == 0 {
				p.Spec.MatchConditions = vapPick(rnd, vapConditions, 2)
			}
			w.policies = append(w.policies, p)
			for bi := range 1 + rnd.Intn(3) {
				b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("binding-%d-%d", pi, bi)}}
				b.Spec.PolicyName = p.Name
				if rnd.Intn(20) == 0 {
					b.Spec.PolicyName = "missing"
				}
				b.Spec.ValidationActions = vapActions[rnd.Intn(len(vapActions))]
				b.Spec.MatchResources = vapConstraints(rnd, true)
				if p.Spec.ParamKind != nil && rnd.Intn(6) != 0 {
					ref := &admissionregistrationv1.ParamRef{}
					switch rnd.Intn(5) {
					case 0:
						ref.Name = "limits"
					case 1:
						ref.Name, ref.Namespace = "shared", "kube-system"
					case 2:
						ref.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"role": "limits"}}
					case 3:
						ref.Name = "absent"
					case 4:
						ref.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"role": "none"}}
					}
					if rnd.Intn(2) == 0 {
						ref.ParameterNotFoundAction = ptr.To(admissionregistrationv1.DenyAction)
					} else {
						ref.ParameterNotFoundAction = ptr.To(admissionregistrationv1.AllowAction)
					}
					b.Spec.ParamRef = ref
				}
				w.bindings = append(w.bindings, b)
			}
		}
		rnd.Shuffle(len(w.bindings), func(i, j int) { w.bindings[i], w.bindings[j] = w.bindings[j], w.bindings[i] })
		for ri := range requests {
			w.requests = append(w.requests, vapRandomRequest(rnd, ri))
		}
		// Paths a random draw may miss: nodes for the worlds whose policy
		// runs out of budget, v2 widgets for a policy of v1 widgets.
		switch {
		case wi%20 == 5 || wi%20 == 6:
			for i := range 3 {
				node := &corev1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}, ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%d", i)}}
				w.requests = append(w.requests, vapRequest{name: fmt.Sprintf("node%d", i), operation: admission.Create, object: node, resource: "nodes", user: vapAlice})
			}
		case wi%10 == 3:
			p := &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "widgets-v1"}}
			p.Spec.MatchConstraints = &admissionregistrationv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{}, ObjectSelector: &metav1.LabelSelector{},
				MatchPolicy: ptr.To(admissionregistrationv1.Equivalent), ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{vapRule("example.com", "v1", "widgets")}}
			p.Spec.Validations = []admissionregistrationv1.Validation{vapValidations[len(vapValidations)-2], vapValidations[len(vapValidations)-4]}
			w.policies = append(w.policies, p)
			w.bindings = append(w.bindings, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "widgets-v1"},
				Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "widgets-v1", ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Warn}}})
			for i, version := range []schema.GroupVersionKind{widgetV1, widgetV2, widgetV2} {
				u := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": fmt.Sprintf("w%d", i), "namespace": "dev"},
					"spec": map[string]any{"replicas": int64(2 + i)}}}
				u.SetGroupVersionKind(widgetV1)
				if version == widgetV2 {
					u, _ = convertWidget(u, widgetV2)
				}
				w.requests = append(w.requests, vapRequest{name: fmt.Sprintf("widget%d", i), operation: admission.Create, object: u, resource: "widgets", user: vapAlice})
			}
		}
		out = append(out, w)
	}
	return out
}

var (
	vapAlice   = &user.DefaultInfo{Name: "alice", UID: "u1", Groups: []string{"devs", "system:authenticated"}, Extra: map[string][]string{"scopes": {"a", "b"}}}
	vapMallory = &user.DefaultInfo{Name: "mallory", Groups: []string{"system:authenticated"}}
)

// vapRandomObject draws an object of a random kind: resource and
// subresource are what the request addresses.
func vapRandomObject(rnd *rand.Rand) (obj runtime.Object, resource, subresource string) {
	names := []string{"alpha", "beta", "alpine", "averyveryverylongname"}
	namespaces := []string{"dev", "prod", "kube-system", "missing"}
	meta := metav1.ObjectMeta{Name: names[rnd.Intn(len(names))], Namespace: namespaces[rnd.Intn(len(namespaces))]}
	switch rnd.Intn(4) {
	case 0:
		meta.Labels = map[string]string{"team": "a"}
	case 1:
		meta.Labels = map[string]string{"env": "prod"}
	case 2:
		meta.Labels = map[string]string{}
	}
	switch rnd.Intn(8) {
	case 0, 1:
		pod := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: meta,
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
		if rnd.Intn(4) == 0 {
			return pod, "pods", "status"
		}
		return pod, "pods", ""
	case 2:
		d := &appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}, ObjectMeta: meta,
			Spec: appsv1.DeploymentSpec{Replicas: ptr.To(int32(rnd.Intn(7))), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}}}
		return d, "deployments", ""
	case 3:
		cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: meta}
		for i := range rnd.Intn(4) {
			if cm.Data == nil {
				cm.Data = map[string]string{}
			}
			cm.Data[fmt.Sprintf("k%d", i)] = strings.Repeat("v", i)
		}
		return cm, "configmaps", ""
	case 4:
		meta.Namespace = ""
		return &corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: meta}, "namespaces", ""
	case 5, 6:
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"name": meta.Name, "namespace": meta.Namespace}, "spec": map[string]any{"replicas": int64(rnd.Intn(6))}}}
		if rnd.Intn(2) == 0 {
			v2, err := convertWidget(u, widgetV2)
			if err != nil {
				panic(err)
			}
			u = v2
		}
		if meta.Labels != nil {
			u.SetLabels(meta.Labels)
		}
		return u, "widgets", ""
	default:
		meta.Namespace = ""
		return &corev1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}, ObjectMeta: meta}, "nodes", ""
	}
}

func vapRandomRequest(rnd *rand.Rand, i int) vapRequest {
	obj, resource, sub := vapRandomObject(rnd)
	r := vapRequest{name: fmt.Sprintf("r%02d", i), resource: resource, subresource: sub, user: vapAlice, dryRun: rnd.Intn(5) == 0}
	if rnd.Intn(4) == 0 {
		r.user = vapMallory
	}
	if rnd.Intn(10) == 0 {
		// kubectl exec: the options as the object, the kind theirs.
		opts := &corev1.PodExecOptions{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodExecOptions"}, Command: []string{"sh"}, Stdin: rnd.Intn(2) == 0}
		return vapRequest{name: r.name, operation: admission.Connect, object: opts, resource: "pods", subresource: "exec", user: r.user,
			kind: corev1.SchemeGroupVersion.WithKind("PodExecOptions"), objName: "alpha", namespace: []string{"dev", "prod", "missing"}[rnd.Intn(3)]}
	}
	switch rnd.Intn(4) {
	case 0, 1:
		r.operation, r.object = admission.Create, obj
		if rnd.Intn(2) == 0 {
			r.options = &metav1.CreateOptions{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "CreateOptions"}, FieldManager: "kubectl"}
		}
	case 2:
		old := obj.DeepCopyObject()
		if m, ok := old.(metav1.Object); ok && rnd.Intn(3) == 0 {
			m.SetLabels(map[string]string{"team": "old"})
		}
		r.operation, r.object, r.old = admission.Update, obj, old
		r.options = &metav1.UpdateOptions{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "UpdateOptions"}}
	default:
		r.operation, r.old, r.subresource = admission.Delete, obj, ""
		if r.dryRun {
			r.options = &metav1.DeleteOptions{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "DeleteOptions"}, DryRun: []string{"All"}}
		}
	}
	return r
}
