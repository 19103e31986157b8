package mutationcel

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestObjectTypesKeepsOneTypePerName: each name gets its Object type once,
// the same one for every construction, from goroutines at once (-race).
func TestObjectTypesKeepsOneTypePerName(t *testing.T) {
	o := &objectTypes{}
	names := []string{"Object", "Object.spec", "Object.spec.containers", "Object.metadata"}
	var wg sync.WaitGroup
	got := make([][]string, 8)
	for g := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, n := range names {
				got[g] = append(got[g], o.of(n).TypeName())
			}
		}()
	}
	wg.Wait()
	for _, g := range got {
		assert.Equal(t, names, g)
	}
	for _, n := range names {
		require.Same(t, o.of(n), o.of(n), n)
	}
	assert.Len(t, *o.names.Load(), len(names))
}

// TestObjectTypesBounded: past maxObjectTypes names, a type is made at each
// use and not kept; the names kept still answer with their type.
func TestObjectTypesBounded(t *testing.T) {
	o := &objectTypes{}
	first := o.of("Object.n0")
	for i := range maxObjectTypes + 100 {
		assert.Equal(t, fmt.Sprintf("Object.n%d", i), o.of(fmt.Sprintf("Object.n%d", i)).TypeName())
	}
	assert.Len(t, *o.names.Load(), maxObjectTypes)
	assert.Same(t, first, o.of("Object.n0"))
	over := fmt.Sprintf("Object.n%d", maxObjectTypes+1)
	assert.Equal(t, over, o.of(over).TypeName())
}
