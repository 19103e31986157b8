// Package soak holds what the soak tests of the admission chain (package
// admission) and of contrib/apiserver's reloading plugin share: the
// configuration that churns with each epoch, and the heap and goroutine
// samples they assert on. Tests only import it.
package soak

import (
	"fmt"
	"runtime"
	"strings"
	"time"
)

// HeapInUse is the heap in use after a collection.
func HeapInUse() uint64 {
	runtime.GC()
	runtime.GC() // the second also frees what the first's finalizers released
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// SettledGoroutines is the number of goroutines once those ending have
// ended (waiting at most a few seconds for them to be scheduled).
func SettledGoroutines(want int) int {
	deadline := time.Now().Add(5 * time.Second)
	n := runtime.NumGoroutine()
	for n > want && time.Now().Before(deadline) {
		runtime.Gosched()
		n = runtime.NumGoroutine()
	}
	return n
}

// HeapBound is the bound the checkpoints after warm-up must stay within:
// the first checkpoint, a quarter more, and 4 MiB.
func HeapBound(first uint64) uint64 { return first + first/4 + 4<<20 }

// API is epoch e's API configuration (admission.Decode reads it): a
// MutatingAdmissionPolicy that stamps pods with the epoch's param
// (ConfigMap limits-<e>: data.stamp, data.maxContainers), a
// ValidatingAdmissionPolicy that checks the containers against its param
// and the stamp, and their bindings, all named after the epoch. With
// exactStamp the stamp must be the epoch's; otherwise any epoch's
// ("epoch-..."), for a server whose plugins each read their own policies,
// so that a request may be mutated by one epoch and validated by the next.
func API(e int, exactStamp bool) []byte {
	tmpl := apiTemplate
	if !exactStamp {
		tmpl = strings.Replace(tmpl, exactStampCheck, anyStampCheck, 1)
	}
	return []byte(fmt.Sprintf(tmpl, e))
}

const exactStampCheck = `  - expression: "object.metadata.labels.stamp == params.data.stamp"
    message: not stamped`

const anyStampCheck = `  - expression: "object.metadata.labels.stamp.startsWith('epoch-')"
    message: not stamped`

const apiTemplate = `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: stamp-%[1]d}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}
  failurePolicy: Fail
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: "Object{metadata: Object.metadata{labels: {'stamp': params.data.stamp}}}"
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: stamp-%[1]d}
spec:
  policyName: stamp-%[1]d
  paramRef: {name: limits-%[1]d, parameterNotFoundAction: Deny}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: limits-%[1]d}
spec:
  failurePolicy: Fail
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}
  validations:
  - expression: "object.spec.containers.size() <= int(params.data.maxContainers)"
    messageExpression: "'at most ' + params.data.maxContainers + ' containers'"
  - expression: "object.metadata.labels.stamp == params.data.stamp"
    message: not stamped
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: limits-%[1]d}
spec:
  policyName: limits-%[1]d
  validationActions: [Deny]
  paramRef: {name: limits-%[1]d, parameterNotFoundAction: Deny}
`
