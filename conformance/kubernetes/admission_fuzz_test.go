package kubernetes

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// FuzzAdmissionValidationMatchesKube decodes arbitrary JSON into each
// admission type and compares the validation, on create and on update from
// the corpus base of that type, with kube-apiserver's. The errors are
// compared as sorted lists (kube-apiserver validates maps in random order;
// the corpus tests check the order) and, at a clientConfig.url, by type and
// path only (gatehouse redacts passwords).
func FuzzAdmissionValidationMatchesKube(f *testing.F) {
	for _, seed := range []string{
		`{"metadata":{"name":"a"},"webhooks":[{"name":"a.b.c","clientConfig":{"url":"https://h/x"},"sideEffects":"None","admissionReviewVersions":["v1"],"rules":[{"operations":["*"],"apiGroups":["*"],"apiVersions":["*"],"resources":["*","a/*","*/b"]}],"matchConditions":[{"name":"x","expression":"object.x in [1, 2,"}]}]}`,
		`{"webhooks":[{"clientConfig":{"service":{"path":"//a/","port":0}},"namespaceSelector":{"matchExpressions":[{"key":"k","operator":"In"}]},"timeoutSeconds":0,"reinvocationPolicy":"x"}]}`,
		`{"metadata":{"name":"p"},"spec":{"paramKind":{"apiVersion":"a/b/c"},"matchConstraints":{"resourceRules":[{"resourceNames":[".."]}]},"variables":[{"name":"a","expression":"variables.a"},{"name":"b","expression":"variables.a + 1"}],"validations":[{"expression":"variables.b","messageExpression":"authorizer","message":"a\nb"}],"auditAnnotations":[{"key":"k","valueExpression":"1"}]}}`,
		`{"metadata":{"name":"b"},"spec":{"policyName":"P","paramRef":{"name":"a","selector":{}},"validationActions":["Deny","Warn","Deny"],"matchResources":{"excludeResourceRules":[{}]}}}`,
		`{}`,
	} {
		f.Add([]byte(seed))
	}
	bases := map[string]runtime.Object{
		"vwc":  admToValidating(admBaseMWCs()[1]),
		"mwc":  admBaseMWCs()[1],
		"vap":  admBasePolicies()[1],
		"vapb": admBindingCorpus(0)[1],
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for kind, obj := range map[string]runtime.Object{
			"vwc":  &admissionregistrationv1.ValidatingWebhookConfiguration{},
			"mwc":  &admissionregistrationv1.MutatingWebhookConfiguration{},
			"vap":  &admissionregistrationv1.ValidatingAdmissionPolicy{},
			"vapb": &admissionregistrationv1.ValidatingAdmissionPolicyBinding{},
		} {
			if yaml.Unmarshal(data, obj) != nil {
				continue
			}
			for _, old := range []runtime.Object{nil, bases[kind]} {
				want, ok := admOracleNoPanic(t, obj, old)
				got, _ := admGatehouse(admREST(t), obj, old)
				if !ok {
					continue
				}
				if w, g := admFuzzRender(want), admFuzzRender(got); !slices.Equal(w, g) {
					t.Fatalf("%s (update: %v): kube-apiserver:\n%s\ngatehouse:\n%s", kind, old != nil, strings.Join(w, "\n"), strings.Join(g, "\n"))
				}
			}
		}
	})
}

// admOracleNoPanic is admOracle; a panic of kube-apiserver's validation is
// reported as not ok (gatehouse must still not panic).
func admOracleNoPanic(t *testing.T, obj, old runtime.Object) (errs field.ErrorList, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			t.Logf("kube-apiserver panics: %v", r)
			ok = false
		}
	}()
	errs, _ = admOracle(t, obj, old)
	return errs, true
}

func admFuzzRender(errs field.ErrorList) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		if strings.HasSuffix(e.Field, "clientConfig.url") {
			out[i] = fmt.Sprintf("%s | %s", e.Type, e.Field)
		} else {
			out[i] = fmt.Sprintf("%s | %s", e.Type, e.Error())
		}
	}
	slices.Sort(out)
	return out
}
