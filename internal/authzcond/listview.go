package authzcond

import (
	"reflect"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// stringListView is a []string of the request as a CEL list, as
// kube-apiserver's would be (cel-go's list of strings): `in` and size() read
// the Go slice directly, every other operation goes to the cel-go list, built
// on first use. A stringListView lives for one evaluation, by one goroutine.
type stringListView struct {
	elems   []string
	adapter types.Adapter
	built   traits.Lister
}

var (
	_ traits.Lister   = (*stringListView)(nil)
	_ traits.Foldable = (*stringListView)(nil)
	_ traits.Zeroer   = (*stringListView)(nil)
)

func (l *stringListView) list() traits.Lister {
	if l.built == nil {
		l.built = types.NewStringList(l.adapter, l.elems)
	}
	return l.built
}

// Contains is cel-go's list Contains: a string equals only an equal string,
// and never errs.
func (l *stringListView) Contains(elem ref.Val) ref.Val {
	s, ok := elem.(types.String)
	if !ok {
		return l.list().Contains(elem)
	}
	for _, e := range l.elems {
		if e == string(s) {
			return types.True
		}
	}
	return types.False
}

func (l *stringListView) Size() ref.Val             { return types.Int(len(l.elems)) }
func (l *stringListView) Add(other ref.Val) ref.Val { return l.list().Add(other) }
func (l *stringListView) ConvertToNative(t reflect.Type) (any, error) {
	return l.list().ConvertToNative(t)
}
func (l *stringListView) ConvertToType(t ref.Type) ref.Val { return l.list().ConvertToType(t) }
func (l *stringListView) Equal(other ref.Val) ref.Val      { return l.list().Equal(other) }
func (l *stringListView) Get(index ref.Val) ref.Val        { return l.list().Get(index) }
func (l *stringListView) Iterator() traits.Iterator        { return l.list().Iterator() }
func (l *stringListView) Type() ref.Type                   { return types.ListType }
func (l *stringListView) Value() any                       { return l.elems }
func (l *stringListView) IsZeroValue() bool                { return len(l.elems) == 0 }

// Fold iterates as cel-go's list does.
func (l *stringListView) Fold(f traits.Folder) {
	if fl, ok := l.list().(traits.Foldable); ok {
		fl.Fold(f)
		return
	}
	for it := l.list().Iterator(); it.HasNext() == types.True; {
		if !f.FoldEntry(nil, it.Next()) {
			return
		}
	}
}

// String formats the list as cel-go does.
func (l *stringListView) String() string {
	if s, ok := l.list().(interface{ String() string }); ok {
		return s.String()
	}
	return ""
}
