package policycheck_test

import (
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/mutation"
	"github.com/gatehouse-dev/gatehouse/validatingpolicy"
)

// FuzzCheck checks arbitrary policies against arbitrary CRD schemas: no
// panic, and bounded time.
func FuzzCheck(f *testing.F) {
	f.Add(vap("", "object.spec.replicas < 5"), widgetCRD)
	f.Add(vap(`{apiGroups: ["example.com"], apiVersions: ["v1"], operations: ["*"], resources: ["widgets", "pod"]}`, "object.spec.colour.all(c, c.x['k'].?y.orValue(1) > 0)"), widgetCRD)
	f.Add(vap("", "cel.bind(x, object.spec, x.template.spec.containers.map(c, c.image)).size() > 0"), "")
	f.Add(`apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: p}
spec:
  reinvocationPolicy: Never
  paramKind: {apiVersion: example.com/v1, kind: Widget}
  matchConstraints:
    resourceRules: [{apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*/scale"]}]
  variables: [{name: v, expression: "params.spec"}]
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration: {expression: "Object{spec: Object.spec{replicas: variables.v.size}}"}
`, widgetCRD)
	f.Add(`apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: p}
spec:
  reinvocationPolicy: IfNeeded
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}]
  mutations:
  - patchType: JSONPatch
    jsonPatch: {expression: "[JSONPatch{op: 'add', path: '/spec/bogus~1x', value: 'v'}, JSONPatch{op: 'replace', path: '/spec/priority', value: 'x'}]"}
  - patchType: ApplyConfiguration
    applyConfiguration: {expression: "Object{spec: Object.spec{nodeSelector: {'a': 'b'}, priority: 'x'}}"}
`, "")
	f.Add(vap("", "object.spec.template.spec.containers.all(c, object.spec.template.spec.containers.all(d, c.name != d.name))"), "")
	f.Fuzz(func(t *testing.T, policies, crd string) {
		start := time.Now()
		opts := validatingpolicy.CheckOptions{CRDs: [][]byte{[]byte(crd)}}
		if v, err := validatingpolicy.Decode([]byte(policies)); err == nil {
			_, _ = validatingpolicy.Check(v, opts)
		}
		if m, err := mutation.Decode([]byte(policies)); err == nil {
			_, _ = mutation.Check(m, opts)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("checking took %v", d)
		}
	})
}
