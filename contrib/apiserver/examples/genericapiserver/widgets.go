package main

import (
	"context"
	_ "embed"
	"fmt"
	"reflect"
	"sort"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/uuid"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	openapicommon "k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// The example's API: widgets.example.gatehouse.dev/v1, namespaced, held in
// memory. It is here so that the admission plugin has requests to admit:
// creating a widget goes through the server's admission chain.
var widgetsGV = schema.GroupVersion{Group: "example.gatehouse.dev", Version: "v1"}

// widgetsSchema is the widgets' schema as a CRD, for the mutating
// policies.
//
//go:embed widgets-schema.yaml
var widgetsSchema []byte

// Widget is the example's one kind.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec `json:"spec"`
}

// WidgetSpec is what a widget is.
type WidgetSpec struct {
	Size  int64  `json:"size"`
	Color string `json:"color,omitempty"`
}

// WidgetList is a list of widgets.
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

func (w *Widget) DeepCopyObject() runtime.Object {
	out := *w
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

func (l *WidgetList) DeepCopyObject() runtime.Object {
	out := *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	out.Items = make([]Widget, len(l.Items))
	for i := range l.Items {
		out.Items[i] = *l.Items[i].DeepCopyObject().(*Widget)
	}
	return &out
}

// addWidgets registers the kinds, in v1 and as the server's internal
// version: the same Go types, converted by copy (admission plugins convert
// the objects they mutate back to the internal version).
func addWidgets(scheme *runtime.Scheme) error {
	for _, gv := range []schema.GroupVersion{widgetsGV, {Group: widgetsGV.Group, Version: runtime.APIVersionInternal}} {
		scheme.AddKnownTypes(gv, &Widget{}, &WidgetList{})
	}
	metav1.AddToGroupVersion(scheme, widgetsGV)
	return scheme.AddConversionFunc((*Widget)(nil), (*Widget)(nil), func(in, out any, _ conversion.Scope) error {
		*out.(*Widget) = *in.(*Widget).DeepCopyObject().(*Widget)
		return nil
	})
}

// widgetDefinitions are the OpenAPI definitions of the kinds, which the
// generic server needs for server-side apply's field management. Metadata
// is left schemaless to keep the example short.
func widgetDefinitions(openapicommon.ReferenceCallback) map[string]openapicommon.OpenAPIDefinition {
	str := func() spec.Schema { return *spec.StringProperty() }
	object := func(props map[string]spec.Schema, required ...string) spec.Schema {
		return spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}, Properties: props, Required: required}}
	}
	// The type converter finds a kind's schema by this extension.
	kind := func(s spec.Schema, kind string) spec.Schema {
		s.VendorExtensible = spec.VendorExtensible{Extensions: spec.Extensions{"x-kubernetes-group-version-kind": []any{
			map[string]any{"group": widgetsGV.Group, "version": widgetsGV.Version, "kind": kind},
		}}}
		return s
	}
	schemaless := spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}},
		VendorExtensible: spec.VendorExtensible{Extensions: spec.Extensions{"x-kubernetes-preserve-unknown-fields": true}}}
	widget := object(map[string]spec.Schema{
		"apiVersion": str(), "kind": str(), "metadata": schemaless,
		"spec": object(map[string]spec.Schema{"size": *spec.Int64Property(), "color": str()}, "size"),
	}, "spec")
	items := spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"array"}, Items: &spec.SchemaOrArray{Schema: &widget}}}
	list := object(map[string]spec.Schema{"apiVersion": str(), "kind": str(), "metadata": schemaless, "items": items}, "items")
	// Definitions are named after the Go types' package: "main" under go
	// run, the import path in tests.
	pkg := reflect.TypeFor[Widget]().PkgPath() + "."
	return map[string]openapicommon.OpenAPIDefinition{
		pkg + "Widget":     {Schema: kind(widget, "Widget")},
		pkg + "WidgetList": {Schema: kind(list, "WidgetList")},
	}
}

// widgetStorage keeps widgets in memory. Create runs the server's
// validating admission (createValidation) before it stores, as every
// storage of kube-apiserver does.
type widgetStorage struct {
	mu      sync.Mutex
	widgets map[string]*Widget // by namespace/name
}

var (
	_ rest.Creater              = (*widgetStorage)(nil)
	_ rest.Getter               = (*widgetStorage)(nil)
	_ rest.Lister               = (*widgetStorage)(nil)
	_ rest.Scoper               = (*widgetStorage)(nil)
	_ rest.SingularNameProvider = (*widgetStorage)(nil)
	_ rest.Storage              = (*widgetStorage)(nil)
	_ rest.CategoriesProvider   = (*widgetStorage)(nil)
	_ rest.ShortNamesProvider   = (*widgetStorage)(nil)
	_ rest.TableConvertor       = (*widgetStorage)(nil)
)

func newWidgetStorage() *widgetStorage { return &widgetStorage{widgets: map[string]*Widget{}} }

func (s *widgetStorage) New() runtime.Object     { return &Widget{} }
func (s *widgetStorage) NewList() runtime.Object { return &WidgetList{} }
func (s *widgetStorage) Destroy()                {}
func (s *widgetStorage) NamespaceScoped() bool   { return true }
func (s *widgetStorage) GetSingularName() string { return "widget" }
func (s *widgetStorage) Categories() []string    { return []string{"all"} }
func (s *widgetStorage) ShortNames() []string    { return []string{"wd"} }

func (s *widgetStorage) ConvertToTable(ctx context.Context, obj runtime.Object, opts runtime.Object) (*metav1.Table, error) {
	return rest.NewDefaultTableConvertor(widgetsGV.WithResource("widgets").GroupResource()).ConvertToTable(ctx, obj, opts)
}

func (s *widgetStorage) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	w, ok := obj.(*Widget)
	if !ok {
		return nil, fmt.Errorf("not a widget: %T", obj)
	}
	w.Namespace, _ = genericapirequest.NamespaceFrom(ctx)
	if createValidation != nil {
		if err := createValidation(ctx, obj); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key := w.Namespace + "/" + w.Name
	if _, exists := s.widgets[key]; exists {
		return nil, apierrors.NewAlreadyExists(widgetsGV.WithResource("widgets").GroupResource(), w.Name)
	}
	stored := w.DeepCopyObject().(*Widget)
	stored.UID = uuid.NewUUID()
	stored.CreationTimestamp = metav1.Now()
	if options == nil || len(options.DryRun) == 0 {
		s.widgets[key] = stored
	}
	return stored.DeepCopyObject(), nil
}

func (s *widgetStorage) Get(ctx context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	ns, _ := genericapirequest.NamespaceFrom(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	w, ok := s.widgets[ns+"/"+name]
	if !ok {
		return nil, apierrors.NewNotFound(widgetsGV.WithResource("widgets").GroupResource(), name)
	}
	return w.DeepCopyObject(), nil
}

func (s *widgetStorage) List(ctx context.Context, _ *metainternalversion.ListOptions) (runtime.Object, error) {
	ns, _ := genericapirequest.NamespaceFrom(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	list := &WidgetList{}
	for _, w := range s.widgets {
		if ns == "" || w.Namespace == ns {
			list.Items = append(list.Items, *w.DeepCopyObject().(*Widget))
		}
	}
	sort.Slice(list.Items, func(i, j int) bool {
		return list.Items[i].Namespace+"/"+list.Items[i].Name < list.Items[j].Namespace+"/"+list.Items[j].Name
	})
	return list, nil
}
