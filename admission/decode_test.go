package admission

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecode(t *testing.T) {
	cfg, err := Decode([]byte(labelPolicies + "---\n" + requirePolicies + `---
apiVersion: v1
kind: ConfigMap
metadata: {name: x}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: bad}
spec: {nosuch: 1}
`))
	require.Len(t, cfg.MutatingPolicies, 1)
	require.Len(t, cfg.MutatingPolicyBindings, 1)
	require.Len(t, cfg.ValidatingPolicies, 1)
	require.Len(t, cfg.ValidatingPolicyBindings, 1)
	require.Error(t, err)
	errs := unjoin(err)
	require.Len(t, errs, 2, "%v", err)
	var kind *KindError
	assert.True(t, errors.As(errs[1], &kind) || errors.As(errs[0], &kind), "the ConfigMap is of another kind")
	assert.Contains(t, err.Error(), `unknown field "spec.nosuch"`)
	assert.Contains(t, err.Error(), `document 5`)
}
