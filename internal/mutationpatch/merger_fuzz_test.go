package mutationpatch_test

import (
	"testing"

	kjson "k8s.io/apimachinery/pkg/util/json"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"

	"github.com/gatehouse-dev/gatehouse/internal/mutationpatch"
)

// FuzzMergerMatchesSMD merges ApplyConfigurations into objects of real
// schemas (Pod, Deployment, Service, ConfigMap, two CRDs) with the Merger
// first and with structured-merge-diff alone: the outcomes must be
// reflect.DeepEqual (or the same error). The object and the patch are JSON
// (seeds from the sidecar benchmark and the published policies) or, when
// their gen bytes are not empty, generated from those bytes and the
// schema, with small pools of names and values so that list keys collide.
func FuzzMergerMatchesSMD(f *testing.F) {
	for _, s := range mergeSeeds {
		f.Add(s.kind, s.object, s.patch, []byte(nil), []byte(nil))
	}
	for kind := range uint8(len(mergeKinds)) {
		f.Add(kind, "", "", []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, []byte{12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1})
		f.Add(kind, mergeSeeds[0].object, "", []byte(nil), []byte{3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3})
	}
	schemas := mergeSchemas(f)
	f.Fuzz(func(t *testing.T, kind uint8, object, patch string, objGen, patchGen []byte) {
		gvk := mergeKinds[int(kind)%len(mergeKinds)]
		s, err := schemas.Lookup(gvk)
		if err != nil {
			t.Fatal(err)
		}
		sch, tr := mutationpatch.MergerOf(s).Schema()
		obj, ok := fuzzValue(sch, tr, object, objGen)
		if !ok {
			return
		}
		p, ok := fuzzValue(sch, tr, patch, patchGen)
		if !ok {
			return
		}
		checkMerge(t, s, withGVK(p, gvk), withGVK(obj, gvk))
	})
}

// fuzzValue is the JSON object doc, or a value generated from gen if gen
// is not empty.
func fuzzValue(s *smdschema.Schema, tr smdschema.TypeRef, doc string, gen []byte) (map[string]any, bool) {
	if len(gen) > 0 {
		g := &generator{s: s, b: gen}
		m, ok := g.value(tr, 0).(map[string]any)
		return m, ok
	}
	var m map[string]any
	if err := kjson.Unmarshal([]byte(doc), &m); err != nil || m == nil {
		return nil, false
	}
	return m, true
}

// generator makes values of a schema's types from bytes.
type generator struct {
	s *smdschema.Schema
	b []byte
	i int
}

func (g *generator) next() byte {
	if g.i >= len(g.b) {
		return 0
	}
	c := g.b[g.i]
	g.i++
	return c
}

var (
	genStrings = []any{"a", "b", "c", "", "TCP", "UDP", "app", "mesh-proxy"}
	genNumbers = []any{int64(0), int64(1), int64(80), int64(443), float64(1.5), float64(80)}
	genKeys    = []string{"a", "b", "c"}
)

// value generates a value of type tr: mostly of the type, sometimes null,
// rarely of a wrong kind or with an undeclared field.
func (g *generator) value(tr smdschema.TypeRef, depth int) any {
	a, ok := g.s.Resolve(tr)
	if !ok {
		return "unresolved"
	}
	c := g.next()
	switch {
	case c == 255:
		return g.anyScalar()
	case c%31 == 30:
		return nil
	}
	var kinds []byte
	if a.Scalar != nil {
		kinds = append(kinds, 's')
	}
	if a.Map != nil {
		kinds = append(kinds, 'm')
	}
	if a.List != nil {
		kinds = append(kinds, 'l')
	}
	if len(kinds) == 0 {
		return nil
	}
	switch kinds[int(c)%len(kinds)] {
	case 's':
		return g.scalar(*a.Scalar)
	case 'm':
		return g.mapOf(a.Map, depth)
	}
	return g.listOf(a.List, depth)
}

func (g *generator) anyScalar() any {
	switch g.next() % 3 {
	case 0:
		return genStrings[int(g.next())%len(genStrings)]
	case 1:
		return genNumbers[int(g.next())%len(genNumbers)]
	}
	return g.next()%2 == 0
}

func (g *generator) scalar(t smdschema.Scalar) any {
	switch t {
	case smdschema.String:
		return genStrings[int(g.next())%len(genStrings)]
	case smdschema.Numeric:
		return genNumbers[int(g.next())%len(genNumbers)]
	case smdschema.Boolean:
		return g.next()%2 == 0
	}
	return g.anyScalar()
}

func (g *generator) mapOf(m *smdschema.Map, depth int) map[string]any {
	out := map[string]any{}
	if depth > 8 {
		return out
	}
	n := int(g.next() % 5)
	for range n {
		c := g.next()
		switch {
		case c == 254:
			out["undeclared"] = int64(1)
		case len(m.Fields) > 0 && (c%8 != 7 || m.ElementType == (smdschema.TypeRef{})):
			f := m.Fields[int(g.next())%len(m.Fields)]
			out[f.Name] = g.value(f.Type, depth+1)
		case m.ElementType != (smdschema.TypeRef{}):
			out[genKeys[int(g.next())%len(genKeys)]] = g.value(m.ElementType, depth+1)
		}
	}
	return out
}

func (g *generator) listOf(l *smdschema.List, depth int) []any {
	out := []any{}
	if depth > 8 {
		return out
	}
	n := int(g.next() % 4)
	for range n {
		item := g.value(l.ElementType, depth+1)
		if m, ok := item.(map[string]any); ok && len(l.Keys) > 0 {
			// Key fields from small pools, mostly present.
			for _, k := range l.Keys {
				c := g.next()
				switch {
				case c%8 == 0:
					delete(m, k)
				case c%8 == 1:
				default:
					m[k] = g.keyValue(l, k)
				}
			}
		}
		out = append(out, item)
	}
	return out
}

// keyValue is a value of key field k of the items of l.
func (g *generator) keyValue(l *smdschema.List, k string) any {
	if a, ok := g.s.Resolve(l.ElementType); ok && a.Map != nil {
		if f, ok := a.Map.FindField(k); ok {
			if fa, ok := g.s.Resolve(f.Type); ok && fa.Scalar != nil {
				switch *fa.Scalar {
				case smdschema.Numeric:
					return []any{int64(80), int64(443), int64(53)}[g.next()%3]
				case smdschema.String:
					return []any{"a", "b", "TCP", "UDP"}[g.next()%4]
				}
			}
		}
	}
	return g.anyScalar()
}

// mergeSeeds are realistic objects and ApplyConfigurations: the sidecar of
// the conformance benchmark, and what the published policies under
// realworld/mutating-admission-policy apply (labels, a sidecar with args, a
// pod security context, replicas).
var mergeSeeds = []struct {
	kind          uint8
	object, patch string
}{
	{0, benchPod, `{"spec":{"initContainers":[{"name":"mesh-proxy","image":"mesh/proxy:v1.0.0","restartPolicy":"Always"}]}}`},
	{0, benchPod, `{"spec":{"initContainers":[{"name":"mesh-proxy","image":"mesh/proxy:v1.0.0","args":["proxy","sidecar"],"restartPolicy":"Always"}]}}`},
	{0, benchPod, `{"metadata":{"labels":{"pod-security.kubernetes.io/enforce":"baseline"}}}`},
	{0, benchPod, `{"spec":{"securityContext":{"runAsNonRoot":true,"runAsUser":1000,"runAsGroup":3000,"fsGroup":2000}}}`},
	{0, benchPod, `{"spec":{"containers":[{"name":"app","ports":[{"containerPort":8080,"name":"http"}],"env":[{"name":"B","value":"2"},{"name":"A","value":"0"}]}]}}`},
	{0, benchPod, `{"spec":{"containers":[{"name":"app","resources":{"claims":[{"name":"gpu"}]}}],"resourceClaims":[{"name":"gpu","resourceClaimName":"gpu-claim"}]}}`},
	{1, `{"metadata":{"name":"web","labels":{"app":"web"}},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"app","image":"app:1"}]}}}}`,
		`{"spec":{"replicas":3},"metadata":{"labels":{"lfx-mentorship":"kyverno"}}}`},
	{1, `{"metadata":{"name":"web"},"spec":{"template":{"spec":{"containers":[{"name":"app","image":"app:1"}]}}}}`,
		`{"spec":{"template":{"spec":{"initContainers":[{"name":"mesh-proxy","image":"mesh/proxy:v1.0.0","restartPolicy":"Always"}]}}}}`},
	{2, `{"metadata":{"name":"svc"},"spec":{"ports":[{"port":80,"targetPort":8080},{"port":53,"protocol":"UDP"}],"selector":{"app":"web"}}}`,
		`{"spec":{"ports":[{"port":80,"protocol":"TCP","name":"http"},{"port":443,"targetPort":"https"}]}}`},
	{3, `{"metadata":{"name":"cm"},"data":{"a":"1"}}`, `{"metadata":{"labels":{"lfx-mentorship":"kyverno"}},"data":{"b":"2"}}`},
	{4, `{"metadata":{"name":"g"},"spec":{"ports":[{"port":80}],"tags":["a"],"items":[{"name":"a","tags":["x"]}],"extra":{"a":{"b":1}}}}`,
		`{"spec":{"ports":[{"port":80,"name":"http"}],"tags":["b"],"items":[{"name":"b"},{"name":"a","value":"v"}],"extra":{"a":{"c":2}}}}`},
	{5, `{"metadata":{"name":"w"},"spec":{"ports":[{"port":80}],"size":3,"template":{"metadata":{"name":"x"}}}}`,
		`{"spec":{"size":"50%","template":{"spec":{"a":1}}}}`},
}

// benchPod is the Pod of the conformance sidecar benchmark.
const benchPod = `{"metadata":{"name":"web","namespace":"default","labels":{"app":"web","tier":"frontend"},"annotations":{"note":"x"}},
"spec":{"containers":[{"name":"app","image":"nginx:1.27","ports":[{"containerPort":80,"protocol":"TCP"}],"env":[{"name":"A","value":"1"}],"resources":{"limits":{"cpu":"500m","memory":"128Mi"}}}],
"initContainers":[{"name":"init","image":"busybox","command":["sh","-c","true"]}],"volumes":[{"name":"data","emptyDir":{}}]}}`
