package conformance

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/gatehouse-dev/gatehouse/crdapproval"
)

// The differential tests of package crdapproval against
// k8s.io/apiextensions-apiserver v0.37.2:
//
//   - its helpers (pkg/apihelpers): IsProtectedCommunityGroup and
//     GetAPIApprovalState, over every group × value of the corpus;
//   - its CRD validation (pkg/apis/apiextensions/validation):
//     ValidateCustomResourceDefinition and
//     ValidateCustomResourceDefinitionUpdate, the functions the CRD registry
//     strategy calls, on a CRD that is otherwise valid, so that the errors at
//     metadata.annotations[api-approved.kubernetes.io] are those of the
//     approval check (validateAPIApproval, unexported) and nothing else
//     differs between the cases;
//   - its controller (pkg/controller/apiapproval): calculateCondition is
//     unexported, so the controller itself runs over fake clients
//     (crdapproval_controller_test.go) and the conditions it writes are
//     compared.
//
// Every difference is collected; the bar is zero.

// crdApprovalField is the field path of the approval errors.
const crdApprovalField = "metadata.annotations[api-approved.kubernetes.io]"

// diffs collects the differences of one test and reports them at the end.
type diffs struct {
	t     *testing.T
	cases int
	found []string
}

func newDiffs(t *testing.T) *diffs {
	d := &diffs{t: t}
	t.Cleanup(func() {
		t.Logf("%d cases compared, %d differences", d.cases, len(d.found))
		for i, f := range d.found {
			if i == 20 {
				t.Errorf("... and %d more", len(d.found)-20)
				break
			}
			t.Error(f)
		}
	})
	return d
}

func (d *diffs) add(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if len(msg) > 1000 {
		msg = msg[:1000] + "..."
	}
	d.found = append(d.found, msg)
}

// short abbreviates a corpus string for messages.
func short(s string) string {
	if s == crdApprovalNoAnnotation {
		return "<no annotation>"
	}
	if len(s) > 60 {
		return fmt.Sprintf("%q... (%d bytes)", s[:60], len(s))
	}
	return fmt.Sprintf("%q", s)
}

// kubeState maps apihelpers' state to crdapproval's. The numeric values are
// the same; the test checks that too.
var kubeState = map[apihelpers.APIApprovalState]crdapproval.State{
	apihelpers.APIApprovalInvalid:  crdapproval.Invalid,
	apihelpers.APIApproved:         crdapproval.Approved,
	apihelpers.APIApprovalBypassed: crdapproval.Unapproved,
	apihelpers.APIApprovalMissing:  crdapproval.Missing,
}

func TestCRDApprovalHelpersMatchKube(t *testing.T) {
	for k, v := range kubeState {
		require.Equal(t, int(k), int(v), "the numeric value of %v", v)
	}
	groups, values := crdApprovalGroups(), crdApprovalValues()
	d := newDiffs(t)

	for _, group := range groups {
		d.cases++
		if got, want := crdapproval.IsProtectedGroup(group), apihelpers.IsProtectedCommunityGroup(group); got != want {
			d.add("IsProtectedGroup(%s) = %v, kube %v", short(group), got, want)
		}
	}
	for _, value := range values {
		annotations := crdApprovalAnnotations(value)
		kubeS, kubeReason := apihelpers.GetAPIApprovalState(annotations)
		for _, group := range groups {
			d.cases++
			want := crdapproval.NotRequired
			if apihelpers.IsProtectedCommunityGroup(group) {
				want = kubeState[kubeS]
			}
			if got := crdapproval.StateOf(group, annotations); got != want {
				d.add("StateOf(%s, %s) = %v, kube %v", short(group), short(value), got, want)
			}
		}
		// The reason is the message of the condition.
		d.cases++
		if c, _ := crdapproval.Condition("k8s.io", annotations); c.Message != kubeReason {
			d.add("reason of %s: %s, kube %s", short(value), short(c.Message), short(kubeReason))
		}
	}
}

// kubeCRD is an internal CRD that passes kube-apiserver's validation in every
// respect but the approval annotation, when group is a valid group.
func kubeCRD(group string, annotations map[string]string) *apiextensions.CustomResourceDefinition {
	return &apiextensions.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets." + group, ResourceVersion: "1", Annotations: annotations},
		Spec: apiextensions.CustomResourceDefinitionSpec{
			Group:    group,
			Names:    apiextensions.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
			Scope:    apiextensions.NamespaceScoped,
			Versions: []apiextensions.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true}},
			// The internal type keeps a schema shared by all versions at the
			// top level (v1's per-version schemas are converted to it).
			Validation:            &apiextensions.CustomResourceValidation{OpenAPIV3Schema: &apiextensions.JSONSchemaProps{Type: "object"}},
			Conversion:            &apiextensions.CustomResourceConversion{Strategy: apiextensions.NoneConverter},
			PreserveUnknownFields: ptr.To(false),
		},
		Status: apiextensions.CustomResourceDefinitionStatus{StoredVersions: []string{"v1"}},
	}
}

// splitApprovalErrors separates the errors of the approval check from the
// others.
func splitApprovalErrors(errs field.ErrorList) (approval, others field.ErrorList) {
	for _, e := range errs {
		if e.Field == crdApprovalField {
			approval = append(approval, e)
		} else {
			others = append(others, e)
		}
	}
	return approval, others
}

// compareErrors records a difference between gatehouse's and kube's error
// lists: every field of every error, and the rendered text.
func (d *diffs) compareErrors(what string, got, want field.ErrorList) {
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		d.add("%s: errors %#v, kube %#v", what, got, want)
		return
	}
	if got.ToAggregate().Error() != want.ToAggregate().Error() {
		d.add("%s: rendered %q, kube %q", what, got.ToAggregate().Error(), want.ToAggregate().Error())
	}
}

// isKubeValidGroup reports whether kube-apiserver accepts group as a CRD
// group (then the base CRD has no error but the approval one).
func isKubeValidGroup(group string) bool {
	_, others := splitApprovalErrors(validation.ValidateCustomResourceDefinition(context.Background(), kubeCRD(group, nil)))
	return len(others) == 0
}

// checkOnlyApprovalDiffers records a difference if kube reports another
// error than the approval one for a CRD whose group is valid: the base CRD
// must differ from case to case only by the approval check. The annotation
// size limit (256 KiB for all annotations) is the one other check that an
// annotation value can fail.
func (d *diffs) checkOnlyApprovalDiffers(what string, validGroup bool, value string, others field.ErrorList) {
	if !validGroup {
		return
	}
	for _, e := range others {
		if e.Field == "metadata.annotations" && e.Type == field.ErrorTypeTooLong && len(value) > 256<<10 {
			continue
		}
		d.add("%s: kube reports another error than the approval one: %v", what, e)
	}
}

func TestCRDApprovalCreateValidationMatchesKube(t *testing.T) {
	ctx := context.Background()
	d := newDiffs(t)
	run := func(group, value string, validGroup bool) {
		d.cases++
		annotations := crdApprovalAnnotations(value)
		approval, others := splitApprovalErrors(validation.ValidateCustomResourceDefinition(ctx, kubeCRD(group, annotations)))
		what := fmt.Sprintf("create %s with %s", short(group), short(value))
		d.compareErrors(what, crdapproval.ValidateCreate(group, annotations), approval)
		d.checkOnlyApprovalDiffers(what, validGroup, value, others)
	}
	// Every group with a sample of values, and every value in a few groups.
	validGroups := 0
	for _, group := range crdApprovalGroups() {
		valid := isKubeValidGroup(group)
		if valid {
			validGroups++
		}
		for _, value := range crdApprovalSampleValues() {
			run(group, value, valid)
		}
	}
	t.Logf("%d of %d groups are valid CRD groups", validGroups, len(crdApprovalGroups()))
	for _, group := range []string{"k8s.io", "x.kubernetes.io", "x-k8s.io"} {
		for _, value := range crdApprovalValues() {
			run(group, value, true)
		}
	}
}

func TestCRDApprovalUpdateValidationMatchesKube(t *testing.T) {
	ctx := context.Background()
	d := newDiffs(t)
	run := func(group, oldValue, newValue string) {
		d.cases++
		oldAnnotations, newAnnotations := crdApprovalAnnotations(oldValue), crdApprovalAnnotations(newValue)
		errs := validation.ValidateCustomResourceDefinitionUpdate(ctx, kubeCRD(group, newAnnotations), kubeCRD(group, oldAnnotations))
		approval, others := splitApprovalErrors(errs)
		what := fmt.Sprintf("update %s from %s to %s", short(group), short(oldValue), short(newValue))
		d.compareErrors(what, crdapproval.ValidateUpdate(group, newAnnotations, oldAnnotations), approval)
		d.checkOnlyApprovalDiffers(what, true, newValue, others)
	}
	// Every pair of sample values in a few groups, and every value after
	// one old value of each state.
	values := crdApprovalSampleValues()
	for _, group := range []string{"k8s.io", "kubernetes.io", "sigs.k8s.io", "a.b.kubernetes.io", "x-k8s.io", "example.com"} {
		for _, oldValue := range values {
			for _, newValue := range values {
				run(group, oldValue, newValue)
			}
		}
	}
	for _, oldValue := range []string{crdApprovalNoAnnotation, "", "invalid", "unapproved", "https://github.com/kubernetes/enhancements/pull/1111"} {
		for _, newValue := range crdApprovalValues() {
			run("x.k8s.io", oldValue, newValue)
		}
	}
}

// TestCRDApprovalCorpusCoversEveryOutcome makes sure that the corpus reaches
// every state and every kind of error, so that zero differences means
// something.
func TestCRDApprovalCorpusCoversEveryOutcome(t *testing.T) {
	states := map[crdapproval.State]int{}
	for _, value := range crdApprovalValues() {
		states[crdapproval.StateOf("k8s.io", crdApprovalAnnotations(value))]++
	}
	states[crdapproval.StateOf("example.com", nil)]++
	for _, s := range []crdapproval.State{crdapproval.Invalid, crdapproval.Approved, crdapproval.Unapproved, crdapproval.Missing, crdapproval.NotRequired} {
		require.Positive(t, states[s], "the corpus has no %v value", s)
	}
	t.Logf("states of the values in k8s.io: %v", states)
	groups := 0
	for _, g := range crdApprovalGroups() {
		if apihelpers.IsProtectedCommunityGroup(g) {
			groups++
		}
	}
	require.Positive(t, groups)
	require.Less(t, groups, len(crdApprovalGroups()))
	t.Logf("%d groups, %d protected", len(crdApprovalGroups()), groups)
	require.True(t, strings.HasPrefix(crdapproval.AnnotationKey, "api-approved"))
}
