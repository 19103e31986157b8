package validatingpolicy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/kube"
)

func rule(groups, versions, resources []string) admissionregistrationv1.NamedRuleWithOperations {
	return admissionregistrationv1.NamedRuleWithOperations{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
		Rule:       admissionregistrationv1.Rule{APIGroups: groups, APIVersions: versions, Resources: resources},
	}}
}

func matching(rules ...admissionregistrationv1.NamedRuleWithOperations) func(*admissionregistrationv1.ValidatingAdmissionPolicy) {
	return func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
		p.Spec.MatchConstraints.ResourceRules = rules
	}
}

var deployments = rule([]string{"apps"}, []string{"v1"}, []string{"deployments"})

func TestTypesToCheck(t *testing.T) {
	deployment := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	pod := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	for _, tc := range []struct {
		name  string
		rules []admissionregistrationv1.NamedRuleWithOperations
		want  []schema.GroupVersionKind
	}{
		{"none", nil, nil},
		{"specific", []admissionregistrationv1.NamedRuleWithOperations{deployments}, []schema.GroupVersionKind{deployment}},
		{"sorted by group", []admissionregistrationv1.NamedRuleWithOperations{deployments, rule([]string{""}, []string{"v1"}, []string{"pods"})}, []schema.GroupVersionKind{pod, deployment}},
		{"all resources", []admissionregistrationv1.NamedRuleWithOperations{rule([]string{"apps"}, []string{"v1"}, []string{"*"})}, nil},
		{"subresources", []admissionregistrationv1.NamedRuleWithOperations{rule([]string{""}, []string{"v1"}, []string{"pods/*", "pods/status"})}, nil},
		{"wildcard version skips the rule", []admissionregistrationv1.NamedRuleWithOperations{deployments, rule([]string{""}, []string{"*"}, []string{"pods"})}, []schema.GroupVersionKind{deployment}},
		{"wildcard group skips the rule", []admissionregistrationv1.NamedRuleWithOperations{rule([]string{"", "*"}, []string{"v1"}, []string{"pods"})}, nil},
		{"wildcard resource is skipped alone", []admissionregistrationv1.NamedRuleWithOperations{rule([]string{""}, []string{"v1"}, []string{"*", "pods"})}, []schema.GroupVersionKind{pod}},
		{"unknown resources", []admissionregistrationv1.NamedRuleWithOperations{rule([]string{"example.com"}, []string{"v1"}, []string{"widgets"})}, nil},
		{"duplicates", []admissionregistrationv1.NamedRuleWithOperations{deployments, deployments}, []schema.GroupVersionKind{deployment}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := policy("p", matching(tc.rules...))
			assert.Equal(t, tc.want, typesToCheck(p, builtinRESTMapper()))
		})
	}
}

func TestTypesToCheckStopsAtTenKinds(t *testing.T) {
	resources := []string{"pods", "configmaps", "endpoints", "events", "limitranges", "namespaces", "nodes", "persistentvolumeclaims",
		"persistentvolumes", "replicationcontrollers", "resourcequotas", "secrets", "serviceaccounts", "services"}
	p := policy("p", matching(rule([]string{""}, []string{"v1"}, resources), deployments))
	// The resources in order until ten kinds are found (a resource in the
	// empty group matches every group, as kube-apiserver's REST mappers
	// match it: events are two kinds); the next rule is not read.
	var got []string
	for _, gvk := range typesToCheck(p, builtinRESTMapper()) {
		got = append(got, gvk.String())
	}
	assert.Equal(t, []string{"/v1, Kind=ConfigMap", "/v1, Kind=Endpoints", "/v1, Kind=Event", "/v1, Kind=LimitRange", "/v1, Kind=Namespace",
		"/v1, Kind=Node", "/v1, Kind=PersistentVolume", "/v1, Kind=PersistentVolumeClaim", "/v1, Kind=Pod", "events.k8s.io/v1, Kind=Event"}, got)
}

func TestTypeCheck(t *testing.T) {
	c, err := NewCompiler()
	require.NoError(t, err)
	v := func(expression, messageExpression string) admissionregistrationv1.Validation {
		return admissionregistrationv1.Validation{Expression: expression, MessageExpression: messageExpression}
	}
	params := func(apiVersion, kind string) func(*admissionregistrationv1.ValidatingAdmissionPolicy) {
		return func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			p.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: apiVersion, Kind: kind}
		}
	}
	variables := func(vs ...string) func(*admissionregistrationv1.ValidatingAdmissionPolicy) {
		return func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			for i := 0; i < len(vs); i += 2 {
				p.Spec.Variables = append(p.Spec.Variables, admissionregistrationv1.Variable{Name: vs[i], Expression: vs[i+1]})
			}
		}
	}
	type want struct{ fieldRef, contains string }
	for _, tc := range []struct {
		name string
		opts []func(*admissionregistrationv1.ValidatingAdmissionPolicy)
		want []want
	}{
		{name: "passes", opts: []func(*admissionregistrationv1.ValidatingAdmissionPolicy){validations(v("object.spec.replicas <= 5", "'too many: ' + string(object.spec.replicas)"))}},
		{name: "undefined field", opts: []func(*admissionregistrationv1.ValidatingAdmissionPolicy){validations(v("object.foo == 'bar'", ""))},
			want: []want{{"spec.validations[0].expression", "undefined field 'foo'"}}},
		{name: "type mismatch", opts: []func(*admissionregistrationv1.ValidatingAdmissionPolicy){validations(v("object.spec.replicas == 'a'", ""))},
			want: []want{{"spec.validations[0].expression", "found no matching overload for '_==_' applied to '(int, string)'"}}},
		{name: "object types named after the kind", opts: []func(*admissionregistrationv1.ValidatingAdmissionPolicy){validations(v("object.spec == object.status", ""))},
			want: []want{{"spec.validations[0].expression", "'(Deployment0.spec, Deployment0.status)'"}}},
		{name: "timestamps", opts: []func(*admissionregistrationv1.ValidatingAdmissionPolicy){validations(v("object.metadata.creationTimestamp == 'x'", ""), v("object.metadata.creationTimestamp < now", ""))},
			want: []want{{"spec.validations[0].expression", "'(timestamp, string)'"}, {"spec.validations[1].expression", "undeclared reference to 'now'"}}},
		{name: "int-or-string is dyn", opts: []func(*admissionregistrationv1.ValidatingAdmissionPolicy){validations(v("object.spec.strategy.rollingUpdate.maxSurge == 1 || object.spec.strategy.rollingUpdate.maxSurge == '25%'", ""))}},
		{name: "quantities are not declared", opts: []func(*admissionregistrationv1.ValidatingAdmissionPolicy){validations(v("object.spec.template.spec.containers[0].resources.limits['cpu'] == '1'", ""))},
			want: []want{{"spec.validations[0].expression", "undefined field 'limits'"}}},
		{name: "reserved words", opts: []func(*admissionregistrationv1.ValidatingAdmissionPolicy){validations(v("object.metadata.namespace == 'a' && object.metadata.__namespace__ == 'a'", ""))}},
		{name: "message expression", opts: []func(*admissionregistrationv1.ValidatingAdmissionPolicy){validations(v("true", "object.foo + 114514"))},
			want: []want{{"spec.validations[0].messageExpression", "undefined field 'foo'"}}},
		{name: "message expression of any type", opts: []func(*admissionregistrationv1.ValidatingAdmissionPolicy){validations(v("1", "object.spec.replicas"))}},
		{name: "several", opts: []func(*admissionregistrationv1.ValidatingAdmissionPolicy){validations(v("object.foo == 'bar'", ""), v("true", ""), v("object.bar", "object.baz"))},
			want: []want{{"spec.validations[0].expression", "'foo'"}, {"spec.validations[2].expression", "'bar'"}, {"spec.validations[2].messageExpression", "'baz'"}}},
		{name: "authorizer", opts: []func(*admissionregistrationv1.ValidatingAdmissionPolicy){validations(v("authorizer.group('').resource('endpoints').check('create').allowed()", ""), v("authorizer.allowed()", ""))},
			want: []want{{"spec.validations[1].expression", "found no matching overload for 'allowed' applied to 'kubernetes.authorization.Authorizer.()'"}}},
		{name: "no authorizer.requestResource", opts: []func(*admissionregistrationv1.ValidatingAdmissionPolicy){validations(v("authorizer.requestResource.check('get').allowed()", ""))},
			want: []want{{"spec.validations[0].expression", "unexpected failed resolution of 'kubernetes.authorization.Authorizer'"}}},
		{name: "no params", opts: []func(*admissionregistrationv1.ValidatingAdmissionPolicy){validations(v("params.x == 1", ""))},
			want: []want{{"spec.validations[0].expression", "undeclared reference to 'params'"}}},
		{name: "params without schema", opts: []func(*admissionregistrationv1.ValidatingAdmissionPolicy){params("example.com/v1", "Limit"), validations(v("params.x.y == object.spec.replicas", ""))}},
		{name: "params with a bad apiVersion", opts: []func(*admissionregistrationv1.ValidatingAdmissionPolicy){params("a/b/c", "Limit"), validations(v("params.x == 1", ""))},
			want: []want{{"spec.validations[0].expression", "undeclared reference to 'params'"}}},
		{name: "typed params", opts: []func(*admissionregistrationv1.ValidatingAdmissionPolicy){params("v1", "ConfigMap"), validations(v("params.data.max == 1", ""), v("params.binaryData.x == b'a'", ""))},
			want: []want{{"spec.validations[0].expression", "'(string, int)'"}}},
		{name: "params of another version of the kind", opts: []func(*admissionregistrationv1.ValidatingAdmissionPolicy){params("apps/v1beta1", "Deployment"),
			validations(v("has(params.spec.rollbackTo) && object.spec.replicas == params.spec.replicas", ""), v("has(object.spec.rollbackTo)", ""), v("params.spec == 1", ""))},
			want: []want{{"spec.validations[1].expression", "undefined field 'rollbackTo'"}, {"spec.validations[2].expression", "'(Deployment1.spec, int)'"}}},
		{name: "variables", opts: []func(*admissionregistrationv1.ValidatingAdmissionPolicy){
			variables("replicas", "object.spec.replicas", "broken", "object.nope", "spec", "object.spec"),
			validations(v("variables.replicas == 'x'", ""), v("variables.broken == 1 && variables.spec.anything", ""), v("variables.nope", ""))},
			want: []want{{"spec.validations[0].expression", "'(int, string)'"}, {"spec.validations[2].expression", "undefined field 'nope'"}}},
		{name: "syntax error", opts: []func(*admissionregistrationv1.ValidatingAdmissionPolicy){validations(v("this is not cel", ""))},
			want: []want{{"spec.validations[0].expression", "Syntax error"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := policy("p", append([]func(*admissionregistrationv1.ValidatingAdmissionPolicy){matching(deployments)}, tc.opts...)...)
			got := c.TypeCheck(p, TypeCheckOptions{})
			require.Len(t, got, len(tc.want), "%v", got)
			for i, w := range tc.want {
				assert.Equal(t, w.fieldRef, got[i].FieldRef)
				assert.Contains(t, got[i].Warning, w.contains)
				assert.True(t, strings.HasPrefix(got[i].Warning, "apps/v1, Kind=Deployment: ERROR: <input>:"), got[i].Warning)
			}
		})
	}
}

func TestTypeCheckText(t *testing.T) {
	c, err := NewCompiler()
	require.NoError(t, err)
	p := policy("p", matching(rule([]string{"", "apps"}, []string{"v1"}, []string{"deployments", "pods"})),
		validations(admissionregistrationv1.Validation{Expression: "object.spec.replicas > 1"}, admissionregistrationv1.Validation{Expression: "object.spec.containers.size() > 0"}))
	assert.Equal(t, []admissionregistrationv1.ExpressionWarning{
		{FieldRef: "spec.validations[0].expression", Warning: "/v1, Kind=Pod: ERROR: <input>:1:12: undefined field 'replicas'\n | object.spec.replicas > 1\n | ...........^\n"},
		{FieldRef: "spec.validations[1].expression", Warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'containers'\n | object.spec.containers.size() > 0\n | ...........^\n"},
	}, c.TypeCheck(p, TypeCheckOptions{}))

	p = policy("p", matching(rule([]string{"", "apps"}, []string{"v1"}, []string{"deployments", "pods"})),
		validations(admissionregistrationv1.Validation{Expression: "object.nope"}))
	assert.Equal(t, []admissionregistrationv1.ExpressionWarning{
		{FieldRef: "spec.validations[0].expression", Warning: "/v1, Kind=Pod: ERROR: <input>:1:7: undefined field 'nope'\n | object.nope\n | ......^\n\n" +
			"apps/v1, Kind=Deployment: ERROR: <input>:1:7: undefined field 'nope'\n | object.nope\n | ......^\n"},
	}, c.TypeCheck(p, TypeCheckOptions{}))

	assert.Nil(t, c.TypeCheck(nil, TypeCheckOptions{}))
	assert.Nil(t, c.TypeCheck(policy("every resource", validations(admissionregistrationv1.Validation{Expression: "object.nope"})), TypeCheckOptions{}))
}

// FuzzTypeCheck type-checks arbitrary expressions against built-in kinds: no
// panic, and every warning is on an expression of the policy.
func FuzzTypeCheck(f *testing.F) {
	f.Add("object.spec.replicas > 1", "object.metadata.name", "variables.v", "object.spec")
	f.Add("object.nope", "params.x", "object.metadata.namespace", "[")
	f.Add("object.spec.template.spec.containers.all(c, c.image == 1)", "'m'", "object.metadata.creationTimestamp", "1")
	c, err := NewCompiler()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, expression, messageExpression, variable, param string) {
		p := policy("p", matching(rule([]string{"", "apps", "batch"}, []string{"v1"}, []string{"deployments", "pods", "jobs", "configmaps"})),
			validations(admissionregistrationv1.Validation{Expression: expression, MessageExpression: messageExpression}))
		p.Spec.Variables = []admissionregistrationv1.Variable{{Name: "v", Expression: variable}}
		p.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: param}
		for _, w := range c.TypeCheck(p, TypeCheckOptions{}) {
			if w.FieldRef != "spec.validations[0].expression" && w.FieldRef != "spec.validations[0].messageExpression" {
				t.Fatalf("warning on %s", w.FieldRef)
			}
			if !strings.HasSuffix(w.Warning, "\n") {
				t.Fatalf("warning %q", w.Warning)
			}
		}
	})
}

func BenchmarkTypeCheck(b *testing.B) {
	c, err := NewCompiler()
	require.NoError(b, err)
	p := policy("p", matching(rule([]string{"", "apps"}, []string{"v1"}, []string{"deployments", "pods"})),
		validations(admissionregistrationv1.Validation{Expression: "object.spec.replicas > 1", MessageExpression: "object.metadata.name"}))
	for b.Loop() {
		c.TypeCheck(p, TypeCheckOptions{})
	}
}

const widgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
              port: {x-kubernetes-int-or-string: true}
              since: {type: string, format: date-time}
              foo-bar: {type: string}
              free: {x-kubernetes-preserve-unknown-fields: true}
              template: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}
  - name: v0
    served: false
    storage: false
    schema:
      openAPIV3Schema: {type: object}
`

func TestTypeCheckCustomResources(t *testing.T) {
	c, err := NewCompiler()
	require.NoError(t, err)
	crs := NewCustomResources()
	require.NoError(t, crs.AddCRD([]byte(widgetCRD)))
	p := policy("p", matching(rule([]string{"example.com"}, []string{"v1", "v0"}, []string{"widgets"})), validations(
		admissionregistrationv1.Validation{Expression: "object.spec.size > 1 && object.spec.port == 'a' && object.spec.since < timestamp('2020-01-01T00:00:00Z')"},
		admissionregistrationv1.Validation{Expression: "object.spec.foo__dash__bar == 'x' && object.metadata.labels['a'] == 'b' && object.spec.template.metadata.name == 'x'"},
		admissionregistrationv1.Validation{Expression: "object.spec.size == 'x'"},
		admissionregistrationv1.Validation{Expression: "object.spec.free"},
	))
	assert.Equal(t, []admissionregistrationv1.ExpressionWarning{
		{FieldRef: "spec.validations[2].expression", Warning: "example.com/v1, Kind=Widget: ERROR: <input>:1:18: found no matching overload for '_==_' applied to '(int, string)'\n | object.spec.size == 'x'\n | .................^\n"},
		{FieldRef: "spec.validations[3].expression", Warning: "example.com/v1, Kind=Widget: ERROR: <input>:1:12: undefined field 'free'\n | object.spec.free\n | ...........^\n"},
	}, c.TypeCheck(p, TypeCheckOptions{CustomResources: crs}))
	// Without the CRD, the kind has no schema and nothing is checked.
	assert.Nil(t, c.TypeCheck(p, TypeCheckOptions{}))
	// With another mapper, the kinds are the mapper's.
	assert.Nil(t, c.TypeCheck(p, TypeCheckOptions{RESTMapper: builtinRESTMapper(), CustomResources: crs}))

	// A CRD of the same kind replaces it, its resources too.
	require.NoError(t, crs.AddCRD([]byte(strings.Replace(widgetCRD, "size: {type: integer}", "size: {type: string}", 1))))
	assert.Equal(t, "spec.validations[0].expression", c.TypeCheck(p, TypeCheckOptions{CustomResources: crs})[0].FieldRef)
	require.NoError(t, crs.AddCRD([]byte(strings.Replace(widgetCRD, "plural: widgets", "plural: gadgets", 1))))
	assert.Nil(t, c.TypeCheck(p, TypeCheckOptions{CustomResources: crs}))

	// A schema that declares no type is dyn, as kube-apiserver's
	// SchemaDeclType makes nothing of it: the kind is still checked.
	crs = NewCustomResources()
	require.NoError(t, crs.AddCRD([]byte(strings.NewReplacer("Widget", "Gadget", "widgets", "gadgets", "type: object\n        properties:", "x-kubernetes-preserve-unknown-fields: true\n        properties:").Replace(widgetCRD))))
	p = policy("p", matching(rule([]string{"example.com"}, []string{"v1"}, []string{"gadgets"})), validations(
		admissionregistrationv1.Validation{Expression: "object.anything.at.all == 1"},
		admissionregistrationv1.Validation{Expression: "object +"},
	))
	got := c.TypeCheck(p, TypeCheckOptions{CustomResources: crs})
	require.Len(t, got, 1)
	assert.Equal(t, "spec.validations[1].expression", got[0].FieldRef)
	assert.True(t, strings.HasPrefix(got[0].Warning, "example.com/v1, Kind=Gadget: ERROR: <input>:1:9: Syntax error"), got[0].Warning)

	for _, bad := range []string{"{", "apiVersion: v1\nkind: ConfigMap", strings.Replace(widgetCRD, "plural: widgets, ", "", 1)} {
		assert.Error(t, NewCustomResources().AddCRD([]byte(bad)))
	}
}

// FuzzTypeCheckCustomResources type-checks a policy against arbitrary CRDs:
// no panic.
func FuzzTypeCheckCustomResources(f *testing.F) {
	f.Add([]byte(widgetCRD), "object.spec.size > 1")
	f.Add([]byte(strings.Replace(widgetCRD, "foo-bar", "a.b/c__d", 1)), "object.spec.a__dot__b__slash__c__underscores__d")
	f.Add([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","spec":{"group":"example.com","names":{"plural":"widgets","kind":"Widget"},"versions":[{"name":"v1","served":true}]}}`), "object.metadata.name")
	c, err := NewCompiler()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, crd []byte, expression string) {
		crs := NewCustomResources()
		if crs.AddCRD(crd) != nil {
			return
		}
		p := policy("p", matching(rule([]string{"example.com"}, []string{"v1", "v2"}, []string{"widgets"})),
			validations(admissionregistrationv1.Validation{Expression: expression}))
		p.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "example.com/v1", Kind: "Widget"}
		c.TypeCheck(p, TypeCheckOptions{CustomResources: crs})
	})
}

func ExampleCompiler_TypeCheck() {
	c, err := NewCompiler()
	if err != nil {
		panic(err)
	}
	p := &admissionregistrationv1.ValidatingAdmissionPolicy{Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
		MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
			RuleWithOperations: admissionregistrationv1.RuleWithOperations{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}},
			},
		}}},
		Validations: []admissionregistrationv1.Validation{
			{Expression: "object.spec.replicas <= 5"},
			{Expression: "object.spec.replica <= 5", MessageExpression: "'replicas: ' + object.spec.replicas"},
		},
	}}
	for _, w := range c.TypeCheck(p, TypeCheckOptions{}) {
		fmt.Printf("%s:\n%s", w.FieldRef, w.Warning)
	}
	// Output:
	// spec.validations[1].expression:
	// apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replica'
	//  | object.spec.replica <= 5
	//  | ...........^
	// spec.validations[1].messageExpression:
	// apps/v1, Kind=Deployment: ERROR: <input>:1:14: found no matching overload for '_+_' applied to '(string, int)'
	//  | 'replicas: ' + object.spec.replicas
	//  | .............^
}

// Params of a kind whose schema does not resolve: declared as dyn from 1.36
// on; before, not declared, so using them is an undeclared reference
// (kubeversions.TypeCheckParamsWithoutSchema).
func TestTypeCheckParamsWithoutSchemaPerVersion(t *testing.T) {
	p := policy("p", matching(deployments), validations(
		admissionregistrationv1.Validation{Expression: "params.x.y == object.spec.replicas"},
		admissionregistrationv1.Validation{Expression: "object.spec.replicas > 0"}))
	p.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "example.com/v1", Kind: "Limit"}
	typed := p.DeepCopy()
	typed.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
	typed.Spec.Validations[0].Expression = "params.data.x == 'y'"
	for _, tc := range []struct {
		version string
		want    string
	}{
		{"1.35", "undeclared reference to 'params'"},
		{"1.36", ""},
		{"1.37", ""},
		{"1.38", ""},
	} {
		t.Run(tc.version, func(t *testing.T) {
			target, err := kube.ParseTarget(tc.version)
			require.NoError(t, err)
			c, err := NewCompilerFor(target)
			require.NoError(t, err)
			got := c.TypeCheck(p, TypeCheckOptions{})
			if tc.want == "" {
				assert.Empty(t, got)
			} else {
				require.Len(t, got, 1)
				assert.Equal(t, "spec.validations[0].expression", got[0].FieldRef)
				assert.Contains(t, got[0].Warning, tc.want)
			}
			// Params whose schema resolves are declared at every version.
			assert.Empty(t, c.TypeCheck(typed, TypeCheckOptions{}))
		})
	}
}
