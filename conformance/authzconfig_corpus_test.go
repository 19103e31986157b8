package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"

	yamlv2 "go.yaml.in/yaml/v2"

	"k8s.io/apimachinery/pkg/runtime"
)

// This file generates the corpus of the AuthorizationConfiguration
// differential test: valid configurations of every shape, and the same with
// one or several faults of every kind, in the three versions, as YAML and
// as JSON, plus hand-written texts for the faults a document tree cannot
// express (YAML syntax, multiple documents, flow style, YAML 1.1 scalars).
//
// Kubeconfig paths are placeholders, replaced by real paths in a temporary
// directory before both implementations read the data.
const (
	kcFile        = "@KC_FILE@"      // a regular file
	kcDir         = "@KC_DIR@"       // a directory
	kcMissing     = "@KC_MISSING@"   // nothing there
	kcLinkFile    = "@KC_LINK_FILE@" // a symbolic link to a regular file
	kcLinkDir     = "@KC_LINK_DIR@"  // a symbolic link to a directory
	kcDangling    = "@KC_DANGLING@"  // a symbolic link to nothing
	kcRelative    = "relative/kubeconfig.yaml"
	percentMarker = "name%dwith%spercent"
)

type authzCorpusCase struct {
	name string
	data string
	// conditions marks cases with match conditions.
	conditions bool
}

// doc is a document tree: yamlv2.MapSlice for mappings (duplicate keys
// allowed, order kept), []any for lists, and scalars.
type doc = yamlv2.MapSlice

func item(k string, v any) yamlv2.MapItem { return yamlv2.MapItem{Key: k, Value: v} }

func webhookAuthorizer(name string, settings doc) doc {
	return doc{item("type", "Webhook"), item("name", name), item("webhook", settings)}
}

func webhookSettings(file string) doc {
	return doc{
		item("timeout", "3s"),
		item("subjectAccessReviewVersion", "v1"),
		item("failurePolicy", "Deny"),
		item("connectionInfo", doc{item("type", "KubeConfigFile"), item("kubeConfigFile", file)}),
		item("matchConditionSubjectAccessReviewVersion", "v1"),
	}
}

func plainAuthorizer(typ string) doc {
	return doc{item("type", typ), item("name", strings.ToLower(typ))}
}

// baseDocuments are valid configurations (without the apiVersion).
func baseDocuments() map[string][]any {
	full := webhookSettings(kcFile)
	full = append(full,
		item("authorizedTTL", "30s"), item("unauthorizedTTL", "10s"),
		item("cacheAuthorizedRequests", true), item("cacheUnauthorizedRequests", false))
	inCluster := doc{
		item("timeout", "30s"), item("subjectAccessReviewVersion", "v1beta1"), item("failurePolicy", "NoOpinion"),
		item("connectionInfo", doc{item("type", "InClusterConfig")}),
	}
	return map[string][]any{
		"rbac":     {plainAuthorizer("RBAC")},
		"webhook":  {webhookAuthorizer("webhook", webhookSettings(kcFile))},
		"kep":      {webhookAuthorizer("kube-system.authorizer", full), plainAuthorizer("Node"), plainAuthorizer("RBAC"), webhookAuthorizer("in-cluster", inCluster)},
		"all":      {plainAuthorizer("AlwaysAllow"), plainAuthorizer("AlwaysDeny"), plainAuthorizer("ABAC"), plainAuthorizer("Node"), plainAuthorizer("RBAC"), webhookAuthorizer("w", webhookSettings(kcLinkFile))},
		"webhooks": {webhookAuthorizer("a.example.com", webhookSettings(kcFile)), plainAuthorizer("Node"), webhookAuthorizer("b", webhookSettings(kcFile))},
	}
}

func configDocument(version string, authorizers []any) doc {
	return doc{
		item("apiVersion", "apiserver.config.k8s.io/"+version),
		item("kind", "AuthorizationConfiguration"),
		item("authorizers", authorizers),
	}
}

// deepCopy copies a document tree.
func deepCopy(v any) any {
	switch t := v.(type) {
	case doc:
		out := make(doc, len(t))
		for i, it := range t {
			out[i] = item(it.Key.(string), deepCopy(it.Value))
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

func lookup(d doc, key string) (any, int) {
	for i, it := range d {
		if it.Key == key {
			return it.Value, i
		}
	}
	return nil, -1
}

func set(d doc, key string, v any) doc {
	if _, i := lookup(d, key); i >= 0 {
		d[i].Value = v
		return d
	}
	return append(d, item(key, v))
}

func del(d doc, key string) doc {
	if _, i := lookup(d, key); i >= 0 {
		return append(d[:i:i], d[i+1:]...)
	}
	return d
}

func rename(d doc, from, to string) doc {
	if _, i := lookup(d, from); i >= 0 {
		d[i].Key = to
	}
	return d
}

// fault is one mutation of a configuration document. It may not apply to a
// document (for example a webhook fault on a configuration without
// webhooks); it then returns false.
type fault struct {
	name  string
	apply func(d doc, r *rand.Rand) (doc, bool)
	// conditions marks faults that add match conditions.
	conditions bool
}

func topFault(name string, f func(d doc) doc) fault {
	return fault{name: name, apply: func(d doc, _ *rand.Rand) (doc, bool) { return f(d), true }}
}

// authorizerFault changes one authorizer, chosen at random among those the
// filter accepts.
func authorizerFault(name string, filter func(a doc) bool, f func(a doc, all []any) doc) fault {
	return fault{name: name, apply: func(d doc, r *rand.Rand) (doc, bool) {
		v, i := lookup(d, "authorizers")
		list, ok := v.([]any)
		if i < 0 || !ok {
			return d, false
		}
		var candidates []int
		for j, a := range list {
			if ad, ok := a.(doc); ok && filter(ad) {
				candidates = append(candidates, j)
			}
		}
		if len(candidates) == 0 {
			return d, false
		}
		j := candidates[r.IntN(len(candidates))]
		list[j] = f(list[j].(doc), list)
		return d, true
	}}
}

func anyAuthorizer(doc) bool { return true }

func isWebhook(a doc) bool {
	w, _ := lookup(a, "webhook")
	_, ok := w.(doc)
	return ok
}

func isPlain(a doc) bool {
	t, _ := lookup(a, "type")
	return t != "Webhook"
}

func webhookFault(name string, f func(w doc) doc) fault {
	return authorizerFault(name, isWebhook, func(a doc, _ []any) doc {
		w, _ := lookup(a, "webhook")
		return set(a, "webhook", f(w.(doc)))
	})
}

func connectionFault(name string, f func(c doc) doc) fault {
	return webhookFault(name, func(w doc) doc {
		c, _ := lookup(w, "connectionInfo")
		cd, ok := c.(doc)
		if !ok {
			cd = doc{}
		}
		return set(w, "connectionInfo", f(cd))
	})
}

func setFault(name, key string, v any) fault {
	return topFault(name, func(d doc) doc { return set(d, key, v) })
}

func webhookSet(key string, v any) fault {
	return webhookFault(fmt.Sprintf("webhook %s=%v", key, v), func(w doc) doc { return set(w, key, v) })
}

func webhookDel(key string) fault {
	return webhookFault("webhook without "+key, func(w doc) doc { return del(w, key) })
}

func connectionSet(key string, v any) fault {
	return connectionFault(fmt.Sprintf("connectionInfo %s=%v", key, v), func(c doc) doc { return set(c, key, v) })
}

func authorizerSet(key string, v any) fault {
	return authorizerFault(fmt.Sprintf("authorizer %s=%v", key, v), anyAuthorizer, func(a doc, _ []any) doc { return set(a, key, v) })
}

// decodeFaults break decoding.
func decodeFaults() []fault {
	return []fault{
		topFault("no apiVersion", func(d doc) doc { return del(d, "apiVersion") }),
		topFault("no kind", func(d doc) doc { return del(d, "kind") }),
		topFault("no apiVersion and no kind", func(d doc) doc { return del(del(d, "apiVersion"), "kind") }),
		setFault("apiVersion apps/v1", "apiVersion", "apps/v1"),
		setFault("apiVersion v99", "apiVersion", "apiserver.config.k8s.io/v99"),
		setFault("apiVersion legacy group", "apiVersion", "apiserver.k8s.io/v1alpha1"),
		setFault("apiVersion without version", "apiVersion", "apiserver.config.k8s.io/"),
		setFault("apiVersion group only", "apiVersion", "apiserver.config.k8s.io"),
		setFault("apiVersion three parts", "apiVersion", "apiserver.config.k8s.io/v1/x"),
		setFault("apiVersion slash", "apiVersion", "/"),
		setFault("apiVersion core", "apiVersion", "v1"),
		setFault("apiVersion internal", "apiVersion", "apiserver.config.k8s.io/__internal"),
		setFault("apiVersion number", "apiVersion", 3),
		setFault("apiVersion list", "apiVersion", []any{"x"}),
		setFault("kind lowercase", "kind", "authorizationConfiguration"),
		setFault("kind unknown", "kind", "SomeConfiguration"),
		setFault("kind empty", "kind", ""),
		setFault("kind bool", "kind", true),
		setFault("kind tracing", "kind", "TracingConfiguration"),
		setFault("kind authentication", "kind", "AuthenticationConfiguration"),
		setFault("kind admission", "kind", "AdmissionConfiguration"),
		setFault("kind encryption", "kind", "EncryptionConfiguration"),
		setFault("kind egress", "kind", "EgressSelectorConfiguration"),
		setFault("kind status", "kind", "Status"),
		setFault("kind list options", "kind", "ListOptions"),
		setFault("kind watch event", "kind", "WatchEvent"),
		setFault("unknown top-level field", "authorzers", []any{}),
		topFault("wrong-case top-level field", func(d doc) doc { return rename(d, "authorizers", "Authorizers") }),
		topFault("duplicate top-level field", func(d doc) doc { return append(d, item("authorizers", []any{})) }),
		topFault("duplicate kind", func(d doc) doc { return append(d, item("kind", "AuthorizationConfiguration")) }),
		setFault("authorizers string", "authorizers", "x"),
		setFault("authorizers number", "authorizers", 3),
		setFault("authorizers map", "authorizers", doc{item("type", "RBAC")}),
		setFault("authorizers null", "authorizers", nil),
		authorizerFault("unknown authorizer field", anyAuthorizer, func(a doc, _ []any) doc { return append(a, item("mode", "x")) }),
		authorizerFault("wrong-case authorizer field", anyAuthorizer, func(a doc, _ []any) doc { return rename(a, "name", "Name") }),
		authorizerFault("duplicate authorizer field", anyAuthorizer, func(a doc, _ []any) doc { return append(a, item("name", "again")) }),
		authorizerSet("type", 3),
		authorizerSet("name", 12),
		authorizerSet("name", false),
		authorizerSet("webhook", "x"),
		authorizerSet("webhook", []any{}),
		webhookSet("timeout", 3),
		webhookSet("timeout", "abc"),
		webhookSet("timeout", "3"),
		webhookSet("authorizedTTL", "5 minutes"),
		webhookSet("unauthorizedTTL", 1.5),
		webhookSet("cacheAuthorizedRequests", "yes please"),
		webhookSet("cacheUnauthorizedRequests", 0),
		webhookSet("subjectAccessReviewVersion", 1),
		webhookSet("failurePolicy", []any{"Deny"}),
		webhookSet("connectionInfo", "KubeConfigFile"),
		webhookSet("matchConditions", "x"),
		webhookFault("unknown webhook field", func(w doc) doc { return append(w, item("name", "x")) }),
		webhookFault("two unknown webhook fields", func(w doc) doc { return append(w, item("zeta", 1), item("alpha", 2)) }),
		webhookFault("wrong-case webhook field", func(w doc) doc { return rename(w, "timeout", "Timeout") }),
		webhookFault("duplicate webhook field", func(w doc) doc { return append(w, item("timeout", "4s")) }),
		connectionSet("kubeConfigFile", 3),
		connectionSet("type", nil),
		connectionFault("unknown connectionInfo field", func(c doc) doc { return append(c, item("server", "https://x")) }),
	}
}

// validationFaults decode fine and break validation rules.
func validationFaults() []fault {
	long := strings.Repeat("a", 250) + ".bcd"
	return []fault{
		setFault("no authorizers", "authorizers", []any{}),
		topFault("authorizers absent", func(d doc) doc { return del(d, "authorizers") }),
		authorizerFault("no type", anyAuthorizer, func(a doc, _ []any) doc { return del(a, "type") }),
		authorizerSet("type", ""),
		authorizerSet("type", "Foo"),
		authorizerSet("type", "rbac"),
		authorizerFault("no name", anyAuthorizer, func(a doc, _ []any) doc { return del(a, "name") }),
		authorizerSet("name", ""),
		authorizerSet("name", "Bad_Name"),
		authorizerSet("name", "UPPER"),
		authorizerSet("name", "a..b"),
		authorizerSet("name", "-a"),
		authorizerSet("name", "a-"),
		authorizerSet("name", long),
		authorizerSet("name", strings.Repeat("A", 254)),
		authorizerSet("name", percentMarker),
		authorizerSet("name", "myrbac"),
		authorizerFault("duplicate name", anyAuthorizer, func(a doc, all []any) doc {
			other, _ := lookup(all[0].(doc), "name")
			return set(a, "name", other)
		}),
		authorizerFault("duplicate plain type", isPlain, func(a doc, all []any) doc {
			for _, o := range all {
				if t, _ := lookup(o.(doc), "type"); t != "Webhook" {
					return set(a, "type", t)
				}
			}
			return a
		}),
		authorizerFault("plain becomes webhook", isPlain, func(a doc, _ []any) doc { return set(a, "type", "Webhook") }),
		authorizerFault("plain with webhook", isPlain, func(a doc, _ []any) doc { return set(a, "webhook", webhookSettings(kcFile)) }),
		authorizerFault("plain with empty webhook", isPlain, func(a doc, _ []any) doc { return set(a, "webhook", doc{}) }),
		authorizerFault("webhook without settings", isWebhook, func(a doc, _ []any) doc { return del(a, "webhook") }),
		authorizerFault("webhook with null settings", isWebhook, func(a doc, _ []any) doc { return set(a, "webhook", nil) }),
		authorizerFault("webhook becomes RBAC", isWebhook, func(a doc, _ []any) doc { return set(a, "type", "RBAC") }),
		authorizerFault("webhook settings empty", isWebhook, func(a doc, _ []any) doc { return set(a, "webhook", doc{}) }),
		webhookDel("timeout"),
		webhookSet("timeout", "0s"),
		webhookSet("timeout", "31s"),
		webhookSet("timeout", "1m"),
		webhookSet("timeout", "-1s"),
		webhookSet("timeout", "30s"),
		webhookSet("timeout", "1ns"),
		webhookSet("authorizedTTL", "-1ns"),
		webhookSet("authorizedTTL", "0s"),
		webhookSet("authorizedTTL", "1ns"),
		webhookSet("unauthorizedTTL", "-2h"),
		webhookSet("unauthorizedTTL", "0"),
		webhookSet("cacheAuthorizedRequests", false),
		webhookSet("cacheUnauthorizedRequests", nil),
		webhookDel("subjectAccessReviewVersion"),
		webhookSet("subjectAccessReviewVersion", "v2"),
		webhookSet("subjectAccessReviewVersion", "V1"),
		webhookSet("subjectAccessReviewVersion", "v1beta1"),
		webhookSet("matchConditionSubjectAccessReviewVersion", "v1beta1"),
		webhookSet("matchConditionSubjectAccessReviewVersion", ""),
		webhookSet("matchConditionSubjectAccessReviewVersion", "v1"),
		webhookDel("failurePolicy"),
		webhookSet("failurePolicy", "Allow"),
		webhookSet("failurePolicy", "deny"),
		webhookSet("failurePolicy", "NoOpinion"),
		webhookDel("connectionInfo"),
		webhookSet("connectionInfo", doc{}),
		connectionFault("connection without type", func(c doc) doc { return del(c, "type") }),
		connectionSet("type", "Foo"),
		connectionSet("type", "KubeConfig"),
		connectionFault("unknown type without file", func(c doc) doc { return del(set(c, "type", "Foo"), "kubeConfigFile") }),
		connectionFault("in-cluster with file", func(c doc) doc { return set(set(c, "type", "InClusterConfig"), "kubeConfigFile", kcFile) }),
		connectionFault("in-cluster with empty file", func(c doc) doc { return set(set(c, "type", "InClusterConfig"), "kubeConfigFile", "") }),
		connectionFault("in-cluster with null file", func(c doc) doc { return set(set(c, "type", "InClusterConfig"), "kubeConfigFile", nil) }),
		connectionFault("in-cluster", func(c doc) doc { return del(set(c, "type", "InClusterConfig"), "kubeConfigFile") }),
		connectionFault("kubeconfig without file", func(c doc) doc { return del(set(c, "type", "KubeConfigFile"), "kubeConfigFile") }),
		connectionFault("kubeconfig null file", func(c doc) doc { return set(set(c, "type", "KubeConfigFile"), "kubeConfigFile", nil) }),
		connectionSet("kubeConfigFile", ""),
		connectionSet("kubeConfigFile", kcRelative),
		connectionSet("kubeConfigFile", kcMissing),
		connectionSet("kubeConfigFile", kcDir),
		connectionSet("kubeConfigFile", kcLinkFile),
		connectionSet("kubeConfigFile", kcLinkDir),
		connectionSet("kubeConfigFile", kcDangling),
		connectionSet("kubeConfigFile", kcMissing+"/under"),
		connectionSet("kubeConfigFile", kcFile+"/under"),
		webhookSet("matchConditions", []any{}),
		webhookSet("matchConditions", nil),
	}
}

// conditionFaults add match conditions.
func conditionFaults() []fault {
	conditions := func(exprs ...string) []any {
		out := make([]any, len(exprs))
		for i, e := range exprs {
			out[i] = doc{item("expression", e)}
		}
		return out
	}
	many := make([]string, 65)
	for i := range many {
		many[i] = fmt.Sprintf("request.user == 'u%d'", i)
	}
	faults := []fault{
		webhookSet("matchConditions", conditions("has(request.resourceAttributes)", "request.resourceAttributes.namespace == 'kube-system'", "!('system:serviceaccounts:kube-system' in request.groups)")),
		webhookSet("matchConditions", conditions("request.user == 'a'", "request.user == 'a'")),
		webhookSet("matchConditions", conditions("", "   ", "true")),
		webhookSet("matchConditions", conditions("request.foo == 1")),
		webhookSet("matchConditions", conditions("request.user")),
		webhookSet("matchConditions", conditions("test")),
		webhookSet("matchConditions", conditions("request.user = 'a'")),
		webhookSet("matchConditions", conditions("request.user == 1")),
		webhookSet("matchConditions", conditions("in request.user.groups)")),
		webhookSet("matchConditions", conditions("url('https://example.com/x').getHost() == 'example.com'", "isURL(request.user)", "request.groups.isSorted()")),
		webhookSet("matchConditions", conditions("quantity('1Gi').isGreaterThan(quantity('1Mi'))", "ip('10.0.0.1').family() == 4", "cidr('10.0.0.0/8').containsIP(ip('10.1.2.3'))")),
		webhookSet("matchConditions", conditions("'%s'.format([request.user]) == request.user", "semver('1.2.3').major() == 1", "request.user.matches('^system:')")),
		webhookSet("matchConditions", conditions("request.?resourceAttributes.?fieldSelector.?rawSelector.orValue('') == ''", "request.extra.all(k, v, v.size() > 0)", "sets.contains(request.groups, ['a'])")),
		webhookSet("matchConditions", conditions("lists.range(3).size() == 3", "request.groups.all(g, g.startsWith('system:'))", "request.user.lowerAscii() == 'a'")),
		webhookSet("matchConditions", conditions("authorizer.path('/x').check('get').allowed()")),
		webhookSet("matchConditions", conditions("request.user.matches('[')", "duration('1x') > duration('1s')", "timestamp('bad') > timestamp('2020-01-01T00:00:00Z')")),
		webhookSet("matchConditions", conditions("[1, 'a'].size() > 0", "request.resourceAttributes.labelSelector.requirements.exists(r, r.key == 'a')", "quantity('x') == quantity('1')")),
		webhookSet("matchConditions", conditions(many...)),
		webhookSet("matchConditions", conditions(many[:64]...)),
		webhookSet("matchConditions", []any{doc{}}),
		webhookSet("matchConditions", []any{doc{item("expression", "true"), item("name", "x")}}),
		webhookFault("match conditions without their version", func(w doc) doc {
			return set(del(w, "matchConditionSubjectAccessReviewVersion"), "matchConditions", conditions("true"))
		}),
	}
	for i := range faults {
		faults[i].conditions = true
	}
	return faults
}

// render writes a document tree as YAML or JSON.
func render(d doc, asJSON bool) string {
	if !asJSON {
		out, err := yamlv2.Marshal(d)
		if err != nil {
			panic(err)
		}
		return string(out)
	}
	var b bytes.Buffer
	writeJSON(&b, d)
	return b.String()
}

func writeJSON(b *bytes.Buffer, v any) {
	switch t := v.(type) {
	case doc:
		b.WriteByte('{')
		for i, it := range t {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, it.Key)
			b.WriteByte(':')
			writeJSON(b, it.Value)
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, e)
		}
		b.WriteByte(']')
	default:
		out, err := json.Marshal(t)
		if err != nil {
			panic(err)
		}
		b.Write(out)
	}
}

// rawCases are texts that a document tree cannot express.
func rawCases() []authzCorpusCase {
	const h = "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\n"
	const rbac = "authorizers:\n- type: RBAC\n  name: rbac\n"
	return []authzCorpusCase{
		{name: "empty", data: ""},
		{name: "whitespace", data: "   \n"},
		{name: "newlines", data: "\n\n"},
		{name: "comment", data: "# nothing here\n"},
		{name: "null", data: "null"},
		{name: "JSON null", data: " null "},
		{name: "list", data: "- a\n- b\n"},
		{name: "scalar", data: "hello"},
		{name: "JSON list", data: "[1,2]"},
		{name: "JSON broken", data: `{"apiVersion":`},
		{name: "JSON trailing garbage", data: `{"apiVersion":"apiserver.config.k8s.io/v1","kind":"AuthorizationConfiguration","authorizers":[]} x`},
		{name: "JSON two documents", data: `{"kind":"AuthorizationConfiguration"}` + "\n" + `{"kind":"x"}`},
		{name: "JSON leading spaces", data: " \n\t{\"apiVersion\":\"apiserver.config.k8s.io/v1\",\"kind\":\"AuthorizationConfiguration\"}"},
		{name: "JSON keys case-insensitive for the kind", data: `{"APIVERSION":"apiserver.config.k8s.io/v1","Kind":"AuthorizationConfiguration","authorizers":[]}`},
		{name: "flow YAML read as JSON", data: "{apiVersion: apiserver.config.k8s.io/v1, kind: AuthorizationConfiguration}"},
		{name: "flow YAML after a comment", data: "# c\n{apiVersion: apiserver.config.k8s.io/v1, kind: AuthorizationConfiguration, authorizers: [{type: RBAC, name: rbac}]}"},
		{name: "YAML syntax in flow list", data: h + "authorizers: [a, b\n"},
		{name: "YAML unclosed list", data: h + "authorizers: [\n"},
		{name: "YAML tab indentation", data: h + "authorizers:\n\t- type: RBAC\n"},
		{name: "YAML bad indentation", data: h + "authorizers:\n- type: RBAC\n name: rbac\n"},
		{name: "YAML duplicate key", data: h + "authorizers:\n- type: Webhook\n  type: RBAC\n  name: rbac\n"},
		{name: "YAML duplicate keys twice", data: h + "kind: AuthorizationConfiguration\nauthorizers:\n- type: RBAC\n  name: rbac\n  name: rbac\n"},
		{name: "YAML duplicate key and unknown field", data: h + "authorizers:\n- type: RBAC\n  name: rbac\n  name: rbac\n  mode: x\n"},
		{name: "YAML 1.1 boolean for a string", data: h + "authorizers:\n- type: RBAC\n  name: yes\n"},
		{name: "YAML number for a string", data: h + "authorizers:\n- type: RBAC\n  name: 0x10\n"},
		{name: "YAML null name", data: h + "authorizers:\n- type: RBAC\n  name: ~\n"},
		{name: "YAML tag in expression", data: h + "authorizers:\n- type: Webhook\n  name: w\n  webhook:\n    timeout: 3s\n    subjectAccessReviewVersion: v1\n    failurePolicy: Deny\n    connectionInfo:\n      type: KubeConfigFile\n      kubeConfigFile: " + kcFile + "\n    matchConditionSubjectAccessReviewVersion: v1\n    matchConditions:\n    - expression: !('a' in request.groups)\n", conditions: true},
		{name: "YAML anchors", data: h + "authorizers:\n- &a\n  type: RBAC\n  name: rbac\n- *a\n"},
		{name: "YAML merge key", data: h + "x: &w {timeout: 3s}\n" + rbac},
		{name: "YAML non-string key", data: h + "authorizers:\n- type: RBAC\n  name: rbac\n  1: x\n"},
		{name: "YAML complex key", data: h + "? [a, b]\n: c\n" + rbac},
		{name: "YAML infinity", data: h + "authorizers:\n- type: RBAC\n  name: .inf\n"},
		{name: "YAML binary", data: h + "authorizers:\n- type: RBAC\n  name: !!binary aGVsbG8=\n"},
		{name: "YAML timestamp", data: h + "authorizers:\n- type: RBAC\n  name: 2001-12-14\n"},
		{name: "YAML second document", data: h + rbac + "---\n" + h + "authorizers: []\n"},
		{name: "YAML leading document marker", data: "---\n" + h + rbac},
		{name: "YAML empty first document", data: "---\n---\n" + h + rbac},
		{name: "YAML broken second document", data: h + rbac + "---\n[\n"},
		{name: "YAML document end marker", data: h + rbac + "...\n"},
		{name: "YAML BOM", data: "\ufeff" + h + rbac},
		{name: "YAML CRLF", data: strings.ReplaceAll(h+rbac, "\n", "\r\n")},
		{name: "YAML comments", data: "# header\n" + h + "# authorizers follow\n" + rbac + "# end\n"},
		{name: "YAML long string", data: h + "authorizers:\n- type: RBAC\n  name: >-\n    rb\n    ac\n"},
		{name: "YAML quoted keys", data: "\"apiVersion\": apiserver.config.k8s.io/v1\n'kind': AuthorizationConfiguration\n" + rbac},
		{name: "YAML kind with trailing space", data: "apiVersion: apiserver.config.k8s.io/v1\nkind: 'AuthorizationConfiguration '\n" + rbac},
		{name: "YAML internal version", data: "apiVersion: apiserver.config.k8s.io/__internal\nkind: AuthorizationConfiguration\nauthorizers:\n- Type: Webhook\n  Name: w\n  Webhook:\n    Timeout: 3s\n    FailurePolicy: Deny\n    SubjectAccessReviewVersion: v1\n    ConnectionInfo:\n      Type: KubeConfigFile\n      KubeConfigFile: " + kcFile + "\n"},
		{name: "YAML internal version wrong types", data: "apiVersion: apiserver.config.k8s.io/__internal\nkind: AuthorizationConfiguration\nauthorizers:\n- Type: 1\n  Webhook:\n    CacheAuthorizedRequests: x\n"},
		{name: "YAML internal version json names", data: "apiVersion: apiserver.config.k8s.io/__internal\nkind: AuthorizationConfiguration\n" + rbac},
		{name: "YAML status with fields", data: "apiVersion: v1\nkind: Status\nstatus: Failure\ncode: x\n"},
		{name: "YAML watch event", data: "apiVersion: apiserver.k8s.io/__internal\nkind: WatchEvent\ntype: ADDED\n"},
		{name: "YAML delete options wrong type", data: "apiVersion: apiserver.k8s.io/v1beta1\nkind: DeleteOptions\ngracePeriodSeconds: x\n"},
		{name: "YAML core EncryptionConfig", data: "apiVersion: v1\nkind: EncryptionConfig\n"},
		{name: "tracing with a wrong type", data: "apiVersion: apiserver.config.k8s.io/v1beta1\nkind: TracingConfiguration\nsamplingRatePerMillion: x\n"},
		{name: "tracing valid", data: "apiVersion: apiserver.config.k8s.io/v1alpha1\nkind: TracingConfiguration\nendpoint: localhost:4317\n"},
		{name: "authentication with a wrong type", data: "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\njwt: x\n"},
		{name: "authentication nested", data: "apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\njwt:\n- issuer:\n    url: https://x\n    audiences: [a]\n    audienceMatchPolicy: 3\n"},
		{name: "authentication unknown nested", data: "apiVersion: apiserver.config.k8s.io/v1alpha1\nkind: AuthenticationConfiguration\nanonymous:\n  enabled: true\n  foo: 1\n"},
		{name: "encryption", data: "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [secrets]\n  providers:\n  - identity: {}\n  - kms:\n      name: k\n      timeout: 3\n"},
		{name: "encryption internal", data: "apiVersion: apiserver.config.k8s.io/__internal\nkind: EncryptionConfiguration\nResources: []\n"},
		{name: "admission", data: "apiVersion: apiserver.k8s.io/v1alpha1\nkind: AdmissionConfiguration\nplugins:\n- name: x\n  configuration:\n    anything: goes\n"},
		{name: "admission with authorizers", data: "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nauthorizers: []\n"},
		{name: "egress selector v1beta1", data: "apiVersion: apiserver.k8s.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections:\n- name: master\n  connection:\n    proxyProtocol: Direct\n"},
		{name: "egress selector internal", data: "apiVersion: apiserver.config.k8s.io/__internal\nkind: EgressSelectorConfiguration\negressSelections: x\n"},
		{name: "protobuf empty body", data: "k8s\x00"},
		{name: "protobuf AuthorizationConfiguration", data: protobufEnvelope("apiserver.config.k8s.io/v1", "AuthorizationConfiguration", "")},
		{name: "protobuf internal AuthorizationConfiguration", data: protobufEnvelope("apiserver.config.k8s.io/__internal", "AuthorizationConfiguration", "")},
		{name: "protobuf tracing", data: protobufEnvelope("apiserver.config.k8s.io/v1beta1", "TracingConfiguration", "")},
		{name: "protobuf core EncryptionConfig", data: protobufEnvelope("v1", "EncryptionConfig", "")},
		{name: "protobuf status", data: protobufEnvelope("v1", "Status", "")},
		{name: "protobuf status with a broken body", data: protobufEnvelope("v1", "Status", "\xff")},
		{name: "protobuf list options", data: protobufEnvelope("apiserver.k8s.io/v1alpha1", "ListOptions", "")},
		{name: "protobuf watch event", data: protobufEnvelope("apiserver.config.k8s.io/v1", "WatchEvent", "")},
		{name: "protobuf internal watch event", data: protobufEnvelope("apiserver.k8s.io/__internal", "WatchEvent", "")},
		{name: "protobuf unknown kind", data: protobufEnvelope("apiserver.config.k8s.io/v1", "Foo", "")},
		{name: "protobuf no kind", data: protobufEnvelope("apiserver.config.k8s.io/v1", "", "")},
		{name: "protobuf bad apiVersion", data: protobufEnvelope("a/b/c", "AuthorizationConfiguration", "")},
		{name: "protobuf garbage", data: "k8s\x00\xff\xff"},
	}
}

// protobufEnvelope is kube-apiserver's protobuf encoding of an object: the
// magic prefix and a runtime.Unknown.
func protobufEnvelope(apiVersion, kind, raw string) string {
	u := runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: apiVersion, Kind: kind}, Raw: []byte(raw)}
	out, err := u.Marshal()
	if err != nil {
		panic(err)
	}
	return "k8s\x00" + string(out)
}

// authzCorpus generates the whole corpus. withConditions includes the cases
// with match conditions.
func authzCorpus(withConditions bool) []authzCorpusCase {
	var cases []authzCorpusCase
	r := rand.New(rand.NewPCG(3221, 137))
	versions := []string{"v1", "v1beta1", "v1alpha1"}
	bases := baseDocuments()
	baseNames := []string{"rbac", "webhook", "kep", "all", "webhooks"}
	faults := append(decodeFaults(), validationFaults()...)
	if withConditions {
		faults = append(faults, conditionFaults()...)
	}
	add := func(name string, d doc, conditions, asJSON bool) {
		format := " (yaml)"
		if asJSON {
			format = " (json)"
		}
		cases = append(cases, authzCorpusCase{name: name + format, data: render(d, asJSON), conditions: conditions})
	}
	// Valid configurations in every version and both formats.
	for _, v := range versions {
		for _, b := range baseNames {
			for _, asJSON := range []bool{false, true} {
				add(fmt.Sprintf("%s %s valid", v, b), configDocument(v, deepCopy(bases[b]).([]any)), false, asJSON)
			}
		}
	}
	// Each fault in each version, in both formats, on a base it applies to.
	for fi, f := range faults {
		for vi, v := range versions {
			for k := range baseNames {
				b := baseNames[(fi+vi+k)%len(baseNames)]
				d, ok := f.apply(configDocument(v, deepCopy(bases[b]).([]any)), r)
				if !ok {
					continue
				}
				add(fmt.Sprintf("%s %s: %s", v, b, f.name), d, f.conditions, false)
				add(fmt.Sprintf("%s %s: %s", v, b, f.name), d, f.conditions, true)
				break
			}
		}
	}
	// Several faults at once.
	for n := 0; n < 400; n++ {
		v := versions[r.IntN(len(versions))]
		b := baseNames[r.IntN(len(baseNames))]
		d := configDocument(v, deepCopy(bases[b]).([]any))
		var names []string
		conditions := false
		for k := 2 + r.IntN(3); k > 0; k-- {
			f := faults[r.IntN(len(faults))]
			var ok bool
			if d, ok = f.apply(d, r); ok {
				names = append(names, f.name)
				conditions = conditions || f.conditions
			}
		}
		add(fmt.Sprintf("%s %s: %s", v, b, strings.Join(names, " + ")), d, conditions, n%2 == 1)
	}
	for _, c := range rawCases() {
		if c.conditions && !withConditions {
			continue
		}
		cases = append(cases, c)
	}
	return cases
}
