package authzcond

import (
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// noSuchKey is the error of a field that kube-apiserver leaves out of its
// unstructured request: cel-go reports a missing map key with this text.
type noSuchKey string

func (e noSuchKey) Error() string { return "no such key: " + string(e) }

// getter returns a field getter that reads a field from one of gatehouse's
// typed values with typed, or, when the value is already in kube-apiserver's
// unstructured form (a whole object that an expression turned into a value,
// then selected from), from the map as cel-go would.
func getter[T any](adapter types.Adapter, name string, typed func(T) (any, error)) ref.FieldGetter {
	return func(obj any) (any, error) {
		if t, ok := obj.(T); ok {
			return typed(t)
		}
		return unstructuredField(adapter, obj, name)
	}
}

// tester is getter's presence test.
func tester[T any](adapter types.Adapter, name string, typed func(T) bool) ref.FieldTester {
	return func(obj any) bool {
		if t, ok := obj.(T); ok {
			return typed(t)
		}
		return unstructuredHas(adapter, obj, name)
	}
}

func always[T any](T) bool { return true }

// unstructuredField selects a field from an unstructured value exactly as
// cel-go's string qualifier does.
func unstructuredField(adapter types.Adapter, obj any, name string) (any, error) {
	switch o := obj.(type) {
	case map[string]any:
		if v, ok := o[name]; ok {
			return v, nil
		}
		return nil, noSuchKey(name)
	case map[string]string:
		if v, ok := o[name]; ok {
			return v, nil
		}
		return nil, noSuchKey(name)
	}
	key := types.String(name)
	switch v := adapter.NativeToValue(obj).(type) {
	case *types.Unknown:
		return v, nil
	case *types.Err:
		return nil, v
	case traits.Mapper:
		val, found := v.Find(key)
		if types.IsError(val) {
			return nil, val.(*types.Err)
		}
		if found {
			return val, nil
		}
		return nil, noSuchKey(name)
	case traits.Lister:
		_, err := types.IndexOrError(key)
		return nil, err
	case traits.Indexer:
		val := v.Get(key)
		if types.IsError(val) {
			return nil, val.(*types.Err)
		}
		return val, nil
	default:
		return nil, noSuchKey(name)
	}
}

// unstructuredHas is the presence test of unstructuredField, as has() sees it.
func unstructuredHas(adapter types.Adapter, obj any, name string) bool {
	switch o := obj.(type) {
	case map[string]any:
		_, ok := o[name]
		return ok
	case map[string]string:
		_, ok := o[name]
		return ok
	}
	key := types.String(name)
	switch v := adapter.NativeToValue(obj).(type) {
	case traits.Mapper:
		val, found := v.Find(key)
		return found && !types.IsError(val)
	case traits.FieldTester:
		return v.IsSet(key) == types.True
	default:
		return false
	}
}
