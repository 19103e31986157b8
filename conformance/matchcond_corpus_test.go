package conformance

import (
	"fmt"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The corpus of the authorization match condition differential tests:
// requests that exercise every shape kube-apiserver's unstructured request
// can take, and expressions that read every field in every way (select,
// has(), optional chaining, whole objects, iteration, errors).

type namedSpec struct {
	name string
	spec authorizationv1.SubjectAccessReviewSpec
}

func authzCorpusRequests() []namedSpec {
	fieldReqs := []metav1.FieldSelectorRequirement{
		{Key: "spec.nodeName", Operator: metav1.FieldSelectorOpIn, Values: []string{"node-1"}},
		{Key: "metadata.name", Operator: metav1.FieldSelectorOpNotIn, Values: []string{"a", "b"}},
	}
	labelReqs := []metav1.LabelSelectorRequirement{
		{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"web"}},
		{Key: "tier", Operator: metav1.LabelSelectorOpExists},
	}
	manyGroups := make([]string, 5000)
	for i := range manyGroups {
		manyGroups[i] = fmt.Sprintf("group-%d", i)
	}
	return []namedSpec{
		{"kube-system pods", authorizationv1.SubjectAccessReviewSpec{
			User:   "system:serviceaccount:kube-system:generic-garbage-collector",
			UID:    "0a1b",
			Groups: []string{"system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"},
			Extra:  map[string]authorizationv1.ExtraValue{"authentication.kubernetes.io/credential-id": {"JTI=abc"}, "scopes": {"a", "b"}},
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: "kube-system", Verb: "list", Version: "v1", Resource: "pods",
			},
		}},
		{"field selector requirements", authorizationv1.SubjectAccessReviewSpec{
			User:   "system:node:node-1",
			Groups: []string{"system:nodes", "system:authenticated"},
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Verb: "watch", Version: "v1", Resource: "pods",
				FieldSelector: &authorizationv1.FieldSelectorAttributes{Requirements: fieldReqs},
			},
		}},
		{"label selector raw and requirements", authorizationv1.SubjectAccessReviewSpec{
			User: "jane",
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: "default", Verb: "list", Group: "apps", Version: "v1", Resource: "deployments",
				LabelSelector: &authorizationv1.LabelSelectorAttributes{RawSelector: "app=web,tier", Requirements: labelReqs},
				FieldSelector: &authorizationv1.FieldSelectorAttributes{RawSelector: "spec.nodeName=node-1"},
			},
		}},
		{"empty selectors", authorizationv1.SubjectAccessReviewSpec{
			User: "jane",
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: "default", Verb: "list", Version: "v1", Resource: "configmaps",
				LabelSelector: &authorizationv1.LabelSelectorAttributes{},
				FieldSelector: &authorizationv1.FieldSelectorAttributes{},
			},
		}},
		{"requirement without values", authorizationv1.SubjectAccessReviewSpec{
			User: "jane",
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Verb: "list", Version: "v1", Resource: "secrets",
				LabelSelector: &authorizationv1.LabelSelectorAttributes{Requirements: []metav1.LabelSelectorRequirement{{Key: "x", Operator: metav1.LabelSelectorOpDoesNotExist}}},
			},
		}},
		{"subresource", authorizationv1.SubjectAccessReviewSpec{
			User:   "alice",
			UID:    "u-2",
			Groups: []string{"dev"},
			Extra:  map[string]authorizationv1.ExtraValue{},
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: "team-a", Verb: "create", Group: "", Version: "v1", Resource: "pods", Subresource: "exec", Name: "web-0",
			},
		}},
		{"non-resource", authorizationv1.SubjectAccessReviewSpec{
			User:                  "system:anonymous",
			Groups:                []string{"system:unauthenticated"},
			NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/healthz", Verb: "get"},
		}},
		{"empty", authorizationv1.SubjectAccessReviewSpec{}},
		{"empty extra values", authorizationv1.SubjectAccessReviewSpec{
			User:  "bob",
			Extra: map[string]authorizationv1.ExtraValue{"a": {}, "b": nil},
		}},
		{"both attributes", authorizationv1.SubjectAccessReviewSpec{
			User:                  "ünïcødé",
			ResourceAttributes:    &authorizationv1.ResourceAttributes{Verb: "get", Resource: "nodes", Name: "n-ü"},
			NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/api", Verb: "get"},
		}},
		{"many groups", authorizationv1.SubjectAccessReviewSpec{
			User:               "robot",
			Groups:             manyGroups,
			ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "kube-system", Verb: "get", Version: "v1", Resource: "secrets"},
		}},
		{"long strings", authorizationv1.SubjectAccessReviewSpec{
			User:                  strings.Repeat("u", 10000),
			Groups:                []string{strings.Repeat("g", 5000)},
			NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/" + strings.Repeat("p", 5000), Verb: "get"},
		}},
	}
}

// authzCorpusExpressions are bool expressions that compile in both
// implementations.
func authzCorpusExpressions() []string {
	exprs := []string{
		// The benchmark's conditions.
		"has(request.resourceAttributes)",
		"request.resourceAttributes.namespace == 'kube-system'",
		"!('system:serviceaccounts:kube-system' in request.groups)",
		// Presence.
		"has(request.nonResourceAttributes)",
		"has(request.user)", "has(request.groups)", "has(request.extra)", "has(request.uid)",
		"has(request.resourceAttributes.fieldSelector)",
		"has(request.resourceAttributes.labelSelector)",
		"has(request.resourceAttributes.fieldSelector.rawSelector)",
		"has(request.resourceAttributes.fieldSelector.requirements)",
		"has(request.resourceAttributes.labelSelector.rawSelector)",
		"has(request.resourceAttributes.labelSelector.requirements)",
		"has(request.resourceAttributes.name)",
		"has(request.nonResourceAttributes.path)",
		"has(request.extra.scopes)",
		"has(dyn(request).resourceAttributes)",
		"has(dyn(request).foo)",
		// Optional chaining.
		"request.?resourceAttributes.namespace.orValue('') == 'kube-system'",
		"request.?resourceAttributes.?fieldSelector.hasValue()",
		"request.?resourceAttributes.?labelSelector.?rawSelector.orValue('none') == 'none'",
		"request.?nonResourceAttributes.path.orValue('/') == '/healthz'",
		"request.resourceAttributes.?subresource.orValue('') == 'exec'",
		"request.?resourceAttributes.?name.or(optional.of('x')).value() == 'x'",
		"request.extra[?'scopes'].orValue(['none']) == ['a', 'b']",
		"request.groups[?0].orValue('') == 'system:serviceaccounts'",
		"request.groups[?10].hasValue()",
		"optional.ofNonZeroValue(request.uid).hasValue()",
		"optional.ofNonZeroValue(request.extra).hasValue()",
		"optional.ofNonZeroValue(request.groups).hasValue()",
		"optional.ofNonZeroValue(dyn(request.resourceAttributes)).hasValue()",
		// Every string field.
		"request.user == 'jane'",
		"request.user.startsWith('system:')",
		"request.user.endsWith('-collector')",
		"request.user.contains(':')",
		"request.user.matches('^system:(node|serviceaccount):')",
		"request.uid == ''",
		"size(request.user) > 5",
		"request.user.size() == 4",
		"request.resourceAttributes.verb in ['get', 'list', 'watch']",
		"request.resourceAttributes.group == 'apps'",
		"request.resourceAttributes.version == 'v1'",
		"request.resourceAttributes.resource == 'pods'",
		"request.resourceAttributes.subresource == ''",
		"request.resourceAttributes.name == 'web-0'",
		"request.resourceAttributes.namespace != ''",
		"request.nonResourceAttributes.path.startsWith('/heal')",
		"request.nonResourceAttributes.verb == 'get'",
		"request.resourceAttributes.name.size() > 1",
		"request.resourceAttributes.namespace + '/' + request.resourceAttributes.name == 'team-a/web-0'",
		// Groups.
		"'system:authenticated' in request.groups",
		"request.groups.exists(g, g.startsWith('system:serviceaccounts:'))",
		"request.groups.all(g, g.startsWith('system:'))",
		"request.groups.exists_one(g, g == 'system:nodes')",
		"request.groups.filter(g, g.contains('node')).size() == 1",
		"request.groups.map(g, g.size()).exists(n, n > 20)",
		"size(request.groups) == 3",
		"request.groups.size() == 0",
		"request.groups == []",
		"request.groups == ['dev']",
		"request.groups != ['dev']",
		"request.groups[0] == 'dev'",
		"request.groups[2] == 'system:authenticated'",
		"request.groups[-1] == ''",
		"(request.groups + ['extra']).size() > 1",
		"['extra'] + request.groups == ['extra', 'dev']",
		"type(request.groups) == list",
		"dyn(request.groups)[0] == 'dev'",
		"1 in dyn(request.groups)",
		"request.groups.all(g, ['dev', g].exists(h, h == g))",
		"request.groups.exists(g, g == 'group-4999')",
		"request.groups.all(i, g, i >= 0 && g != '')",
		"request.groups.transformList(i, g, i).size() >= 0",
		// Extra.
		"request.extra == {}",
		"size(request.extra) == 2",
		"'scopes' in request.extra",
		"request.extra['scopes'] == ['a', 'b']",
		"request.extra['scopes'][1] == 'b'",
		"request.extra['missing'] == []",
		"request.extra.scopes.size() == 2",
		"request.extra.exists(k, k.startsWith('authentication.kubernetes.io/'))",
		"request.extra.all(k, request.extra[k].size() > 0)",
		"request.extra.all(k, v, v.all(s, s != ''))",
		"request.extra['a'] == [] && request.extra['b'] == []",
		"dyn(request.extra)[1] == []",
		// Selectors.
		"request.resourceAttributes.fieldSelector.requirements[0].key == 'spec.nodeName'",
		"request.resourceAttributes.fieldSelector.requirements[0].operator == 'In'",
		"request.resourceAttributes.fieldSelector.requirements[1].values == ['a', 'b']",
		"request.resourceAttributes.fieldSelector.requirements.size() == 2",
		"request.resourceAttributes.fieldSelector.requirements.exists(r, r.key == 'metadata.name' && 'b' in r.values)",
		"request.resourceAttributes.fieldSelector.rawSelector == 'spec.nodeName=node-1'",
		"request.resourceAttributes.labelSelector.rawSelector.contains('app')",
		"request.resourceAttributes.labelSelector.requirements.all(r, r.operator in ['In', 'Exists'])",
		"request.resourceAttributes.labelSelector.requirements[0].values == []",
		"dyn(request.resourceAttributes.labelSelector).size() == 1",
		"request.resourceAttributes.?fieldSelector.requirements.orValue([]).size() == 2",
		// Whole objects: kube-apiserver's maps.
		"type(request) == map",
		"type(request.resourceAttributes) == map",
		"dyn(request).size() == 5",
		"dyn(request).size() == 4",
		"dyn(request.resourceAttributes).size() == 7",
		"dyn(request.resourceAttributes).size() == 8",
		"dyn(request.nonResourceAttributes).size() == 2",
		"'user' in dyn(request)",
		"'resourceAttributes' in dyn(request)",
		"dyn(request).exists(k, k == 'extra')",
		"dyn(request).all(k, k != '')",
		"dyn(request)['user'] == request.user",
		"dyn(request).resourceAttributes.namespace == 'default'",
		"dyn(request).nonResourceAttributes.path == '/healthz'",
		"request.nonResourceAttributes == dyn({'path': '/healthz', 'verb': 'get'})",
		"dyn({'path': '/healthz', 'verb': 'get'}) == request.nonResourceAttributes",
		"request.resourceAttributes == request.resourceAttributes",
		"request == request",
		"dyn(request) == dyn(request)",
		"[request][0].user == request.user",
		"[request.resourceAttributes][0].namespace == 'kube-system'",
		"[request.resourceAttributes].exists(r, has(r.fieldSelector))",
		"{'r': request}['r'].groups.size() >= 0",
		"dyn(request.resourceAttributes) == {'namespace': 'team-a', 'verb': 'create', 'group': '', 'version': 'v1', 'resource': 'pods', 'subresource': 'exec', 'name': 'web-0'}",
		"dyn(request.resourceAttributes.fieldSelector) == {'rawSelector': 'spec.nodeName=node-1'}",
		"request.?resourceAttributes.orValue(dyn({})).size() > 0",
		"dyn(request).map(k, k).size() >= 4",
		"optional.of(request).value().user == request.user",
		"dyn(request.nonResourceAttributes).exists(k, v, k == 'verb' && v == 'get')",
		// Errors.
		"request.groups[100] == 'x'",
		"dyn(request).foo == 1",
		"dyn(request.user) + 1 == 2",
		"1 / (size(request.groups) - size(request.groups)) == 0",
		"int(request.user) == 0",
		"request.extra['missing'].size() == 0",
		"request.resourceAttributes.fieldSelector.requirements[5].key == ''",
		"dyn(request.groups)['x'] == 'y'",
		"dyn(request.resourceAttributes.fieldSelector).requirements[0].values[3] == ''",
		"request.user.matches(request.uid)",
		"dyn(request.resourceAttributes)[1] == 1",
		"dyn(request.nonResourceAttributes)['x'] == ''",
		"request.resourceAttributes.name == 'x' || request.nonResourceAttributes.path == '/'",
		"request.resourceAttributes.name == 'x' && request.nonResourceAttributes.path == '/'",
		"has(request.nonResourceAttributes) ? request.nonResourceAttributes.path == '/healthz' : request.resourceAttributes.verb == 'get'",
		// The Kubernetes libraries and cel-go's extensions.
		"request.user.lowerAscii() == 'jane'",
		"request.user.upperAscii().startsWith('SYSTEM:')",
		"request.user.split(':').size() == 4",
		"request.groups.join(',').contains('nodes')",
		"request.user.indexOf(':') == 6",
		"request.user.replace('system:', '') == 'anonymous'",
		"request.user.find('[a-z]+') == 'system'",
		"request.user.findAll(':').size() == 3",
		"request.groups.isSorted()",
		"request.groups.includes('dev')",
		"sets.contains(request.groups, ['system:authenticated'])",
		"sets.intersects(request.groups, ['dev', 'ops'])",
		"request.groups.sort() == request.groups",
		"request.groups.distinct().size() == request.groups.size()",
		"request.groups.reverse().size() >= 0",
		"lists.range(3).map(i, i * 2) == [0, 2, 4]",
		"isURL('https://' + request.user) && url('https://' + request.user).getHost() != ''",
		"request.resourceAttributes.name.size() == 0 || isIP(request.resourceAttributes.name)",
		"ip('10.0.0.1') in [ip('10.0.0.1')] && cidr('10.0.0.0/8').containsIP(ip('10.0.0.1'))",
		"quantity('1Gi').isGreaterThan(quantity('1Mi'))",
		"isSemver('1.2.3') && semver('1.2.3').major() == 1",
		"format.dns1123Label().validate(request.user).hasValue()",
		"request.user.format([]) == request.user",
		"'%s/%s'.format([request.user, request.uid]) != ''",
		"request.user.charAt(0) == 's'",
		"request.user.trim() == request.user",
		"request.groups.all(i, g, request.groups[i] == g)",
		"request.extra.exists(k, v, k.startsWith('scopes') && v.size() == 2) || true",
		"request.groups.transformMap(i, g, g.size()).size() == size(request.groups)",
		// Costs.
		"request.groups.all(g, g.size() >= 0) && request.groups.size() > 2",
		"request.user.contains(request.groups.size() > 0 ? request.groups[0] : '')",
		"lists.range(1000).all(i, i >= 0)",
		"lists.range(1000001).size() > 0",
	}
	return exprs
}

// authzCorpusCompileErrors are expressions that fail to compile.
func authzCorpusCompileErrors() []string {
	return []string{
		"",
		"   ",
		"request.foo == 1",
		"test",
		"request.user = 'a'",
		"request.user == 1",
		"request.user",
		"1",
		"dyn(true)",
		"request.groups",
		"!('system:serviceaccounts:kube-system' in request.user.groups)",
		"authorizer != null",
		"request.resourceAttributes.fieldSelector.requirements[0].foo == ''",
		"request.nonResourceAttributes.namespace == ''",
		"request.user.matches('[')",
		"duration('1x') > duration('1s')",
		"timestamp('x') > timestamp('2020-01-01T00:00:00Z')",
		"[1, 'a'].size() > 0",
		"request.?user.orValue(1) == 1",
		"has(request)",
		"request.extra['a'] == 'b'",
		"object.metadata.name == ''",
		"params == null",
		"variables.x",
		"request.resourceAttributes.namespace == 'a' &&",
		"'unterminated",
		"kubernetes.SubjectAccessReviewSpec{} == request",
		"request.in == 1",
		"request.user.foo()",
		"size(request) > 0",
		"request.resourceAttributes.labelSelector.rawSelector + 1 == 2",
		"authorizer.path('/x').check('get').allowed()",
		"jsonpatch.escapeKey(request.user) == ''",
		"math.greatest(1, 2) == 2",
		"cel.bind(x, 1, x == 1)",
		"base64.encode(b'a') == 'YQ=='",
		"request.user.reverse() == ''",
		"'a'.matches('(')",
		"request.user.find('(') == ''",
		"request.user.quote() != ''",
		strings.Repeat("(", 300) + "true" + strings.Repeat(")", 300),
	}
}
