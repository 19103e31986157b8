package mutation

import (
	"context"
	"encoding/json"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/internal/objectdiff"
)

// FuzzAdmit runs arbitrary requests (operation, kind, resource, names,
// objects) through policies with selectors, params and failure policies:
// the dispatcher never panics, and the request's objects are never
// modified.
func FuzzAdmit(f *testing.F) {
	f.Add("CREATE", "", "v1", "Pod", "pods", "", "p", "ns", `{"metadata":{"name":"p","labels":{"app":"web"}}}`, `null`)
	f.Add("UPDATE", "apps", "v1", "Deployment", "deployments", "scale", "", "", `{"metadata":[]}`, `{"metadata":{"labels":{"x":"y"}}}`)
	f.Add("CONNECT", "", "v1", "Namespace", "namespaces", "", "kube-x", "kube-x", `{}`, `{}`)
	ps := policies{
		newPolicy("all", []string{"label:a=1", "count:n"}, withResources("*", "*/*"), ifNeeded),
		newPolicy("ns", []string{"ns:x"}, withNamespaceSelector("env", "prod")),
		newPolicy("params", []string{"param:v"}, withParamKind("v1", "ConfigMap"), ignore),
		newPolicy("cond", []string{"fail:x"}, withConditions("error")),
	}
	bs := bindings{
		newBinding("b-all", "all", bindingObjectSelector("app", "web")),
		newBinding("b-ns", "ns"),
		newBinding("b-params", "params", paramSelector("Deny", map[string]string{"x": "y"})),
		newBinding("b-cond", "cond"),
	}
	d := newDispatcher(ps, bs, Options{Params: NewParamObjects(nil, configMap("ns", "a", "1", map[string]string{"x": "y"}))}, compileFake, applyFake)
	f.Fuzz(func(t *testing.T, op, group, version, kind, resource, sub, name, namespace, object, oldObject string) {
		req := &Request{
			Operation: admissionv1.Operation(op), Kind: schema.GroupVersionKind{Group: group, Version: version, Kind: kind},
			Resource: schema.GroupVersionResource{Group: group, Version: version, Resource: resource}, SubResource: sub,
			Name: name, Namespace: namespace, Reinvocation: &ReinvocationContext{},
		}
		var obj, old map[string]any
		if json.Unmarshal([]byte(object), &obj) == nil && obj != nil {
			req.Object = &unstructured.Unstructured{Object: obj}
		}
		if json.Unmarshal([]byte(oldObject), &old) == nil && old != nil {
			req.OldObject = &unstructured.Unstructured{Object: old}
		}
		before, beforeOld := deepCopyJSON(obj), deepCopyJSON(old)
		for range 2 {
			_, _, _ = d.Explain(context.Background(), req)
			req.Reinvocation.SetIsReinvoke()
		}
		if !objectdiff.Equal(before, obj) || !objectdiff.Equal(beforeOld, old) {
			t.Fatal("the request's objects were modified")
		}
	})
}
