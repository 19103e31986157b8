package conformance

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

var (
	applyPodGVK        = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	applyDeploymentGVK = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	applyServiceGVK    = schema.GroupVersionKind{Version: "v1", Kind: "Service"}
	applyConfigMapGVK  = schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	applyWidgetGVK     = schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
	applyGadgetGVK     = schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Gadget"}
)

// applyObjects are the objects of the corpus, per kind.
var applyObjects = map[schema.GroupVersionKind][]string{
	applyPodGVK: {
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ns","labels":{"app":"a"},"annotations":{"x":"y"}},
		  "spec":{"containers":[{"name":"app","image":"nginx","args":["-v"],"ports":[{"containerPort":80,"protocol":"TCP"}],
		    "env":[{"name":"A","value":"1"}],"resources":{"limits":{"cpu":"500m","memory":"1Gi"}}}],
		    "initContainers":[{"name":"init","image":"busybox"}],"nodeSelector":{"disk":"ssd"},
		    "tolerations":[{"key":"k","operator":"Exists"}],"volumes":[{"name":"v","emptyDir":{}}]}}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"q"},"spec":{"containers":[{"name":"a","image":"x"},{"name":"a","image":"y"}],"priority":0,"enableServiceLinks":false}}`,
	},
	applyDeploymentGVK: {
		`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","labels":{"app":"a"}},
		  "spec":{"replicas":2,"selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"app":"a"}},
		    "spec":{"containers":[{"name":"c","image":"i","command":["run"]}]}}}}`,
	},
	applyServiceGVK: {
		`{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},"spec":{"selector":{"app":"a"},
		  "ports":[{"name":"http","port":80,"protocol":"TCP","targetPort":8080},{"name":"dns","port":53,"protocol":"UDP","targetPort":"dns"}]}}`,
	},
	applyConfigMapGVK: {
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1","b":""}}`,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"e"}}`,
	},
	applyWidgetGVK: {
		`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},
		  "spec":{"ports":[{"port":80,"protocol":"TCP","name":"h"}],"tags":["a","b"],"selector":{"k":"v"},"size":3,
		    "extra":{"l":[1,2],"m":{"n":1.5}},"template":{"apiVersion":"v1","kind":"X","metadata":{"name":"t"},"free":{"a":[{"b":1}]}}}}`,
		`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"v"},"spec":{}}`,
	},
	applyGadgetGVK: {`{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g"}}`},
}

// applyConfigurations are the corpus's ApplyConfigurations, per kind, as
// JSON: merges, atomic rejections, type errors, duplicates.
var applyConfigurations = map[schema.GroupVersionKind][]string{
	applyPodGVK: {
		`{}`,
		`{"metadata":{"labels":{"b":"c"},"annotations":{"x":"z"}}}`,
		`{"apiVersion":"v2","kind":"Other","metadata":{"name":"renamed"}}`,
		`{"spec":{"initContainers":[{"name":"mesh-proxy","image":"mesh/proxy:v1.0.0","restartPolicy":"Always"}]}}`,
		`{"spec":{"initContainers":[{"name":"mesh-proxy","image":"mesh/proxy:v1.0.0","args":["proxy","sidecar"],"restartPolicy":"Always"}]}}`,
		`{"spec":{"containers":[{"name":"app","image":"nginx:2","env":[{"name":"B","value":"2"},{"name":"A","value":"3"}]}]}}`,
		`{"spec":{"containers":[{"name":"app","ports":[{"containerPort":80,"protocol":"UDP"},{"containerPort":80}]}]}}`,
		`{"spec":{"containers":[{"name":"a","image":"z"}]}}`,
		`{"spec":{"containers":[{"name":"d"},{"name":"d"}]}}`,
		`{"spec":{"containers":[{"name":"app","command":["sh"]}],"nodeSelector":{"a":"b"},"tolerations":[]}}`,
		`{"spec":{"nodeSelector":{}}}`,
		`{"spec":{"containers":[{"image":"noname"}]}}`,
		`{"spec":{"containers":["x"]}}`,
		`{"spec":{"priority":"high"}}`,
		`{"spec":{"priority":2.0}}`,
		`{"spec":{"priority":2.5}}`,
		`{"spec":{"bogus":1}}`,
		`{"spec":{"containers":[{"name":"app","resources":{"limits":{"cpu":"0.5","memory":"1024Mi"}}}]}}`,
		`{"spec":{"containers":[{"name":"app","resources":{"limits":{"cpu":"lots"}}}]}}`,
		`{"spec":{"containers":[{"name":"app","resources":{"limits":{"cpu":1}}}]}}`,
		`{"spec":{"activeDeadlineSeconds":0,"hostNetwork":false,"serviceAccountName":"","initContainers":[]}}`,
		`{"spec":{"volumes":[{"name":"v","configMap":{"name":"c"}}]}}`,
		`{"spec":{"volumes":[{"name":"w","emptyDir":{"sizeLimit":"1G"}}]}}`,
		`{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}`,
		`{"metadata":{"creationTimestamp":"2024-01-01T00:00:00Z","deletionGracePeriodSeconds":5}}`,
		`{"metadata":{"creationTimestamp":"yesterday"}}`,
		`{"metadata":{"ownerReferences":[{"apiVersion":"v1","kind":"X","name":"o","uid":"u"}]}}`,
		`{"metadata":{"finalizers":["f"]}}`,
		`{"spec":{"securityContext":{"runAsUser":1000,"sysctls":[{"name":"a","value":"b"}]}}}`,
		`{"spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[]}}}}}`,
		`{"spec":{"overhead":{"cpu":"1"}}}`,
		`{"spec":{"containers":[{"name":"app","livenessProbe":{"httpGet":{"port":"http"}}}]}}`,
		`{"spec":{"containers":[{"name":"app","livenessProbe":{"httpGet":{"port":8080}}}]}}`,
		`{"spec":{"containers":[{"name":"app","livenessProbe":{"httpGet":{"port":1.5}}}]}}`,
	},
	applyDeploymentGVK: {
		`{"spec":{"replicas":3}}`,
		`{"spec":{"replicas":"3"}}`,
		`{"spec":{"replicas":0}}`,
		`{"spec":{"replicasx":3}}`,
		`{"spec":{"selector":{"matchLabels":{"app":"b"}}}}`,
		`{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"j"}]}}}}`,
		`{"spec":{"template":{"spec":{"containers":[{"name":"c","command":["x"]}]}}}}`,
		`{"spec":{"template":{"metadata":{"labels":{"v":"2"}}},"strategy":{"type":"Recreate"}}}`,
		`{"spec":{"strategy":{"rollingUpdate":{"maxSurge":"25%","maxUnavailable":1}}}}`,
		`{"spec":{"paused":false,"minReadySeconds":0,"revisionHistoryLimit":0}}`,
		`{"spec":{"template":{"spec":{"initContainers":[]}}}}`,
		`{"spec":{"replicas":2147483648}}`,
	},
	applyServiceGVK: {
		`{"spec":{"ports":[{"port":443,"protocol":"TCP","targetPort":8443}]}}`,
		`{"spec":{"ports":[{"port":80,"protocol":"TCP","name":"web"}]}}`,
		`{"spec":{"ports":[{"port":80}]}}`,
		`{"spec":{"selector":{"app":"b"}}}`,
		`{"spec":{"type":"NodePort","externalIPs":["1.2.3.4"]}}`,
		`{"spec":{"ports":[{"port":53,"protocol":"UDP","targetPort":53}]}}`,
	},
	applyConfigMapGVK: {
		`{"data":{"c":"3","a":""}}`,
		`{"data":{}}`,
		`{"binaryData":{"b":"aGVsbG8="}}`,
		`{"binaryData":{"b":"not base64!"}}`,
		`{"data":{"a":1}}`,
		`{"immutable":false}`,
	},
	applyWidgetGVK: {
		`{"spec":{"ports":[{"port":81,"protocol":"UDP"}]}}`,
		`{"spec":{"ports":[{"port":80,"protocol":"TCP","name":"web"}]}}`,
		`{"spec":{"ports":[{"port":80}]}}`,
		`{"spec":{"tags":["c"]}}`,
		`{"spec":{"selector":{"a":"b"}}}`,
		`{"spec":{"size":"3"}}`,
		`{"spec":{"size":true}}`,
		`{"spec":{"extra":{"l":[3],"m":{"o":2},"p":"q"}}}`,
		`{"spec":{"template":{"free":{"a":[{"c":2}]},"metadata":{"labels":{"a":"b"}}}}}`,
		`{"spec":{"unknown":1}}`,
		`{"spec":{"ports":[{"port":80,"protocol":"TCP"},{"port":80,"protocol":"TCP"}]}}`,
		`{"status":{"x":1}}`,
	},
	applyGadgetGVK: {`{"spec":{}}`},
}

// jsonPatches are the corpus's JSON patches, per kind: every quirk of
// json-patch v4 and of the strict decoding back.
var jsonPatches = map[schema.GroupVersionKind][]string{
	applyPodGVK: {
		`[]`,
		`[{"op":"add","path":"/spec/initContainers/-","value":{"name":"mesh-proxy","image":"mesh-proxy/v1.0.0","restartPolicy":"Always"}}]`,
		`[{"op":"add","path":"/metadata/labels/b","value":"c"},{"op":"test","path":"/metadata/name","value":"nope"}]`,
		`[{"op":"test","path":"/metadata/name","value":"p"},{"op":"replace","path":"/metadata/name","value":"r"}]`,
		`[{"op":"foo","path":"/spec"}]`,
		`[{"op":"add","path":"","value":1}]`,
		`[{"op":"add","value":1}]`,
		`[{"op":"add","path":"/metadata/annotations/a","value":"b"}]`,
		`[{"op":"remove","path":"/metadata/annotations/x"}]`,
		`[{"op":"remove","path":"/metadata/labels/zz"}]`,
		`[{"op":"add","path":"/spec/containers/5","value":{"name":"z"}}]`,
		`[{"op":"add","path":"/spec/containers/1","value":{"name":"z","image":"i"}}]`,
		`[{"op":"add","path":"/spec/containers/-1","value":{"name":"z","image":"i"}}]`,
		`[{"op":"add","path":"/spec/containers/-2","value":{"name":"z","image":"i"}}]`,
		`[{"op":"add","path":"/spec/containers/-9","value":{"name":"z","image":"i"}}]`,
		`[{"op":"add","path":"/spec/containers/00","value":{"name":"z","image":"i"}}]`,
		`[{"op":"replace","path":"/spec/containers/-","value":{"name":"z"}}]`,
		`[{"op":"replace","path":"/spec/containers/0/image","value":"new"}]`,
		`[{"op":"replace","path":"/spec/containers/0/nope","value":"new"}]`,
		`[{"op":"replace","path":"/spec/containers/-1/image","value":"last"}]`,
		`[{"op":"move","path":"/metadata/labels/moved"}]`,
		`[{"op":"move","from":"/metadata/labels","path":"/metadata/annotations"}]`,
		`[{"op":"copy","from":"/metadata/labels","path":"/metadata/annotations"}]`,
		`[{"op":"copy","from":"/metadata/nope","path":"/metadata/annotations"}]`,
		`[{"op":"copy","from":"/spec/containers/0","path":"/spec/containers/-"}]`,
		`[{"op":"add","path":"spec/replicas","value":1}]`,
		`[{"op":"add","path":"metadata/name","value":"x"}]`,
		`[{"op":"add","from":"/metadata/name","path":"/metadata/labels/a","value":"v"}]`,
		`[{"op":"add","path":"/spec/bogus","value":1}]`,
		`[{"op":"add","path":"/spec/priority","value":"high"}]`,
		`[{"op":"add","path":"/spec/priority","value":2.5}]`,
		`[{"op":"add","path":"/spec/priority","value":2.0}]`,
		`[{"op":"add","path":"/spec/nodeName","value":null}]`,
		`[{"op":"add","path":"/spec/containers/0/resources/limits/cpu","value":"0.5"}]`,
		`[{"op":"add","path":"/spec/containers/0/resources/limits/cpu","value":"lots"}]`,
		`[{"op":"add","path":"/spec/initContainers","value":[]}]`,
		`[{"op":"remove","path":"/spec/containers"}]`,
		`[{"op":"remove","path":"/metadata"}]`,
		`[{"op":"replace","path":"/kind","value":"Service"}]`,
		`[{"op":"replace","path":"/kind","value":"Nope"}]`,
		`[{"op":"replace","path":"/apiVersion","value":"v2"}]`,
		`[{"op":"remove","path":"/kind"}]`,
		`[{"op":"add","path":"/metadata/labels/a~1b","value":"slash"},{"op":"add","path":"/metadata/labels/t~0","value":"tilde"}]`,
		`[{"op":"test","path":"/spec/containers/0/name","value":"app"},{"op":"add","path":"/spec/containers/0/env/-","value":{"name":"Z","value":"z"}}]`,
		`[{"op":"test","path":"/spec/nope","value":null}]`,
		`[{"op":"add","path":"/status","value":{"phase":"Running","bogus":1}}]`,
		`[{"op":"add","path":"/metadata/creationTimestamp","value":"2024-01-01T00:00:00.5Z"}]`,
		`[{"op":"add","path":"/metadata/labels","value":{"a":"b","a":"c"}}]`,
		`[{"op":"add","path":"/spec/containers/0/ports/0/containerPort","value":1e2}]`,
		`[{"op":"replace","path":""}]`,
		`[{"op":"replace","path":"/metadata/nope","value":1}]`,
		`[{"op":"replace","path":"/metadata/labels/new","value":"v"}]`,
		`[{"op":"copy","from":"/metadata/nope","path":"/metadata/annotations"}]`,
		`[{"op":"copy","from":"/metadata/nope","path":"/spec/nodeName"}]`,
		`[{"op":"move","from":"/metadata/nope","path":"/spec/nodeName"}]`,
		`[{"op":"move","from":"/metadata/labels","path":"/metadata/labels/x"}]`,
		`[{"op":"add","path":"/spec/containers/0/env/-2","value":{"name":"N"}}]`,
		`[{"op":"remove","path":"/spec/containers/-1"}]`,
		`[{"op":"test","path":"/spec/containers/-1/name","value":"app"},{"op":"add","path":"/metadata/labels/t","value":"ok"}]`,
		`[{"op":"test","path":"/metadata/labels","value":{"app":"a"}},{"op":"add","path":"/metadata/labels/t","value":"ok"}]`,
		`[{"op":"add","path":"/metadata/labels/~2","value":"x"}]`,
		`[{"op":"copy","from":"","path":"/metadata/labels/x"}]`,
		`[{"op":"add","path":"/","value":1}]`,
		`[{"op":"replace","path":"","value":null},{"op":"add","path":"/a","value":1}]`,
		`[{"op":"replace","path":"","value":null}]`,
		`[{"op":"replace","path":"","value":[1]}]`,
		`[{"op":"replace","path":"","value":"s"}]`,
		`[{"op":"replace","path":"","value":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"new"}}}]`,
	},
	applyDeploymentGVK: {
		`[{"op":"replace","path":"/spec/replicas","value":5}]`,
		`[{"op":"replace","path":"/spec/replicas","value":"x"}]`,
		`[{"op":"add","path":"/spec/bogus","value":1}]`,
		`[{"op":"remove","path":"/spec/replicas"}]`,
		`[{"op":"replace","path":"/spec/selector","value":{"matchLabels":{"b":"c"}}}]`,
		`[{"op":"add","path":"/spec/template/spec/containers/0/args","value":["a"]}]`,
		`[{"op":"add","path":"/spec/strategy","value":{"rollingUpdate":{"maxSurge":"1"}}}]`,
		`[{"op":"add","path":"/spec/replicas","value":2147483648}]`,
	},
	applyServiceGVK: {
		`[{"op":"add","path":"/spec/ports/-","value":{"port":443,"targetPort":"https"}}]`,
		`[{"op":"add","path":"/spec/ports/0/targetPort","value":true}]`,
		`[{"op":"remove","path":"/spec/selector/app"}]`,
	},
	applyConfigMapGVK: {
		`[{"op":"add","path":"/data/c","value":"3"}]`,
		`[{"op":"add","path":"/data","value":{}}]`,
		`[{"op":"add","path":"/binaryData","value":{"b":"aGVsbG8="}}]`,
		`[{"op":"add","path":"/binaryData","value":{"b":"!!"}}]`,
		`[{"op":"add","path":"/data/n","value":1}]`,
	},
	applyWidgetGVK: {
		`[{"op":"add","path":"/spec/bogus","value":1.5}]`,
		`[{"op":"add","path":"/spec/size","value":"big"}]`,
		`[{"op":"remove","path":"/spec/tags/0"}]`,
		`[{"op":"remove","path":"/kind"}]`,
		`[{"op":"remove","path":"/apiVersion"}]`,
		`[{"op":"replace","path":"/spec","value":[1]}]`,
		`[{"op":"add","path":"/spec/n","value":12345678901234567890}]`,
		`[{"op":"add","path":"/spec/f","value":1.0}]`,
		`[{"op":"copy","from":"/spec","path":"/status"},{"op":"copy","from":"/status","path":"/spec/s"}]`,
	},
	applyGadgetGVK: {`[{"op":"test","path":"/kind","value":"Gadget"}]`},
}

// copyBomb is a JSON patch whose copy operations double a value again and
// again: kube-apiserver stops it at 3 MiB of copies.
func copyBomb(from string, n int) string {
	var b strings.Builder
	b.WriteString(`[{"op":"add","path":"` + from + `","value":{"s":"` + strings.Repeat("x", 100) + `","n":[1,2.50,"<&>"]}}`)
	for i := range n {
		fmt.Fprintf(&b, `,{"op":"copy","from":"%s","path":"%s/c%d"}`, from, from, i)
	}
	b.WriteString("]")
	return b.String()
}

func init() {
	jsonPatches[applyWidgetGVK] = append(jsonPatches[applyWidgetGVK], copyBomb("/spec/extra/bomb", 20), copyBomb("/spec/extra/bomb", 13))
	jsonPatches[applyPodGVK] = append(jsonPatches[applyPodGVK], copyBomb("/metadata/annotations", 20), copyBomb("/spec/overhead", 1))
}

// applyCorpus is every patch of a kind applied to every object of the kind.
func applyCorpus(t testing.TB, w *applyWorld) []applyCase {
	t.Helper()
	var cases []applyCase
	for gvk, objects := range applyObjects {
		for i, o := range objects {
			var obj map[string]any
			require.NoError(t, utiljson.Unmarshal([]byte(o), &obj), o)
			if gvk != applyGadgetGVK {
				obj = w.normalize(t, gvk, obj)
			}
			for j, ac := range applyConfigurations[gvk] {
				var p map[string]any
				require.NoError(t, utiljson.Unmarshal([]byte(ac), &p), ac)
				cases = append(cases, applyCase{name: fmt.Sprintf("%s/object%d/ac%d", gvk.Kind, i, j), gvk: gvk, object: obj, ac: p})
			}
			for j, jp := range jsonPatches[gvk] {
				cases = append(cases, applyCase{name: fmt.Sprintf("%s/object%d/jp%d", gvk.Kind, i, j), gvk: gvk, object: obj, jp: []byte(jp)})
			}
		}
	}
	return cases
}

// TestMutationApplyCorpusMatchesKube applies the corpus with kube-apiserver's
// patchers and with gatehouse's: the objects and errors must be the same.
func TestMutationApplyCorpusMatchesKube(t *testing.T) {
	w := newApplyWorld(t, "../mutation/testdata/widget-crd.yaml")
	cases := applyCorpus(t, w)
	compareApply(t, w, cases, true)
}

// compareApply compares both sides on every case, logging each outcome when
// verbose.
func compareApply(t *testing.T, w *applyWorld, cases []applyCase, verbose bool) {
	t.Helper()
	errs, diffs, varying := 0, 0, 0
	for _, c := range cases {
		kube, ours := w.kube(c), w.gatehouse(c)
		if kube.err != "" {
			errs++
		}
		if verbose {
			t.Logf("%s: %s", c.name, kube)
		}
		if sameApplyOutcome(kube, ours) {
			continue
		}
		// structured-merge-diff walks maps in Go's random order and,
		// for an invalid object, reports the errors it meets on the
		// way, so kube-apiserver's own error varies from run to run:
		// gatehouse's must be one of kube-apiserver's.
		if slices.ContainsFunc(make([]int, 50), func(int) bool { return sameApplyOutcome(w.kube(c), ours) }) {
			varying++
			continue
		}
		diffs++
		t.Errorf("%s: differs\n kube:      %s\n gatehouse: %s", c.name, kube, ours)
	}
	t.Logf("%d cases (%d errors), %d differences; %d where kube-apiserver's own error varies between runs", len(cases), errs, diffs, varying)
}
