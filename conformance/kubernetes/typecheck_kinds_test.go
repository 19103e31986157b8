package kubernetes

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta/testrestmapper"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/gatehouse-dev/gatehouse/validatingpolicy"
)

// TestTypeCheckEveryBuiltinKindMatchesKubeAPIServer checks, for every kind of
// client-go's scheme that kube-apiserver resolves a schema for, the type of
// every field path (to depth 7, both the paths of the kind's OpenAPI schema
// and those of its Go type's JSON fields): each path is written as
// `<path> + null`, whose error names the path's type (or says it is
// undefined), 8 paths to a validation.
func TestTypeCheckEveryBuiltinKindMatchesKubeAPIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("every built-in kind: long")
	}
	compiler, err := validatingpolicy.NewCompiler()
	require.NoError(t, err)
	kube := kubeTypeChecker()
	mapper := testrestmapper.TestOnlyStaticRESTMapper(scheme.Scheme)
	var gvks []string
	types := scheme.Scheme.AllKnownTypes()
	for gvk := range types {
		gvks = append(gvks, gvk.String())
	}
	sort.Strings(gvks)
	kinds, paths, warnings := 0, 0, 0
	var kubeTime, ourTime time.Duration
	for gvk, goType := range types {
		if strings.HasSuffix(gvk.Kind, "List") || strings.HasSuffix(gvk.Kind, "Options") || gvk.Kind == "WatchEvent" || gvk.Kind == "Status" {
			continue
		}
		mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			continue
		}
		s, err := kube.SchemaResolver.ResolveSchema(gvk)
		if errors.Is(err, resolver.ErrSchemaNotFound) {
			continue
		}
		require.NoError(t, err, gvk)
		kinds++
		seen := map[string]bool{}
		var list []string
		add := func(p string) {
			if !seen[p] && len(list) < 1500 {
				seen[p] = true
				list = append(list, p)
			}
		}
		schemaPaths(s, "object", 0, add)
		goPaths(goType, "object", 0, map[reflect.Type]bool{}, add)
		paths += len(list)
		p := &admissionregistrationv1.ValidatingAdmissionPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: gvk.String()},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
				MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{Rule: admissionregistrationv1.Rule{
						APIGroups: []string{gvk.Group}, APIVersions: []string{gvk.Version}, Resources: []string{mapping.Resource.Resource},
					}},
				}}},
			},
		}
		for i := 0; i < len(list); i += 8 {
			batch := list[i:min(i+8, len(list))]
			p.Spec.Validations = append(p.Spec.Validations, admissionregistrationv1.Validation{Expression: strings.Join(batch, " + null || ") + " + null"})
		}
		start := time.Now()
		want := normalizeTypeNames(kube.Check(p))
		kubeTime += time.Since(start)
		start = time.Now()
		got := compiler.TypeCheck(p, validatingpolicy.TypeCheckOptions{RESTMapper: mapper})
		ourTime += time.Since(start)
		diffWarnings(t, gvk.String(), want, normalizeTypeNames(got))
		// gatehouse's own mapper of the built-in kinds maps the same.
		diffWarnings(t, gvk.String()+" (default mapper)", want, normalizeTypeNames(compiler.TypeCheck(p, validatingpolicy.TypeCheckOptions{})))
		warnings += len(want)
	}
	t.Logf("%d kinds, %d field paths, %d warnings, identical (kube-apiserver %v, gatehouse %v)", kinds, paths, warnings, kubeTime, ourTime)
	require.Greater(t, kinds, 150)
}

const maxPathDepth = 7

func schemaPaths(s *spec.Schema, path string, depth int, add func(string)) {
	add(path)
	if depth == maxPathDepth {
		return
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		prop := s.Properties[n]
		schemaPaths(&prop, path+"."+n, depth+1, add)
	}
	if s.Items != nil && s.Items.Schema != nil {
		schemaPaths(s.Items.Schema, path+"[0]", depth+1, add)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		schemaPaths(s.AdditionalProperties.Schema, path+"['k']", depth+1, add)
	}
}

func goPaths(t reflect.Type, path string, depth int, visiting map[reflect.Type]bool, add func(string)) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	add(path)
	if depth == maxPathDepth {
		return
	}
	if _, ok := reflect.New(t).Interface().(interface{ OpenAPISchemaType() []string }); ok {
		return
	}
	switch t.Kind() {
	case reflect.Slice:
		if t.Elem().Kind() != reflect.Uint8 {
			goPaths(t.Elem(), path+"[0]", depth+1, visiting, add)
		}
	case reflect.Map:
		goPaths(t.Elem(), path+"['k']", depth+1, visiting, add)
	case reflect.Struct:
		if visiting[t] {
			return
		}
		visiting[t] = true
		defer delete(visiting, t)
		goFields(t, path, depth, visiting, add)
	}
}

func goFields(t reflect.Type, path string, depth int, visiting map[reflect.Type]bool, add func(string)) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if (f.Anonymous && name == "") || strings.Contains(","+opts+",", ",inline,") {
			if ft.Kind() == reflect.Struct {
				goFields(ft, path, depth, visiting, add)
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		goPaths(f.Type, fmt.Sprintf("%s.%s", path, name), depth+1, visiting, add)
	}
}
