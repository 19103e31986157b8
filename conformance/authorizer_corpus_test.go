package conformance

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/gatehouse-dev/gatehouse/authorizer"
	"github.com/gatehouse-dev/gatehouse/authorizer/authorizertest"
)

// The corpus of the webhook differential tests: requests, webhook answers
// (with faults), and webhook configurations, generated from fixed seeds.

// azNamedAttributes is one request of the corpus.
type azNamedAttributes struct {
	name  string
	attrs *authorizer.Attributes
}

func azCorpusUsers() []*authorizer.User {
	return []*authorizer.User{
		nil,
		{},
		{Name: "jane"},
		{Name: "jane", UID: "uid-1", Groups: []string{"devs", "system:authenticated"}},
		{Name: "system:serviceaccount:kube-system:foo", Groups: []string{"system:serviceaccounts", "system:serviceaccounts:kube-system"}},
		{Name: "bob", Groups: []string{}},
		{Name: "bob", Extra: map[string][]string{"scopes": {"a", "b"}, "alpha": {"z"}, "empty": {}, "nil": nil}},
		{Name: "bob", Extra: map[string][]string{}},
		{Name: "<script>&\"quotes\"\\", Groups: []string{"a\nb", "tab\there", "\u2028sep\u2029", "\x00\x1f\x7f"}},
		{Name: "utf8 é 日本 🎉", UID: "\ufffd"},
		{Name: "bad\xff\xfeutf8", Groups: []string{"\xc3", "ok"}, Extra: map[string][]string{"\xffkey": {"\xfe"}}},
	}
}

func azCorpusTargets() []azNamedAttributes {
	big := strings.Repeat("n", 10000)
	return []azNamedAttributes{
		{"pods", &authorizer.Attributes{Verb: "get", ResourceRequest: true, Namespace: "default", APIVersion: "v1", Resource: "pods", Name: "web-1", Path: "/api/v1/namespaces/default/pods/web-1"}},
		{"empty resource", &authorizer.Attributes{ResourceRequest: true}},
		{"all fields", &authorizer.Attributes{Verb: "update", ResourceRequest: true, Namespace: "kube-system", APIGroup: "apps", APIVersion: "v1", Resource: "deployments", Subresource: "scale", Name: "coredns"}},
		{"crd", &authorizer.Attributes{Verb: "create", ResourceRequest: true, Namespace: "ns", APIGroup: "example.com", APIVersion: "v1alpha1", Resource: "widgets"}},
		{"list with field selector", &authorizer.Attributes{Verb: "list", ResourceRequest: true, APIVersion: "v1", Resource: "pods",
			FieldSelector: []authorizer.FieldRequirement{
				{Field: "spec.nodeName", Operator: selection.Equals, Value: "node-1"},
				{Field: "a", Operator: selection.DoubleEquals, Value: ""},
				{Field: "b", Operator: selection.In, Value: "x"},
				{Field: "c", Operator: selection.NotEquals, Value: "y"},
				{Field: "d", Operator: selection.NotIn, Value: "z"},
				{Field: "e", Operator: selection.Exists, Value: "dropped"},
			}}},
		{"field selector all dropped", &authorizer.Attributes{Verb: "list", ResourceRequest: true, Resource: "pods",
			FieldSelector: []authorizer.FieldRequirement{{Field: "x", Operator: selection.GreaterThan, Value: "1"}}}},
		{"watch with label selector", &authorizer.Attributes{Verb: "watch", ResourceRequest: true, APIVersion: "v1", Resource: "configmaps", Namespace: "n",
			LabelSelector: []authorizer.LabelRequirement{
				{Key: "app", Operator: selection.In, Values: []string{"web", "api"}},
				{Key: "tier", Operator: selection.NotIn, Values: []string{"db"}},
				{Key: "env", Operator: selection.Equals, Values: []string{"prod"}},
				{Key: "x", Operator: selection.DoubleEquals, Values: []string{"1"}},
				{Key: "y", Operator: selection.NotEquals, Values: []string{"2"}},
				{Key: "example.com/owner", Operator: selection.Exists},
				{Key: "z", Operator: selection.DoesNotExist},
				{Key: "gen", Operator: selection.GreaterThan, Values: []string{"3"}},
				{Key: "gen2", Operator: selection.LessThan, Values: []string{"9"}},
			}}},
		{"label selector all dropped", &authorizer.Attributes{Verb: "list", ResourceRequest: true, Resource: "pods",
			LabelSelector: []authorizer.LabelRequirement{{Key: "gen", Operator: selection.GreaterThan, Values: []string{"3"}}}}},
		{"both selectors", &authorizer.Attributes{Verb: "deletecollection", ResourceRequest: true, Resource: "secrets", Namespace: "n",
			FieldSelector: []authorizer.FieldRequirement{{Field: "type", Operator: selection.Equals, Value: "Opaque"}},
			LabelSelector: []authorizer.LabelRequirement{{Key: "a", Operator: selection.Exists}}}},
		{"healthz", &authorizer.Attributes{Verb: "get", Path: "/healthz"}},
		{"empty non-resource", &authorizer.Attributes{}},
		{"non-resource with resource fields", &authorizer.Attributes{Verb: "post", Path: "/apis", Namespace: "ignored", Resource: "ignored"}},
		{"odd strings", &authorizer.Attributes{Verb: "get", ResourceRequest: true, Namespace: "<ns>&", Resource: "p\"o\\ds", Name: "\u2028\xff"}},
		{"large but cacheable", &authorizer.Attributes{Verb: "get", ResourceRequest: true, Name: big[:9992-len("getpods")], Resource: "pods"}},
		{"too large to cache", &authorizer.Attributes{Verb: "get", ResourceRequest: true, Name: big, Resource: "pods"}},
		{"large path", &authorizer.Attributes{Verb: "get", Path: "/" + big}},
		{"large path on resource", &authorizer.Attributes{Verb: "get", ResourceRequest: true, Resource: "pods", Path: "/" + big}},
	}
}

// azCorpusAttributes crosses every target with every user.
func azCorpusAttributes() []azNamedAttributes {
	var out []azNamedAttributes
	for _, tgt := range azCorpusTargets() {
		for i, u := range azCorpusUsers() {
			a := *tgt.attrs
			a.User = u
			out = append(out, azNamedAttributes{fmt.Sprintf("%s/user%d", tgt.name, i), &a})
		}
	}
	return out
}

// azWebhookAnswer is how the fake webhook answers: a status for well-formed
// answers, faults for the next requests in order, and a fault for every
// request after those.
type azWebhookAnswer struct {
	name   string
	status authorizationv1.SubjectAccessReviewStatus
	queue  []authorizertest.Fault
	always *authorizertest.Fault
	// slow answers need a short webhook timeout.
	timeout time.Duration
}

func azAlways(f authorizertest.Fault) *authorizertest.Fault { return &f }

func azCorpusAnswers() []azWebhookAnswer {
	ok := func(allowed, denied bool, reason string) authorizationv1.SubjectAccessReviewStatus {
		return authorizationv1.SubjectAccessReviewStatus{Allowed: allowed, Denied: denied, Reason: reason}
	}
	body := func(code int, ct, b string) *authorizertest.Fault {
		return azAlways(authorizertest.Fault{Status: code, ContentType: ct, Body: []byte(b)})
	}
	answers := []azWebhookAnswer{
		{name: "allow", status: ok(true, false, "")},
		{name: "allow with reason", status: ok(true, false, "rbac says yes")},
		{name: "deny", status: ok(false, true, "no way")},
		{name: "no opinion", status: ok(false, false, "")},
		{name: "no opinion with reason", status: ok(false, false, "not mine")},
		{name: "allowed and denied", status: ok(true, true, "confused")},
		{name: "evaluation error ignored", status: authorizationv1.SubjectAccessReviewStatus{Allowed: true, EvaluationError: "partial"}},
		{name: "unicode reason", status: ok(false, true, "日本 <b>&</b>\n")},

		{name: "no kind", always: body(200, "application/json", `{"status":{"allowed":true,"reason":"bare"}}`)},
		{name: "kind only", always: body(200, "application/json", `{"kind":"SubjectAccessReview","status":{"allowed":true}}`)},
		{name: "v1beta1 body", always: body(200, "application/json", `{"apiVersion":"authorization.k8s.io/v1beta1","kind":"SubjectAccessReview","status":{"allowed":true}}`)},
		{name: "v1 body", always: body(200, "application/json", `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","status":{"allowed":true}}`)},
		{name: "status kind on 200", always: body(200, "application/json", `{"apiVersion":"v1","kind":"Status","status":"Failure","code":500,"message":"x"}`)},
		{name: "other kind", always: body(200, "application/json", `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","status":{"allowed":true}}`)},
		{name: "unknown group", always: body(200, "application/json", `{"apiVersion":"foo/v1","status":{"allowed":true}}`)},
		{name: "bad apiVersion", always: body(200, "application/json", `{"apiVersion":"a/b/c","status":{"allowed":true}}`)},
		{name: "capitalized Kind key", always: body(200, "application/json", `{"Kind":"SubjectAccessReview","status":{"allowed":true}}`)},
		{name: "capitalized field", always: body(200, "application/json", `{"status":{"Allowed":true}}`)},
		{name: "string bool", always: body(200, "application/json", `{"status":{"allowed":"true"}}`)},
		{name: "number bool", always: body(200, "application/json", `{"status":{"denied":1}}`)},
		{name: "duplicate keys", always: body(200, "application/json", `{"status":{"allowed":true},"status":{"denied":true}}`)},
		{name: "bad metadata", always: body(200, "application/json", `{"metadata":{"creationTimestamp":"bad"},"status":{"allowed":true}}`)},
		{name: "bad spec", always: body(200, "application/json", `{"spec":{"user":5},"status":{"allowed":true}}`)},
		{name: "empty body", always: body(200, "application/json", ``)},
		{name: "null", always: body(200, "application/json", `null`)},
		{name: "status null", always: body(200, "application/json", `{"status":null}`)},
		{name: "array", always: body(200, "application/json", `[1]`)},
		{name: "invalid json", always: body(200, "application/json", `{"status":`)},
		{name: "trailing garbage", always: body(200, "application/json", `{"status":{"allowed":true}} x`)},
		{name: "html content type", always: body(200, "text/html", `{"status":{"allowed":true}}`)},
		{name: "no content type", always: body(200, "", `{"status":{"allowed":true}}`)},
		{name: "bad content type", always: body(200, "a b", `{"status":{"allowed":true}}`)},
		{name: "201", always: body(201, "application/json", `{"status":{"allowed":true}}`)},
		{name: "204 empty", always: body(204, "application/json", ``)},
		{name: "207", always: body(207, "application/json", `{"status":{"allowed":true}}`)},
		{name: "yaml body", always: body(200, "application/yaml", "status:\n  allowed: true\n  reason: from YAML\n")},
		{name: "yaml list", always: body(200, "application/yaml", "- a\n")},
		{name: "protobuf body", always: body(200, "application/vnd.kubernetes.protobuf", string(azProtobufReview(true)))},
		{name: "protobuf garbage", always: body(200, "application/vnd.kubernetes.protobuf", "k8s\x00\x0a\xff")},
		{name: "huge reason", always: body(200, "application/json", `{"status":{"denied":true,"reason":"`+strings.Repeat("r", 100000)+`"}}`)},
	}
	for _, code := range []int{400, 401, 403, 404, 409, 422, 429, 500, 502, 503, 504} {
		answers = append(answers,
			azWebhookAnswer{name: fmt.Sprintf("%d json", code), always: body(code, "application/json", `{"status":{"allowed":true}}`)},
			azWebhookAnswer{name: fmt.Sprintf("%d text", code), always: body(code, "text/plain", "  went wrong\n")},
		)
	}
	answers = append(answers,
		azWebhookAnswer{name: "500 status forbidden", always: body(500, "application/json", `{"kind":"Status","apiVersion":"v1","status":"Failure","code":403,"reason":"Forbidden","message":"nope"}`)},
		azWebhookAnswer{name: "403 status internal", always: body(403, "application/json", `{"kind":"Status","apiVersion":"v1","status":"Failure","code":500,"reason":"InternalError","message":"nope"}`)},
		azWebhookAnswer{name: "403 status no version", always: body(403, "application/json", `{"kind":"Status","status":"Failure","code":500,"message":"nope"}`)},
		azWebhookAnswer{name: "403 status success", always: body(403, "application/json", `{"kind":"Status","apiVersion":"v1","status":"Success","code":500}`)},
		azWebhookAnswer{name: "400 status timeout reason", always: body(400, "application/json", `{"kind":"Status","apiVersion":"v1","status":"Failure","code":400,"reason":"Timeout","message":"slow"}`)},
		azWebhookAnswer{name: "400 status retry after", always: body(400, "application/json", `{"kind":"Status","apiVersion":"v1","status":"Failure","code":400,"message":"later","details":{"retryAfterSeconds":3}}`)},
		azWebhookAnswer{name: "404 retry-after 1", always: azAlways(authorizertest.Fault{Status: 404, ContentType: "text/plain", RetryAfter: "1", Body: []byte("nf")})},
		azWebhookAnswer{name: "429 retry-after 0", always: azAlways(authorizertest.Fault{Status: 429, RetryAfter: "0", Body: []byte("{}")})},
		azWebhookAnswer{name: "500 retry-after 0", always: azAlways(authorizertest.Fault{Status: 500, RetryAfter: "0", ContentType: "text/plain", Body: []byte("busy")})},
		azWebhookAnswer{name: "503 retry-after 0", always: azAlways(authorizertest.Fault{Status: 503, RetryAfter: "0", ContentType: "text/plain", Body: []byte("busy")})},
		azWebhookAnswer{name: "503 retry-after -1", always: azAlways(authorizertest.Fault{Status: 503, RetryAfter: "-1", Body: []byte("x")})},
		azWebhookAnswer{name: "503 retry-after date", always: azAlways(authorizertest.Fault{Status: 503, RetryAfter: "Wed, 21 Oct 2015 07:28:00 GMT", Body: []byte("x")})},
		azWebhookAnswer{name: "reset", always: azAlways(authorizertest.Fault{Reset: true})},
		azWebhookAnswer{name: "500 then allow", status: ok(true, false, "second"), queue: []authorizertest.Fault{{Status: 500, Body: []byte("x")}}},
		azWebhookAnswer{name: "500 500 504 then deny", status: ok(false, true, "fourth"), queue: []authorizertest.Fault{{Status: 500}, {Status: 500}, {Status: 504}}},
		azWebhookAnswer{name: "reset then allow", status: ok(true, false, "after reset"), queue: []authorizertest.Fault{{Reset: true}}},
		azWebhookAnswer{name: "429 then allow", status: ok(true, false, "after 429"), queue: []authorizertest.Fault{{Status: 429}}},
		azWebhookAnswer{name: "retry-after twice then allow", status: ok(true, false, "after 503s"), queue: []authorizertest.Fault{{Status: 503, RetryAfter: "0"}, {Status: 503, RetryAfter: "0"}}},
		azWebhookAnswer{name: "404 then allow", status: ok(true, false, "never"), queue: []authorizertest.Fault{{Status: 404}}},
		azWebhookAnswer{name: "four failures then allow", status: ok(true, false, "fifth"), queue: []authorizertest.Fault{{Status: 500}, {Reset: true}, {Status: 429}, {Status: 504}}},
		azWebhookAnswer{name: "five failures", status: ok(true, false, "sixth"), queue: []authorizertest.Fault{{Status: 500}, {Status: 500}, {Status: 500}, {Status: 500}, {Status: 500}}},
		azWebhookAnswer{name: "hang", always: azAlways(authorizertest.Fault{Hang: true}), timeout: 300 * time.Millisecond},
		azWebhookAnswer{name: "latency under timeout", status: ok(true, false, "slow"), always: azAlways(authorizertest.Fault{Latency: 20 * time.Millisecond}), timeout: time.Second},
	)
	return answers
}

// azWebhookConfig is the configuration of both webhooks of a case.
type azWebhookConfig struct {
	version                        string
	policy                         string
	authorizedTTL, unauthorizedTTL time.Duration
	conditions                     []string
}

// azConditionSets are the match conditions of the corpus: none, KEP-3221's
// three (corrected), conditions that fail on some requests, and conditions
// on the selectors, the user and extra.
var azConditionSets = [][]string{
	nil,
	{"has(request.resourceAttributes)", "request.resourceAttributes.namespace == 'kube-system'", "!('system:serviceaccounts:kube-system' in request.groups)"},
	{"request.resourceAttributes.namespace != 'default'"},
	{"request.resourceAttributes.verb == 'get'", "request.user == 'nobody'"},
	{"has(request.resourceAttributes) && has(request.resourceAttributes.labelSelector)", "request.resourceAttributes.labelSelector.requirements.exists(r, r.key == 'app')"},
	{"!has(request.resourceAttributes) || !has(request.resourceAttributes.fieldSelector) || request.resourceAttributes.fieldSelector.requirements.all(r, r.operator == 'In')"},
	{"'scopes' in request.extra ? request.extra['scopes'].size() > 1 : true", "request.uid != 'uid-1'"},
	{"request.groups.exists(g, g.startsWith('system:'))"},
	{"has(request.nonResourceAttributes) ? request.nonResourceAttributes.path.startsWith('/heal') : request.resourceAttributes.resource.size() > 0"},
}

func azCorpusConfigs() []azWebhookConfig {
	var out []azWebhookConfig
	for _, v := range []string{"v1", "v1beta1"} {
		for _, p := range []string{"NoOpinion", "Deny"} {
			out = append(out, azWebhookConfig{version: v, policy: p, authorizedTTL: 5 * time.Minute, unauthorizedTTL: 30 * time.Second})
		}
	}
	return out
}

// azMutations derive a request from another; the cache tells them apart or
// not, and both implementations must agree.
func azMutations() []struct {
	name string
	fn   func(a authorizer.Attributes) authorizer.Attributes
} {
	type m = struct {
		name string
		fn   func(a authorizer.Attributes) authorizer.Attributes
	}
	withUser := func(a authorizer.Attributes, f func(u *authorizer.User)) authorizer.Attributes {
		u := authorizer.User{}
		if a.User != nil {
			u = *a.User
		}
		f(&u)
		a.User = &u
		return a
	}
	return []m{
		{"same", func(a authorizer.Attributes) authorizer.Attributes { return a }},
		{"path changed", func(a authorizer.Attributes) authorizer.Attributes { a.Path += "/x"; return a }},
		{"verb changed", func(a authorizer.Attributes) authorizer.Attributes { a.Verb += "x"; return a }},
		{"namespace changed", func(a authorizer.Attributes) authorizer.Attributes { a.Namespace += "x"; return a }},
		{"nil user to empty user", func(a authorizer.Attributes) authorizer.Attributes {
			return withUser(a, func(*authorizer.User) {})
		}},
		{"groups nil to empty", func(a authorizer.Attributes) authorizer.Attributes {
			return withUser(a, func(u *authorizer.User) {
				if len(u.Groups) == 0 {
					u.Groups = []string{}
				}
			})
		}},
		{"group order", func(a authorizer.Attributes) authorizer.Attributes {
			return withUser(a, func(u *authorizer.User) {
				if len(u.Groups) > 1 {
					g := append([]string(nil), u.Groups...)
					g[0], g[1] = g[1], g[0]
					u.Groups = g
				}
			})
		}},
		{"extra nil value to empty", func(a authorizer.Attributes) authorizer.Attributes {
			return withUser(a, func(u *authorizer.User) {
				e := map[string][]string{}
				for k, v := range u.Extra {
					e[k] = v
				}
				e["nil"] = []string{}
				u.Extra = e
			})
		}},
		{"extra nil map to empty", func(a authorizer.Attributes) authorizer.Attributes {
			return withUser(a, func(u *authorizer.User) {
				if u.Extra == nil {
					u.Extra = map[string][]string{}
				}
			})
		}},
		{"invalid byte swapped", func(a authorizer.Attributes) authorizer.Attributes {
			return withUser(a, func(u *authorizer.User) { u.Name = strings.ReplaceAll(u.Name, "\xff", "\xfe") })
		}},
		{"invalid byte to replacement char", func(a authorizer.Attributes) authorizer.Attributes {
			return withUser(a, func(u *authorizer.User) { u.Name = strings.ReplaceAll(u.Name, "\xff", "\ufffd") })
		}},
		{"uid changed", func(a authorizer.Attributes) authorizer.Attributes {
			return withUser(a, func(u *authorizer.User) { u.UID += "1" })
		}},
		{"dropped requirement added", func(a authorizer.Attributes) authorizer.Attributes {
			a.FieldSelector = append(append([]authorizer.FieldRequirement(nil), a.FieldSelector...),
				authorizer.FieldRequirement{Field: "q", Operator: selection.Exists})
			return a
		}},
		{"label values nil to empty", func(a authorizer.Attributes) authorizer.Attributes {
			var ls []authorizer.LabelRequirement
			for _, r := range a.LabelSelector {
				if r.Values == nil {
					r.Values = []string{}
				}
				ls = append(ls, r)
			}
			a.LabelSelector = ls
			return a
		}},
		{"resource to non-resource", func(a authorizer.Attributes) authorizer.Attributes { a.ResourceRequest = !a.ResourceRequest; return a }},
	}
}

// azRandomCase is one case of the random part of the corpus.
type azRandomCase struct {
	name     string
	cfg      azWebhookConfig
	answer   azWebhookAnswer
	requests []*authorizer.Attributes
}

// azRandomCases draws n cases from a fixed seed: a configuration (with caching
// on or off), an answer and one to three requests, the later ones derived
// from the first.
func azRandomCases(n int, seed uint64) []azRandomCase {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	attrs := azCorpusAttributes()
	answers := azCorpusAnswers()
	muts := azMutations()
	ttls := []struct{ a, u time.Duration }{{5 * time.Minute, 30 * time.Second}, {0, 30 * time.Second}, {5 * time.Minute, 0}, {0, 0}}
	var out []azRandomCase
	for i := 0; i < n; i++ {
		cfg := azCorpusConfigs()[r.IntN(4)]
		ttl := ttls[r.IntN(len(ttls))]
		cfg.authorizedTTL, cfg.unauthorizedTTL = ttl.a, ttl.u
		cfg.conditions = azConditionSets[r.IntN(len(azConditionSets))]
		ans := answers[r.IntN(len(answers))]
		if ans.timeout > 200*time.Millisecond || ans.name == "hang" {
			ans = answers[0] // keep the random part fast
		}
		first := attrs[r.IntN(len(attrs))]
		c := azRandomCase{cfg: cfg, answer: ans, requests: []*authorizer.Attributes{first.attrs}}
		names := []string{first.name}
		for k := r.IntN(3); k > 0; k-- {
			mu := muts[r.IntN(len(muts))]
			next := mu.fn(*c.requests[len(c.requests)-1])
			c.requests = append(c.requests, &next)
			names = append(names, mu.name)
		}
		c.name = fmt.Sprintf("%03d %s %s a=%s u=%s mc=%d %s [%s]", i, cfg.version, cfg.policy, cfg.authorizedTTL, cfg.unauthorizedTTL, len(cfg.conditions), ans.name, strings.Join(names, " > "))
		out = append(out, c)
	}
	return out
}

// azProtobufReview is a SubjectAccessReview answer in Kubernetes' protobuf
// encoding, which kube-apiserver's webhook client also reads.
func azProtobufReview(allowed bool) []byte {
	scheme := runtime.NewScheme()
	if err := authorizationv1.AddToScheme(scheme); err != nil {
		panic(err)
	}
	var buf bytes.Buffer
	sar := &authorizationv1.SubjectAccessReview{Status: authorizationv1.SubjectAccessReviewStatus{Allowed: allowed, Reason: "from protobuf"}}
	sar.SetGroupVersionKind(authorizationv1.SchemeGroupVersion.WithKind("SubjectAccessReview"))
	if err := protobuf.NewSerializer(scheme, scheme).Encode(sar, &buf); err != nil {
		panic(err)
	}
	return buf.Bytes()
}
