package conformance

import (
	"testing"

	"github.com/google/cel-go/cel"
	"k8s.io/apimachinery/pkg/util/version"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"

	gcel "github.com/gatehouse-dev/gatehouse/internal/cel"
)

// TestCELDeclaredTypesMatchKubeAPIServer compares declared object types with
// fields named like CEL reserved words (escaped as __word__, as kube-apiserver
// declares schema properties) against kube-apiserver's DeclTypeProvider.
func TestCELDeclaredTypesMatchKubeAPIServer(t *testing.T) {
	kubeField := func(name string, t *apiservercel.DeclType) *apiservercel.DeclField {
		return apiservercel.NewDeclField(name, t, false, nil, nil)
	}
	kubeInner := apiservercel.NewObjectType("test.Inner", map[string]*apiservercel.DeclField{
		"__if__": kubeField("__if__", apiservercel.IntType),
		"value":  kubeField("value", apiservercel.StringType),
	})
	kubeObj := apiservercel.NewObjectType("test.Object", map[string]*apiservercel.DeclField{
		"__namespace__": kubeField("__namespace__", apiservercel.StringType),
		"name":          kubeField("name", apiservercel.StringType),
		"__package__":   kubeField("__package__", apiservercel.NewListType(apiservercel.StringType, -1)),
		"inner":         kubeField("inner", kubeInner),
		"namespace2":    kubeField("namespace2", apiservercel.StringType),
	})
	base := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())
	set, err := base.Extend(environment.VersionedOptions{
		IntroducedVersion: version.MajorMinor(1, 0),
		EnvOptions:        []cel.EnvOption{cel.Variable("obj", kubeObj.CelType())},
		DeclTypes:         []*apiservercel.DeclType{kubeObj},
	})
	if err != nil {
		t.Fatal(err)
	}
	kube := kubeSide(t)
	kube.env = set.StoredExpressionsEnv()

	inner := gcel.NewObjectType("test.Inner", map[string]*cel.Type{"__if__": cel.IntType, "value": cel.StringType})
	obj := gcel.NewObjectType("test.Object", map[string]*cel.Type{
		"__namespace__": cel.StringType, "name": cel.StringType, "__package__": cel.ListType(cel.StringType),
		"inner": inner.CelType(), "namespace2": cel.StringType,
	})
	ours := oursSide(t)
	ours.env, err = gcel.NewEnv(gcel.DeclaredTypes(obj, inner), cel.Variable("obj", obj.CelType()))
	if err != nil {
		t.Fatal(err)
	}
	bounded := boundedSide(t)
	bounded.env = ours.env
	planner, err := gcel.NewPlanner(ours.env)
	if err != nil {
		t.Fatal(err)
	}
	bounded.eval = boundedEval(planner)

	value := map[string]any{
		"namespace": "ns1", "name": "n", "package": []any{"a", "b"},
		"inner": map[string]any{"if": int64(3), "value": "v"},
	}
	var cs []celCase
	for _, e := range []string{
		"obj.namespace", "obj.__namespace__", "obj.nameX", "obj.name", "obj.package", "obj.package.size()", "obj.inner.if", "obj.inner.__if__",
		"obj.inner.value", "has(obj.namespace)", "has(obj.inner.if)", "obj.namespace2", "obj.missing", "obj.in", "obj.true",
		"obj.?namespace", "obj.?inner.?if", "obj['namespace']", "obj.namespace == 'ns1'", "obj.let", "obj.while",
		"type(obj)", "obj.inner", "obj.namespace.size() + obj.inner.if",
	} {
		cs = append(cs, celCase{expr: e, vars: map[string]any{"obj": value}})
	}
	compareCELSides(t, kube, cs, ours, bounded)
}
