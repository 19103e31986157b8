package admissionvalidation

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/gatehouse-dev/gatehouse/kube"
)

// TestRegistry: from 1.37 identical errors are reported once and the
// declarative errors come last; before, the errors are kept as they are.
func TestRegistry(t *testing.T) {
	dup := field.NotSupported(field.NewPath("spec", "operations"), "DELETE", []string{"CREATE"})
	other := field.Required(field.NewPath("spec", "a"), "")
	dv := field.Required(field.NewPath("spec", "validationActions"), "")
	errs := field.ErrorList{dup, other, dup}
	tests := []struct {
		version kube.Version
		want    field.ErrorList
	}{
		{kube.V1_35, field.ErrorList{dup, other, dup, dv}},
		{kube.V1_36, field.ErrorList{dup, other, dup, dv}},
		{kube.V1_37, field.ErrorList{dup, other, dv}},
		{kube.V1_38, field.ErrorList{dup, other, dv}},
	}
	for _, tt := range tests {
		target, err := kube.TargetFor(tt.version)
		require.NoError(t, err)
		assert.Equal(t, tt.want, Registry(target, append(field.ErrorList(nil), errs...), field.ErrorList{dv}, false), "%s", tt.version)
	}
}

// TestRegistryGeneration: from 1.38 a negative generation is the
// declarative validation's, after the strategy's errors, but where the
// update keeps it.
func TestRegistryGeneration(t *testing.T) {
	gen := field.Invalid(field.NewPath("metadata", "generation"), -1, "must be greater than or equal to 0")
	other := field.Required(field.NewPath("spec", "a"), "")
	dv := field.Required(field.NewPath("spec", "validationActions"), "")
	tests := []struct {
		version kube.Version
		kept    bool
		want    field.ErrorList
	}{
		{kube.V1_37, false, field.ErrorList{gen, other, dv}},
		{kube.V1_38, false, field.ErrorList{other, gen, dv}},
		{kube.V1_38, true, field.ErrorList{gen, other, dv}},
	}
	for _, tt := range tests {
		target, err := kube.TargetFor(tt.version)
		require.NoError(t, err)
		assert.Equal(t, tt.want, Registry(target, field.ErrorList{gen, other}, field.ErrorList{dv}, tt.kept), "%s kept %v", tt.version, tt.kept)
	}
}
