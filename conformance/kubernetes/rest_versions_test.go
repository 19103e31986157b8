package kubernetes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/klog/v2"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/conformance/internal/kubeoracle"
	"github.com/gatehouse-dev/gatehouse/conformance/kubernetes/oracle/restvalidation"
	"github.com/gatehouse-dev/gatehouse/conformance/oracle/protocol"
	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/gatehouse-dev/gatehouse/mutation"
)

// The REST validation of admission objects per Kubernetes version: the
// corpus runs of admission_validation_test.go and
// mutation_validation_test.go, with each version's own
// pkg/apis/admissionregistration/validation (the oracle program of ./oracle,
// built with that version's modfile; 1.37 linked here, through the same
// protocol) against gatehouse's validators set to that version.
//
// GATEHOUSE_REST_VERSIONS lists the versions compared ("1.35,1.36", "all");
// unset, restDefaultVersions. An oracle that cannot be built for want of
// the network is skipped, unless GATEHOUSE_REQUIRE_ORACLES is set.

// 1.37's registry logs every difference between its handwritten and
// declarative validations (klog, with the DeclarativeValidation gate on):
// the tests compare the errors themselves.
func init() {
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
}

// restDefaultVersions are the versions compared when GATEHOUSE_REST_VERSIONS
// is unset: see doc.go for why.
var restDefaultVersions = []string{"1.36", "1.38"}

func restVersions(t *testing.T) []string {
	env := strings.TrimSpace(os.Getenv("GATEHOUSE_REST_VERSIONS"))
	switch env {
	case "":
		return restDefaultVersions
	case "all":
		return kubeoracle.Kubernetes.AllVersions()
	}
	var vs []string
	for v := range strings.SplitSeq(env, ",") {
		v = strings.TrimSpace(v)
		require.Contains(t, kubeoracle.Kubernetes.AllVersions(), v, "GATEHOUSE_REST_VERSIONS")
		vs = append(vs, v)
	}
	return vs
}

// restSide is one version: its REST validation and gatehouse's validators
// set to it.
type restSide struct {
	version string
	oracle  kubeoracle.Oracle
	target  kube.Target
	admV    *admissionmanifest.Validator
	mutV    *mutation.Validator
	// mapGates turns the reservation of static names off for
	// MutatingAdmissionPolicies, which package mutation does not check (nil
	// before 1.36, which has no such gate).
	mapGates map[string]bool

	mu    sync.Mutex
	diffs *restDiffs
	known int // the run's cases that differ as restKnownDifference says
}

// restKnownDifference says why want (kube-apiserver's lines) and got
// (gatehouse's) may differ at version, or "". At 1.38's beta, the texts of
// CEL compile errors are cel-go 0.33's, which gatehouse (cel-go 0.29) does
// not link: an undeclared reference has no " (in container ”)", a
// qualified one is named whole with a suggestion ("undeclared reference to
// 'params.maxReplicas' (did you mean 'format.named'?)"), a call on an
// undeclared receiver is an error more. Such errors are known differences
// when both sides have a compile error at the same field, of the same type
// and value; a compile error one side alone has is not.
func restKnownDifference(version string, want, got []string) string {
	if version != "1.38" {
		return ""
	}
	const compile = ": compilation failed: "
	cut := func(lines []string) []string {
		out := make([]string, len(lines))
		for i, l := range lines {
			if j := strings.Index(l, compile); j >= 0 {
				l = l[:j+len(compile)]
			}
			out[i] = l
		}
		return out
	}
	if slices.Equal(cut(want), cut(got)) {
		return "cel-go 0.33's texts of compile errors"
	}
	return ""
}

var (
	restSidesMu sync.Mutex
	restSides   = map[string]*restSide{}
)

// restSideFor starts (once per process) the oracle of version and builds
// gatehouse's validators for it.
func restSideFor(t *testing.T, version string) *restSide {
	t.Helper()
	restSidesMu.Lock()
	defer restSidesMu.Unlock()
	if s, ok := restSides[version]; ok {
		return s
	}
	var o kubeoracle.Oracle
	if version == kubeoracle.InProcessVersion {
		o = kubeoracle.NewInProcessFunc(restvalidation.Answer)
	} else {
		var err error
		o, err = kubeoracle.Kubernetes.Start(context.Background(), version)
		if errors.Is(err, kubeoracle.ErrCannotBuild) && os.Getenv("GATEHOUSE_REQUIRE_ORACLES") == "" {
			t.Skip(err)
		}
		require.NoError(t, err)
	}
	kv, err := kube.ParseVersion(version)
	require.NoError(t, err)
	target, err := kube.TargetFor(kv)
	require.NoError(t, err)
	adm, err := admissionmanifest.NewValidator(admissionmanifest.Options{Kube: target, StaticNames: admissionmanifest.StaticNamesFor(target)})
	require.NoError(t, err)
	mut, err := mutation.NewValidator(mutation.ValidatorOptions{Kube: target})
	require.NoError(t, err)
	s := &restSide{version: version, oracle: o, target: target, admV: adm, mutV: mut}
	if kv.AtLeast(kube.V1_36) {
		s.mapGates = map[string]bool{restvalidation.GateManifestBasedAdmissionControlConfig: false}
	}
	restSides[version] = s
	return s
}

// restDiffs collects the differences of one run, to report them together.
type restDiffs struct {
	count    int
	examples []string
	// kinds counts the lines one side has and the other lacks, by their
	// text with indices and quoted values generalized.
	kinds map[string]int
}

var (
	restIndex  = regexp.MustCompile(`\[\d+\]`)
	restQuoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
)

// restKind generalizes a rendered error or warning.
func restKind(side, line string) string {
	line = restIndex.ReplaceAllString(line, "[i]")
	line = restQuoted.ReplaceAllString(line, `"…"`)
	if len(line) > 160 {
		line = line[:160] + "…"
	}
	return side + ": " + line
}

func (s *restSide) begin() {
	s.mu.Lock()
	s.diffs = &restDiffs{}
	s.known = 0
	s.mu.Unlock()
}

// restKnownBound bounds, per version and run, the cases that differ in
// known ways (measured at 1.38's beta on the default corpora; the full
// mutation corpus, GATEHOUSE_MUTATION_CORPUS=full, is not bounded).
var restKnownBound = map[string]int{
	"1.38/webhooks create":   300,
	"1.38/webhooks update":   213,
	"1.38/policies":          1241,
	"1.38/mutating policies": 112,
	"1.38/mutating bindings": 0,
	"1.38/bindings":          0,
	"1.38/real world":        0,
	"1.38/edge cases":        0,
}

// end fails t with the run's differences: any that restKnownDifference does
// not explain, and more known ones than restKnownBound.
func (s *restSide) end(t *testing.T, run string) {
	t.Helper()
	s.mu.Lock()
	d, known := s.diffs, s.known
	s.mu.Unlock()
	if known > 0 {
		t.Logf("Kubernetes %s: %d cases differ in known ways (restKnownDifference)", s.version, known)
		bound, ok := restKnownBound[s.version+"/"+run]
		if full := run == "mutating policies" && os.Getenv("GATEHOUSE_MUTATION_CORPUS") == "full"; !full && (!ok || known > bound) {
			t.Errorf("Kubernetes %s: %d cases differ in known ways, more than the %d measured (restKnownBound)", s.version, known, bound)
		}
	}
	if d.count > 0 {
		kinds := slices.SortedFunc(maps.Keys(d.kinds), func(a, b string) int { return d.kinds[b] - d.kinds[a] })
		var lines []string
		for _, k := range kinds {
			lines = append(lines, fmt.Sprintf("%6d %s", d.kinds[k], k))
		}
		t.Errorf("Kubernetes %s: %d cases differ; by line:\n%s\nthe first:\n%s", s.version, d.count, strings.Join(lines, "\n"), strings.Join(d.examples, "\n\n"))
	}
}

func (s *restSide) differ(what string, obj runtime.Object, want, got []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if restKnownDifference(s.version, want, got) != "" {
		s.known++
		return
	}
	s.diffs.count++
	if s.diffs.kinds == nil {
		s.diffs.kinds = map[string]int{}
	}
	for _, l := range want {
		if !slices.Contains(got, l) {
			s.diffs.kinds[restKind("kube only", l)]++
		}
	}
	for _, l := range got {
		if !slices.Contains(want, l) {
			s.diffs.kinds[restKind("gatehouse only", l)]++
		}
	}
	if slices.Equal(slices.Sorted(slices.Values(want)), slices.Sorted(slices.Values(got))) {
		s.diffs.kinds["order only"]++
	}
	if len(s.diffs.examples) < 8 {
		b, _ := json.Marshal(obj)
		s.diffs.examples = append(s.diffs.examples, fmt.Sprintf("%s\n  kube-apiserver %s:\n    %s\n  gatehouse:\n    %s\n  object: %s",
			what, s.version, strings.Join(want, "\n    "), strings.Join(got, "\n    "), truncateString(string(b), 1500)))
	}
}

func truncateString(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// restKinds are the apiVersion and kind of the admission types.
func restTypeMeta(obj runtime.Object) (string, string) {
	kind := ""
	switch obj.(type) {
	case *admissionregistrationv1.ValidatingWebhookConfiguration:
		kind = "ValidatingWebhookConfiguration"
	case *admissionregistrationv1.MutatingWebhookConfiguration:
		kind = "MutatingWebhookConfiguration"
	case *admissionregistrationv1.ValidatingAdmissionPolicy:
		kind = "ValidatingAdmissionPolicy"
	case *admissionregistrationv1.ValidatingAdmissionPolicyBinding:
		kind = "ValidatingAdmissionPolicyBinding"
	case *admissionregistrationv1.MutatingAdmissionPolicy:
		kind = "MutatingAdmissionPolicy"
	case *admissionregistrationv1.MutatingAdmissionPolicyBinding:
		kind = "MutatingAdmissionPolicyBinding"
	}
	return admissionregistrationv1.SchemeGroupVersion.String(), kind
}

// restJSON is obj as the REST API receives it: JSON with apiVersion and
// kind. Both sides validate the object decoded from it (JSON drops the
// difference of a nil and an empty list, as a request does).
func restJSON(t *testing.T, obj runtime.Object) (json.RawMessage, runtime.Object) {
	t.Helper()
	if obj == nil {
		return nil, nil
	}
	b, err := json.Marshal(obj)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	m["apiVersion"], m["kind"] = restTypeMeta(obj)
	b, err = json.Marshal(m)
	require.NoError(t, err)
	decoded, err := restvalidation.Decode(b)
	require.NoError(t, err)
	return b, decoded
}

// ask validates obj (old nil: create) with the version's REST API.
func (s *restSide) ask(t *testing.T, obj, old json.RawMessage, gates map[string]bool) *protocol.RESTValidationAnswer {
	t.Helper()
	a, err := s.oracle.Eval(protocol.Query{Op: protocol.OpRESTValidation, REST: &protocol.RESTValidationQuery{Object: obj, OldObject: old, Gates: gates}})
	require.NoError(t, err)
	require.NotNil(t, a.REST)
	return a.REST
}

// restRender renders the oracle's errors as admRender renders an ErrorList.
func restRender(errs []protocol.FieldError) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = fmt.Sprintf("%s | %s | %s", field.ErrorType(e.Type), e.Field, e.Text)
	}
	return out
}

// adm is the side's admComparer.
func (s *restSide) adm(t *testing.T, c *admCounts, what string, obj, old runtime.Object) {
	t.Helper()
	objJSON, obj := restJSON(t, obj)
	oldJSON, old := restJSON(t, old)
	a := s.ask(t, objJSON, oldJSON, nil)
	want := restRender(a.Errors)
	if redacted := admRedact(want); !slices.Equal(redacted, want) {
		c.redacted++
		want = redacted
	}
	gotErrs, gotWarnings := admGatehouse(s.admV, obj, old)
	got := admRender(gotErrs)
	c.cases++
	if len(want) == 0 {
		c.valid++
	}
	if !slices.Equal(want, got) || !slices.Equal(a.Warnings, gotWarnings) {
		s.differ(what, obj, append(want, restWarnings(a.Warnings)...), append(got, restWarnings(gotWarnings)...))
	}
}

func restWarnings(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = "warning: " + w
	}
	return out
}

// mv is the side's mvComparer.
func (s *restSide) mv(t *testing.T, c *mvCounts, what string, obj, old runtime.Object) {
	t.Helper()
	objJSON, obj := restJSON(t, obj)
	oldJSON, old := restJSON(t, old)
	a := s.ask(t, objJSON, oldJSON, s.mapGates)
	var kept []protocol.FieldError
	for _, e := range a.Errors {
		if mvUnchecked(e.Field, field.ErrorType(e.Type)) {
			c.unchecked++
			continue
		}
		kept = append(kept, e)
	}
	want := restRender(kept)
	got := admRender(mvGatehouseWith(s.mutV, obj, old))
	c.cases++
	if len(want) == 0 {
		c.valid++
	}
	if !slices.Equal(want, got) {
		s.differ(what, obj, want, got)
	}
}

// TestRESTValidationVersionsMatchKube runs the corpus of every REST
// validation test against each version's own validation.
func TestRESTValidationVersionsMatchKube(t *testing.T) {
	adm := []struct {
		name string
		run  func(*testing.T, admComparer)
	}{
		{"webhooks create", admWebhookCreateRun},
		{"webhooks update", admWebhookUpdateRun},
		{"real world", admRealWorldRun},
		{"policies", admPolicyRun},
		{"bindings", admBindingRun},
		{"edge cases", admEdgeCasesRun},
	}
	mv := []struct {
		name string
		run  func(*testing.T, mvComparer)
	}{
		{"mutating policies", mvPolicyRun},
		{"mutating bindings", mvBindingRun},
	}
	for _, v := range restVersions(t) {
		t.Run(v, func(t *testing.T) {
			s := restSideFor(t, v)
			for _, r := range adm {
				t.Run(r.name, func(t *testing.T) {
					s.begin()
					r.run(t, s.adm)
					s.end(t, r.name)
				})
			}
			for _, r := range mv {
				t.Run(r.name, func(t *testing.T) {
					s.begin()
					r.run(t, s.mv)
					s.end(t, r.name)
				})
			}
		})
	}
}
