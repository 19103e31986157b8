package conformance

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/gatehouse-dev/gatehouse/matchcond"
)

var ourAdmissionCompiler = sync.OnceValues(matchcond.NewAdmissionCompiler)

// authzCheck is one authorization check, as both implementations' authorizers
// see it.
type authzCheck struct {
	user, verb, path                              string
	resourceRequest                               bool
	group, resource, subresource, namespace, name string
}

// admissionDecide is the authorization policy of the fake authorizers: scripted on
// the check, the same on both sides.
func admissionDecide(c authzCheck) (int, string, error) {
	switch {
	case c.path == "/error" || c.resource == "errors":
		return 2, "", errors.New("authorizer failed")
	case c.verb == "get" || (c.resourceRequest && c.namespace == "default" && c.verb == "create"):
		return 1, "allowed by policy", nil
	case c.user == "alice" && c.resource == "pods":
		return 1, "alice owns pods", nil
	case c.resource == "secrets":
		return 0, "secrets are denied", nil
	}
	return 2, "no opinion", nil
}

type kubeFakeAuthorizer struct{}

func (kubeFakeAuthorizer) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	c := authzCheck{verb: a.GetVerb(), path: a.GetPath(), resourceRequest: a.IsResourceRequest(), group: a.GetAPIGroup(),
		resource: a.GetResource(), subresource: a.GetSubresource(), namespace: a.GetNamespace(), name: a.GetName()}
	if a.GetUser() != nil {
		c.user = a.GetUser().GetName()
	}
	d, reason, err := admissionDecide(c)
	return authorizer.Decision(d), reason, err
}

type ourFakeAuthorizer struct{}

func (ourFakeAuthorizer) Authorize(_ context.Context, a *matchcond.AuthorizationAttributes) (matchcond.Decision, string, error) {
	c := authzCheck{verb: a.Verb, path: a.Path, resourceRequest: a.ResourceRequest, group: a.APIGroup,
		resource: a.Resource, subresource: a.Subresource, namespace: a.Namespace, name: a.Name}
	if a.User != nil {
		c.user = a.User.Name
	}
	d, reason, err := admissionDecide(c)
	return matchcond.Decision(d), reason, err
}

// admissionCase is one admission request: the attributes kube-apiserver's
// dispatcher has, the matched (equivalent) kind and resource.
type admissionCase struct {
	name      string
	attrs     admission.Attributes
	kind      schema.GroupVersionKind
	resource  schema.GroupVersionResource
	object    runtime.Object
	oldObject runtime.Object
}

func podObject() *corev1.Pod {
	return &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{
			{Name: "app", Image: "nginx:1.27", Ports: []corev1.ContainerPort{{ContainerPort: 80}}},
			{Name: "sidecar", Image: "envoy"},
		}},
	}
}

func admissionCases() []admissionCase {
	alice := &user.DefaultInfo{Name: "alice", UID: "a-1", Groups: []string{"dev", "system:authenticated"}, Extra: map[string][]string{"scopes": {"a", "b"}}}
	bob := &user.DefaultInfo{Name: "bob", Groups: []string{"system:authenticated"}}
	podGVK := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	podGVR := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	deployGVK := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	deployGVR := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	cmGVK := schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	cmGVR := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

	pod := podObject()
	deployment := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "api", "namespace": "team-a", "labels": map[string]any{"app": "api", "tier": "backend"}},
		"spec":     map[string]any{"replicas": int64(3), "template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "api", "image": "api:2"}}}}},
	}}
	oldDeployment := deployment.DeepCopy()
	_ = unstructured.SetNestedField(oldDeployment.Object, int64(2), "spec", "replicas")
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"}, ObjectMeta: metav1.ObjectMeta{Name: "settings", Namespace: "default"}, Data: map[string]string{"mode": "strict"}}
	ns := &corev1.Namespace{TypeMeta: metav1.TypeMeta{Kind: "Namespace", APIVersion: "v1"}, ObjectMeta: metav1.ObjectMeta{Name: "team-b"}}
	execOptions := &corev1.PodExecOptions{TypeMeta: metav1.TypeMeta{Kind: "PodExecOptions", APIVersion: "v1"}, Command: []string{"sh"}, Stdin: true}

	record := func(obj, old runtime.Object, kind schema.GroupVersionKind, ns, name string, res schema.GroupVersionResource, sub string, op admission.Operation, opts runtime.Object, dryRun bool, u user.Info) admission.Attributes {
		return admission.NewAttributesRecord(obj, old, kind, ns, name, res, sub, op, opts, dryRun, u)
	}
	return []admissionCase{
		{"create typed pod", record(pod, nil, podGVK, "default", "web", podGVR, "", admission.Create, &metav1.CreateOptions{FieldManager: "kubectl"}, false, alice), podGVK, podGVR, pod, nil},
		{"update unstructured deployment", record(deployment, oldDeployment, deployGVK, "team-a", "api", deployGVR, "", admission.Update, &metav1.UpdateOptions{}, false, bob), deployGVK, deployGVR, deployment, oldDeployment},
		{"update scale subresource, equivalent kind", record(deployment, oldDeployment, deployGVK, "team-a", "api", deployGVR, "scale", admission.Update, nil, true, bob),
			schema.GroupVersionKind{Group: "apps", Version: "v1beta2", Kind: "Deployment"}, schema.GroupVersionResource{Group: "apps", Version: "v1beta2", Resource: "deployments"}, deployment, oldDeployment},
		{"delete configmap", record(nil, cm, cmGVK, "default", "settings", cmGVR, "", admission.Delete, &metav1.DeleteOptions{}, false, alice), cmGVK, cmGVR, nil, cm},
		{"connect exec", record(execOptions, nil, schema.GroupVersionKind{Version: "v1", Kind: "PodExecOptions"}, "default", "web", podGVR, "exec", admission.Connect, nil, false, alice), schema.GroupVersionKind{Version: "v1", Kind: "PodExecOptions"}, podGVR, execOptions, nil},
		{"create namespace, dry run, generated name", record(ns, nil, schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, "", "", schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, "", admission.Create, &metav1.CreateOptions{DryRun: []string{"All"}}, true, bob),
			schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, ns, nil},
		{"secrets, no user", record(nil, nil, schema.GroupVersionKind{Version: "v1", Kind: "Secret"}, "kube-system", "token", schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, "", admission.Delete, nil, false, nil),
			schema.GroupVersionKind{Version: "v1", Kind: "Secret"}, schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, nil, nil},
	}
}

// admissionParams are the params a policy's conditions may see.
func admissionParams() []runtime.Object {
	return []runtime.Object{
		nil,
		&corev1.ConfigMap{TypeMeta: metav1.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"}, ObjectMeta: metav1.ObjectMeta{Name: "params"}, Data: map[string]string{"limit": "3", "allowed": "web"}},
		&unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Limits", "metadata": map[string]any{"name": "limits"}, "spec": map[string]any{"max": int64(2), "names": []any{"api", "web"}}}},
	}
}

// admissionExpressions are bool expressions valid in a webhook's conditions.
func admissionExpressions() []string {
	return []string{
		"request.operation == 'CREATE'",
		"request.kind.kind == 'Pod'",
		"request.kind.version == 'v1beta2'",
		"request.resource.group == 'apps'",
		"request.requestKind.version == 'v1'",
		"request.requestResource.resource == 'deployments'",
		"request.kind == request.requestKind",
		"request.resource != request.requestResource",
		"request.subResource == 'scale'",
		"has(request.subResource)",
		"request.?subResource.orValue('') == ''",
		"request.requestSubResource == ''",
		"request.name == 'web'",
		"has(request.name)",
		"request.namespace.startsWith('team-')",
		"has(request.namespace)",
		"request.userInfo.username == 'alice'",
		"'dev' in request.userInfo.groups",
		"request.userInfo.groups.size() == 2",
		"request.userInfo.groups[5] == ''",
		"(request.userInfo.groups + ['x']).size() == 3",
		"request.userInfo.groups == ['system:authenticated']",
		"request.userInfo.extra['scopes'] == ['a', 'b']",
		"request.userInfo.extra['missing'] == []",
		"has(request.userInfo.extra)",
		"has(request.userInfo.uid)",
		"request.dryRun",
		"has(request.dryRun)",
		"request.options.fieldManager == 'kubectl'",
		"has(request.options)",
		"request.options == null",
		"type(request) == map",
		"dyn(request).size() == 10",
		"'uid' in dyn(request)",
		"dyn(request).exists(k, k == 'object')",
		"dyn(request.userInfo.extra)[1] == []",
		"dyn(request.userInfo.groups)['x'] == ''",
		"dyn(request.kind)[0] == ''",
		"request.kind == dyn({'group': '', 'version': 'v1', 'kind': 'Pod'})",
		"dyn({'group': '', 'version': 'v1', 'kind': 'Pod'}) == request.kind",
		"object.metadata.name == 'web'",
		"object.metadata.labels['app'] == 'web'",
		"object.metadata.labels.tier == 'backend'",
		"has(object.metadata.labels)",
		"has(object.status)",
		"object.spec.containers.size() == 2",
		"object.spec.containers.exists(c, c.image.startsWith('nginx'))",
		"object.spec.containers[0].ports[0].containerPort == 80",
		"object.spec.containers[1].ports.size() == 0",
		"has(object.spec.containers[1].ports)",
		"object.spec.replicas > oldObject.spec.replicas",
		"object.spec.template.spec.containers.all(c, c.name != '')",
		"object.kind == request.kind.kind",
		"object == null",
		"oldObject == null",
		"oldObject.data.mode == 'strict'",
		"object.command == ['sh']",
		"object.stdin == true",
		"object.metadata.creationTimestamp == null",
		"type(object) == map",
		"object.metadata == oldObject.metadata",
		"dyn(object).size() > 2",
		"namespaceObject == null",
		"namespaceObject.metadata.name == ''",
		"authorizer.path('/healthz').check('get').allowed()",
		"authorizer.path('/error').check('get').errored()",
		"authorizer.path('/error').check('get').error() == 'authorizer failed'",
		"authorizer.group('apps').resource('deployments').namespace('default').check('create').allowed()",
		"authorizer.group('').resource('secrets').check('list').reason() == 'secrets are denied'",
		"authorizer.group('').resource('pods').subresource('exec').namespace('default').name('web').check('create').allowed()",
		"authorizer.serviceAccount('kube-system', 'builder').group('').resource('pods').check('list').allowed()",
		"authorizer.requestResource.check('get').allowed()",
		"authorizer.requestResource.check('delete').allowed()",
		"authorizer.requestResource.check('update').reason() == 'no opinion'",
		"authorizer.group('').resource('errors').check('get').allowed()",
		"authorizer.group('').resource('pods').fieldSelector('spec.nodeName=n1').labelSelector('app=web').check('list').allowed()",
		"authorizer.group('').resource('pods').labelSelector('a in (').check('list').allowed()",
		"1 / (size(request.userInfo.groups) - size(request.userInfo.groups)) == 0",
		"lists.range(1000).all(i, i >= 0)",
		"object.spec.containers.map(c, c.name).join(',') == 'app,sidecar'",
		// Libraries: gatehouse compiles these in smaller environments.
		"object.metadata.name.indexOf('e') == 1",
		"object.metadata.name.matches('^w') && object.metadata.name.find('e') == 'e'",
		"isURL('https://' + object.metadata.name)",
		"quantity('1Gi').isGreaterThan(quantity('1Mi'))",
		"request.userInfo.groups.isSorted()",
		"[1, 2].includes(2)",
		"object.spec.containers.all(i, c, c.name != '')",
		"ip('10.0.0.1').family() == 4",
	}
}

func admissionExpressionAccessors(conds []admissionregistrationv1.MatchCondition) []plugincel.ExpressionAccessor {
	out := make([]plugincel.ExpressionAccessor, len(conds))
	for i := range conds {
		out[i] = (*matchconditions.MatchCondition)(&conds[i])
	}
	return out
}

// admissionPair is one webhook's or policy's conditions in both
// implementations.
type admissionPair struct {
	kube matchconditions.Matcher
	ours *matchcond.AdmissionMatcher
	kind string
}

func compileAdmissionPair(t *testing.T, conds []admissionregistrationv1.MatchCondition, o matchcond.AdmissionOptions) admissionPair {
	t.Helper()
	envSet := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())
	decls := plugincel.OptionalVariableDeclarations{HasParams: o.HasParams, HasAuthorizer: true}
	var filter plugincel.ConditionEvaluator
	kind := "webhook"
	if o.Policy {
		kind = "policy"
		cc, err := plugincel.NewCompositedCompiler(envSet)
		require.NoError(t, err)
		vars := make([]plugincel.NamedExpressionAccessor, len(o.Variables))
		for i, v := range o.Variables {
			vars[i] = &validating.Variable{Name: v.Name, Expression: v.Expression}
		}
		cc.CompileAndStoreVariables(vars, decls, environment.StoredExpressions)
		filter = cc.CompileCondition(admissionExpressionAccessors(conds), decls, environment.StoredExpressions)
	} else {
		filter = plugincel.NewConditionCompiler(envSet).CompileCondition(admissionExpressionAccessors(conds), decls, environment.StoredExpressions)
	}
	c, err := ourAdmissionCompiler()
	require.NoError(t, err)
	ours, err := c.Compile(conds, o)
	require.NoError(t, err)
	return admissionPair{
		kube: matchconditions.NewMatcher(filter, o.FailurePolicy, kind, o.Type, o.Name),
		ours: ours,
		kind: kind,
	}
}

// admissionOutcome is what a caller sees of one evaluation.
type admissionOutcome struct {
	Matches             bool
	FailedConditionName string
	Err                 string
}

func (p admissionPair) match(t *testing.T, c admissionCase, params runtime.Object, withAuthorizer bool) (kube, ours admissionOutcome) {
	t.Helper()
	va := &admission.VersionedAttributes{Attributes: c.attrs, VersionedKind: c.kind,
		VersionedObject: admission.NewLazyObject(c.object), VersionedOldObject: admission.NewLazyObject(c.oldObject)}
	var kubeAuthz authorizer.UnconditionalAuthorizer
	var ourAuthz matchcond.Authorizer
	if withAuthorizer {
		kubeAuthz, ourAuthz = kubeFakeAuthorizer{}, ourFakeAuthorizer{}
	}
	kr := p.kube.Match(context.Background(), va, params, kubeAuthz)
	kube = admissionOutcome{Matches: kr.Matches, FailedConditionName: kr.FailedConditionName}
	if kr.Error != nil {
		kube.Err = kr.Error.Error()
	}
	request := admissionRequestOf(c)
	or := p.ours.Match(context.Background(), &matchcond.AdmissionAttributes{Request: request, Object: c.object, OldObject: c.oldObject, Params: params, Authorizer: ourAuthz})
	ours = admissionOutcome{Matches: or.Matches, FailedConditionName: or.FailedConditionName}
	if or.Error != nil {
		ours.Err = or.Error.Error()
	}
	return kube, ours
}

// admissionRequestOf builds the request as kube-apiserver's matcher does:
// the attributes' own resource, the versioned (matched) kind.
func admissionRequestOf(c admissionCase) *admissionv1.AdmissionRequest {
	return plugincel.CreateAdmissionRequest(c.attrs, metav1.GroupVersionResource(c.attrs.GetResource()), metav1.GroupVersionKind(c.kind))
}

func named(exprs ...string) []admissionregistrationv1.MatchCondition {
	out := make([]admissionregistrationv1.MatchCondition, len(exprs))
	for i, e := range exprs {
		out[i] = admissionregistrationv1.MatchCondition{Name: fmt.Sprintf("c%d", i), Expression: e}
	}
	return out
}

// TestAdmissionMatchConditionsMatchKubeAPIServer evaluates every corpus
// expression, as a webhook's single condition, on every request, with and
// without an authorizer.
func TestAdmissionMatchConditionsMatchKubeAPIServer(t *testing.T) {
	compared := 0
	for _, expr := range admissionExpressions() {
		p := compileAdmissionPair(t, named(expr), matchcond.AdmissionOptions{Name: "w", Type: "validate"})
		require.Empty(t, p.ours.CompileErrors(), expr)
		for _, c := range admissionCases() {
			for _, withAuthz := range []bool{true, false} {
				kube, ours := p.match(t, c, nil, withAuthz)
				assert.Equal(t, kube, ours, "%q on %s (authorizer %v)", expr, c.name, withAuthz)
				compared++
			}
		}
	}
	t.Logf("compared %d expression × request pairs", compared)
}

// policyVariables are the variables of the policy cases: a chain, one that
// fails to compile, one that fails to evaluate, and costly ones.
func policyVariables() []admissionregistrationv1.Variable {
	return []admissionregistrationv1.Variable{
		{Name: "name", Expression: "object != null ? object.metadata.name : oldObject.metadata.name"},
		{Name: "isWeb", Expression: "variables.name == 'web'"},
		{Name: "groups", Expression: "request.userInfo.groups"},
		{Name: "limit", Expression: "params != null && has(params.data) ? int(params.data.limit) : 0"},
		{Name: "broken", Expression: "variables.nope == 1"},
		{Name: "failing", Expression: "request.userInfo.groups[9] == ''"},
		{Name: "heavy", Expression: "lists.range(800000).size() > 0"},
		{Name: "heavier", Expression: "lists.range(960000).size() > 0"},
		{Name: "tooHeavy", Expression: "lists.range(1000001).size() > 0"},
		{Name: "counts", Expression: "{'containers': object != null && has(object.spec) && has(object.spec.containers) ? size(object.spec.containers) : 0}"},
		{Name: "name", Expression: "'redefined'"},
	}
}

func policyExpressions() []string {
	return []string{
		"variables.name == 'redefined'",
		"variables.isWeb",
		"'dev' in variables.groups",
		"variables.limit > 2",
		"variables.broken",
		"variables.failing",
		"variables.counts.containers == 2",
		"params == null",
		"params.data.allowed == object.metadata.name",
		"params.spec.max >= 2",
		"params.spec.names.exists(n, n == variables.name)",
		"has(params.metadata)",
		"type(variables) != map",
		"dyn(variables).size() == 10",
		"'limit' in dyn(variables)",
		"'nope' in dyn(variables)",
		"dyn(variables)['isWeb'] == false",
		"dyn(variables)[1] == 1",
		"has(variables.limit)",
		"request.operation != 'DELETE'",
	}
}

// costlyPolicyExpressions use the costly variables; kube-apiserver's cost
// tracking makes them slow, so they are evaluated on one request only.
func costlyPolicyExpressions() []string {
	return []string{
		"variables.heavy",
		"variables.heavy && variables.heavy",
		"variables.heavy && variables.heavier",
		"variables.tooHeavy",
	}
}

// TestAdmissionPolicyMatchConditionsMatchKubeAPIServer evaluates a
// policy's conditions with variables and params.
func TestAdmissionPolicyMatchConditionsMatchKubeAPIServer(t *testing.T) {
	compared := 0
	for _, expr := range costlyPolicyExpressions() {
		p := compileAdmissionPair(t, named(expr), matchcond.AdmissionOptions{Policy: true, HasParams: true, Variables: policyVariables(), Name: "p", Type: "validate"})
		c := admissionCases()[0]
		kube, ours := p.match(t, c, nil, true)
		assert.Equal(t, kube, ours, "%q on %s", expr, c.name)
		compared++
	}
	for _, expr := range policyExpressions() {
		p := compileAdmissionPair(t, named(expr), matchcond.AdmissionOptions{Policy: true, HasParams: true, Variables: policyVariables(), Name: "p", Type: "validate"})
		compared += p.matchEveryCaseAndParams(t, fmt.Sprintf("%q", expr))
	}
	t.Logf("compared %d expression × request × params triples", compared)
}

// matchEveryCaseAndParams compares both sides on every request and params,
// and returns how many triples it compared.
func (p admissionPair) matchEveryCaseAndParams(t *testing.T, label string) int {
	compared := 0
	for _, c := range admissionCases() {
		for _, params := range admissionParams() {
			kube, ours := p.match(t, c, params, true)
			assert.Equal(t, kube, ours, "%s on %s with params %T", label, c.name, params)
			compared++
		}
	}
	return compared
}

// libraryPolicyVariables are variables that call a few libraries, and no
// identifier but variables: gatehouse compiles such a policy in the
// environment of the libraries its expressions call.
func libraryPolicyVariables() []admissionregistrationv1.Variable {
	return []admissionregistrationv1.Variable{
		{Name: "name", Expression: "object != null ? object.metadata.name : oldObject.metadata.name"},
		{Name: "q", Expression: "quantity(params != null && has(params.data) && has(params.data.limit) ? params.data.limit + 'Mi' : '1Gi')"},
		{Name: "host", Expression: "url('https://' + variables.name + '.example.com').getHost()"},
		{Name: "first", Expression: "request.userInfo.groups.indexOf('dev')"},
		{Name: "sorted", Expression: "request.userInfo.groups.isSorted()"},
	}
}

// TestAdmissionPolicyLibrariesMatchKubeAPIServer evaluates policies whose
// variables and conditions call some libraries, compiled in gatehouse's
// environment of those libraries only, and policies that call the standard
// library only.
func TestAdmissionPolicyLibrariesMatchKubeAPIServer(t *testing.T) {
	compared := 0
	for _, expr := range []string{
		"variables.q.isGreaterThan(quantity('1Mi'))",
		"variables.host == 'web.example.com'",
		"variables.host.matches('^w')",
		"variables.first >= 0",
		"variables.sorted",
		"variables.name.lowerAscii() == 'web'",
		"variables.name == 'web'",
		"params == null || variables.q.asInteger() > 0",
	} {
		for _, vars := range [][]admissionregistrationv1.Variable{libraryPolicyVariables(), libraryPolicyVariables()[:1]} {
			p := compileAdmissionPair(t, named(expr), matchcond.AdmissionOptions{Policy: true, HasParams: true, Variables: vars, Name: "p", Type: "validate"})
			compared += p.matchEveryCaseAndParams(t, fmt.Sprintf("%q (%d variables)", expr, len(vars)))
		}
	}
	t.Logf("compared %d expression × request × params triples", compared)
}

// TestAdmissionMatchConditionListsMatchKubeAPIServer evaluates random lists
// of conditions under each failure policy: every condition evaluated, the
// first false wins, errors aggregated or ignored, the shared cost budget.
func TestAdmissionMatchConditionListsMatchKubeAPIServer(t *testing.T) {
	webhookExprs := admissionExpressions()
	policyExprs := append(policyExpressions(), webhookExprs...)
	ignore, fail, other := admissionregistrationv1.Ignore, admissionregistrationv1.Fail, admissionregistrationv1.FailurePolicyType("Sometimes")
	policies := []*admissionregistrationv1.FailurePolicyType{nil, &fail, &ignore, &other}
	rng := rand.New(rand.NewPCG(7, 11))
	compared := 0
	for range 120 {
		policy := rng.IntN(2) == 0
		exprs := webhookExprs
		if policy {
			exprs = policyExprs
		}
		var list []string
		for range 2 + rng.IntN(4) {
			list = append(list, exprs[rng.IntN(len(exprs))])
		}
		o := matchcond.AdmissionOptions{Policy: policy, HasParams: policy, FailurePolicy: policies[rng.IntN(len(policies))], Name: "l", Type: "admit"}
		if policy {
			o.Variables = policyVariables()
		}
		p := compileAdmissionPair(t, named(list...), o)
		cases := admissionCases()
		c := cases[rng.IntN(len(cases))]
		params := admissionParams()[rng.IntN(3)]
		if !policy {
			params = nil
		}
		kube, ours := p.match(t, c, params, true)
		assert.Equal(t, kube, ours, "%q on %s (policy %v, failure policy %v)", list, c.name, policy, o.FailurePolicy)
		compared++
	}
	t.Logf("compared %d condition lists", compared)
}

// TestAdmissionCostBudgetMatchKubeAPIServer spends the budget that the
// conditions of one webhook or policy share: conditions, and variables
// charged to the conditions that use them.
func TestAdmissionCostBudgetMatchKubeAPIServer(t *testing.T) {
	costly := "lists.range(900000).size() > 0"
	ignore := admissionregistrationv1.Ignore
	tests := []struct {
		conds  []string
		policy bool
	}{
		{[]string{costly, costly, costly}, false},
		{[]string{costly, "false", costly, costly, costly}, false},
		{[]string{"variables.heavy", "variables.heavier", costly}, true},
		{[]string{"variables.heavy", "variables.heavy", "variables.heavier"}, true},
		{[]string{"variables.tooHeavy", "variables.tooHeavy", "true"}, true},
	}
	outOfBudget := 0
	for _, tt := range tests {
		for _, fp := range []*admissionregistrationv1.FailurePolicyType{nil, &ignore} {
			o := matchcond.AdmissionOptions{Policy: tt.policy, FailurePolicy: fp, Name: "budget", Type: "validate"}
			if tt.policy {
				o.Variables = policyVariables()
			}
			p := compileAdmissionPair(t, named(tt.conds...), o)
			c := admissionCases()[0]
			kube, ours := p.match(t, c, nil, true)
			assert.Equal(t, kube, ours, "%q (failure policy %v)", tt.conds, fp)
			if kube.Err == matchcond.ErrOutOfBudget.Error() {
				outOfBudget++
			}
		}
	}
	assert.GreaterOrEqual(t, outOfBudget, 3, "the cases no longer run out of budget")
}

// TestAdmissionMatchConditionCompileErrorsMatchKubeAPIServer compiles bad
// conditions: they fail at evaluation with kube-apiserver's text, and
// Validate reports kube-apiserver's compilation errors, for new and for
// stored expressions.
func TestAdmissionMatchConditionCompileErrorsMatchKubeAPIServer(t *testing.T) {
	bad := []string{
		"request.foo == 1",
		"object.metadata.name",
		"dyn(true)",
		"variables.x == 1",
		"params == null",
		"request.userInfo.username == 1",
		"authorizer.path('/').check('get')",
		"'a'.find('(') == ''",
		"jsonpatch.escapeKey('a') == 'a'",
		"namespaceObject.metadata.foo == 1",
		"request.dryRun == 'true'",
		"request.userInfo.extra['a'] == 'b'",
		"object.x = 1",
		// 1.37's includes(): only in the environment of stored expressions.
		"[1].includes(1)",
		"[params].includes(object)",
	}
	for _, expr := range bad {
		p := compileAdmissionPair(t, named(expr, "true"), matchcond.AdmissionOptions{Name: "w", Type: "validate"})
		for _, c := range admissionCases()[:2] {
			kube, ours := p.match(t, c, nil, true)
			assert.Equal(t, kube, ours, "%q on %s", expr, c.name)
		}
		// Validate against kube-apiserver's compiler, with and without
		// params, as a new expression and as one already stored.
		for _, hasParams := range []bool{false, true} {
			for _, envType := range []environment.Type{environment.NewExpressions, environment.StoredExpressions} {
				compiler := plugincel.NewCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
				res := compiler.CompileCELExpression(&matchconditions.MatchCondition{Expression: expr}, plugincel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true}, envType)
				path := field.NewPath("webhooks").Index(0).Child("matchConditions")
				c, err := ourAdmissionCompiler()
				require.NoError(t, err)
				o := matchcond.AdmissionValidateOptions{HasParams: hasParams}
				if envType == environment.StoredExpressions {
					o.Preexisting = []string{expr}
				}
				errs := c.Validate(named(expr), o, path)
				var want []string
				if res.Error != nil {
					exprPath := path.Index(0).Child("expression")
					switch res.Error.Type {
					case apiservercel.ErrorTypeInvalid:
						want = append(want, field.Invalid(exprPath, expr, res.Error.Detail).Error())
					default:
						want = append(want, field.InternalError(exprPath, res.Error).Error())
					}
				}
				assert.Equal(t, want, errorStrings(errs), "Validate %q (params %v, environment %v)", expr, hasParams, envType)
			}
		}
	}
}

func errorStrings(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}
