package conformance

import (
	"testing"

	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/library"

	gcel "github.com/gatehouse-dev/gatehouse/internal/cel"
)

// TestCELJSONPatchMatchesKubeAPIServer compares jsonpatch.escapeKey, which
// kube-apiserver adds to the environment of mutations only.
func TestCELJSONPatchMatchesKubeAPIServer(t *testing.T) {
	base := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()).StoredExpressionsEnv()
	kubeEnv, err := base.Extend(append(celVariables(library.AuthorizerType, library.ResourceCheckType), library.JSONPatch())...)
	if err != nil {
		t.Fatal(err)
	}
	kube := kubeSide(t)
	kube.env = kubeEnv
	ours := oursSide(t)
	ours.env, err = gcel.NewEnv(append(celVariables(gcel.AuthorizerType, gcel.ResourceCheckType), gcel.JSONPatch())...)
	if err != nil {
		t.Fatal(err)
	}
	bounded := ours
	planner, err := gcel.NewPlanner(ours.env)
	if err != nil {
		t.Fatal(err)
	}
	bounded.eval = boundedEval(planner)

	keys := []string{"", "plain", "k8s.io/x~y", "~", "/", "~0", "~1", "a/b/c", "~~//", "日本/語~", "\x00/"}
	var cs []celCase
	for _, k := range keys {
		vars := map[string]any{"s1": k}
		for _, e := range []string{
			"jsonpatch.escapeKey(s1)", "'/metadata/labels/' + jsonpatch.escapeKey(s1)", "jsonpatch.escapeKey(s1).size()",
		} {
			cs = append(cs, celCase{expr: e, vars: vars})
		}
	}
	cs = append(cs, cases("jsonpatch.escapeKey(1)", "jsonpatch.escapeKey()", "'a'.escapeKey()", "jsonpatch.escapeKey(dyn('a/b'))")...)
	compareCELSides(t, kube, cs, ours, bounded)

	// Not in the base environment.
	_, kubeIss := loadCELEnvs(t).kube.Compile("jsonpatch.escapeKey('a')")
	_, ourIss := loadCELEnvs(t).ours.Compile("jsonpatch.escapeKey('a')")
	if kubeIss.Err() == nil || ourIss.Err() == nil || kubeIss.Err().Error() != ourIss.Err().Error() {
		t.Errorf("jsonpatch.escapeKey in the base environment: kube %v, ours %v", kubeIss.Err(), ourIss.Err())
	}
}
