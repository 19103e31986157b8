package conformance

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	"k8s.io/apiextensions-apiserver/pkg/client/informers/externalversions"
	informersv1 "k8s.io/apiextensions-apiserver/pkg/client/informers/externalversions/apiextensions/v1"
	listersv1 "k8s.io/apiextensions-apiserver/pkg/client/listers/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/controller/apiapproval"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/gatehouse-dev/gatehouse/crdapproval"
)

// kube-apiserver's approval controller computes its condition in
// calculateCondition, which is unexported. To compare conditions, these tests
// run the controller itself (NewKubernetesAPIApprovalPolicyConformantConditionController)
// with one worker, over a fake clientset and a real informer, and read back
// what it wrote with UpdateStatus.
//
// The controller gives no signal when it is done with a CRD that needs no
// condition, so the lister it reads through records each Get: with one
// worker, a Get starts only after the previous sync has returned. Once every
// CRD has been read, a sentinel CRD is created; when the controller reads it,
// every earlier sync is over.
//
// The status writes are answered by a reactor that keeps what the controller
// wrote, instead of the fake tracker: the tracker would send a watch event
// for each write, and its fake watcher panics ("channel full") when a
// hundred events wait for the informer.

// recordingInformer hands the controller a lister that records the names it
// reads.
type recordingInformer struct {
	informersv1.CustomResourceDefinitionInformer
	seen *seenNames
}

func (i recordingInformer) Lister() listersv1.CustomResourceDefinitionLister {
	return recordingLister{i.CustomResourceDefinitionInformer.Lister(), i.seen}
}

type recordingLister struct {
	listersv1.CustomResourceDefinitionLister
	seen *seenNames
}

func (l recordingLister) Get(name string) (*apiextensionsv1.CustomResourceDefinition, error) {
	l.seen.add(name)
	return l.CustomResourceDefinitionLister.Get(name)
}

func (l recordingLister) List(selector labels.Selector) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	return l.CustomResourceDefinitionLister.List(selector)
}

// seenNames is the set of names the controller has read.
type seenNames struct {
	mu      sync.Mutex
	names   map[string]bool
	changed chan struct{}
}

func newSeenNames() *seenNames {
	return &seenNames{names: map[string]bool{}, changed: make(chan struct{}, 1)}
}

func (s *seenNames) add(name string) {
	s.mu.Lock()
	s.names[name] = true
	s.mu.Unlock()
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

// waitFor waits until every name has been read, or fails after a minute.
func (s *seenNames) waitFor(t *testing.T, names []string) {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		s.mu.Lock()
		missing := 0
		for _, n := range names {
			if !s.names[n] {
				missing++
			}
		}
		s.mu.Unlock()
		if missing == 0 {
			return
		}
		select {
		case <-s.changed:
		case <-deadline:
			t.Fatalf("the approval controller has not read %d of %d CRDs after a minute", missing, len(names))
		}
	}
}

// runKubeApprovalController runs kube-apiserver's approval controller over
// crds (their names must be unique) and returns the CRDs as it left them,
// by name, with the number of status writes it made per name.
func runKubeApprovalController(t *testing.T, crds []*apiextensionsv1.CustomResourceDefinition) (map[string]*apiextensionsv1.CustomResourceDefinition, map[string]int) {
	t.Helper()
	client := fake.NewClientset()
	for _, crd := range crds {
		require.NoError(t, client.Tracker().Add(crd))
	}
	var (
		mu      sync.Mutex
		written = map[string]*apiextensionsv1.CustomResourceDefinition{}
		writes  = map[string]int{}
	)
	client.PrependReactor("update", "customresourcedefinitions", func(action k8stesting.Action) (bool, runtime.Object, error) {
		update, ok := action.(k8stesting.UpdateAction)
		if !ok || action.GetSubresource() != "status" {
			return false, nil, nil
		}
		crd, ok := update.GetObject().(*apiextensionsv1.CustomResourceDefinition)
		if !ok {
			return true, nil, fmt.Errorf("a status update of %T", update.GetObject())
		}
		mu.Lock()
		defer mu.Unlock()
		written[crd.Name] = crd.DeepCopy()
		writes[crd.Name]++
		return true, crd, nil
	})
	factory := externalversions.NewSharedInformerFactory(client, 0)
	seen := newSeenNames()
	informer := recordingInformer{factory.Apiextensions().V1().CustomResourceDefinitions(), seen}
	controller := apiapproval.NewKubernetesAPIApprovalPolicyConformantConditionController(informer, client.ApiextensionsV1())

	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	defer func() {
		cancel()
		<-stopped
		factory.Shutdown()
	}()
	factory.Start(ctx.Done())
	go func() {
		defer close(stopped)
		controller.RunWithContext(1, ctx)
	}()

	names := make([]string, 0, len(crds))
	for _, crd := range crds {
		names = append(names, crd.Name)
	}
	seen.waitFor(t, names)
	sentinel := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "sentinel.example.com"},
		Spec:       apiextensionsv1.CustomResourceDefinitionSpec{Group: "example.com"},
	}
	_, err := client.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, sentinel, metav1.CreateOptions{})
	require.NoError(t, err)
	seen.waitFor(t, []string{sentinel.Name})

	mu.Lock()
	defer mu.Unlock()
	out := map[string]*apiextensionsv1.CustomResourceDefinition{}
	for _, crd := range crds {
		out[crd.Name] = crd
		if w, ok := written[crd.Name]; ok {
			out[crd.Name] = w
		}
	}
	return out, writes
}

// kubeCRDv1 is a v1 CRD for the controller; the controller reads only the
// group, the annotations and the conditions.
func kubeCRDv1(name, group string, annotations map[string]string) *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations},
		Spec:       apiextensionsv1.CustomResourceDefinitionSpec{Group: group},
	}
}

// compareCondition records a difference between the condition crdapproval
// computes and the one the controller left on crd.
func (d *diffs) compareCondition(what, group string, annotations map[string]string, crd *apiextensionsv1.CustomResourceDefinition) {
	var kube *apiextensionsv1.CustomResourceDefinitionCondition
	for i := range crd.Status.Conditions {
		if crd.Status.Conditions[i].Type == apiextensionsv1.KubernetesAPIApprovalPolicyConformant {
			kube = &crd.Status.Conditions[i]
		}
	}
	got, ok := crdapproval.Condition(group, annotations)
	switch {
	case !ok && kube == nil:
	case !ok:
		d.add("%s: no condition, kube %+v", what, *kube)
	case kube == nil:
		d.add("%s: condition %+v, kube none", what, got)
	case got.Type != string(kube.Type) || string(got.Status) != string(kube.Status) || got.Reason != kube.Reason || got.Message != kube.Message:
		d.add("%s: condition %s/%s/%s/%s, kube %s/%s/%s/%s", what, got.Type, got.Status, got.Reason, short(got.Message), kube.Type, kube.Status, kube.Reason, short(kube.Message))
	}
}

func TestCRDApprovalConditionMatchesKubeController(t *testing.T) {
	type testCase struct{ group, value string }
	var cases []testCase
	for _, group := range crdApprovalGroups() {
		for _, value := range crdApprovalSampleValues() {
			cases = append(cases, testCase{group, value})
		}
	}
	for _, value := range crdApprovalValues() {
		cases = append(cases, testCase{"gateway.networking.k8s.io", value}, testCase{"x-k8s.io", value})
	}

	crds := make([]*apiextensionsv1.CustomResourceDefinition, len(cases))
	for i, c := range cases {
		crds[i] = kubeCRDv1(fmt.Sprintf("crd-%05d", i), c.group, crdApprovalAnnotations(c.value))
	}
	after, writes := runKubeApprovalController(t, crds)

	d := newDiffs(t)
	for i, c := range cases {
		d.cases++
		name := crds[i].Name
		what := fmt.Sprintf("condition of %s with %s", short(c.group), short(c.value))
		d.compareCondition(what, c.group, crdApprovalAnnotations(c.value), after[name])
		_, protected := crdapproval.Condition(c.group, nil)
		if wantWrites := map[bool]int{true: 1, false: 0}[protected]; writes[name] != wantWrites {
			d.add("%s: the controller wrote the status %d times, want %d", what, writes[name], wantWrites)
		}
	}
}

// TestCRDApprovalSetConditionMatchesKubeController gives the controller CRDs
// that already carry conditions, and compares what it writes (whether it
// writes, the conditions, which transition times move) with SetCondition.
func TestCRDApprovalSetConditionMatchesKubeController(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))
	values := []string{
		"https://github.com/kubernetes/enhancements/pull/1111", "https://github.com/kubernetes/kubernetes/pull/79724",
		"unapproved", "unapproved, experimental-only", crdApprovalNoAnnotation, "", "invalid", "github.com/x",
	}
	established := apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue, Reason: "InitialNamesAccepted", LastTransitionTime: t0}
	toKube := func(c metav1.Condition, ltt metav1.Time) apiextensionsv1.CustomResourceDefinitionCondition {
		return apiextensionsv1.CustomResourceDefinitionCondition{
			Type: apiextensionsv1.CustomResourceDefinitionConditionType(c.Type), Status: apiextensionsv1.ConditionStatus(c.Status),
			Reason: c.Reason, Message: c.Message, LastTransitionTime: ltt,
		}
	}
	type testCase struct {
		value    string
		existing []apiextensionsv1.CustomResourceDefinitionCondition
	}
	var cases []testCase
	for _, value := range values {
		for _, oldValue := range values {
			old, _ := crdapproval.Condition("x.k8s.io", crdApprovalAnnotations(oldValue))
			for _, ltt := range []metav1.Time{t0, {}} {
				cases = append(cases,
					testCase{value: value, existing: []apiextensionsv1.CustomResourceDefinitionCondition{toKube(old, ltt)}},
					testCase{value: value, existing: []apiextensionsv1.CustomResourceDefinitionCondition{established, toKube(old, ltt)}},
				)
			}
		}
		cases = append(cases, testCase{value: value}, testCase{value: value, existing: []apiextensionsv1.CustomResourceDefinitionCondition{established}})
	}
	crds := make([]*apiextensionsv1.CustomResourceDefinition, len(cases))
	for i, c := range cases {
		crds[i] = kubeCRDv1(fmt.Sprintf("crd-%05d", i), "x.k8s.io", crdApprovalAnnotations(c.value))
		crds[i].Status.Conditions = c.existing
	}
	after, writes := runKubeApprovalController(t, crds)

	// ltt classifies a transition time: kept at t0, zero, or set by the write.
	ltt := func(ts, now metav1.Time) string {
		switch {
		case ts.Equal(&t0):
			return "t0"
		case ts.IsZero():
			return "zero"
		case now.IsZero() || ts.Equal(&now):
			return "now"
		default:
			return "other " + ts.String()
		}
	}
	now := metav1.NewTime(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	outcomes := map[string]int{}
	t.Cleanup(func() {
		// Every outcome must occur, or zero differences would say little.
		for _, o := range []string{"write", "no write", "t0", "zero", "now"} {
			if outcomes[o] == 0 {
				t.Errorf("no case has the outcome %q: %v", o, outcomes)
			}
		}
	})
	d := newDiffs(t)
	for i, c := range cases {
		d.cases++
		what := fmt.Sprintf("%s over %+v", short(c.value), c.existing)
		conditions := make([]metav1.Condition, 0, len(c.existing))
		for _, e := range c.existing {
			conditions = append(conditions, metav1.Condition{Type: string(e.Type), Status: metav1.ConditionStatus(e.Status), Reason: e.Reason, Message: e.Message, LastTransitionTime: e.LastTransitionTime})
		}
		cond, _ := crdapproval.Condition("x.k8s.io", crdApprovalAnnotations(c.value))
		changed := crdapproval.SetCondition(&conditions, cond, now)
		outcomes[map[bool]string{true: "write", false: "no write"}[changed]]++
		for _, c := range conditions {
			if c.Type == crdapproval.ConditionType {
				outcomes[ltt(c.LastTransitionTime, now)]++
			}
		}
		if kubeChanged := writes[crds[i].Name] == 1; changed != kubeChanged {
			d.add("%s: SetCondition changed %v, the controller wrote %v", what, changed, kubeChanged)
		}
		kube := after[crds[i].Name].Status.Conditions
		if len(kube) != len(conditions) {
			d.add("%s: conditions %+v, kube %+v", what, conditions, kube)
			continue
		}
		for j, k := range kube {
			g := conditions[j]
			if g.Type != string(k.Type) || string(g.Status) != string(k.Status) || g.Reason != k.Reason || g.Message != k.Message ||
				ltt(g.LastTransitionTime, now) != ltt(k.LastTransitionTime, metav1.Time{}) {
				d.add("%s: condition %d is %s/%s/%s/%s at %s, kube %s/%s/%s/%s at %s", what, j,
					g.Type, g.Status, g.Reason, g.Message, ltt(g.LastTransitionTime, now),
					k.Type, k.Status, k.Reason, k.Message, ltt(k.LastTransitionTime, metav1.Time{}))
			}
		}
	}
}
