package typednormal

import (
	"math"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

var (
	podKind        = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	serviceKind    = schema.GroupVersionKind{Version: "v1", Kind: "Service"}
	secretKind     = schema.GroupVersionKind{Version: "v1", Kind: "Secret"}
	configMapKind  = schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	deploymentKind = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	revisionKind   = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ControllerRevision"}
	leaseKind      = schema.GroupVersionKind{Group: "coordination.k8s.io", Version: "v1", Kind: "Lease"}
	eventKind      = schema.GroupVersionKind{Group: "events.k8s.io", Version: "v1", Kind: "Event"}
	cronJobKind    = schema.GroupVersionKind{Group: "batch", Version: "v1", Kind: "CronJob"}
	fcKind         = schema.GroupVersionKind{Group: "flowcontrol.apiserver.k8s.io", Version: "v1", Kind: "FlowSchema"}
	hpaKind        = schema.GroupVersionKind{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"}
)

func decode(t *testing.T, doc string) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, utiljson.Unmarshal([]byte(doc), &m))
	return m
}

// TestNormalizeEdges checks each special type and edge of the conversion
// against the exact round trip, and that the fast path handles what it
// should (and declines the rest).
func TestNormalizeEdges(t *testing.T) {
	pod := func(spec string) string {
		return `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":` + spec + `}`
	}
	container := func(c string) string { return pod(`{"containers":[` + c + `]}`) }
	tests := []struct {
		name    string
		gvk     schema.GroupVersionKind
		doc     string
		obj     map[string]any // instead of doc
		handled bool
	}{
		{"empty object", podKind, `{}`, nil, true},
		{"nil object", podKind, ``, nil, true},
		{"wrong apiVersion and kind are replaced", podKind, `{"apiVersion":"x/v9","kind":"Widget"}`, nil, true},
		{"kind of the wrong type fails", podKind, `{"kind":3}`, nil, false},
		{"unknown fields dropped", podKind, `{"spec":{"nope":1,"containers":[{"name":"a","bogus":{}}]},"extra":true}`, nil, true},
		{"null fields are zero", podKind, pod(`{"containers":null,"nodeName":null,"hostNetwork":null,"priority":null}`), nil, true},
		{"empty list and map kept where not omitempty", podKind, pod(`{"containers":[]}`), nil, true},
		{"empty omitempty list and map dropped", podKind, `{"metadata":{"labels":{},"finalizers":[],"name":""},"spec":{"volumes":[],"nodeSelector":{}}}`, nil, true},
		{"null in a list is the zero element", podKind, pod(`{"containers":[null]}`), nil, true},
		{"null in a map of strings is empty", podKind, `{"metadata":{"labels":{"a":null}}}`, nil, true},
		{"embedded struct fields", podKind, container(`{"name":"a","securityContext":{"capabilities":{"add":["NET_ADMIN"]}}}`), nil, true},
		{"quantities canonical", podKind, container(`{"name":"a","resources":{"limits":{"memory":"1.5Gi","cpu":"100m"},"requests":{"cpu":"1e3","memory":" 2048Mi","ephemeral-storage":"0.5"}}}`), nil, true},
		{"quantity from int", podKind, container(`{"name":"a","resources":{"limits":{"cpu":2}}}`), nil, true},
		{"quantity from float", podKind, container(`{"name":"a","resources":{"limits":{"cpu":0.25}}}`), nil, true},
		{"quantity null in a map", podKind, container(`{"name":"a","resources":{"limits":{"cpu":null}}}`), nil, true},
		{"bad quantity fails", podKind, container(`{"name":"a","resources":{"limits":{"cpu":"lots"}}}`), nil, false},
		{"quantity with a tab is escaped in JSON", podKind, container(`{"name":"a","resources":{"limits":{"cpu":"\t1"}}}`), nil, false},
		{"quantity from bool fails", podKind, container(`{"name":"a","resources":{"limits":{"cpu":true}}}`), nil, false},
		{"times", podKind, `{"metadata":{"creationTimestamp":"2024-01-02T03:04:05+02:00","deletionTimestamp":"2024-01-02T03:04:05Z"}}`, nil, true},
		{"zero time omitted by omitzero", podKind, `{"metadata":{"creationTimestamp":"0001-01-01T00:00:00Z"}}`, nil, true},
		{"null time", podKind, `{"metadata":{"creationTimestamp":null,"deletionTimestamp":null}}`, nil, true},
		{"bad time fails", podKind, `{"metadata":{"creationTimestamp":"yesterday"}}`, nil, false},
		{"time from a number fails", podKind, `{"metadata":{"creationTimestamp":1}}`, nil, false},
		{"micro times", leaseKind, `{"spec":{"acquireTime":"2024-01-02T03:04:05.123456Z","renewTime":"2024-01-02T03:04:05.123456+01:00","leaseDurationSeconds":15}}`, nil, true},
		{"event micro time", eventKind, `{"eventTime":"2024-01-02T03:04:05.000001Z","series":{"count":2,"lastObservedTime":"2024-01-02T03:04:05.000001Z"}}`, nil, true},
		{"durations", fcKind, `{"spec":{"priorityLevelConfiguration":{"name":"x"}}}`, nil, true},
		{"int-or-string", deploymentKind, `{"spec":{"strategy":{"rollingUpdate":{"maxSurge":"25%","maxUnavailable":1}}}}`, nil, true},
		{"int-or-string from a whole float", deploymentKind, `{"spec":{"strategy":{"rollingUpdate":{"maxUnavailable":2.0}}}}`, nil, true},
		{"int-or-string from a fraction fails", deploymentKind, `{"spec":{"strategy":{"rollingUpdate":{"maxUnavailable":2.5}}}}`, nil, false},
		{"int-or-string beyond int32 fails", deploymentKind, `{"spec":{"strategy":{"rollingUpdate":{"maxUnavailable":4294967296}}}}`, nil, false},
		{"service target port", serviceKind, `{"spec":{"ports":[{"port":80,"targetPort":"http"},{"port":443,"targetPort":8443}]}}`, nil, true},
		{"big int in int32 fails", deploymentKind, `{"spec":{"replicas":4294967297}}`, nil, false},
		{"whole float in int32", deploymentKind, `{"spec":{"replicas":3.0}}`, nil, true},
		{"fraction in int32 fails", deploymentKind, `{"spec":{"replicas":3.5}}`, nil, false},
		{"big int64", podKind, `{"spec":{"activeDeadlineSeconds":9223372036854775807}}`, nil, true},
		{"string in an int fails", deploymentKind, `{"spec":{"replicas":"3"}}`, nil, false},
		{"int in a string fails", podKind, `{"spec":{"nodeName":3}}`, nil, false},
		{"map where a list is fails", podKind, pod(`{"containers":{}}`), nil, false},
		{"bool", podKind, pod(`{"hostNetwork":true,"hostPID":false}`), nil, true},
		{"bytes", secretKind, `{"data":{"a":"aGVsbG8=","b":"","c":null},"stringData":{"x":"y"},"immutable":true}`, nil, true},
		{"bytes not base64 fail", secretKind, `{"data":{"a":"not base64!"}}`, nil, false},
		{"bytes with a newline", secretKind, `{"data":{"a":"aGVs\nbG8="}}`, nil, true},
		{"binary data", configMapKind, `{"binaryData":{"a":"AAEC"},"data":{"b":"c"}}`, nil, true},
		{"raw extension", revisionKind, `{"data":{"spec":{"x":[1,2.5,3.0,"s",null,true,{}],"n":1e300}},"revision":3}`, nil, true},
		{"raw extension big whole floats", revisionKind, ``, map[string]any{"data": []any{float64(1 << 60), -float64(1 << 63), float64(1 << 63), 1e20, 1e21, float64(1<<53) + 2}}, true},
		{"raw extension scalar", revisionKind, `{"data":"text","revision":1}`, nil, true},
		{"managed fields", podKind, `{"metadata":{"managedFields":[{"manager":"kubectl","operation":"Apply","time":"2024-01-02T03:04:05Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:app":{}}}}}]}}`, nil, true},
		{"cron job", cronJobKind, `{"spec":{"schedule":"* * * * *","jobTemplate":{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"busybox"}],"restartPolicy":"OnFailure"}}}},"suspend":false}}`, nil, true},
		{"hpa quantities", hpaKind, `{"spec":{"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"AverageValue","averageValue":"500m"}}}]}}`, nil, true},
		{"int is not unstructured", podKind, ``, map[string]any{"spec": map[string]any{"priority": 3}}, false},
		{"NaN in an int fails", podKind, ``, map[string]any{"spec": map[string]any{"priority": math.NaN()}}, false},
		{"infinity in an int64 fails", podKind, ``, map[string]any{"spec": map[string]any{"activeDeadlineSeconds": math.Inf(1)}}, false},
		{"2^63 in an int64 fails", podKind, ``, map[string]any{"spec": map[string]any{"activeDeadlineSeconds": float64(1 << 63)}}, false},
		{"-2^63 in an int64", podKind, ``, map[string]any{"spec": map[string]any{"activeDeadlineSeconds": -float64(1 << 63)}}, true},
		{"typed nil list", podKind, ``, map[string]any{"spec": map[string]any{"containers": []any(nil)}}, true},
		{"typed nil map", podKind, ``, map[string]any{"metadata": map[string]any(nil), "spec": map[string]any{"nodeSelector": map[string]any(nil)}}, true},
	}
	w := newWorld(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := tt.obj
			if tt.doc != "" {
				obj = decode(t, tt.doc)
			}
			assert.Equal(t, tt.handled, w.agree(t, tt.gvk, obj), "handled")
			w.agreeDecoded(t, tt.gvk, obj)
		})
	}
}

// TestNormalizeUnknownKind: a kind the scheme does not know is not handled.
func TestNormalizeUnknownKind(t *testing.T) {
	w := newWorld(t)
	_, ok := w.norm.Normalize(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}, map[string]any{})
	assert.False(t, ok)
}

// TestNormalizeEveryKind builds the plan of every kind of the scheme and
// normalizes its empty object, the output of which is all zero values.
func TestNormalizeEveryKind(t *testing.T) {
	w := newWorld(t)
	handled := 0
	for _, gvk := range w.kinds {
		if w.agree(t, gvk, map[string]any{}) {
			handled++
		}
	}
	t.Logf("%d of %d kinds handled", handled, len(w.kinds))
	assert.Equal(t, len(w.kinds), handled, "every kind's empty object is handled")
}

// TestNormalizeConcurrent builds plans from several goroutines at once
// (run with -race).
func TestNormalizeConcurrent(t *testing.T) {
	w := newWorld(t)
	n := New(w.scheme)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for _, gvk := range w.kinds[i%4:] {
				n.Normalize(gvk, map[string]any{"metadata": map[string]any{"name": "x"}})
			}
		})
	}
	wg.Wait()
	out, ok := n.Normalize(podKind, map[string]any{"metadata": map[string]any{"name": "x"}})
	require.True(t, ok)
	assert.Equal(t, "Pod", out["kind"])
}

// BenchmarkNormalize compares the plan with the exact round trip on the
// realistic objects of testdata (a Pod with its status and managed fields,
// a Deployment, a Service), and NormalizeDecoded with the decoding of the
// Pod's JSON.
func BenchmarkNormalize(b *testing.B) {
	w := newWorld(b)
	objects := map[string]corpusObject{}
	for _, o := range seedObjects(b, w) {
		if _, seen := objects[o.gvk.Kind]; !seen && o.file == "testdata/objects.yaml" {
			objects[o.gvk.Kind] = o
		}
	}
	for _, kind := range []string{"Pod", "Deployment", "Service"} {
		o := objects[kind]
		b.Run("kind="+kind+"/impl=exact", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := w.exact(o.gvk, o.obj); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("kind="+kind+"/impl=plan", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := w.norm.Normalize(o.gvk, o.obj); !ok {
					b.Fatal("not handled")
				}
			}
		})
	}
	// The decoding of a patched object's JSON, admissionwebhook's.
	pod := objects["Pod"]
	b.Run("kind=Pod/decoded/impl=exact", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := w.exactDecoded(pod.gvk, pod.obj); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("kind=Pod/decoded/impl=plan", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := w.norm.NormalizeDecoded(pod.gvk, pod.obj); !ok {
				b.Fatal("not handled")
			}
		}
	})
}
