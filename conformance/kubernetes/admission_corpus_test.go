package kubernetes

import (
	"fmt"
	"math/rand/v2"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The corpus of admission objects: valid bases, mutated field by field with
// values kube-apiserver accepts and values it rejects, singly and several at
// once, and hand-written edge cases.

func admPtr[T any](v T) *T { return &v }

// admMutation changes one thing of a webhook (or, for names starting with
// "config.", of the configuration through its first webhook's owner).
type admMutation struct {
	name  string
	apply func(c *admissionregistrationv1.MutatingWebhookConfiguration, h *admissionregistrationv1.MutatingWebhook)
}

// admBaseMWCs are valid mutating configurations; their validating twins
// drop reinvocationPolicy.
func admBaseMWCs() []*admissionregistrationv1.MutatingWebhookConfiguration {
	hook := func(name string) admissionregistrationv1.MutatingWebhook {
		return admissionregistrationv1.MutatingWebhook{
			Name:         name,
			ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: admPtr("https://hook.example.com:8443/mutate")},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{"", "apps"}, APIVersions: []string{"v1"}, Resources: []string{"pods", "deployments/scale"}},
			}},
			SideEffects:             admPtr(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1", "v1beta1"},
		}
	}
	service := hook("svc.hooks.example.com")
	service.ClientConfig = admissionregistrationv1.WebhookClientConfig{
		Service:  &admissionregistrationv1.ServiceReference{Namespace: "hooks", Name: "webhook", Path: admPtr("/mutate/pods")},
		CABundle: []byte("not a PEM block"),
	}
	full := hook("full.hooks.example.com")
	full.FailurePolicy = admPtr(admissionregistrationv1.Ignore)
	full.MatchPolicy = admPtr(admissionregistrationv1.Exact)
	full.TimeoutSeconds = admPtr[int32](30)
	full.ReinvocationPolicy = admPtr(admissionregistrationv1.IfNeededReinvocationPolicy)
	full.NamespaceSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"kube-system"}}}}
	full.ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/name": "web"}}
	full.MatchConditions = []admissionregistrationv1.MatchCondition{
		{Name: "not-system", Expression: "!request.userInfo.username.startsWith('system:')"},
		{Name: "example.com/has-labels", Expression: "has(object.metadata.labels)"},
	}
	full.Rules = append(full.Rules, admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{"*"},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*/*"}, Scope: admPtr(admissionregistrationv1.NamespacedScope)},
	})
	return []*admissionregistrationv1.MutatingWebhookConfiguration{
		{ObjectMeta: metav1.ObjectMeta{Name: "one"}, Webhooks: []admissionregistrationv1.MutatingWebhook{hook("one.hooks.example.com")}},
		{ObjectMeta: metav1.ObjectMeta{Name: "two.example.com", Labels: map[string]string{"a": "b"}}, Webhooks: []admissionregistrationv1.MutatingWebhook{service, full}},
		{ObjectMeta: metav1.ObjectMeta{Name: "three"}, Webhooks: []admissionregistrationv1.MutatingWebhook{full, hook("b.hooks.example.com"), service}},
	}
}

// admToValidating is the validating twin of a mutating configuration.
func admToValidating(m *admissionregistrationv1.MutatingWebhookConfiguration) *admissionregistrationv1.ValidatingWebhookConfiguration {
	m = m.DeepCopy()
	v := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: m.ObjectMeta}
	for _, h := range m.Webhooks {
		v.Webhooks = append(v.Webhooks, admissionregistrationv1.ValidatingWebhook{
			Name: h.Name, ClientConfig: h.ClientConfig, Rules: h.Rules, FailurePolicy: h.FailurePolicy,
			MatchPolicy: h.MatchPolicy, NamespaceSelector: h.NamespaceSelector, ObjectSelector: h.ObjectSelector,
			SideEffects: h.SideEffects, TimeoutSeconds: h.TimeoutSeconds, AdmissionReviewVersions: h.AdmissionReviewVersions,
			MatchConditions: h.MatchConditions,
		})
	}
	return v
}

// admLabelSelectors are selectors kube-apiserver accepts and rejects.
func admLabelSelectors() []*metav1.LabelSelector {
	req := func(key string, op metav1.LabelSelectorOperator, values ...string) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: key, Operator: op, Values: values}}}
	}
	return []*metav1.LabelSelector{
		nil,
		{},
		{MatchLabels: map[string]string{"a": "b", "example.com/c": ""}},
		{MatchLabels: map[string]string{"a": "b c"}},
		{MatchLabels: map[string]string{"-a": "b"}},
		{MatchLabels: map[string]string{"a/b/c": "d"}},
		{MatchLabels: map[string]string{strings.Repeat("k", 64): strings.Repeat("v", 64)}},
		req("a", metav1.LabelSelectorOpIn, "x", "y"),
		req("a", metav1.LabelSelectorOpIn),
		req("a", metav1.LabelSelectorOpNotIn, "x y"),
		req("a", metav1.LabelSelectorOpExists),
		req("a", metav1.LabelSelectorOpExists, "x"),
		req("a", metav1.LabelSelectorOpDoesNotExist, "-"),
		req("a", "Gt", "1"),
		req("", metav1.LabelSelectorOpExists),
		req("UPPER.example.com/x", metav1.LabelSelectorOpIn, "_x_"),
	}
}

// admWebhookMutations are the single changes the corpus applies.
func admWebhookMutations() []admMutation {
	var ms []admMutation
	add := func(name string, f func(c *admissionregistrationv1.MutatingWebhookConfiguration, h *admissionregistrationv1.MutatingWebhook)) {
		ms = append(ms, admMutation{name, f})
	}
	// The configuration's metadata.
	for _, n := range []string{"", "Config", "a_b", "a.static.k8s.io", ".static.k8s.io", "my-webhook.k8s.io", "static.k8s.io.my-webhook", "x.static.k8s.io.", strings.Repeat("a", 253), strings.Repeat("a", 254), "a..b", "-a"} {
		add(fmt.Sprintf("config.name=%q", n), func(c *admissionregistrationv1.MutatingWebhookConfiguration, _ *admissionregistrationv1.MutatingWebhook) {
			c.Name = n
		})
	}
	add("config.generateName", func(c *admissionregistrationv1.MutatingWebhookConfiguration, _ *admissionregistrationv1.MutatingWebhook) {
		c.Name, c.GenerateName = "", "gen-"
	})
	add("config.namespace", func(c *admissionregistrationv1.MutatingWebhookConfiguration, _ *admissionregistrationv1.MutatingWebhook) {
		c.Namespace = "default"
	})
	add("config.labels", func(c *admissionregistrationv1.MutatingWebhookConfiguration, _ *admissionregistrationv1.MutatingWebhook) {
		c.Labels = map[string]string{"a b": "c", "d": "e"} // one bad entry: maps are validated in random order
	})
	add("config.annotations", func(c *admissionregistrationv1.MutatingWebhookConfiguration, _ *admissionregistrationv1.MutatingWebhook) {
		c.Annotations = map[string]string{"UPPER/x": "y", "ok": strings.Repeat("v", 1000)}
	})
	add("config.finalizers", func(c *admissionregistrationv1.MutatingWebhookConfiguration, _ *admissionregistrationv1.MutatingWebhook) {
		c.Finalizers = []string{"example.com/f", "nodomain", "example.com/f"}
	})
	add("config.resourceVersion", func(c *admissionregistrationv1.MutatingWebhookConfiguration, _ *admissionregistrationv1.MutatingWebhook) {
		c.ResourceVersion, c.Generation = "12", -1
	})
	add("config.no-webhooks", func(c *admissionregistrationv1.MutatingWebhookConfiguration, _ *admissionregistrationv1.MutatingWebhook) {
		c.Webhooks = nil
	})
	add("config.duplicate-webhook", func(c *admissionregistrationv1.MutatingWebhookConfiguration, h *admissionregistrationv1.MutatingWebhook) {
		c.Webhooks = append(c.Webhooks, *h.DeepCopy())
	})
	add("config.duplicate-empty-names", func(c *admissionregistrationv1.MutatingWebhookConfiguration, h *admissionregistrationv1.MutatingWebhook) {
		h.Name = ""
		c.Webhooks = append(c.Webhooks, *h.DeepCopy())
	})

	for _, n := range []string{"", "k8s.io", "a.b", "a.b.c", "a.b.c.", "UPPER.example.com", "a..b.com", "x_y.example.com", "-a.b.c", strings.Repeat("a.", 127) + "a", strings.Repeat("a", 64) + ".b.c"} {
		add(fmt.Sprintf("name=%q", n), func(_ *admissionregistrationv1.MutatingWebhookConfiguration, h *admissionregistrationv1.MutatingWebhook) {
			h.Name = n
		})
	}

	// Rules.
	for _, ops := range [][]admissionregistrationv1.OperationType{nil, {}, {"*"}, {"*", "CREATE"}, {"CREATE", "*"}, {"PATCH"}, {""}, {"create"}, {"CREATE", "UPDATE", "DELETE", "CONNECT"}, {"CREATE", "CREATE"}} {
		add(fmt.Sprintf("operations=%q", ops), func(_ *admissionregistrationv1.MutatingWebhookConfiguration, h *admissionregistrationv1.MutatingWebhook) {
			if len(h.Rules) > 0 {
				h.Rules[0].Operations = ops
			}
		})
	}
	for _, gs := range [][]string{nil, {"*"}, {"", "*"}, {"*", "apps"}, {""}, {"Apps", "x/y"}, {"", ""}} {
		add(fmt.Sprintf("apiGroups=%q", gs), func(_ *admissionregistrationv1.MutatingWebhookConfiguration, h *admissionregistrationv1.MutatingWebhook) {
			if len(h.Rules) > 0 {
				h.Rules[0].APIGroups = gs
			}
		})
	}
	for _, vs := range [][]string{nil, {"*"}, {"v1", ""}, {"*", "v1"}, {""}, {"V1", "v1beta1"}} {
		add(fmt.Sprintf("apiVersions=%q", vs), func(_ *admissionregistrationv1.MutatingWebhookConfiguration, h *admissionregistrationv1.MutatingWebhook) {
			if len(h.Rules) > 0 {
				h.Rules[0].APIVersions = vs
			}
		})
	}
	for _, rs := range [][]string{
		nil, {}, {""}, {"*"}, {"*/*"}, {"*/*", "pods"}, {"pods", "*/*"}, {"*", "a"}, {"a", "*"}, {"*", "a/b", "a/*", "*/b"},
		{"a/*", "a/x"}, {"a/x", "a/*"}, {"*/y", "b/y"}, {"b/y", "*/y"}, {"a/*", "*/x", "a/x"}, {"pods", "pods/status", "pods/*"},
		{"/", "a/", "/b"}, {"a/b/c", "a/*", "a/b/c"}, {"*", "*"}, {"*/*", "*/*"}, {"Pods"}, {"pods", ""},
	} {
		add(fmt.Sprintf("resources=%q", rs), func(_ *admissionregistrationv1.MutatingWebhookConfiguration, h *admissionregistrationv1.MutatingWebhook) {
			if len(h.Rules) > 0 {
				h.Rules[0].Resources = rs
			}
		})
	}
	for _, s := range []string{"*", "Cluster", "Namespaced", "", "Pods", "cluster"} {
		add(fmt.Sprintf("scope=%q", s), func(_ *admissionregistrationv1.MutatingWebhookConfiguration, h *admissionregistrationv1.MutatingWebhook) {
			if len(h.Rules) > 0 {
				h.Rules[0].Scope = admPtr(admissionregistrationv1.ScopeType(s))
			}
		})
	}
	add("rules=none", func(_ *admissionregistrationv1.MutatingWebhookConfiguration, h *admissionregistrationv1.MutatingWebhook) {
		h.Rules = nil
	})
	add("rules=empty-rule", func(_ *admissionregistrationv1.MutatingWebhookConfiguration, h *admissionregistrationv1.MutatingWebhook) {
		h.Rules = append(h.Rules, admissionregistrationv1.RuleWithOperations{})
	})
	add("rules=excluded-resources", func(_ *admissionregistrationv1.MutatingWebhookConfiguration, h *admissionregistrationv1.MutatingWebhook) {
		h.Rules = append(h.Rules, admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{"CREATE"},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{"authentication.k8s.io", "authorization.k8s.io"}, APIVersions: []string{"v1"}, Resources: []string{"tokenreviews", "subjectaccessreviews"}},
		})
	})

	// Policies.
	for _, p := range []string{"Fail", "Ignore", "", "fail", "Other"} {
		add(fmt.Sprintf("failurePolicy=%q", p), func(_ *admissionregistrationv1.MutatingWebhookConfiguration, h *admissionregistrationv1.MutatingWebhook) {
			h.FailurePolicy = admPtr(admissionregistrationv1.FailurePolicyType(p))
		})
	}
	for _, p := range []string{"Exact", "Equivalent", "", "exact"} {
		add(fmt.Sprintf("matchPolicy=%q", p), func(_ *admissionregistrationv1.MutatingWebhookConfiguration, h *admissionregistrationv1.MutatingWebhook) {
			h.MatchPolicy = admPtr(admissionregistrationv1.MatchPolicyType(p))
		})
	}
	add("sideEffects=nil", func(_ *admissionregistrationv1.MutatingWebhookConfiguration, h *admissionregistrationv1.MutatingWebhook) {
		h.SideEffects = nil
	})
	for _, s := range []string{"None", "NoneOnDryRun", "Some", "Unknown", "", "none", "<b>"} {
		add(fmt.Sprintf("sideEffects=%q", s), func(_ *admissionregistrationv1.MutatingWebhookConfiguration, h *admissionregistrationv1.MutatingWebhook) {
			h.SideEffects = admPtr(admissionregistrationv1.SideEffectClass(s))
		})
	}
	for _, ts := range []int32{0, 1, 30, 31, -1, 1 << 30, -1 << 31} {
		add(fmt.Sprintf("timeoutSeconds=%d", ts), func(_ *admissionregistrationv1.MutatingWebhookConfiguration, h *admissionregistrationv1.MutatingWebhook) {
			h.TimeoutSeconds = admPtr(ts)
		})
	}
	for _, p := range []string{"Never", "IfNeeded", "", "Always"} {
		add(fmt.Sprintf("reinvocationPolicy=%q", p), func(_ *admissionregistrationv1.MutatingWebhookConfiguration, h *admissionregistrationv1.MutatingWebhook) {
			h.ReinvocationPolicy = admPtr(admissionregistrationv1.ReinvocationPolicyType(p))
		})
	}
	for i, sel := range admLabelSelectors() {
		add(fmt.Sprintf("namespaceSelector[%d]", i), func(_ *admissionregistrationv1.MutatingWebhookConfiguration, h *admissionregistrationv1.MutatingWebhook) {
			h.NamespaceSelector = sel.DeepCopy()
		})
		add(fmt.Sprintf("objectSelector[%d]", i), func(_ *admissionregistrationv1.MutatingWebhookConfiguration, h *admissionregistrationv1.MutatingWebhook) {
			h.ObjectSelector = sel.DeepCopy()
		})
	}

	// Client configuration.
	for _, u := range []string{
		"", "https://", "https://host", "https://host:8443/a/b", "http://host/x", "HTTPS://host", "https://[::1]:443/x",
		"https://user@host/", "https://user:" + admPassword + "@host/", "https://us%20er:" + admPassword + "@host/x?y#z",
		"https://host/x#frag", "https://host/x?q=1", "https://host/x?", "https://host/x#", "https:host", "//host/x",
		"https://host/%zz", "https://user:" + admPassword + "@host/%zz", "https://h ost/", "https://host:port/",
		"https://user:" + admPassword + "@host:x/", "://nope", "https://host/\x7f", "ftp://user@/x?y#z", "https://a@b@host/",
		"/relative", "https://host:65536/", "https://" + strings.Repeat("h", 300) + "/",
	} {
		add(fmt.Sprintf("url=%q", u), func(_ *admissionregistrationv1.MutatingWebhookConfiguration, h *admissionregistrationv1.MutatingWebhook) {
			h.ClientConfig = admissionregistrationv1.WebhookClientConfig{URL: admPtr(u)}
		})
	}
	type svc struct {
		ns, name string
		port     *int32
		path     *string
	}
	for _, s := range []svc{
		{"ns", "svc", nil, nil}, {"", "", nil, nil}, {"ns", "", nil, nil}, {"", "svc", nil, nil},
		{"", "svc", admPtr[int32](0), admPtr("a")}, {"ns", "", admPtr[int32](65536), admPtr("/A")}, {"ns", "svc", admPtr[int32](0), nil}, {"ns", "svc", admPtr[int32](65535), nil},
		{"ns", "svc", admPtr[int32](65536), nil}, {"ns", "svc", admPtr[int32](-1), nil},
		{"ns", "svc", nil, admPtr("")}, {"ns", "svc", nil, admPtr("/")}, {"ns", "svc", nil, admPtr("//")}, {"ns", "svc", nil, admPtr("a")},
		{"ns", "svc", nil, admPtr("/a/")}, {"ns", "svc", nil, admPtr("/a//b")}, {"ns", "svc", nil, admPtr("/A")},
		{"ns", "svc", nil, admPtr("/a.b/c-d")}, {"ns", "svc", nil, admPtr("///")}, {"ns", "svc", nil, admPtr("/x_y/")},
		{"ns", "svc", nil, admPtr("a/b/")}, {"ns", "svc", nil, admPtr("/a/b//")}, {"ns", "svc", nil, admPtr("/" + strings.Repeat("a", 254))},
		{"NS", "Svc", nil, admPtr("?")},
	} {
		add(fmt.Sprintf("service=%+v", s), func(_ *admissionregistrationv1.MutatingWebhookConfiguration, h *admissionregistrationv1.MutatingWebhook) {
			h.ClientConfig = admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Namespace: s.ns, Name: s.name, Port: s.port, Path: s.path}}
		})
	}
	add("clientConfig=both", func(_ *admissionregistrationv1.MutatingWebhookConfiguration, h *admissionregistrationv1.MutatingWebhook) {
		h.ClientConfig = admissionregistrationv1.WebhookClientConfig{URL: admPtr("http://x"), Service: &admissionregistrationv1.ServiceReference{}}
	})
	add("clientConfig=none", func(_ *admissionregistrationv1.MutatingWebhookConfiguration, h *admissionregistrationv1.MutatingWebhook) {
		h.ClientConfig = admissionregistrationv1.WebhookClientConfig{CABundle: []byte("x")}
	})

	// Admission review versions.
	for _, vs := range [][]string{nil, {}, {"v1"}, {"v1beta1"}, {"v2"}, {"v1", "v1"}, {"V1"}, {"v1beta1", "invalid-version"}, {"", "v1"}, {"1v", "v1"}, {strings.Repeat("v", 64)}, {"v2", "v2", "V3"}, {"v1", "v2", "v1"}} {
		add(fmt.Sprintf("admissionReviewVersions=%q", vs), func(_ *admissionregistrationv1.MutatingWebhookConfiguration, h *admissionregistrationv1.MutatingWebhook) {
			h.AdmissionReviewVersions = vs
		})
	}

	// Match conditions.
	for i, mcs := range admMatchConditionSets() {
		add(fmt.Sprintf("matchConditions[%d]", i), func(_ *admissionregistrationv1.MutatingWebhookConfiguration, h *admissionregistrationv1.MutatingWebhook) {
			h.MatchConditions = append([]admissionregistrationv1.MatchCondition(nil), mcs...)
		})
	}
	return ms
}

// admExpressions are CEL expressions for match conditions and policies:
// valid ones, of other types, with syntax and type errors, and using every
// variable.
var admExpressions = []string{
	"true",
	"object.metadata.name == 'x'",
	"  has(object.metadata.labels)  ",
	"request.operation == 'CREATE' && request.userInfo.username != ''",
	"oldObject == null",
	"namespaceObject.metadata.name == 'default'",
	"authorizer.group('').resource('pods').check('create').allowed()",
	"authorizer.requestResource.check('get').allowed()",
	"params.x == 1",
	"variables.a == 1",
	"variables.b",
	"1",
	"'string'",
	"null",
	"object.x in [1, 2,",
	"object.",
	"undefinedVar",
	"[1, 2].includes(1)",
	"'a'.matches('[')",
	"isURL(object.spec.url)",
	"quantity('1Gi').isGreaterThan(quantity('1Mi'))",
	"object.metadata.name.format('x')",
	"dyn(object).size() > 1",
	"[1,2,3].all(x, x > 0)",
	"{'a': 1}.a == 1",
	"request.userInfo.extra['x'].size() > 0",
	"request.nonexistent",
	"1 +",
	"object.spec.containers.map(c, c.image).exists(i, i.startsWith('x'))",
	"string(object.metadata.name) + 'x'",
	"\n",
	"",
	"true\n&& false",
	"sets.contains([1], [1])",
	"optional.of(1).hasValue()",
	"ip('10.0.0.1').family() == 4",
	"cidr('10.0.0.0/8').containsIP('10.1.1.1')",
	"semver('1.2.3').major() == 1",
	"jsonpatch.escapeKey('a/b') == 'a~1b'",
	"object.metadata.?labels.orValue({}).size() == 0",
}

// admMatchConditionSets are lists of match conditions.
func admMatchConditionSets() [][]admissionregistrationv1.MatchCondition {
	var sets [][]admissionregistrationv1.MatchCondition
	for i, e := range admExpressions {
		sets = append(sets, []admissionregistrationv1.MatchCondition{{Name: fmt.Sprintf("c%d", i), Expression: e}})
	}
	sets = append(sets,
		nil,
		[]admissionregistrationv1.MatchCondition{},
		[]admissionregistrationv1.MatchCondition{{Name: "a", Expression: "true"}, {Name: "a", Expression: "1"}, {Name: "", Expression: " "}},
		[]admissionregistrationv1.MatchCondition{{Name: "-bad-", Expression: "true"}, {Name: "example.com/ok", Expression: "true"}, {Name: "a/b/c", Expression: "true"}},
		[]admissionregistrationv1.MatchCondition{{Name: strings.Repeat("n", 64), Expression: "true"}, {Name: "UPPER_ok.x", Expression: "true"}, {Name: "Example.com/x", Expression: "true"}},
	)
	var many []admissionregistrationv1.MatchCondition
	for i := 0; i < 65; i++ {
		many = append(many, admissionregistrationv1.MatchCondition{Name: fmt.Sprintf("m%d", i%60), Expression: "true"})
	}
	sets = append(sets, many)
	return sets
}

// admWebhookCorpus is the corpus of webhook configurations: each base with
// each single mutation on each webhook, then n random combinations of one
// to four mutations (seeded).
func admWebhookCorpus(n int) []*admissionregistrationv1.MutatingWebhookConfiguration {
	bases := admBaseMWCs()
	muts := admWebhookMutations()
	var out []*admissionregistrationv1.MutatingWebhookConfiguration
	out = append(out, bases...)
	for _, b := range bases {
		for _, m := range muts {
			for i := range b.Webhooks {
				c := b.DeepCopy()
				m.apply(c, &c.Webhooks[i])
				out = append(out, c)
				if strings.HasPrefix(m.name, "config.") {
					break
				}
			}
		}
	}
	r := rand.New(rand.NewPCG(1872, 5793))
	for range n {
		c := bases[r.IntN(len(bases))].DeepCopy()
		for range 1 + r.IntN(4) {
			if len(c.Webhooks) == 0 {
				break
			}
			muts[r.IntN(len(muts))].apply(c, &c.Webhooks[r.IntN(len(c.Webhooks))])
		}
		out = append(out, c)
	}
	return out
}
