package admissionexclusion

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestIsExcludedAgreesWithExcluded: the fast check and the list say the
// same of every listed resource and of near misses.
func TestIsExcludedAgreesWithExcluded(t *testing.T) {
	for _, gr := range Excluded() {
		assert.True(t, IsExcluded(gr.Group, gr.Resource), gr)
		assert.False(t, IsExcluded("example.com", gr.Resource), gr)
		assert.False(t, IsExcluded(gr.Group, gr.Resource+"s"), gr)
	}
	assert.False(t, IsExcluded("", "pods"))
}
