package admission

import (
	"context"
	"fmt"
	"github.com/gatehouse-dev/gatehouse/internal/soak"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/mutation"
)

// The soak test's shape. Each epoch brings new policy names (a
// MutatingAdmissionPolicy and a ValidatingAdmissionPolicy with params,
// put in force with Reloader.SetAPI while the epoch's requests run), new
// ConfigMap params and a new namespace; every soakStaticEvery epochs the
// static manifests directory gets a new policy name too, which the
// Reloader's poller (Run) or its Check puts in force.
const (
	soakEpochRequests = 1000
	soakWindow        = 3 // epochs whose namespaces and params stay
	soakStaticEvery   = 5
	soakCheckpoints   = 10
	// soakDefaultRequests is the default of GATEHOUSE_SOAK_REQUESTS: what
	// a normal `go test ./...` sends. It runs in about 9 s with -race on a
	// shared 2-core machine, under 2 s without.
	soakDefaultRequests = 10000
)

// TestSoakChurn sends GATEHOUSE_SOAK_REQUESTS requests (soakDefaultRequests
// unless set; 1,000,000 for a real soak, about 90 s on 2 cores without
// -race; see soakDefaultRequests for CI's run) from GOMAXPROCS goroutines through a Reloader's chain while
// policies, bindings, params and namespaces churn (new names every
// soakEpochRequests requests, put in force through SetAPI, concurrently
// with the requests), and the static manifests directory changes under
// the Reloader's poller. Every request must be admitted, mutated by the
// policy in force, and checked against its param. The heap in use after
// runtime.GC(), sampled at soakCheckpoints checkpoints, must stay within
// soakHeapSlack (plus a quarter) of the first checkpoint after warm-up,
// and once the poller is stopped the goroutines must be back to their
// number before the test.
func TestSoakChurn(t *testing.T) {
	total := soakDefaultRequests
	if s := os.Getenv("GATEHOUSE_SOAK_REQUESTS"); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(t, err, "GATEHOUSE_SOAK_REQUESTS")
		total = n
	}
	epochs := max(total/soakEpochRequests, 2*soakCheckpoints)
	perEpoch := max(total/epochs, 1)
	goroutinesBefore := runtime.NumGoroutine()
	started := time.Now()

	w := newSoakWorld(t)
	ctx, cancel := context.WithCancel(context.Background())
	runDone := make(chan struct{})
	go func() {
		defer close(runDone)
		w.reloader.Run(ctx)
	}()

	workers := runtime.GOMAXPROCS(0)
	var heap []uint64
	var sent atomic.Int64
	for e := 1; e <= epochs; e++ {
		w.publish(e)
		if e%soakStaticEvery == 0 {
			w.writeStatic(t, e)
			// The poller may read it first; either way, it is in force
			// after Check.
			w.reloader.Check()
		}
		var wg sync.WaitGroup
		next := atomic.Int64{}
		var failures atomic.Int64
		for range workers {
			wg.Go(func() {
				for {
					i := next.Add(1) - 1
					if i >= int64(perEpoch) {
						return
					}
					if err := w.admit(ctx, e, int(i)); err != nil {
						if failures.Add(1) <= 3 {
							t.Errorf("epoch %d, request %d: %v", e, i, err)
						}
					}
					sent.Add(1)
				}
			})
		}
		// The epoch's policies go in force while its requests run.
		require.NoError(t, w.reloader.SetAPI(soakAPI(e)))
		wg.Wait()
		require.Zero(t, failures.Load(), "epoch %d", e)
		if e%(epochs/soakCheckpoints) == 0 {
			heap = append(heap, soak.HeapInUse())
		}
	}
	cancel()
	<-runDone

	elapsed := time.Since(started)
	t.Logf("%d requests in %d epochs, %d goroutines, %v (%.1f µs a request)", sent.Load(), epochs, workers, elapsed.Round(time.Millisecond),
		float64(elapsed.Microseconds())/float64(sent.Load()))
	var mib []string
	for _, h := range heap {
		mib = append(mib, fmt.Sprintf("%.2f", float64(h)/(1<<20)))
	}
	t.Logf("heap in use after GC at the checkpoints (MiB): %v", mib)
	first := heap[0]
	// The last checkpoints may exceed the first (taken after the first
	// tenth of the requests, the warm-up) by soak.HeapBound's slack.
	bound := soak.HeapBound(first)
	for i, h := range heap[len(heap)/2:] {
		assert.LessOrEqual(t, h, bound, "checkpoint %d: heap %d bytes, first %d", len(heap)/2+i+1, h, first)
	}

	after := soak.SettledGoroutines(goroutinesBefore)
	t.Logf("goroutines: %d before, %d after", goroutinesBefore, after)
	assert.LessOrEqual(t, after, goroutinesBefore, "goroutines left running")
}

// soakWorld holds what churns: the namespaces and params in force (the
// last soakWindow epochs'), read by the chain through its ParamSource and
// NamespaceLookup, and the static manifests directory.
type soakWorld struct {
	reloader *Reloader
	dir      string
	state    atomic.Pointer[soakState]
}

type soakState struct {
	namespaces map[string]*corev1.Namespace
	params     mutation.ParamSource
}

func newSoakWorld(t *testing.T) *soakWorld {
	w := &soakWorld{dir: t.TempDir()}
	w.publish(0)
	w.writeStatic(t, 0)
	configMap := corev1.SchemeGroupVersion.WithKind("ConfigMap")
	r, err := NewReloader(ReloaderOptions{
		Dirs: map[admissionmanifest.Plugin]string{admissionmanifest.ValidatingAdmissionPolicy: w.dir},
		// The poller reads the directory often, to race the requests.
		PollInterval: 20 * time.Millisecond,
		API:          soakAPI(0),
		Chain: Options{
			Params: mutation.ParamSourceFunc(func(kind schema.GroupVersionKind) (mutation.Params, error) {
				if kind != configMap {
					return nil, mutation.ErrParamKindNotKnown
				}
				return w.state.Load().params.Params(kind)
			}),
			Namespaces: mutation.NamespaceLookupFunc(func(_ context.Context, name string) (*corev1.Namespace, error) {
				if ns, ok := w.state.Load().namespaces[name]; ok {
					return ns, nil
				}
				return nil, apierrors.NewNotFound(corev1.Resource("namespaces"), name)
			}),
		},
	})
	require.NoError(t, err)
	w.reloader = r
	return w
}

// publish puts epoch e's namespaces and params in force, with those of the
// epochs before it in the window: the params of every epoch of the window
// in each of its namespaces, so that the policies of the epoch before
// (still in force until SetAPI) find theirs.
func (w *soakWorld) publish(e int) {
	s := &soakState{namespaces: map[string]*corev1.Namespace{}}
	var params []k8sruntime.Object
	for ns := max(e-soakWindow+1, 0); ns <= e; ns++ {
		name := fmt.Sprintf("ns-%d", ns)
		s.namespaces[name] = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"epoch": strconv.Itoa(ns)}}}
		for p := max(e-soakWindow+1, 0); p <= e; p++ {
			params = append(params, &corev1.ConfigMap{
				TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("limits-%d", p), Namespace: name},
				Data:       map[string]string{"maxContainers": strconv.Itoa(2 + p%2), "stamp": fmt.Sprintf("epoch-%d", p)},
			})
		}
	}
	s.params = mutation.NewParamObjects(nil, params...)
	w.state.Store(s)
}

// writeStatic replaces the static directory's policy with one of a new
// name, written atomically (a rename) as the poller may be reading.
func (w *soakWorld) writeStatic(t *testing.T, e int) {
	doc := fmt.Sprintf(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: named-%d.static.k8s.io}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}
  validations:
  - expression: "object.metadata.name != ''"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: named-%d.static.k8s.io}
spec: {policyName: named-%d.static.k8s.io, validationActions: [Deny]}
`, e, e, e)
	tmp := filepath.Join(w.dir, ".policy.tmp")
	require.NoError(t, os.WriteFile(tmp, []byte(doc), 0o600))
	require.NoError(t, os.Rename(tmp, filepath.Join(w.dir, "policy.yaml")))
}

// soakAPI is epoch e's API configuration (soak.API), the stamp checked
// exactly: the chain in force admits a request whole.
func soakAPI(e int) Config {
	cfg, err := Decode(soak.API(e, true))
	if err != nil {
		panic(err)
	}
	return *cfg
}

// admit sends request i of epoch e: a new pod in the epoch's namespace,
// with one or two containers and a few labels.
func (w *soakWorld) admit(ctx context.Context, e, i int) error {
	containers := []any{map[string]any{"name": "app", "image": "app:" + strconv.Itoa(i%7)}}
	if i%2 == 0 {
		containers = append(containers, map[string]any{"name": "sidecar", "image": "sidecar:1"})
	}
	ns := fmt.Sprintf("ns-%d", e)
	name := fmt.Sprintf("pod-%d-%d", e, i)
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": name, "namespace": ns, "labels": map[string]any{"app": "a" + strconv.Itoa(i%5), "request": strconv.Itoa(i)}},
		"spec":     map[string]any{"containers": containers}}}
	res, err := w.reloader.Chain().Admit(ctx, &Request{Operation: admissionv1.Create, Kind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
		Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Name: name, Namespace: ns, Object: obj})
	if err != nil {
		return err
	}
	if stamp := res.Object.GetLabels()["stamp"]; stamp != fmt.Sprintf("epoch-%d", e) && stamp != fmt.Sprintf("epoch-%d", e-1) {
		return fmt.Errorf("stamp %q", stamp)
	}
	return nil
}
