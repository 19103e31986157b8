package main

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/gatehouse-dev/gatehouse/authzconfig"
)

// hintsFor returns gatehouse's advice on an AuthorizationConfiguration file:
// the mistakes seen in published configurations (early drafts of KEP-3221,
// blog posts and docs), found in the file as written. errs are
// kube-apiserver's errors on it.
func hintsFor(data []byte, errs []kubeError) []hint {
	h := &hinter{raw: string(data), hints: []hint{}}
	var doc any
	if err := yaml.Unmarshal(data, &doc); err == nil {
		if root, ok := doc.(map[string]any); ok {
			h.root(root)
		}
	}
	if _, err := authzconfig.Decode(data); err == nil {
		if _, err := authzconfig.DecodeSingleDocument(data); err != nil {
			h.add("", "the file holds more than one YAML document: kube-apiserver reads the first and ignores the others")
		}
	}
	for _, e := range errs {
		if e.Type == "Decode" && strings.Contains(e.Detail, "unknown field") {
			h.add("", "kube-apiserver reads the file strictly: an unknown field anywhere stops it from starting")
			break
		}
	}
	return h.hints
}

type hinter struct {
	raw   string
	hints []hint
}

func (h *hinter) add(path, format string, args ...any) {
	h.hints = append(h.hints, hint{Field: path, Message: fmt.Sprintf(format, args...)})
}

// The fields of each level of the file, as 1.37 knows them.
var (
	topFields            = []string{"apiVersion", "kind", "authorizers"}
	authorizerFields     = []string{"type", "name", "webhook"}
	webhookFields        = []string{"authorizedTTL", "cacheAuthorizedRequests", "unauthorizedTTL", "cacheUnauthorizedRequests", "timeout", "subjectAccessReviewVersion", "matchConditionSubjectAccessReviewVersion", "failurePolicy", "connectionInfo", "matchConditions"}
	connectionInfoFields = []string{"type", "kubeConfigFile"}
	matchConditionFields = []string{"expression"}
)

// serverHint is the advice for a webhook server given inline, as early
// drafts of the KEP did.
const serverHint = "the final API has no inline server: name it in a kubeconfig file, with connectionInfo: {type: KubeConfigFile, kubeConfigFile: /absolute/path}"

// conditionalHint is the advice for the fields of conditional
// authorization, documented for a later Kubernetes release.
const conditionalHint = "not a field of AuthorizationConfiguration in Kubernetes 1.37 (it belongs to conditional authorization, documented for a later release): remove it for a 1.37 cluster"

// misplacedWebhookFields are fields that early drafts of KEP-3221 or other
// configuration files put under webhook, with the field to use.
var misplacedWebhookFields = map[string]string{
	"name":                                 "the authorizer's name moved out of webhook in the final API: set authorizers[].name instead",
	"onError":                              "early KEP name: the final field is failurePolicy, NoOpinion or Deny",
	"server":                               serverHint,
	"url":                                  serverHint,
	"caBundle":                             serverHint,
	"clientConfig":                         serverHint,
	"kubeConfigFile":                       "kubeConfigFile belongs under connectionInfo, with type: KubeConfigFile",
	"type":                                 "the authorizer's type belongs on the authorizer, not under webhook",
	"conditionsEndpointKubeConfigContext":  conditionalHint,
	"authorizationConditionsReviewVersion": conditionalHint,
}

func (h *hinter) root(root map[string]any) {
	h.unknownFields("", root, topFields, map[string]string{
		"authorizationMode": "the legacy --authorization-mode has no field here: list the authorizers under authorizers (gatehouse authz migrate translates the flags)",
		"metadata":          "an AuthorizationConfiguration is a file, not an API object: it has no metadata",
		"spec":              "an AuthorizationConfiguration has no spec: authorizers is at the top level",
	})
	list, _ := root["authorizers"].([]any)
	for i, item := range list {
		az, ok := item.(map[string]any)
		if !ok {
			continue
		}
		h.authorizer(fmt.Sprintf("authorizers[%d]", i), az)
	}
}

func (h *hinter) authorizer(path string, az map[string]any) {
	misplaced := map[string]string{
		"onError": "early KEP name: the final field is webhook.failurePolicy, NoOpinion or Deny",
		"server":  serverHint,
	}
	for _, f := range webhookFields {
		misplaced[f] = f + " belongs under webhook"
	}
	h.unknownFields(path, az, authorizerFields, misplaced)

	typ, _ := az["type"].(string)
	if typ != "" && !slices.Contains(authzconfig.KubeAPIServerTypes(), typ) {
		for _, known := range authzconfig.KubeAPIServerTypes() {
			if strings.EqualFold(typ, known) {
				h.add(path+".type", "types are case-sensitive: %s", known)
			}
		}
	}
	if name, has := az["name"]; typ != "" && typ != authzconfig.TypeWebhook && slices.Contains(authzconfig.KubeAPIServerTypes(), typ) && (!has || name == nil || name == "") {
		h.add(path+".name", "kube-apiserver requires a %s authorizer to be named after its lowercased type: name: %s", typ, strings.ToLower(typ))
	}
	if wh, ok := az["webhook"].(map[string]any); ok {
		h.webhook(path+".webhook", wh)
	}
}

func (h *hinter) webhook(path string, wh map[string]any) {
	h.unknownFields(path, wh, webhookFields, misplacedWebhookFields)

	for _, ttl := range []struct{ field, cache, def string }{
		{"authorizedTTL", "cacheAuthorizedRequests", "5m"},
		{"unauthorizedTTL", "cacheUnauthorizedRequests", "30s"},
	} {
		v, has := wh[ttl.field]
		if !has || !isZeroDuration(v) {
			continue
		}
		if off, _ := wh[ttl.cache].(bool); wh[ttl.cache] != nil && !off {
			continue // cache switched off: the TTL does not matter
		}
		h.add(path+"."+ttl.field, "a zero TTL is defaulted to %s, so decisions are still cached: to turn the cache off, set %s: false", ttl.def, ttl.cache)
	}

	if fp, ok := wh["failurePolicy"].(string); ok {
		switch {
		case fp == authzconfig.FailurePolicyNoOpinion || fp == authzconfig.FailurePolicyDeny:
		case strings.EqualFold(fp, "Fail"):
			h.add(path+".failurePolicy", "Fail is admission webhooks' word: an authorization webhook's is Deny")
		case strings.EqualFold(fp, "Ignore"):
			h.add(path+".failurePolicy", "Ignore is admission webhooks' word: an authorization webhook's is NoOpinion")
		case strings.EqualFold(fp, authzconfig.FailurePolicyNoOpinion) || strings.EqualFold(fp, authzconfig.FailurePolicyDeny):
			h.add(path+".failurePolicy", "values are case-sensitive: NoOpinion or Deny")
		}
	}

	if ci, ok := wh["connectionInfo"].(map[string]any); ok {
		cpath := path + ".connectionInfo"
		h.unknownFields(cpath, ci, connectionInfoFields, map[string]string{
			"server":     serverHint,
			"url":        serverHint,
			"kubeConfig": "the field is kubeConfigFile",
			"kubeconfig": "the field is kubeConfigFile",
		})
		switch typ, _ := ci["type"].(string); {
		case typ == "KubeConfig":
			h.add(cpath+".type", "KubeConfig is the early KEP name: the final value is KubeConfigFile")
		case typ == authzconfig.ConnectionTypeInClusterConfig:
			h.add(cpath+".type", "kube-apiserver accepts InClusterConfig when it validates the file, then crashes when it builds the webhook: it is for generic apiservers only; kube-apiserver needs KubeConfigFile")
		case typ != authzconfig.ConnectionTypeKubeConfigFile && strings.EqualFold(typ, authzconfig.ConnectionTypeKubeConfigFile),
			typ != authzconfig.ConnectionTypeInClusterConfig && strings.EqualFold(typ, authzconfig.ConnectionTypeInClusterConfig):
			h.add(cpath+".type", "values are case-sensitive: KubeConfigFile or InClusterConfig")
		}
	}

	conds, _ := wh["matchConditions"].([]any)
	if len(conds) > 0 {
		if _, has := wh["matchConditionSubjectAccessReviewVersion"]; !has {
			h.add(path+".matchConditionSubjectAccessReviewVersion", "match conditions need matchConditionSubjectAccessReviewVersion: v1 (the only value)")
		}
	}
	for i, c := range conds {
		cond, ok := c.(map[string]any)
		if !ok {
			continue
		}
		mpath := fmt.Sprintf("%s.matchConditions[%d]", path, i)
		h.unknownFields(mpath, cond, matchConditionFields, map[string]string{
			"name": "authorization match conditions have no name (admission webhooks' have one)",
		})
		if expr, ok := cond["expression"].(string); ok {
			h.expression(mpath+".expression", expr)
		}
	}
}

// requestUserFields are what request.user.X was meant to read in the early
// drafts: the v1 SubjectAccessReviewSpec has user (the name), groups, uid
// and extra side by side.
var requestUserFields = map[string]string{
	"groups":   "request.groups",
	"group":    "request.groups",
	"uid":      "request.uid",
	"extra":    "request.extra",
	"name":     "request.user",
	"username": "request.user",
}

// resourceAttributesFields are the string fields of resourceAttributes.
var resourceAttributesFields = []string{"namespace", "verb", "group", "version", "resource", "subresource", "name"}

var (
	requestUserRE = regexp.MustCompile(`request\.user\.([A-Za-z_]+)`)
	// A field of a string of resourceAttributes: request.resourceAttributes.resource.resource.
	stringFieldRE = regexp.MustCompile(`request\.resourceAttributes\.(namespace|verb|group|version|resource|subresource|name)\.([A-Za-z_]+)`)
)

func (h *hinter) expression(path, expr string) {
	seen := map[string]bool{}
	for _, m := range requestUserRE.FindAllStringSubmatch(expr, -1) {
		if to, ok := requestUserFields[m[1]]; ok && !seen[m[0]] {
			seen[m[0]] = true
			h.add(path, "%s does not exist: request.user is the user name, a string; use %s", m[0], to)
		}
	}
	for _, m := range stringFieldRE.FindAllStringSubmatch(expr, -1) {
		if !seen[m[0]] {
			seen[m[0]] = true
			if slices.Contains(resourceAttributesFields, m[2]) {
				h.add(path, "request.resourceAttributes.%s is a string and has no field %s: use request.resourceAttributes.%s", m[1], m[2], m[2])
			} else {
				h.add(path, "request.resourceAttributes.%s is a string and has no field %s: compare request.resourceAttributes.%s itself", m[1], m[2], m[1])
			}
		}
	}
	if singleEquals(expr) {
		h.add(path, "CEL compares with ==; a single = is a syntax error")
	}
	if tag := yamlTagBefore(h.raw, expr); tag != "" {
		h.add(path, "in YAML, an unquoted value that starts with ! is a tag: %q was read as the tag %s; quote the whole expression", tag+" "+expr, tag)
	}
}

// singleEquals reports whether expr has a lone "=" outside string literals.
func singleEquals(expr string) bool {
	var quote byte
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '=':
			prev, next := byte(0), byte(0)
			if i > 0 {
				prev = expr[i-1]
			}
			if i+1 < len(expr) {
				next = expr[i+1]
			}
			if next == '=' {
				i++
				continue
			}
			if !strings.ContainsRune("=!<>", rune(prev)) {
				return true
			}
		}
	}
	return false
}

// yamlTagBefore finds, in the raw file, a line "expression: !tag expr"
// whose value YAML read as a tag followed by expr, and returns the tag.
func yamlTagBefore(raw, expr string) string {
	if expr == "" {
		return ""
	}
	for _, line := range strings.Split(raw, "\n") {
		_, rest, ok := strings.Cut(line, "expression:")
		if !ok {
			continue
		}
		rest = strings.TrimSpace(rest)
		if !strings.HasPrefix(rest, "!") {
			continue
		}
		tag, value, ok := strings.Cut(rest, " ")
		if ok && strings.TrimSpace(value) == expr {
			return tag
		}
	}
	return ""
}

// isZeroDuration reports whether a TTL as written is zero: "0s", "0", 0.
func isZeroDuration(v any) bool {
	switch v := v.(type) {
	case string:
		if v == "0" {
			return true
		}
		d, err := time.ParseDuration(v)
		return err == nil && d == 0
	case float64:
		return v == 0
	}
	return false
}

// unknownFields advises on the fields of obj that are not in known: the
// field to use for those in misplaced, otherwise a known field of a close
// spelling.
func (h *hinter) unknownFields(path string, obj map[string]any, known []string, misplaced map[string]string) {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if slices.Contains(known, k) {
			continue
		}
		fpath := k
		if path != "" {
			fpath = path + "." + k
		}
		if advice, ok := misplaced[k]; ok {
			h.add(fpath, "%s", advice)
			continue
		}
		if near := nearest(k, known); near != "" {
			h.add(fpath, "unknown field: did you mean %s?", near)
		}
	}
}

// nearest returns the known name closest to name, if it is close: equal but
// for case, or at most two edits away.
func nearest(name string, known []string) string {
	best, bestDist := "", 3
	for _, k := range known {
		if strings.EqualFold(name, k) {
			return k
		}
		if d := editDistance(strings.ToLower(name), strings.ToLower(k)); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
