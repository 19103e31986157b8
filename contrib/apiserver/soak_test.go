package apiserver

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
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kadmission "k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/gatehouse-dev/gatehouse/admission"
	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/mutation"
)

// soakDefaultRequests is the default of GATEHOUSE_SOAK_REQUESTS here: about
// 6 s with -race on a shared 2-core machine, under 1 s without.
const soakDefaultRequests = 5000

// TestSoakReloadingAdmissionPlugin is admission's TestSoakChurn through the
// server path: GATEHOUSE_SOAK_REQUESTS typed Pods (soakDefaultRequests
// unless set) go through a ReloadingAdmissionPlugin in k8s.io/apiserver's
// admission chain handler (Admit, then Validate) from GOMAXPROCS
// goroutines, while each epoch of 500 requests brings new policy names
// (SetAPI, concurrently with the requests), new ConfigMap params and a new
// namespace, and every fifth a new static policy under the plugin's
// poller. Every request must be admitted and stamped; the heap in use after
// GC at ten checkpoints must stay within a quarter plus 4 MiB of the first
// after warm-up; once the plugin's context ends, the goroutines must be
// back to their number before.
//
// Admit and Validate each take the chain in force when called, as
// kube-apiserver's plugins each read their own policies: a request may be
// mutated by one epoch's policies and validated by the next's, so the
// validating policy only checks that a stamp is there.
func TestSoakReloadingAdmissionPlugin(t *testing.T) {
	total := soakDefaultRequests
	if s := os.Getenv("GATEHOUSE_SOAK_REQUESTS"); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(t, err, "GATEHOUSE_SOAK_REQUESTS")
		total = n
	}
	const epochRequests, window, staticEvery, checkpoints = 500, 3, 5, 10
	epochs := max(total/epochRequests, 2*checkpoints)
	perEpoch := max(total/epochs, 1)
	goroutinesBefore := runtime.NumGoroutine()
	started := time.Now()

	dir := t.TempDir()
	writeStatic := func(e int) {
		doc := fmt.Sprintf(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: named-%[1]d.static.k8s.io}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}
  validations:
  - expression: "object.metadata.name != ''"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: named-%[1]d.static.k8s.io}
spec: {policyName: named-%[1]d.static.k8s.io, validationActions: [Deny]}
`, e)
		tmp := filepath.Join(dir, ".policy.tmp")
		require.NoError(t, os.WriteFile(tmp, []byte(doc), 0o600))
		require.NoError(t, os.Rename(tmp, filepath.Join(dir, "policy.yaml")))
	}
	type state struct {
		namespaces map[string]*corev1.Namespace
		params     mutation.ParamSource
	}
	var current atomic.Pointer[state]
	publish := func(e int) {
		s := &state{namespaces: map[string]*corev1.Namespace{}}
		var params []k8sruntime.Object
		for ns := max(e-window+1, 0); ns <= e; ns++ {
			name := fmt.Sprintf("ns-%d", ns)
			s.namespaces[name] = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
			for p := max(e-window+1, 0); p <= e; p++ {
				params = append(params, &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("limits-%d", p), Namespace: name},
					Data:       map[string]string{"maxContainers": "2", "stamp": fmt.Sprintf("epoch-%d", p)}})
			}
		}
		s.params = mutation.NewParamObjects(nil, params...)
		current.Store(s)
	}
	publish(0)
	writeStatic(0)

	configMap := corev1.SchemeGroupVersion.WithKind("ConfigMap")
	ctx, cancel := context.WithCancel(context.Background())
	plugin, err := NewReloadingAdmissionPlugin(ctx, admission.ReloaderOptions{
		Dirs:         map[admissionmanifest.Plugin]string{admissionmanifest.ValidatingAdmissionPolicy: dir},
		PollInterval: 20 * time.Millisecond,
		API:          soakAPI(t, 0),
		Chain: admission.Options{
			Params: mutation.ParamSourceFunc(func(kind schema.GroupVersionKind) (mutation.Params, error) {
				if kind != configMap {
					return nil, mutation.ErrParamKindNotKnown
				}
				return current.Load().params.Params(kind)
			}),
			Namespaces: mutation.NamespaceLookupFunc(func(_ context.Context, name string) (*corev1.Namespace, error) {
				if ns, ok := current.Load().namespaces[name]; ok {
					return ns, nil
				}
				return nil, apierrors.NewNotFound(corev1.Resource("namespaces"), name)
			}),
		},
	})
	require.NoError(t, err)
	handler := kadmission.NewChainHandler(plugin)
	o := kadmission.NewObjectInterfacesFromScheme(scheme.Scheme)
	gvk := corev1.SchemeGroupVersion.WithKind("Pod")
	gvr := corev1.SchemeGroupVersion.WithResource("pods")
	alice := &user.DefaultInfo{Name: "alice"}
	admit := func(e, i int) error {
		ns := fmt.Sprintf("ns-%d", e)
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pod-%d-%d", e, i), Namespace: ns, Labels: map[string]string{"app": strconv.Itoa(i % 5)}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:" + strconv.Itoa(i%7)}}}}
		attrs := kadmission.NewAttributesRecord(pod, nil, gvk, ns, pod.Name, gvr, "", kadmission.Create, &metav1.CreateOptions{}, false, alice)
		if err := handler.Admit(context.Background(), attrs, o); err != nil {
			return err
		}
		if err := handler.Validate(context.Background(), attrs, o); err != nil {
			return err
		}
		if stamp := pod.Labels["stamp"]; stamp != fmt.Sprintf("epoch-%d", e) && stamp != fmt.Sprintf("epoch-%d", e-1) {
			return fmt.Errorf("stamp %q", stamp)
		}
		return nil
	}

	var heap []uint64
	sent := 0
	for e := 1; e <= epochs; e++ {
		publish(e)
		if e%staticEvery == 0 {
			writeStatic(e)
			plugin.Reloader.Check()
		}
		var wg sync.WaitGroup
		var next, failures atomic.Int64
		for range runtime.GOMAXPROCS(0) {
			wg.Go(func() {
				for {
					i := next.Add(1) - 1
					if i >= int64(perEpoch) {
						return
					}
					if err := admit(e, int(i)); err != nil && failures.Add(1) <= 3 {
						t.Errorf("epoch %d, request %d: %v", e, i, err)
					}
				}
			})
		}
		require.NoError(t, plugin.SetAPI(soakAPI(t, e)))
		wg.Wait()
		require.Zero(t, failures.Load(), "epoch %d", e)
		sent += perEpoch
		if e%(epochs/checkpoints) == 0 {
			heap = append(heap, soak.HeapInUse())
		}
	}
	cancel()

	elapsed := time.Since(started)
	t.Logf("%d requests in %d epochs, %v (%.1f µs a request)", sent, epochs, elapsed.Round(time.Millisecond), float64(elapsed.Microseconds())/float64(sent))
	var mib []string
	for _, h := range heap {
		mib = append(mib, fmt.Sprintf("%.2f", float64(h)/(1<<20)))
	}
	t.Logf("heap in use after GC at the checkpoints (MiB): %v", mib)
	bound := soak.HeapBound(heap[0])
	for i, h := range heap[len(heap)/2:] {
		assert.LessOrEqual(t, h, bound, "checkpoint %d: heap %d bytes, first %d", len(heap)/2+i+1, h, heap[0])
	}
	// The poller's goroutines end once they see ctx done.
	n := soak.SettledGoroutines(goroutinesBefore)
	t.Logf("goroutines: %d before, %d after", goroutinesBefore, n)
	assert.LessOrEqual(t, n, goroutinesBefore, "goroutines left running")
}

// soakAPI is epoch e's API configuration (soak.API), any epoch's stamp
// accepted: kube-apiserver's plugins each read their own policies.
func soakAPI(t *testing.T, e int) admission.Config {
	cfg, err := admission.Decode(soak.API(e, false))
	require.NoError(t, err)
	return *cfg
}
