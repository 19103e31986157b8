package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gatehouse-dev/gatehouse/conformance/kubernetes/oracle/restvalidation"
	"github.com/gatehouse-dev/gatehouse/conformance/oracle/protocol"
)

// TestServe answers one query per line, in order, with the k8s.io/kubernetes
// the modfile pins, and keeps serving after a bad query.
func TestServe(t *testing.T) {
	binding := `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"b"},"spec":{"validationActions":["Deny"]}}`
	named := strings.Replace(binding, `"spec":{`, `"spec":{"policyName":"p",`, 1)
	policy := `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingAdmissionPolicy","metadata":{"name":"p"},"spec":{"mutations":[{"patchType":"JSONPatch","jsonPatch":{"expression":"1 +"}}]}}`
	in := strings.Join([]string{
		`{"op":"info"}`,
		`{"op":"restvalidation","rest":{"object":` + binding + `}}`,
		`{"op":"restvalidation","rest":{"object":` + binding + `,"oldObject":` + named + `}}`,
		`{"op":"restvalidation","rest":{"object":` + policy + `}}`,
		`{"op":"restvalidation","rest":{"object":{"apiVersion":"v1","kind":"Pod"}}}`,
		`{"op":"restvalidation","rest":{"object":` + binding + `,"gates":{"NoSuchGate":true}}}`,
		`{"op":"restvalidation"}`,
	}, "\n")
	var out bytes.Buffer
	require.NoError(t, serve(in, &out))
	var got []protocol.Answer
	dec := json.NewDecoder(&out)
	for dec.More() {
		var a protocol.Answer
		require.NoError(t, dec.Decode(&a))
		got = append(got, a)
	}
	require.Len(t, got, 7)
	require.Regexp(t, `^1\.3\d$`, got[0].Kubernetes)
	require.Regexp(t, `^v1\.3\d\.`, got[0].Apiserver)
	for _, a := range got[1:3] {
		// 1.38 leaves this check to the declarative validation: the
		// answer is the same (on an update that changes the field: the
		// declarative validation ratchets an unchanged one).
		require.NotNil(t, a.REST, "%+v", a)
		require.Equal(t, []protocol.FieldError{{Type: "FieldValueRequired", Field: "spec.policyName", BadValue: `""`, Text: "spec.policyName: Required value"}}, a.REST.Errors)
	}
	require.NotNil(t, got[3].REST, "%+v", got[3])
	require.NotEmpty(t, got[3].REST.Errors)
	require.Contains(t, got[4].Error, `only admissionregistration.k8s.io/v1`)
	require.Contains(t, got[5].Error, `no gate "NoSuchGate"`)
	require.Contains(t, got[6].Error, "no rest query")
}

func serve(in string, out *bytes.Buffer) error {
	return protocol.Serve(strings.NewReader(in), out, restvalidation.Answer)
}
