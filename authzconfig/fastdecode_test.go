package authzconfig

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFastPathTakesPlainFiles(t *testing.T) {
	for _, file := range []string{
		"testdata/kep-sample.yaml",
		"testdata/realworld/gardener__gardener__authz-config-with-seedauthorizer.yaml",
		"testdata/realworld/telekom__auth-operator__run-authorization-chain-authorization.yaml",
		"testdata/realworld/kubernetes__kubernetes__authz-config-test-rbac-only-v1alpha1.yaml",
	} {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		fast, ok := fastDecode(data)
		require.True(t, ok, file)
		exact, err := decodeExact(data)
		require.NoError(t, err)
		assert.Equal(t, exact, fast, file)
	}
}

func TestFastPathDeclines(t *testing.T) {
	const h = "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\n"
	for name, data := range map[string]string{
		"JSON":                 `{"apiVersion":"apiserver.config.k8s.io/v1","kind":"AuthorizationConfiguration"}`,
		"empty":                "",
		"flow list":            h + "authorizers: []\n",
		"null value":           h + "authorizers:\n",
		"unknown field":        h + "authorizerz:\n- type: RBAC\n",
		"duplicate key":        h + "kind: AuthorizationConfiguration\n",
		"second document":      h + "---\n",
		"tab":                  h + "authorizers:\n-\ttype: RBAC\n",
		"CRLF":                 strings.ReplaceAll(h, "\n", "\r\n"),
		"non-ASCII":            h + "authorizers:\n- type: RBAC\n  name: é\n",
		"boolean word":         h + "authorizers:\n- type: RBAC\n  name: yes\n",
		"number":               h + "authorizers:\n- type: RBAC\n  name: 12\n",
		"number as duration":   h + "authorizers:\n- type: Webhook\n  webhook:\n    timeout: 3\n",
		"quoted boolean":       h + "authorizers:\n- type: Webhook\n  webhook:\n    cacheAuthorizedRequests: \"false\"\n",
		"escape":               h + "authorizers:\n- type: RBAC\n  name: \"a\\tb\"\n",
		"multi-line scalar":    h + "authorizers:\n- type: RBAC\n  name: a\n    b\n",
		"anchor":               h + "authorizers:\n- &a\n  type: RBAC\n",
		"tag":                  h + "authorizers:\n- type: RBAC\n  name: !x y\n",
		"colon in plain value": h + "authorizers:\n- type: RBAC\n  name: a: b\n",
		"internal version":     "apiVersion: apiserver.config.k8s.io/__internal\nkind: AuthorizationConfiguration\n",
		"other kind":           "apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\n",
	} {
		_, ok := fastDecode([]byte(data))
		assert.False(t, ok, name)
	}
}

// TestFastPathAgreesOnGeneratedYAML writes many configurations with the
// features of YAML that the fast path must get right or decline
// (indentation, quoting, comments, words that YAML 1.1 reads as booleans,
// numbers, durations, indicators), and checks that wherever the fast path
// answers, the exact decoder gives the same configuration.
func TestFastPathAgreesOnGeneratedYAML(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	answered := 0
	const n = 8000
	for range n {
		data := generateYAML(r)
		fast, ok := fastDecode([]byte(data))
		if !ok {
			continue
		}
		answered++
		exact, err := decodeExact([]byte(data))
		require.NoError(t, err, "the fast path accepted:\n%s", data)
		require.Equal(t, exact, fast, "input:\n%s", data)
	}
	t.Logf("the fast path answered %d of %d", answered, n)
	assert.Greater(t, answered, n/50, "the generator should often stay inside the subset")
}

func pick[T any](r *rand.Rand, options ...T) T { return options[r.IntN(len(options))] }

func generateScalar(r *rand.Rand, kind string) string {
	var plain string
	switch good := r.IntN(14) != 0; {
	case good && kind == "duration":
		plain = pick(r, "3s", "0s", "-1s", "1h30m", "5m0s", "30s", "1ns")
	case good && kind == "bool":
		plain = pick(r, "true", "false")
	case good:
		plain = pick(r, "RBAC", "Webhook", "rbac", "v1", "Deny", "KubeConfigFile", "/etc/kc.yaml", "_x", "(a)",
			"has(request.resourceAttributes)", "request.user == 'a'", "a, b", "x:y", "!('a' in request.groups)")
	case kind == "duration":
		plain = pick(r, "3s", "0s", "-1s", "1h30m", "5m0s", "1.5s", "+2s", ".5s", "3", "0", "1e3", "10_0s", "2001-12-14", "abc", "30", "1ns", "1us")
	case kind == "bool":
		plain = pick(r, "true", "false", "True", "yes", "off", "1", "~", "null", "y")
	default:
		plain = pick(r, "RBAC", "Webhook", "Node", "rbac", "v1", "v1beta1", "Deny", "NoOpinion", "KubeConfigFile", "InClusterConfig",
			"/etc/kc.yaml", "_x", "(a)", "has(request.resourceAttributes)", "request.user == 'a'", "a, b", "a]", "x:y", "a :b",
			"yes", "No", "ON", "null", "Null", "~", "y", "n", "12", "0x1f", "1_000", "1e3", ".inf", "-x", "-1", "+1", "2001-12-14",
			"a #b", "a#b", "x:", "a: b", "!t", "&a", "*a", "|", ">", "%", "@a", "`a", "[x]", "{x}", "?x", ":x", ",x", "'", "\"",
			"apiserver.config.k8s.io/v1", "AuthorizationConfiguration", "a'b", "a\"b", "=", "<<", "a   ")
	}
	if strings.HasPrefix(plain, "!") {
		return "'" + strings.ReplaceAll(plain, "'", "''") + "'"
	}
	switch r.IntN(6) {
	case 0:
		return "'" + strings.ReplaceAll(plain, "'", "''") + "'"
	case 1:
		if strings.ContainsAny(plain, "\"\\") {
			return "\"" + strings.ReplaceAll(plain, "\"", "\\\"") + "\""
		}
		return "\"" + plain + "\""
	case 2:
		return plain + pick(r, " # c", "  ", " #", "#x")
	}
	return plain
}

type yamlWriter struct {
	r *rand.Rand
	b strings.Builder
}

func (w *yamlWriter) line(indent int, text string) {
	if w.r.IntN(12) == 0 {
		w.b.WriteString(strings.Repeat(" ", w.r.IntN(6)) + "# comment\n")
	}
	if w.r.IntN(15) == 0 {
		w.b.WriteString("\n")
	}
	w.b.WriteString(strings.Repeat(" ", indent) + text + "\n")
}

func (w *yamlWriter) step() int { return pick(w.r, 2, 2, 2, 4, 1, 3) }

func (w *yamlWriter) key(name string) string {
	if w.r.IntN(200) == 0 {
		return pick(w.r, "Name", "nme", "'name'", name+" ")
	}
	return name
}

// mapping writes the keys of a mapping; first, if not empty, is the text
// before the first key ("- " of a sequence item).
func (w *yamlWriter) mapping(indent int, first string, fields []string, kinds map[string]string) {
	prefix := first
	for _, f := range fields {
		if w.r.IntN(5) == 0 {
			continue
		}
		at := indent
		if prefix != "" {
			at = indent - len(prefix)
		}
		switch kinds[f] {
		case "webhook", "connectionInfo":
			w.line(at, prefix+w.key(f)+":"+pick(w.r, "", " # nested"))
			prefix = ""
			w.nested(indent, f)
		case "matchConditions":
			w.line(at, prefix+w.key(f)+":")
			prefix = ""
			seq := indent + pick(w.r, 0, 0, 2, 1)
			for range w.r.IntN(3) + 1 {
				dash := "-" + strings.Repeat(" ", pick(w.r, 1, 1, 2))
				w.mapping(seq+len(dash), dash, []string{"expression"}, map[string]string{})
			}
		default:
			w.line(at, prefix+w.key(f)+":"+pick(w.r, " ", " ", "  ")+generateScalar(w.r, kinds[f]))
			prefix = ""
		}
	}
	if prefix != "" {
		w.line(indent-len(prefix), prefix+"type: RBAC")
	}
}

func (w *yamlWriter) nested(indent int, what string) {
	inner := indent + w.step()
	switch what {
	case "webhook":
		w.mapping(inner, "", []string{"authorizedTTL", "unauthorizedTTL", "timeout", "cacheAuthorizedRequests", "cacheUnauthorizedRequests",
			"subjectAccessReviewVersion", "matchConditionSubjectAccessReviewVersion", "failurePolicy", "connectionInfo", "matchConditions"},
			map[string]string{"authorizedTTL": "duration", "unauthorizedTTL": "duration", "timeout": "duration",
				"cacheAuthorizedRequests": "bool", "cacheUnauthorizedRequests": "bool", "connectionInfo": "connectionInfo", "matchConditions": "matchConditions"})
	case "connectionInfo":
		w.mapping(inner, "", []string{"type", "kubeConfigFile"}, map[string]string{})
	}
}

func generateYAML(r *rand.Rand) string {
	w := &yamlWriter{r: r}
	if r.IntN(5) == 0 {
		w.b.WriteString("---\n")
	}
	root := pick(r, 0, 0, 0, 2)
	w.line(root, "apiVersion: "+pick(r, "apiserver.config.k8s.io/v1", "apiserver.config.k8s.io/v1beta1", "'apiserver.config.k8s.io/v1alpha1'",
		"\"apiserver.config.k8s.io/v1\"", "apiserver.config.k8s.io/v2", "apiserver.config.k8s.io/__internal"))
	w.line(root, "kind: "+pick(r, "AuthorizationConfiguration", "AuthorizationConfiguration", "'AuthorizationConfiguration'", "TracingConfiguration"))
	w.line(root, "authorizers:"+pick(r, "", " # chain"))
	seq := root + pick(r, 0, 0, 2, 1)
	for range r.IntN(4) + 1 {
		dash := "-" + strings.Repeat(" ", pick(r, 1, 1, 1, 3))
		w.mapping(seq+len(dash), dash, []string{"type", "name", "webhook"}, map[string]string{"webhook": "webhook"})
	}
	if r.IntN(30) == 0 {
		w.line(root, fmt.Sprintf("extra: %d", r.IntN(10)))
	}
	return w.b.String()
}
