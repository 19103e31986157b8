package validatingpolicy

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// FuzzValidateExpressions compiles arbitrary validations, messageExpressions,
// audit annotations, variables and match conditions and evaluates them on
// an arbitrary object: no panic, every error a status, the budget bounds
// the time.
func FuzzValidateExpressions(f *testing.F) {
	f.Add(`object.metadata.name == "a"`, `"m " + object.metadata.name`, `string(object.metadata.name)`, `object.metadata.name`, `has(object.spec)`, `{"metadata":{"name":"a"},"spec":{}}`)
	f.Add(`variables.v.size() > 1`, `string(variables.v)`, `null`, `[1,2,3].map(x, x * 2)`, `true`, `{"metadata":{"labels":{"x":"y"}}}`)
	f.Add(`[1,2,3].all(x, [1,2,3].all(y, x + y > 0))`, `"\n"`, `"  "`, `object.nosuch`, `object.metadata`, `[]`)
	f.Add(`authorizer.group("").resource("pods").check("get").allowed()`, `authorizer.path("/").check("get").reason()`, `params.x`, `1 +`, `request.userInfo.username == ""`, `{"metadata":{"name":"`+strings.Repeat("x", 300)+`"}}`)
	c, err := NewCompiler()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, validation, message, annotation, variable, condition, object string) {
		p := policy("p",
			validations(admissionregistrationv1.Validation{Expression: validation, MessageExpression: message}),
			annotations(admissionregistrationv1.AuditAnnotation{Key: "k", ValueExpression: annotation}),
			variables(admissionregistrationv1.Variable{Name: "v", Expression: variable}),
			conditions(admissionregistrationv1.MatchCondition{Name: "c", Expression: condition}))
		d, err := NewDispatcher(policies{p}, bindings{binding("b", "p", deny, warn, audit)}, Options{Compiler: c, Authorizer: allowAll{}})
		if err != nil {
			t.Fatal(err)
		}
		var obj map[string]any
		if json.Unmarshal([]byte(object), &obj) != nil || obj == nil {
			obj = map[string]any{}
		}
		obj["apiVersion"], obj["kind"] = "example.com/v1", "Widget"
		req := &Request{Operation: admissionv1.Create, Kind: schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"},
			Resource: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}, Object: &unstructured.Unstructured{Object: obj}}
		_, _, err = d.Explain(context.Background(), req)
		var status *apierrors.StatusError
		if err != nil && !errors.As(err, &status) {
			t.Fatalf("not a status: %v", err)
		}
	})
}

// FuzzValidateRequests runs arbitrary requests (operation, kind, resource,
// names, objects) through policies with selectors, params, match
// conditions and failure policies: no panic, and the request's objects are
// never modified.
func FuzzValidateRequests(f *testing.F) {
	f.Add("CREATE", "", "v1", "Pod", "pods", "", "p", "dev", `{"metadata":{"name":"p","labels":{"app":"web"}},"spec":{"containers":[{"name":"c"}]}}`, `null`)
	f.Add("UPDATE", "apps", "v1", "Deployment", "deployments", "scale", "", "", `{"metadata":[]}`, `{"metadata":{"labels":{"x":"y"}}}`)
	f.Add("DELETE", "", "v1", "Namespace", "namespaces", "", "prod", "prod", `null`, `{"metadata":{"name":"prod"}}`)
	f.Add("CONNECT", "", "v1", "PodExecOptions", "pods", "exec", "p", "gone", `{"command":["sh"]}`, `null`)
	ps := policies{
		policy("all", validations(expr(`object == null || has(object.metadata)`), admissionregistrationv1.Validation{Expression: `request.name != "x"`, MessageExpression: `"name " + request.name`}),
			annotations(admissionregistrationv1.AuditAnnotation{Key: "op", ValueExpression: `request.operation`})),
		policy("params", paramKind("v1", "ConfigMap"), validations(expr(`params == null || params.data.v == "1"`)), failurePolicy(admissionregistrationv1.Ignore)),
		policy("cond", validations(expr(`oldObject.metadata.name == object.metadata.name`)), conditions(admissionregistrationv1.MatchCondition{Name: "labelled", Expression: `has(object.metadata.labels)`})),
	}
	bs := bindings{
		binding("b-all", "all", deny, warn, audit),
		withParamRef(binding("b-params", "params", deny), admissionregistrationv1.ParamRef{Name: "a", ParameterNotFoundAction: new(admissionregistrationv1.DenyAction)}),
		binding("b-cond", "cond", warn),
	}
	d, err := NewDispatcher(ps, bs, Options{Params: NewParamObjects(nil, configMap("dev", "a", map[string]any{"v": "1"}, nil)), Namespaces: namespaces})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, op, group, version, kind, resource, sub, name, namespace, object, oldObject string) {
		req := &Request{
			Operation: admissionv1.Operation(op), Kind: schema.GroupVersionKind{Group: group, Version: version, Kind: kind},
			Resource: schema.GroupVersionResource{Group: group, Version: version, Resource: resource}, SubResource: sub,
			Name: name, Namespace: namespace,
		}
		var obj, old map[string]any
		if json.Unmarshal([]byte(object), &obj) == nil && obj != nil {
			req.Object = &unstructured.Unstructured{Object: obj}
		}
		if json.Unmarshal([]byte(oldObject), &old) == nil && old != nil {
			req.OldObject = &unstructured.Unstructured{Object: old}
		}
		before, beforeOld := runtime.DeepCopyJSONValue(anyOf(obj)), runtime.DeepCopyJSONValue(anyOf(old))
		_, _, err := d.Explain(context.Background(), req)
		var status *apierrors.StatusError
		if err != nil && !errors.As(err, &status) {
			t.Fatalf("not a status: %v", err)
		}
		if !reflect.DeepEqual(before, anyOf(obj)) || !reflect.DeepEqual(beforeOld, anyOf(old)) {
			t.Fatal("the request's objects were modified")
		}
	})
}

// FuzzDecode decodes arbitrary manifests: no panic; what decodes has its
// defaults.
func FuzzDecode(f *testing.F) {
	f.Add([]byte("apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {name: p}\nspec: {matchConstraints: {resourceRules: []}}\n"))
	f.Add([]byte("apiVersion: admissionregistration.k8s.io/v1alpha1\nkind: ValidatingAdmissionPolicyBinding\nmetadata: {name: b}\nspec: {policyName: p, paramRef: {name: x}}\n"))
	f.Add([]byte(`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, _ := Decode(data)
		for _, p := range objs.Policies {
			if p.Spec.FailurePolicy == nil {
				t.Fatal("a decoded policy has no failurePolicy")
			}
		}
	})
}

// anyOf is m as a JSON value (nil for a nil map).
func anyOf(m map[string]any) any {
	if m == nil {
		return nil
	}
	return m
}
