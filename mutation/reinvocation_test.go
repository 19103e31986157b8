package mutation

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestReinvocationContext(t *testing.T) {
	rc := &ReinvocationContext{}
	a, b := invocationKey{policy: "a"}, invocationKey{policy: "b"}
	assert.False(t, rc.IsReinvoke())
	assert.False(t, rc.ShouldReinvoke())
	rc.requireReinvokingPrevious()
	assert.False(t, rc.shouldRun(a), "nothing invoked yet")
	rc.addPrevious(a)
	rc.addPrevious(b)
	assert.False(t, rc.shouldRun(a), "invoked is not yet eligible")
	rc.requireReinvokingPrevious()
	assert.True(t, rc.shouldRun(a))
	assert.True(t, rc.shouldRun(b))
	assert.Empty(t, rc.previous, "moved, not copied")
	rc.SetShouldReinvoke()
	rc.SetIsReinvoke()
	assert.True(t, rc.IsReinvoke())
	assert.True(t, rc.ShouldReinvoke())
}
