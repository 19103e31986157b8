package main

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gatehouse-dev/gatehouse/conformance/oracle/protocol"
)

// TestServe answers one query per line, in order, and keeps serving after
// a bad line. It runs against whichever k8s.io/apiserver the modfile pins.
func TestServe(t *testing.T) {
	in := strings.Join([]string{
		`{"op":"info"}`,
		`not json`,
		`{"op":"nope"}`,
		`{"op":"cel","env":"stored","expression":"1 + 2"}`,
		`{"op":"cel","env":"stored","expression":"1 +"}`,
		`{"op":"cel","env":"stored","vars":{"object":"dyn"},"activation":{"object":{"spec":{"replicas":3,"ratio":0.5,"u":{"@uint":"7"}}}},"expression":"object.spec.replicas * 2 + int(object.spec.ratio * 2.0) + int(object.spec.u)"}`,
		`{"op":"cel","env":"stored","expression":"[1, 2].map(x, x * 2)","costLimit":1}`,
		`{"op":"cel","env":"bogus","expression":"1"}`,
		`{"op":"cel","env":"stored","vars":{"object":"string"},"expression":"1"}`,
		`{"op":"cel","env":"new","expression":"{'d': dyn(duration('90m')), 'b': dyn(b'hi'), 'u': dyn(3u), 'f': dyn(1.0), 'n': dyn([dyn(null), dyn(optional.none()), dyn(type(1))])}"}`,
	}, "\n") // the last line has no newline
	got := serveLines(t, in)
	require.Len(t, got, 10)
	require.NotEmpty(t, got[0].Kubernetes)
	require.Contains(t, got[0].CELGo, "cel-go@")
	require.Contains(t, got[1].Error, "decoding the query")
	require.Contains(t, got[2].Error, `unknown op "nope"`)
	require.JSONEq(t, "3", string(got[3].Result))
	require.Equal(t, "int", got[3].ResultType)
	require.Equal(t, uint64(1), *got[3].Cost)
	require.Contains(t, got[4].CompileError, "compilation failed: ERROR: <input>:1:4: Syntax error")
	require.JSONEq(t, "14", string(got[5].Result), "%+v", got[5])
	require.Equal(t, "validation failed due to running out of cost budget, no further validation rules will be run", got[6].EvalError)
	require.Contains(t, got[7].Error, "env must be")
	require.Contains(t, got[8].Error, `"object" is declared by admission as dyn`)
	require.JSONEq(t, `{"b":{"@bytes":"aGk="},"d":{"@duration":"1h30m0s"},"f":1.0,"n":[null,{"@optional.none":true},{"@type":"int"}],"u":{"@uint":"3"}}`, string(got[9].Result))
}

// TestServeAuthorization answers the authzconfig and union ops, whose
// answers 1.35, 1.36 and 1.38 share but for union's reasons, which 1.38
// prefixes with the authorizer's name as 1.37 does (the per-version
// differences are the conformance module's tests).
func TestServeAuthorization(t *testing.T) {
	cfg := func(s string) string {
		b, err := json.Marshal([]byte("apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\n" + s))
		require.NoError(t, err)
		return string(b)
	}
	in := strings.Join([]string{
		`{"op":"authzconfig","data":` + cfg("authorizers:\n- type: RBAC\n  name: rbac\n") + `}`,
		`{"op":"authzconfig","data":` + cfg("authorizers:\n- type: Foo\n  name: foo\n") + `}`,
		`{"op":"authzconfig","data":` + cfg("authorizers: 3\n") + `}`,
		`{"op":"authzconfig","knownTypes":["Webhook"],"data":` + cfg("authorizers:\n- type: RBAC\n  name: rbac\n") + `}`,
		`{"op":"union","authorizers":[{"name":"a","decision":"NoOpinion","reason":"r1","error":"e1"},{"name":"b","decision":"NoOpinion","reason":"r2"}]}`,
		`{"op":"union","authorizers":[{"name":"a","decision":"NoOpinion","error":"e1"},{"name":"b","decision":"Deny","reason":"no","error":"e2"}]}`,
		`{"op":"union"}`,
		`{"op":"union","authorizers":[{"name":"a","decision":"Maybe"}]}`,
	}, "\n")
	got := serveLines(t, in)
	require.Len(t, got, 8)
	require.Equal(t, protocol.Answer{Loaded: true}, got[0])
	require.True(t, got[1].Loaded)
	require.Len(t, got[1].Validation, 1)
	require.Equal(t, protocol.FieldError{Type: "FieldValueNotSupported", Field: "authorizers[0].type", BadValue: `"Foo"`,
		Detail: `supported values: "ABAC", "AlwaysAllow", "AlwaysDeny", "Node", "RBAC", "Webhook"`,
		Text:   `authorizers[0].type: Unsupported value: "Foo": supported values: "ABAC", "AlwaysAllow", "AlwaysDeny", "Node", "RBAC", "Webhook"`}, got[1].Validation[0])
	require.Equal(t, got[1].Validation[0].Text, got[1].ValidationAggregate)
	require.False(t, got[2].Loaded)
	require.NotEmpty(t, got[2].LoadError)
	require.Contains(t, got[3].ValidationAggregate, `supported values: "Webhook"`)
	reasons := "r1\nr2"
	if kubernetesVersion(t) >= "1.37" { // the minors gatehouse knows have two digits
		reasons = "a: r1\nb: r2"
	}
	require.Equal(t, protocol.Answer{Decision: "NoOpinion", Reason: reasons, AuthorizeError: "e1", HasAuthorizeError: true}, got[4])
	require.Equal(t, protocol.Answer{Decision: "Deny", Reason: "no", AuthorizeError: "e2", HasAuthorizeError: true}, got[5])
	require.Equal(t, protocol.Answer{Decision: "NoOpinion"}, got[6])
	require.Contains(t, got[7].Error, `unknown decision "Maybe"`)
}

// TestServeVAP dispatches a request to a policy with two failing Audit
// validations (whatever the version: a warning each and the first failure
// in the validation_failure annotation), a Deny binding, a missing
// namespace, and a bad query.
func TestServeVAP(t *testing.T) {
	world := `"namespaces":[{"metadata":{"name":"dev"}}],` +
		`"policies":[{"metadata":{"name":"p"},"spec":{"failurePolicy":"Fail","matchConstraints":{"namespaceSelector":{},"objectSelector":{},"matchPolicy":"Equivalent","resourceRules":[{"operations":["*"],"apiGroups":["*"],"apiVersions":["*"],"resources":["*"],"scope":"*"}]},` +
		`"validations":[{"expression":"false"},{"expression":"object.metadata.name == 'y'","messageExpression":"'name ' + object.metadata.name"}]}}],`
	request := func(ns string) string {
		return `"request":{"operation":"CREATE","kind":{"version":"v1","kind":"ConfigMap"},"resource":{"version":"v1","resource":"configmaps"},"name":"x","namespace":"` + ns +
			`","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"` + ns + `"}},"userInfo":{"username":"alice"}}`
	}
	in := strings.Join([]string{
		`{"op":"vap","vap":{` + world + `"bindings":[{"metadata":{"name":"b"},"spec":{"policyName":"p","validationActions":["Warn","Audit"]}}],` + request("dev") + `}}`,
		`{"op":"vap","vap":{` + world + `"bindings":[{"metadata":{"name":"b"},"spec":{"policyName":"p","validationActions":["Deny"]}}],` + request("dev") + `}}`,
		`{"op":"vap","vap":{` + world + `"bindings":[{"metadata":{"name":"b"},"spec":{"policyName":"p","validationActions":["Deny"]}}],` + request("missing") + `}}`,
		`{"op":"vap"}`,
	}, "\n")
	got := serveLines(t, in)
	require.Len(t, got, 4)
	require.Empty(t, got[0].Error)
	require.Equal(t, []string{
		"Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': failed expression: false",
		"Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': name x",
	}, got[0].VAP.Warnings)
	require.Contains(t, got[0].VAP.AuditAnnotations["validation.policy.admission.k8s.io/validation_failure"], `[{"message":"failed expression: false","policy":"p","binding":"b","expressionIndex":0,"validationActions":["Warn","Audit"]}`)
	require.JSONEq(t, `{"metadata":{},"status":"Failure","message":"configmaps \"x\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed expression: false","reason":"Invalid","details":{"name":"x","kind":"configmaps","causes":[{"message":"ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed expression: false"}]},"code":422}`, string(got[1].VAP.Status))
	require.Contains(t, string(got[2].VAP.Status), `"reason":"NotFound"`)
	require.Contains(t, got[3].Error, "op vap needs vap")
}

// kubernetesVersion is the version info reports, "1.36".
func kubernetesVersion(t *testing.T) string {
	var out strings.Builder
	require.NoError(t, serve(strings.NewReader(`{"op":"info"}`), &out))
	var a protocol.Answer
	require.NoError(t, json.Unmarshal([]byte(out.String()), &a))
	require.NotEmpty(t, a.Kubernetes)
	return a.Kubernetes
}

// serveLines serves the query lines in and returns the answers, one per
// line of output.
func serveLines(t *testing.T, in string) []protocol.Answer {
	t.Helper()
	var out strings.Builder
	require.NoError(t, serve(strings.NewReader(in), &out))
	var got []protocol.Answer
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	for sc.Scan() {
		var a protocol.Answer
		require.NoError(t, json.Unmarshal(sc.Bytes(), &a), sc.Text())
		got = append(got, a)
	}
	return got
}
