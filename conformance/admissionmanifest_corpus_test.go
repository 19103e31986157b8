package conformance

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"
)

// This file generates manifests directories for the differential tests of
// package admissionmanifest: files of every extension, empty files,
// subdirectories, several documents per file, JSON, v1 Lists (nested,
// with bad items), typed lists, objects of every admission kind and
// version, other kinds, strict-decoding faults, YAML faults, the loader's
// name, client config, paramKind, paramRef and binding-reference rules, and
// selectors that do not parse.

type manifestDir map[string]string // file name (may contain "/") -> content

func (d manifestDir) write(dir string) error {
	for name, content := range d {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

type manifestGen struct{ r *rand.Rand }

func (g manifestGen) pick(items ...string) string { return items[g.r.Intn(len(items))] }
func (g manifestGen) chance(p float64) bool       { return g.r.Float64() < p }

var objectNames = []string{"a.static.k8s.io", "b.static.k8s.io", "c.static.k8s.io", "d.static.k8s.io", "plain-name", "static.k8s.io.suffix-first", "e.static.k8s.io"}

func (g manifestGen) name() string {
	if g.chance(0.85) {
		return objectNames[g.r.Intn(4)]
	}
	return g.pick(objectNames...)
}

func (g manifestGen) selector() any {
	switch g.r.Intn(8) {
	case 0:
		return map[string]any{"matchLabels": map[string]any{"team": "a"}}
	case 1:
		return map[string]any{"matchExpressions": []any{map[string]any{"key": "env", "operator": "In", "values": []any{"prod", "dev"}}}}
	case 2:
		return map[string]any{"matchExpressions": []any{map[string]any{"key": "env", "operator": "Bogus", "values": []any{"x"}}}}
	case 3:
		return map[string]any{"matchLabels": map[string]any{"bad key!": "x"}}
	case 4:
		return map[string]any{"matchExpressions": []any{map[string]any{"key": "env", "operator": "Exists", "values": []any{"x"}}}}
	case 5:
		return map[string]any{}
	}
	return nil
}

func (g manifestGen) webhook(mutating bool) map[string]any {
	w := map[string]any{
		"name":                    g.pick("a.example.com", "b.example.com", "a.example.com", "c.example.com"),
		"sideEffects":             "None",
		"admissionReviewVersions": []any{"v1"},
		"rules": []any{map[string]any{
			"operations": []any{"CREATE", "UPDATE"}, "apiGroups": []any{""}, "apiVersions": []any{"v1"}, "resources": []any{g.pick("pods", "configmaps", "*")},
		}},
	}
	switch g.r.Intn(10) {
	case 0:
		w["clientConfig"] = map[string]any{"service": map[string]any{"name": "svc", "namespace": "ns"}}
	case 1:
		w["clientConfig"] = map[string]any{"url": ""}
	case 2:
		w["clientConfig"] = map[string]any{}
	case 3:
		w["clientConfig"] = map[string]any{"url": "https://hook.example.com/x", "service": map[string]any{"name": "svc", "namespace": "ns"}}
	default:
		w["clientConfig"] = map[string]any{"url": "https://hook.example.com/" + g.pick("a", "b", "c"), "caBundle": "Y2E="}
	}
	if s := g.selector(); s != nil && g.chance(0.4) {
		w["namespaceSelector"] = s
	}
	if s := g.selector(); s != nil && g.chance(0.3) {
		w["objectSelector"] = s
	}
	if g.chance(0.2) {
		w["timeoutSeconds"] = g.r.Intn(40)
	}
	if g.chance(0.2) {
		w["failurePolicy"] = g.pick("Ignore", "Fail")
	}
	if mutating && g.chance(0.3) {
		w["reinvocationPolicy"] = g.pick("Never", "IfNeeded")
	}
	return w
}

func (g manifestGen) webhookConfig(kind string) map[string]any {
	mutating := strings.HasPrefix(kind, "Mutating")
	obj := map[string]any{
		"apiVersion": "admissionregistration.k8s.io/v1",
		"kind":       kind,
		"metadata":   map[string]any{"name": g.name()},
	}
	if g.chance(0.05) {
		obj["apiVersion"] = "admissionregistration.k8s.io/v1beta1"
	}
	if g.chance(0.03) {
		obj["metadata"] = map[string]any{"generateName": "gen-"}
	}
	n := g.r.Intn(4)
	var hooks []any
	for range n {
		hooks = append(hooks, g.webhook(mutating))
	}
	if n > 0 || g.chance(0.5) {
		obj["webhooks"] = hooks
	}
	return obj
}

func (g manifestGen) policy(kind string) map[string]any {
	spec := map[string]any{
		"matchConstraints": map[string]any{"resourceRules": []any{map[string]any{
			"operations": []any{"CREATE"}, "apiGroups": []any{""}, "apiVersions": []any{"v1"}, "resources": []any{"pods"},
		}}},
	}
	if kind == "ValidatingAdmissionPolicy" {
		spec["validations"] = []any{map[string]any{"expression": "true"}}
	} else {
		spec["mutations"] = []any{map[string]any{"patchType": "JSONPatch", "jsonPatch": map[string]any{"expression": `[JSONPatch{op: "add", path: "/metadata/labels/a", value: "b"}]`}}}
		spec["reinvocationPolicy"] = "Never"
	}
	if g.chance(0.1) {
		spec["paramKind"] = map[string]any{"apiVersion": "v1", "kind": "ConfigMap"}
	}
	return map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind, "metadata": map[string]any{"name": g.name()}, "spec": spec}
}

func (g manifestGen) binding(kind string) map[string]any {
	spec := map[string]any{}
	switch g.r.Intn(12) {
	case 0:
	case 1:
		spec["policyName"] = "plain-policy"
	default:
		spec["policyName"] = objectNames[g.r.Intn(5)]
	}
	if kind == "ValidatingAdmissionPolicyBinding" {
		spec["validationActions"] = []any{"Deny"}
	}
	if g.chance(0.08) {
		spec["paramRef"] = map[string]any{"name": "p", "parameterNotFoundAction": "Deny"}
	}
	return map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind, "metadata": map[string]any{"name": g.name()}, "spec": spec}
}

// object returns an object of the plugin's kinds mostly, of others at
// times.
func (g manifestGen) object(plugin string) map[string]any {
	if g.chance(0.08) {
		switch g.r.Intn(7) {
		case 0:
			return map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p"}}
		case 1:
			return map[string]any{"apiVersion": "v1", "kind": "Status", "status": "Failure"}
		case 2:
			return g.webhookConfig(g.pick("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"))
		case 3:
			return g.policy(g.pick("ValidatingAdmissionPolicy", "MutatingAdmissionPolicy"))
		case 4:
			return map[string]any{"apiVersion": "admissionregistration.k8s.io/v1alpha1", "kind": "MutatingAdmissionPolicy", "metadata": map[string]any{"name": "a.static.k8s.io"}}
		case 5:
			return map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "WatchEvent", "type": "ADDED"}
		default:
			return map[string]any{"kind": "ValidatingWebhookConfiguration"}
		}
	}
	switch plugin {
	case "ValidatingAdmissionWebhook":
		return g.webhookConfig("ValidatingWebhookConfiguration")
	case "MutatingAdmissionWebhook":
		return g.webhookConfig("MutatingWebhookConfiguration")
	case "ValidatingAdmissionPolicy":
		if g.chance(0.5) {
			return g.policy("ValidatingAdmissionPolicy")
		}
		return g.binding("ValidatingAdmissionPolicyBinding")
	default:
		if g.chance(0.5) {
			return g.policy("MutatingAdmissionPolicy")
		}
		return g.binding("MutatingAdmissionPolicyBinding")
	}
}

// document returns one document: an object, a typed list, a v1 List.
func (g manifestGen) document(plugin string, depth int) map[string]any {
	switch {
	case depth < 2 && g.chance(0.12):
		var items []any
		for range g.r.Intn(4) {
			if g.chance(0.05) {
				items = append(items, nil)
				continue
			}
			items = append(items, g.document(plugin, depth+1))
		}
		return map[string]any{"apiVersion": "v1", "kind": "List", "items": items}
	case g.chance(0.08):
		first := g.object(plugin)
		kind, _ := first["kind"].(string)
		items := []any{first}
		for range g.r.Intn(3) {
			o := g.object(plugin)
			if o["kind"] == kind {
				items = append(items, o)
			}
		}
		for _, it := range items {
			delete(it.(map[string]any), "apiVersion")
			delete(it.(map[string]any), "kind")
		}
		return map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind + "List", "items": items}
	}
	return g.object(plugin)
}

// text renders a document, with a fault at times.
func (g manifestGen) text(doc map[string]any, asJSON bool) string {
	data, err := yaml.Marshal(doc)
	if err != nil {
		panic(err)
	}
	if asJSON {
		j, err := yaml.YAMLToJSON(data)
		if err != nil {
			panic(err)
		}
		s := string(j)
		if g.chance(0.05) {
			s = strings.Replace(s, `"kind":`, `"unknownField":1,"kind":`, 1)
		}
		if g.chance(0.03) {
			s = s[:len(s)/2]
		}
		return s
	}
	s := string(data)
	switch g.r.Intn(30) {
	case 0:
		s += "unknownField: 1\n"
	case 1:
		s += "kind: " + fmt.Sprint(doc["kind"]) + "\n" // a duplicate field
	case 2:
		s = strings.Replace(s, "metadata:", "metadata: [", 1)
	case 3:
		s = strings.Replace(s, "name:", "Name:", 1)
	case 4:
		s = "# a comment\n" + s
	case 5:
		s = strings.Replace(s, "sideEffects: None", "sideEffects: 3", 1)
	}
	return s
}

var fileNames = []string{"10-a.yaml", "20-b.yml", "30-C.YAML", "40-d.json", "50-e.Json", "60-f.txt", "70-g", "80-h.yaml.bak", ".hidden.yaml", "sub/90-i.yaml"}

// dir generates a directory for a plugin.
func (g manifestGen) dir(plugin string) manifestDir {
	d := manifestDir{}
	for range 1 + g.r.Intn(4) {
		name := g.pick(fileNames...)
		if g.chance(0.05) {
			d[name] = ""
			continue
		}
		asJSON := strings.HasSuffix(strings.ToLower(name), ".json")
		var parts []string
		docs := 1
		if !asJSON {
			docs = 1 + g.r.Intn(3)
		}
		for range docs {
			parts = append(parts, g.text(g.document(plugin, 0), asJSON))
		}
		sep := "---\n"
		if g.chance(0.05) {
			sep = g.pick("--- # next\n", "---\n---\n", "\n---\n\n", "--- x\n")
		}
		content := strings.Join(parts, sep)
		if g.chance(0.05) {
			content = "---\n" + content
		}
		if g.chance(0.03) {
			content += "---\n# trailing comment\n"
		}
		if g.chance(0.04) {
			content = strings.ReplaceAll(content, "\n", "\r\n")
		}
		if g.chance(0.02) {
			content = strings.Replace(content, "\n", "\r", 1)
		}
		d[name] = content
	}
	return d
}
