package kubernetes

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/meta/testrestmapper"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	validating "k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/kubernetes/pkg/generated/openapi"

	"github.com/gatehouse-dev/gatehouse/validatingpolicy"
)

// The differential of validatingpolicy's TypeCheck against kube-apiserver's
// TypeChecker, built as kube-controller-manager's status controller tests
// build it: the built-in OpenAPI definitions of k8s.io/kubernetes and a
// static REST mapper of client-go's scheme.

func kubeTypeChecker() *validating.TypeChecker {
	return &validating.TypeChecker{
		SchemaResolver: resolver.NewDefinitionsSchemaResolver(openapi.GetOpenAPIDefinitions, scheme.Scheme),
		RestMapper:     testrestmapper.TestOnlyStaticRESTMapper(scheme.Scheme),
	}
}

// typeNameDigits matches the nanoseconds kube-apiserver appends to the name
// of a kind's object type; gatehouse writes 0 (1 for the params' kind). Both
// sides' digits are replaced by <n>.
var typeNameDigits = regexp.MustCompile(`\b([A-Z][A-Za-z]*)[0-9]+\b`)

func normalizeTypeNames(ws []admissionregistrationv1.ExpressionWarning) []admissionregistrationv1.ExpressionWarning {
	var out []admissionregistrationv1.ExpressionWarning
	for _, w := range ws {
		out = append(out, admissionregistrationv1.ExpressionWarning{FieldRef: w.FieldRef, Warning: typeNameDigits.ReplaceAllString(w.Warning, "${1}<n>")})
	}
	return out
}

type tcKind struct{ group, version, resource string }

var tcKinds = map[string]tcKind{
	"Deployment": {"apps", "v1", "deployments"},
	"Pod":        {"", "v1", "pods"},
	"ConfigMap":  {"", "v1", "configmaps"},
	"Secret":     {"", "v1", "secrets"},
	"Namespace":  {"", "v1", "namespaces"},
	"Service":    {"", "v1", "services"},
	"Job":        {"batch", "v1", "jobs"},
	"Ingress":    {"networking.k8s.io", "v1", "ingresses"},
	"CSR":        {"certificates.k8s.io", "v1", "certificatesigningrequests"},
	"Event":      {"events.k8s.io", "v1", "events"},
	"Lease":      {"coordination.k8s.io", "v1", "leases"},
}

func tcRule(kinds ...string) admissionregistrationv1.NamedRuleWithOperations {
	var r admissionregistrationv1.Rule
	for _, k := range kinds {
		m := tcKinds[k]
		r.APIGroups = append(r.APIGroups, m.group)
		r.APIVersions = append(r.APIVersions, m.version)
		r.Resources = append(r.Resources, m.resource)
	}
	return admissionregistrationv1.NamedRuleWithOperations{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{"*"}, Rule: r,
	}}
}

// typeCheckExpressions are checked against every kind of tcKinds.
var typeCheckExpressions = []string{
	"true",
	"object.foo == 'bar'",
	"object.metadata.name.startsWith('a')",
	"object.metadata.name == 1",
	"object.metadata.namespace == 'default'",
	"object.metadata.labels['app'] == 'x'",
	"object.metadata.labels.app == 1",
	"has(object.metadata.labels) && 'app' in object.metadata.labels",
	"object.metadata.annotations.all(k, k.startsWith('a'))",
	"object.metadata.creationTimestamp < timestamp('2020-01-01T00:00:00Z')",
	"object.metadata.creationTimestamp == 'x'",
	"object.metadata.deletionGracePeriodSeconds > 1",
	"object.metadata.managedFields[0].time.getFullYear() > 2000",
	"object.metadata.managedFields[0].fieldsV1 == 1",
	"object.metadata.ownerReferences.exists(r, r.controller)",
	"object.metadata.generation + 'x'",
	"object.metadata.finalizers.size() > 0",
	"object.metadata.uid == 1",
	"object.kind == 'Deployment' && object.apiVersion == 'apps/v1'",
	"object.spec.replicas <= 5",
	"object.spec.replicas == 'a'",
	"object.spec.replica <= 5",
	"object.spec.template.spec.containers.all(c, c.image.startsWith('registry/'))",
	"object.spec.template.spec.containers.all(c, c.image == 1)",
	"object.spec.template.spec.containers[0].ports[0].containerPort + object.spec.strategy",
	"object.spec.template.spec.containers[0].resources.limits['cpu'] == '1'",
	"quantity(object.spec.template.spec.containers[0].resources.limits.memory).isGreaterThan(quantity('1Gi'))",
	"object.spec.template.spec.containers[0].resources.limits.memory == 1",
	"object.spec.strategy.rollingUpdate.maxSurge == 1 || object.spec.strategy.rollingUpdate.maxSurge == '25%'",
	"object.spec.strategy.rollingUpdate.maxSurge.startsWith('2')",
	"object.spec.progressDeadlineSeconds > 0.5",
	"object.spec.containers.exists(c, c.securityContext.privileged)",
	"object.spec.containers.exists(c, c.securityContext.privileged == 'true')",
	"object.spec.containers[0].livenessProbe.httpGet.port == 8080",
	"object.spec.volumes.exists(v, has(v.hostPath))",
	"object.spec.hostNetwork",
	"object.spec.terminationGracePeriodSeconds * 2.0",
	"object.spec.overhead['cpu'] == 1",
	"object.spec.nodeSelector.all(k, object.spec.nodeSelector[k] != '')",
	"object.status.startTime > timestamp('2020-01-01T00:00:00Z')",
	"object.status.conditions.exists(c, c.lastTransitionTime == now)",
	"object.data.size() < 10",
	"object.data['key'].size() > 1",
	"object.data['key'] == b'abc'",
	"object.data['key'] == 'abc'",
	"object.binaryData['key'] == b'abc'",
	"object.stringData.size() == 0",
	"object.immutable == true",
	"object.type == 'Opaque'",
	"object.spec.ports.all(p, p.port > 0 && p.targetPort != 0)",
	"object.spec.ports.all(p, p.targetPort > 0)",
	"object.spec.clusterIP == null",
	"object.spec.finalizers.size() == 0",
	"object.status.phase == 'Active'",
	"object.spec.request == b'x'",
	"object.spec.request.size() > 0",
	"object.spec.usages.exists(u, u == 'client auth')",
	"object.spec.rules.all(r, r.host.endsWith('.example.com'))",
	"object.spec.rules[0].http.paths[0].backend.service.port.number == 80",
	"object.eventTime > timestamp('2020-01-01T00:00:00Z')",
	"object.spec.renewTime == object.spec.acquireTime",
	"object.spec.leaseDurationSeconds == duration('1s')",
	"object.spec.backoffLimit < 3 && object.spec.completions > 1",
	"oldObject == null || oldObject.metadata.name == object.metadata.name",
	"oldObject.spec.replicas < object.spec.replicas",
	"object.metadata.name + 1",
	"request.operation == 'CREATE'",
	"request.userInfo.username == 1",
	"namespaceObject.metadata.name == 'x'",
	"namespaceObject.spec.finalizers.size() > 0",
	"authorizer.group('').resource('endpoints').check('create').allowed()",
	"authorizer.requestResource.check('get').allowed()",
	"authorizer.allowed()",
	"params.foo == 1",
	"variables.foo",
	"object.metadata.labels.exists(k, k == 1)",
	"object.missing.field",
	"'abc'",
	"object.spec",
	"object.spec == object.status",
	"object.spec.template.metadata.labels == object.spec.selector.matchLabels",
	"object.spec.selector.matchExpressions.exists(e, e.operator == 'In')",
	"size(object.spec.template.spec.initContainers) == 0",
	"object.spec.template.spec.containers.map(c, c.name).size()",
	"[object.metadata.creationTimestamp, object.metadata.name]",
	"object.spec.template.spec.containers.filter(c, c.ports.exists(p, p.hostPort > 0))",
	"object.metadata.resourceVersion > 1",
	"object.metadata.namespace",
	"object.metadata.__namespace__ == 'x'",
	"this is not cel",
	"object.?spec.?replicas.orValue(1) > 0",
	"object.?spec.?replicas.orValue('x') > 0",
	"object.spec.?template.?spec.?containers.orValue([]).size() > 0",
	"object.spec.template.spec.containers[?0].?image.orValue('') != ''",
	"object.metadata.?labels[?'app'].orValue('') == 1",
	"has(object.spec.replicas) && has(object.metadata.labels.app)",
	"has(object.spec.nope)",
	"type(object.spec.replicas) == int",
	"type(object.spec.strategy) == string",
	"object.spec.template.spec.containers.map(c, c.name).isSorted()",
	"object.spec.template.spec.containers.map(c, c.ports).sum()",
	"object.spec.template.spec.containers.sortBy(c, c.name)[0].image",
	"object.metadata.name.matches('^a') && object.metadata.name.indexOf(1) > 0",
	"url(object.metadata.annotations['u']).getHost() == object.metadata.name",
	"object.metadata.creationTimestamp + duration('1h') > now()",
	"object.metadata.creationTimestamp - object.metadata.creationTimestamp > duration('1s')",
	"object.metadata.creationTimestamp.getHours('UTC') > 1",
	"int(object.metadata.creationTimestamp) > 0",
	"string(object.spec.replicas) + object.metadata.name",
	"double(object.spec.replicas) / 2.0 > 1.0",
	"object.metadata.labels.filter(k, k.startsWith('a')).size() > 0",
	"object.metadata.labels.map(k, object.metadata.labels[k]).all(v, v != '')",
	"object.metadata.ownerReferences.exists_one(r, r.controller == true)",
	"{'a': object.spec.replicas}.a == 1",
	"[object.spec.replicas, 1].all(x, x > 0)",
	"object.spec.template.spec.containers.all(c, c.resources.requests.size() > 0)",
	"object.spec.template.spec.containers.all(c, has(c.resources.limits))",
	"object.spec.template.spec.securityContext.runAsUser > 0 && object.spec.template.spec.securityContext.runAsNonRoot",
	"object.spec.template.spec.tolerations.exists(t, t.tolerationSeconds > 1)",
	"object.spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms.size() > 0",
	"cel.bind(x, object.spec.replicas, x * x) > 4",
	"object.data.all(k, object.data[k].size() < 10)",
	"base64.decode(object.data.x) == b'a'",
	"object.spec.ports.map(p, p.targetPort).exists(t, t == 80)",
	"ip(object.spec.clusterIP).family() == 4 && cidr('10.0.0.0/8').containsIP(object.spec.clusterIP)",
	"quantity('1Gi').isLessThan(quantity(object.spec.template.spec.containers[0].resources.requests.memory))",
	"object.status.conditions.exists(c, c.type == 'Ready' && c.status == true)",
	"object.spec.template.spec.containers[0].env.exists(e, e.valueFrom.secretKeyRef.optional)",
	"object.spec.template.spec.volumes.exists(v, v.configMap.defaultMode > 0)",
	"object.spec.template.spec.containers.all(c, c.lifecycle.preStop.sleep.seconds > 0)",
}

func typeCheckCorpus() []*admissionregistrationv1.ValidatingAdmissionPolicy {
	var out []*admissionregistrationv1.ValidatingAdmissionPolicy
	kinds := []string{"Deployment", "Pod", "ConfigMap", "Secret", "Namespace", "Service", "Job", "Ingress", "CSR", "Event", "Lease"}
	for _, k := range kinds {
		p := &admissionregistrationv1.ValidatingAdmissionPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: "kind-" + k},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
				MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{tcRule(k)}},
			},
		}
		for i, e := range typeCheckExpressions {
			v := admissionregistrationv1.Validation{Expression: e}
			if i%3 == 0 {
				v.MessageExpression = "'bad: ' + " + e
			}
			p.Spec.Validations = append(p.Spec.Validations, v)
		}
		out = append(out, p)
	}
	validations := func(es ...string) []admissionregistrationv1.Validation {
		var vs []admissionregistrationv1.Validation
		for _, e := range es {
			vs = append(vs, admissionregistrationv1.Validation{Expression: e, MessageExpression: "object.metadata.name + ' ' + string(object.kind)"})
		}
		return vs
	}
	matching := func(rules ...admissionregistrationv1.NamedRuleWithOperations) *admissionregistrationv1.MatchResources {
		return &admissionregistrationv1.MatchResources{ResourceRules: rules}
	}
	multi := []struct {
		name      string
		match     *admissionregistrationv1.MatchResources
		paramKind *admissionregistrationv1.ParamKind
		variables []admissionregistrationv1.Variable
		exprs     []string
	}{
		{name: "several-kinds", match: matching(tcRule("Deployment", "Pod", "Job"), tcRule("ConfigMap")), exprs: typeCheckExpressions},
		{name: "params-configmap", match: matching(tcRule("Deployment")), paramKind: &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"},
			exprs: []string{"object.spec.replicas <= int(params.data.max)", "params.data.max > 1", "params.spec.x", "params.binaryData.x == b'a'", "params == null"}},
		{name: "params-unknown", match: matching(tcRule("Deployment")), paramKind: &admissionregistrationv1.ParamKind{APIVersion: "rules.example.com/v1", Kind: "ReplicaLimit"},
			exprs: []string{"object.spec.replicas <= params.maxReplicas", "params.x.y.z == 1", "object.spec.replicas == params"}},
		{name: "params-bad-version", match: matching(tcRule("Deployment")), paramKind: &admissionregistrationv1.ParamKind{APIVersion: "a/b/c", Kind: "X"},
			exprs: []string{"params.x == 1"}},
		{name: "params-deployment", match: matching(tcRule("Pod")), paramKind: &admissionregistrationv1.ParamKind{APIVersion: "apps/v1", Kind: "Deployment"},
			exprs: []string{"params.spec.replicas > 1", "params.spec.replicas == object.spec.containers", "params.metadata.labels == object.metadata.labels"}},
		{name: "params-other-version", match: matching(tcRule("Deployment")), paramKind: &admissionregistrationv1.ParamKind{APIVersion: "apps/v1beta1", Kind: "Deployment"},
			exprs: []string{"has(params.spec.rollbackTo)", "has(object.spec.rollbackTo)", "params.spec == 1", "object.spec == params.spec", "params.spec.replicas == object.spec.replicas"}},
		{name: "variables", match: matching(tcRule("Deployment", "Pod")),
			variables: []admissionregistrationv1.Variable{
				{Name: "replicas", Expression: "object.spec.replicas"},
				{Name: "name", Expression: "object.metadata.name"},
				{Name: "containers", Expression: "object.spec.template.spec.containers"},
				{Name: "labels", Expression: "object.metadata.labels"},
				{Name: "created", Expression: "object.metadata.creationTimestamp"},
				{Name: "broken", Expression: "object.nope"},
				{Name: "spec", Expression: "object.spec"},
				{Name: "dup", Expression: "1"},
				{Name: "dup", Expression: "'one'"},
			},
			exprs: []string{"variables.replicas > 1", "variables.replicas == 'x'", "variables.name.size() > 1", "variables.containers.all(c, c.image != '')",
				"variables.labels['a'] == 1", "variables.created > timestamp('2020-01-01T00:00:00Z')", "variables.broken == 1", "variables.spec.foo",
				"variables.dup == 1", "variables.dup == 'one'", "variables.nope"}},
		{name: "wildcards", match: matching(
			admissionregistrationv1.NamedRuleWithOperations{RuleWithOperations: admissionregistrationv1.RuleWithOperations{Rule: admissionregistrationv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}},
			admissionregistrationv1.NamedRuleWithOperations{RuleWithOperations: admissionregistrationv1.RuleWithOperations{Rule: admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"*"}, Resources: []string{"deployments"}}}},
			admissionregistrationv1.NamedRuleWithOperations{RuleWithOperations: admissionregistrationv1.RuleWithOperations{Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"*", "pods/status", "services", "nosuchresources"}}}},
		), exprs: []string{"object.spec.replicas > 1", "object.spec.type == 'x'"}},
		{name: "many-kinds", match: matching(
			admissionregistrationv1.NamedRuleWithOperations{RuleWithOperations: admissionregistrationv1.RuleWithOperations{Rule: admissionregistrationv1.Rule{APIGroups: []string{"", "apps"}, APIVersions: []string{"v1"},
				Resources: []string{"pods", "deployments", "services", "configmaps", "secrets", "namespaces", "nodes", "statefulsets", "daemonsets", "replicasets", "serviceaccounts", "endpoints", "persistentvolumes"}}}},
		), exprs: []string{"object.spec.replicas > 1", "object.metadata.name == 1", "object.data.x == 'a'"}},
		{name: "versions", match: matching(
			admissionregistrationv1.NamedRuleWithOperations{RuleWithOperations: admissionregistrationv1.RuleWithOperations{Rule: admissionregistrationv1.Rule{APIGroups: []string{"autoscaling", "batch"}, APIVersions: []string{"v1", "v2", "v1beta1"},
				Resources: []string{"horizontalpodautoscalers", "cronjobs"}}}},
		), exprs: []string{"object.spec.maxReplicas > 1", "object.spec.metrics.size() > 0", "object.spec.schedule == ''", "object.spec.targetCPUUtilizationPercentage > 50"}},
		{name: "events-in-every-group", match: matching(
			admissionregistrationv1.NamedRuleWithOperations{RuleWithOperations: admissionregistrationv1.RuleWithOperations{Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"},
				Resources: []string{"events", "endpoints", "configmaps", "limitranges", "namespaces", "nodes", "persistentvolumeclaims", "persistentvolumes", "pods", "secrets", "services"}}}},
			tcRule("Deployment"),
		), exprs: []string{"object.eventTime > timestamp('2020-01-01T00:00:00Z')", "object.spec.replicas > 1", "object.metadata.name == 1"}},
		{name: "no-rules", exprs: []string{"object.foo"}},
	}
	for _, m := range multi {
		out = append(out, &admissionregistrationv1.ValidatingAdmissionPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: m.name},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
				MatchConstraints: m.match, ParamKind: m.paramKind, Variables: m.variables, Validations: validations(m.exprs...),
			},
		})
	}
	return out
}

// TestTypeCheckMatchesKubeAPIServer compares the warnings of every policy
// of the corpus, field refs and texts, with the digits of the object type
// names (kube-apiserver's clock, gatehouse's 0 and 1) replaced on both
// sides.
func TestTypeCheckMatchesKubeAPIServer(t *testing.T) {
	compiler, err := validatingpolicy.NewCompiler()
	require.NoError(t, err)
	kube := kubeTypeChecker()
	mapper := testrestmapper.TestOnlyStaticRESTMapper(scheme.Scheme)
	warned, checks := 0, 0
	for _, p := range typeCheckCorpus() {
		want := normalizeTypeNames(kube.Check(p))
		for _, m := range []meta.RESTMapper{nil, mapper} {
			got := compiler.TypeCheck(p, validatingpolicy.TypeCheckOptions{RESTMapper: m})
			diffWarnings(t, p.Name, want, normalizeTypeNames(got))
		}
		warned += len(want)
		checks += len(p.Spec.Validations)
	}
	t.Logf("%d validations, %d warnings, identical", checks, warned)
	require.Greater(t, warned, 100, "the corpus must warn")
}

// TestTypeCheckRealWorldMatchesKubeAPIServer type-checks every published
// policy of validatingpolicy/testdata/realworld with both.
func TestTypeCheckRealWorldMatchesKubeAPIServer(t *testing.T) {
	compiler, err := validatingpolicy.NewCompiler()
	require.NoError(t, err)
	kube := kubeTypeChecker()
	files, err := filepath.Glob("../../validatingpolicy/testdata/realworld/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	policies, warned := 0, map[string]int{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		// Documents that do not decode (other kinds, published typos)
		// are left out; the policies of the others are checked.
		objs, _ := validatingpolicy.Decode(data)
		for _, p := range objs.Policies {
			policies++
			want := normalizeTypeNames(kube.Check(p))
			got := compiler.TypeCheck(p, validatingpolicy.TypeCheckOptions{})
			diffWarnings(t, filepath.Base(f)+": "+p.Name, want, normalizeTypeNames(got))
			if len(want) > 0 {
				warned[filepath.Base(f)] += len(want)
			}
		}
	}
	t.Logf("%d policies, warnings: %v", policies, warned)
	assert.Contains(t, warned, "kubernetes__website__typechecking.yaml")
}

// diffWarnings reports each warning that differs, briefly.
func diffWarnings(t *testing.T, name string, want, got []admissionregistrationv1.ExpressionWarning) {
	t.Helper()
	if assert.ObjectsAreEqual(want, got) {
		return
	}
	w, g := map[string]string{}, map[string]string{}
	var refs []string
	for _, x := range want {
		w[x.FieldRef] = x.Warning
		refs = append(refs, x.FieldRef)
	}
	for _, x := range got {
		if _, ok := w[x.FieldRef]; !ok {
			refs = append(refs, x.FieldRef)
		}
		g[x.FieldRef] = x.Warning
	}
	n := 0
	for _, r := range refs {
		if w[r] != g[r] && n < 8 {
			n++
			t.Errorf("%s %s:\nkube:      %q\ngatehouse: %q", name, r, w[r], g[r])
		}
	}
	if len(want) != len(got) || n == 0 {
		t.Errorf("%s: %d warnings from kube, %d from gatehouse", name, len(want), len(got))
	}
}
