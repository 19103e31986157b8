package admissionpolicy

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// stubParams are Params with scripted answers.
type stubParams struct {
	namespaced bool
	err        error
	objects    []runtime.Object
	gotNS      string
}

func (s *stubParams) Namespaced() bool { return s.namespaced }

func (s *stubParams) Get(_ context.Context, namespace, name string) (runtime.Object, error) {
	s.gotNS = namespace
	if s.err != nil {
		return nil, s.err
	}
	for _, o := range s.objects {
		if o.(metav1.Object).GetName() == name {
			return o, nil
		}
	}
	return nil, apierrors.NewNotFound(corev1.Resource("configmaps"), name)
}

func (s *stubParams) List(_ context.Context, namespace string, _ labels.Selector) ([]runtime.Object, error) {
	s.gotNS = namespace
	return s.objects, s.err
}

func TestCollectParams(t *testing.T) {
	pk := &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
	deny, allow := admissionregistrationv1.DenyAction, admissionregistrationv1.AllowAction
	typed := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns"}, Data: map[string]string{"k": "v"}}
	tests := []struct {
		name      string
		kind      *admissionregistrationv1.ParamKind
		ref       *admissionregistrationv1.ParamRef
		params    *stubParams
		namespace string
		want      []string // names; "" for a null param
		wantNS    string
		err       string
	}{
		{name: "no paramKind", ref: &admissionregistrationv1.ParamRef{Name: "a"}, params: &stubParams{}, want: []string{""}},
		{name: "no paramRef", kind: pk, params: &stubParams{}, want: []string{""}},
		{name: "by name in the request's namespace", kind: pk, ref: &admissionregistrationv1.ParamRef{Name: "a"}, params: &stubParams{namespaced: true, objects: []runtime.Object{typed}}, namespace: "ns", want: []string{"a"}, wantNS: "ns"},
		{name: "by name in the ref's namespace", kind: pk, ref: &admissionregistrationv1.ParamRef{Name: "a", Namespace: "other"}, params: &stubParams{namespaced: true, objects: []runtime.Object{typed}}, namespace: "ns", want: []string{"a"}, wantNS: "other"},
		{name: "cluster-scoped request, namespaced kind", kind: pk, ref: &admissionregistrationv1.ParamRef{Name: "a"}, params: &stubParams{namespaced: true},
			err: "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources"},
		{name: "namespace for a cluster-scoped kind", kind: pk, ref: &admissionregistrationv1.ParamRef{Name: "a", Namespace: "x"}, params: &stubParams{},
			err: "paramRef.namespace must not be provided for a cluster-scoped `paramKind`"},
		{name: "name and selector", kind: pk, ref: &admissionregistrationv1.ParamRef{Name: "a", Selector: &metav1.LabelSelector{}}, params: &stubParams{},
			err: "paramRef.name and paramRef.selector are mutually exclusive"},
		{name: "neither", kind: pk, ref: &admissionregistrationv1.ParamRef{}, params: &stubParams{},
			err: "one of name or selector must be provided"},
		{name: "not found, Deny", kind: pk, ref: &admissionregistrationv1.ParamRef{Name: "zz", ParameterNotFoundAction: &deny}, params: &stubParams{},
			err: "no params found for policy binding with `Deny` parameterNotFoundAction"},
		{name: "not found, Allow", kind: pk, ref: &admissionregistrationv1.ParamRef{Name: "zz", ParameterNotFoundAction: &allow}, params: &stubParams{}, want: []string{}},
		{name: "not found, no action", kind: pk, ref: &admissionregistrationv1.ParamRef{Name: "zz"}, params: &stubParams{}, want: []string{}},
		{name: "not synced", kind: pk, ref: &admissionregistrationv1.ParamRef{Name: "a"}, params: &stubParams{err: ErrParamsNotSynced},
			err: "paramKind kind `&ParamKind{APIVersion:v1,Kind:ConfigMap,}` not yet synced to use for admission"},
		{name: "selector, none, Deny", kind: pk, ref: &admissionregistrationv1.ParamRef{Selector: &metav1.LabelSelector{}, ParameterNotFoundAction: &deny}, params: &stubParams{},
			err: "no params found for policy binding with `Deny` parameterNotFoundAction"},
		{name: "selector, in order", kind: pk, ref: &admissionregistrationv1.ParamRef{Selector: &metav1.LabelSelector{}}, params: &stubParams{objects: []runtime.Object{
			configMap("", "z", "1", nil), configMap("", "a", "2", nil)}}, want: []string{"z", "a"}},
		{name: "bad selector", kind: pk, ref: &admissionregistrationv1.ParamRef{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"-": "x"}}}, params: &stubParams{},
			err: `key: Invalid value: "-": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CollectParams(context.Background(), tc.kind, tc.params, tc.ref, tc.namespace)
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			names := []string{}
			for _, p := range got {
				if p == nil {
					names = append(names, "")
				} else {
					names = append(names, p.Name)
				}
			}
			assert.Equal(t, tc.want, names)
			assert.Equal(t, tc.wantNS, tc.params.gotNS)
		})
	}
	p, err := newParam(typed)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"k": "v"}, p.Content["data"], "typed params are seen unstructured")
}

func TestNewParamObjects(t *testing.T) {
	src := NewParamObjects(func(gvk schema.GroupVersionKind) bool { return gvk.Kind == "Cluster" },
		configMap("ns", "a", "1", map[string]string{"x": "y"}), configMap("other", "a", "2", nil))
	ps, err := src.Params(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"})
	require.NoError(t, err)
	assert.True(t, ps.Namespaced())
	o, err := ps.Get(context.Background(), "other", "a")
	require.NoError(t, err)
	assert.Equal(t, "other", o.(metav1.Object).GetNamespace())
	_, err = ps.Get(context.Background(), "none", "a")
	assert.True(t, apierrors.IsNotFound(err))
	sel, _ := labels.Parse("x=y")
	l, err := ps.List(context.Background(), "", sel)
	require.NoError(t, err)
	assert.Len(t, l, 1)
	cs, err := src.Params(schema.GroupVersionKind{Version: "v1", Kind: "Cluster"})
	require.NoError(t, err)
	assert.False(t, cs.Namespaced())
}
