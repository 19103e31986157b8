package kubernetes

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/api/legacyscheme"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/conformance/kubernetes/oracle/restvalidation"
)

// The oracle is kube-apiserver's path for a v1 object sent to the REST API,
// package restvalidation of ./oracle (linked here for 1.37, the oracle
// program's for the other versions): the scheme's defaults, conversion to
// the internal type, then what the registry strategy's Validate (create) or
// ValidateUpdate calls, with the features ManifestBasedAdmissionControlConfig
// and ExcludeAdmissionWebhookVirtualResources at 1.37's defaults (on), and
// the strategy's warnings.

// admOracleInternal defaults a copy of obj and converts it to the internal
// type into out, as restvalidation does (for the benchmarks).
func admOracleInternal(t testing.TB, obj runtime.Object, out runtime.Object) {
	t.Helper()
	in := obj.DeepCopyObject()
	legacyscheme.Scheme.Default(in)
	if err := legacyscheme.Scheme.Convert(in, out, nil); err != nil {
		t.Fatalf("converting %T: %v", obj, err)
	}
}

// admOracle validates obj (old nil: create) as kube-apiserver 1.37.2 does.
func admOracle(t testing.TB, obj, old runtime.Object) (field.ErrorList, []string) {
	t.Helper()
	errs, warnings, err := restvalidation.Validate(obj, old, restvalidation.DefaultGates())
	if err != nil {
		t.Fatal(err)
	}
	return errs, warnings
}

// admGatehouse validates obj as gatehouse does: SetDefaults on a copy, then
// the Validator.
func admGatehouse(v *admissionmanifest.Validator, obj, old runtime.Object) (field.ErrorList, []string) {
	obj = obj.DeepCopyObject()
	admissionmanifest.SetDefaults(obj)
	if old != nil {
		old = old.DeepCopyObject()
		admissionmanifest.SetDefaults(old)
	}
	return v.Validate(obj, old)
}

// admPassword is the only password of the corpus's URLs: kube-apiserver
// prints it, gatehouse prints "xxxxx" (a documented difference).
const admPassword = "s3cret"

// admRender renders errors as one comparable line each: type, path, and
// the text kube-apiserver prints (bad value and detail).
func admRender(errs field.ErrorList) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = fmt.Sprintf("%s | %s | %s", e.Type, e.Field, e.Error())
	}
	return out
}

// admRedact is kube-apiserver's rendering with the corpus password
// redacted, which is what gatehouse must print.
func admRedact(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.ReplaceAll(l, admPassword, "xxxxx")
	}
	return out
}
