package randuid

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNew(t *testing.T) {
	v4 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	a, b := New(), New()
	assert.Regexp(t, v4, string(a))
	assert.Regexp(t, v4, string(b))
	assert.NotEqual(t, a, b)
}
