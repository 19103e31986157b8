package kubernetes

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/meta/testrestmapper"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	validating "k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kubernetes/pkg/generated/openapi"
	"sigs.k8s.io/yaml"

	"github.com/gatehouse-dev/gatehouse/validatingpolicy"
)

// typeCheckCRD is a custom resource with every kind of schema the type
// checker declares differently.
const typeCheckCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            properties:
              size: {type: integer}
              ratio: {type: number}
              enabled: {type: boolean}
              name: {type: string, maxLength: 10}
              port: {x-kubernetes-int-or-string: true}
              data: {type: string, format: byte}
              since: {type: string, format: date-time}
              day: {type: string, format: date}
              timeout: {type: string, format: duration}
              email: {type: string, format: email}
              namespace: {type: string}
              foo-bar: {type: string}
              a.b/c: {type: string}
              "x__y": {type: string}
              labels: {type: object, additionalProperties: {type: string}}
              limits: {type: object, additionalProperties: {x-kubernetes-int-or-string: true}}
              nested: {type: object, additionalProperties: {type: object, properties: {a: {type: integer}}}}
              anything: {x-kubernetes-preserve-unknown-fields: true}
              free: {type: object, x-kubernetes-preserve-unknown-fields: true}
              freeList: {type: array, items: {x-kubernetes-preserve-unknown-fields: true}}
              items:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [key]
                items:
                  type: object
                  required: [key]
                  properties:
                    key: {type: string}
                    values: {type: array, items: {type: integer}}
              template:
                type: object
                x-kubernetes-embedded-resource: true
                x-kubernetes-preserve-unknown-fields: true
              templates:
                type: array
                items:
                  type: object
                  x-kubernetes-embedded-resource: true
                  properties:
                    spec: {type: object, properties: {replicas: {type: integer}}}
          status:
            type: object
            properties:
              phase: {type: string, enum: [A, B]}
              conditions:
                type: array
                items: {type: object, properties: {type: {type: string}, lastTransitionTime: {type: string, format: date-time}}}
  - name: v2
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {count: {type: string}}}
  - name: v0
    served: false
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {old: {type: string}}}
`

var typeCheckCRDExpressions = []string{
	"object.spec.size > 1", "object.spec.size == 'x'", "object.spec.ratio + null", "object.spec.enabled + null", "object.spec.name + null",
	"object.spec.port == 1 || object.spec.port == 'a'", "object.spec.port + null",
	"object.spec.data + null", "object.spec.since + null", "object.spec.day + null", "object.spec.timeout + null", "object.spec.email + null",
	"object.spec.namespace + null", "object.spec.__namespace__ + null", "object.spec.foo__dash__bar + null", "object.spec.a__dot__b__slash__c + null",
	"object.spec.x__underscores__y + null", "object.spec.x__y + null",
	"object.spec.labels + null", "object.spec.labels['a'] + null", "object.spec.labels.a + null", "object.spec.limits['cpu'] + null",
	"object.spec.nested + null", "object.spec.nested['x'] + null", "object.spec.nested['x'].a + null",
	"object.spec.anything + null", "object.spec.free + null", "object.spec.free.x", "object.spec.freeList + null",
	"object.spec.items + null", "object.spec.items[0] + null", "object.spec.items[0].values[0] + null",
	"object.spec.template + null", "object.spec.template.apiVersion + null", "object.spec.template.metadata + null", "object.spec.template.metadata.labels + null",
	"object.spec.template.metadata.creationTimestamp + null", "object.spec.template.spec",
	"object.spec.templates[0] + null", "object.spec.templates[0].kind + null", "object.spec.templates[0].metadata.name + null", "object.spec.templates[0].spec.replicas + null",
	"object.status.phase + null", "object.status.conditions[0] + null", "object.status.conditions[0].lastTransitionTime + null",
	"object.metadata + null", "object.metadata.name + null", "object.metadata.labels + null", "object.metadata.managedFields[0].time + null",
	"object.apiVersion + null", "object.kind + null", "object + null", "object.spec + null", "object.spec.count + null", "object.spec.old + null",
	"object.nope", "params.spec.size + null", "params.spec + null",
}

// crdResolver resolves the schemas of custom resources as
// kube-controller-manager's discovery resolver does, from the OpenAPI v3
// kube-apiserver publishes for them.
type crdResolver struct {
	docs map[schema.GroupVersionKind][]byte
}

func (r *crdResolver) ResolveSchema(gvk schema.GroupVersionKind) (*spec.Schema, error) {
	doc, ok := r.docs[gvk]
	if !ok {
		return nil, fmt.Errorf("cannot resolve %v: %w", gvk, resolver.ErrSchemaNotFound)
	}
	var resp struct {
		Components struct {
			Schemas map[string]*spec.Schema `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(doc, &resp); err != nil {
		return nil, err
	}
	for ref, s := range resp.Components.Schemas {
		var gvks []schema.GroupVersionKind
		if err := s.Extensions.GetObject("x-kubernetes-group-version-kind", &gvks); err != nil {
			return nil, err
		}
		for _, g := range gvks {
			if g == gvk {
				return resolver.PopulateRefs(func(ref string) (*spec.Schema, bool) {
					s, ok := resp.Components.Schemas[strings.TrimPrefix(ref, "#/components/schemas/")]
					return s, ok
				}, ref)
			}
		}
	}
	return nil, fmt.Errorf("cannot resolve %v: %w", gvk, resolver.ErrSchemaNotFound)
}

// TestTypeCheckCustomResourcesMatchesKubeAPIServer type-checks policies on a
// custom resource (as object and as params) with both, kube-apiserver's
// checker resolving its schema from the OpenAPI v3 it publishes.
func TestTypeCheckCustomResourcesMatchesKubeAPIServer(t *testing.T) {
	var crd apiextensionsv1.CustomResourceDefinition
	require.NoError(t, yaml.UnmarshalStrict([]byte(typeCheckCRD), &crd))
	crdMapper := meta.NewDefaultRESTMapper(nil)
	docs := map[schema.GroupVersionKind][]byte{}
	for _, v := range crd.Spec.Versions {
		if !v.Served {
			continue
		}
		doc, err := builder.BuildOpenAPIV3(&crd, v.Name, builder.Options{})
		require.NoError(t, err)
		data, err := json.Marshal(doc)
		require.NoError(t, err)
		gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
		docs[gvk] = data
		crdMapper.AddSpecific(gvk, gvk.GroupVersion().WithResource("widgets"), gvk.GroupVersion().WithResource("widget"), meta.RESTScopeNamespace)
	}
	mapper := meta.MultiRESTMapper{testrestmapper.TestOnlyStaticRESTMapper(scheme.Scheme), crdMapper}
	kube := &validating.TypeChecker{
		SchemaResolver: resolver.NewDefinitionsSchemaResolver(openapi.GetOpenAPIDefinitions, scheme.Scheme).Combine(&crdResolver{docs: docs}),
		RestMapper:     mapper,
	}
	crs := validatingpolicy.NewCustomResources()
	require.NoError(t, crs.AddCRD([]byte(typeCheckCRD)))
	compiler, err := validatingpolicy.NewCompiler()
	require.NoError(t, err)

	widgets := admissionregistrationv1.NamedRuleWithOperations{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
		Rule: admissionregistrationv1.Rule{APIGroups: []string{"example.com"}, APIVersions: []string{"v1", "v2", "v0"}, Resources: []string{"widgets"}},
	}}
	var validations []admissionregistrationv1.Validation
	for _, e := range typeCheckCRDExpressions {
		validations = append(validations, admissionregistrationv1.Validation{Expression: e})
	}
	policies := []*admissionregistrationv1.ValidatingAdmissionPolicy{
		{ObjectMeta: metav1.ObjectMeta{Name: "widgets"}, Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{widgets, tcRule("Deployment")}},
			Validations:      validations,
		}},
		{ObjectMeta: metav1.ObjectMeta{Name: "widget-params"}, Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			ParamKind:        &admissionregistrationv1.ParamKind{APIVersion: "example.com/v1", Kind: "Widget"},
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{tcRule("Pod")}},
			Validations:      validations,
		}},
	}
	warned := 0
	for _, p := range policies {
		want := normalizeTypeNames(kube.Check(p))
		for _, m := range []meta.RESTMapper{nil, mapper} {
			got := compiler.TypeCheck(p, validatingpolicy.TypeCheckOptions{RESTMapper: m, CustomResources: crs})
			diffWarnings(t, p.Name, want, normalizeTypeNames(got))
		}
		warned += len(want)
	}
	t.Logf("%d validations, %d warnings, identical", len(policies)*len(validations), warned)
	require.Greater(t, warned, 40)
}
