package authzcond

import (
	"reflect"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// unstructurer is a typed value that knows kube-apiserver's unstructured
// form of itself.
type unstructurer interface {
	unstructured() any
}

// mapView makes a typed value a CEL map value, as kube-apiserver's
// unstructured request is: type(x) is map, and every map operation (==,
// size, in, iteration, conversion to JSON) sees exactly kube-apiserver's map,
// built once, the first time an expression uses the object as a whole. Field
// selections never build it: they go through the typed getters, because
// Value returns the typed value itself.
//
// A mapView lives for one evaluation, by one goroutine.
type mapView struct {
	owner   unstructurer
	adapter types.Adapter
	built   traits.Mapper
}

var (
	_ ref.Val       = (*mapView)(nil)
	_ traits.Mapper = (*mapView)(nil)
	_ traits.Zeroer = (*mapView)(nil)
)

func (v *mapView) mapper() traits.Mapper {
	if v.built == nil {
		v.built = v.adapter.NativeToValue(v.owner.unstructured()).(traits.Mapper)
	}
	return v.built
}

func (v *mapView) ConvertToNative(t reflect.Type) (any, error) { return v.mapper().ConvertToNative(t) }
func (v *mapView) ConvertToType(t ref.Type) ref.Val            { return v.mapper().ConvertToType(t) }
func (v *mapView) Equal(other ref.Val) ref.Val                 { return v.mapper().Equal(other) }
func (v *mapView) Type() ref.Type                              { return types.MapType }
func (v *mapView) Value() any                                  { return v.owner }
func (v *mapView) Contains(key ref.Val) ref.Val                { return v.mapper().Contains(key) }
func (v *mapView) Get(key ref.Val) ref.Val                     { return v.mapper().Get(key) }
func (v *mapView) Iterator() traits.Iterator                   { return v.mapper().Iterator() }
func (v *mapView) Size() ref.Val                               { return v.mapper().Size() }
func (v *mapView) Find(key ref.Val) (ref.Val, bool)            { return v.mapper().Find(key) }

// IsZeroValue is false: kube-apiserver's maps always have keys.
func (v *mapView) IsZeroValue() bool {
	z, ok := v.mapper().(traits.Zeroer)
	return ok && z.IsZeroValue()
}

// String formats the map as cel-go formats kube-apiserver's.
func (v *mapView) String() string {
	if s, ok := v.mapper().(interface{ String() string }); ok {
		return s.String()
	}
	return ""
}
