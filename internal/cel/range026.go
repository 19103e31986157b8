package cel

import (
	"fmt"
	"reflect"

	"github.com/google/cel-go/common/functions"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// maxMaterializedRange is the largest lists.range cel-go 0.29 builds, and the
// largest range026 materializes.
const maxMaterializedRange = 1_000_000

// range026 is lists.range as cel-go 0.26 (kube-apiserver 1.36 and before)
// evaluates it: no error for a negative size (an empty list) nor a limit on
// the size, which the cost limit stops instead (its cost is the list's
// size). A range larger than cel-go 0.29's limit is not built: a lazy list
// of its size is returned, which the cost tracker charges and stops, and
// which fails any other use with cel-go 0.29's error (only an evaluation
// without a cost limit gets that far).
func range026(n ref.Val) ref.Val {
	size, ok := n.(types.Int)
	if !ok {
		return types.MaybeNoSuchOverloadErr(n)
	}
	if size <= 0 {
		return types.DefaultTypeAdapter.NativeToValue([]ref.Val{})
	}
	if size > maxMaterializedRange {
		return hugeRange{size}
	}
	list := make([]ref.Val, 0, size)
	for i := types.Int(0); i < size; i++ {
		list = append(list, i)
	}
	return types.DefaultTypeAdapter.NativeToValue(list)
}

// rebindRange026 replaces the lists_range overload's binding with range026.
func rebindRange026(b *functions.Overload) *functions.Overload {
	if b.Operator != "lists_range" {
		return b
	}
	out := *b
	out.Unary = range026
	return &out
}

// hugeRange is a range too large to build: it has a size, for the cost
// tracker, and refuses every other use.
type hugeRange struct{ size types.Int }

var _ traits.Lister = hugeRange{}

func (r hugeRange) err() ref.Val {
	return types.NewErr("lists.range: size %d exceeds maximum allowed (%d)", int64(r.size), maxMaterializedRange)
}

func (r hugeRange) ConvertToNative(reflect.Type) (any, error) {
	return nil, fmt.Errorf("lists.range: size %d exceeds maximum allowed (%d)", int64(r.size), maxMaterializedRange)
}
func (r hugeRange) ConvertToType(ref.Type) ref.Val { return r.err() }
func (r hugeRange) Equal(ref.Val) ref.Val          { return r.err() }
func (r hugeRange) Type() ref.Type                 { return types.ListType }
func (r hugeRange) Value() any                     { return nil }
func (r hugeRange) Add(ref.Val) ref.Val            { return r.err() }
func (r hugeRange) Contains(ref.Val) ref.Val       { return r.err() }
func (r hugeRange) Get(ref.Val) ref.Val            { return r.err() }
func (r hugeRange) Iterator() traits.Iterator      { return &hugeRangeIterator{r: r} }
func (r hugeRange) Size() ref.Val                  { return r.size }

// HasNext is true once: the one element is the error, which fails the
// comprehension over the range.
func (i *hugeRangeIterator) HasNext() ref.Val { return types.Bool(!i.done) }

func (i *hugeRangeIterator) Next() ref.Val {
	i.done = true
	return i.r.err()
}

func (i *hugeRangeIterator) ConvertToNative(t reflect.Type) (any, error) {
	return i.r.ConvertToNative(t)
}
func (i *hugeRangeIterator) ConvertToType(ref.Type) ref.Val { return i.r.err() }
func (i *hugeRangeIterator) Equal(ref.Val) ref.Val          { return i.r.err() }
func (*hugeRangeIterator) Type() ref.Type                   { return types.IteratorType }
func (*hugeRangeIterator) Value() any                       { return nil }

type hugeRangeIterator struct {
	r    hugeRange
	done bool
}
