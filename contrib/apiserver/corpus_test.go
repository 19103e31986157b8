package apiserver

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apiserver/pkg/authentication/user"
	kauthorizer "k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/gatehouse-dev/gatehouse/authorizer"
)

// corpusUsers are users with and without groups, UID and extra; nil is a
// request without user.
func corpusUsers() []*authorizer.User {
	return []*authorizer.User{
		nil,
		{Name: "jane"},
		{Name: "jane", UID: "42", Groups: []string{"developers", "system:authenticated"}},
		{Name: "system:serviceaccount:kube-system:job", Groups: []string{"system:serviceaccounts", "system:serviceaccounts:kube-system"},
			Extra: map[string][]string{"authentication.kubernetes.io/pod-name": {"p"}, "scopes": {"a", "b"}, "empty": {}}},
		{Name: "root", Groups: []string{"system:masters"}},
		{Name: "ünïcode \"quoted\"\n", Extra: map[string][]string{"k": nil}},
	}
}

// corpusFieldSelectors are field selectors as clients send them, some that
// do not parse.
var corpusFieldSelectors = []string{
	"", "spec.nodeName=node-1", "spec.nodeName==node-1", "metadata.name!=x", "spec.nodeName=a,status.phase!=Running",
	"status.phase=", "a=b,c=d,e!=f", "bad selector", "x==", "=v", `a=b\,c`,
}

// corpusLabelSelectors are label selectors as clients send them, some that
// do not parse.
var corpusLabelSelectors = []string{
	"", "app=web", "app==web", "app!=web", "app in (web,api)", "app notin (web, api)", "app", "!app", "tier,app in (b,a)",
	"x>5", "x<3", "app=web,env!=prod,!legacy", "example.com/team in (a)", "in (", "app in ()", "Bad Key=1", "app=web!",
}

// corpusGatehouseSelectors are requirements that only a program can build:
// operators a selector string cannot express here, keys and values the
// label parser rejects, empty value lists.
func corpusGatehouseLabelRequirements() [][]authorizer.LabelRequirement {
	return [][]authorizer.LabelRequirement{
		{{Key: "app", Operator: selection.In, Values: []string{"b", "a", "b"}}},
		{{Key: "not a key", Operator: selection.Equals, Values: []string{"v"}}},
		{{Key: "app", Operator: selection.Equals, Values: []string{"a", "b"}}},
		{{Key: "app", Operator: selection.Exists, Values: []string{"v"}}},
		{{Key: "app", Operator: selection.In}},
		{{Key: "app", Operator: "~", Values: []string{"v"}}},
		{{Key: "n", Operator: selection.GreaterThan, Values: []string{"x"}}, {Key: "app", Operator: selection.NotIn, Values: []string{"q"}}},
		{{Key: "", Operator: selection.DoesNotExist}},
	}
}

func corpusGatehouseFieldRequirements() [][]authorizer.FieldRequirement {
	return [][]authorizer.FieldRequirement{
		{{Field: "spec.nodeName", Operator: selection.In, Value: "n"}},
		{{Field: "a", Operator: selection.Exists}, {Field: "b", Operator: selection.NotEquals, Value: "c"}},
		{{Field: "", Operator: "", Value: ""}},
	}
}

type corpusTarget struct {
	resourceRequest                                                    bool
	verb, namespace, group, version, resource, subresource, name, path string
}

var corpusTargets = []corpusTarget{
	{true, "list", "default", "", "v1", "pods", "", "", "/api/v1/namespaces/default/pods"},
	{true, "get", "kube-system", "apps", "v1", "deployments", "scale", "web", "/apis/apps/v1/namespaces/kube-system/deployments/web/scale"},
	{true, "watch", "", "", "v1", "nodes", "", "", "/api/v1/nodes"},
	{true, "deletecollection", "ns", "example.com", "v1beta1", "widgets", "", "", ""},
	{true, "create", "ns", "", "v1", "pods", "eviction", "p", ""},
	{false, "get", "", "", "", "", "", "", "/healthz"},
	{false, "post", "", "", "", "", "", "", "/logs/x"},
}

// kubeCorpusCase is a request as k8s.io/apiserver's authorization filter
// builds its attributes: the selectors parsed from the query.
type kubeCorpusCase struct {
	name  string
	attrs kauthorizer.AttributesRecord
}

func kubeCorpus(n int, seed uint64) []kubeCorpusCase {
	r := rand.New(rand.NewPCG(seed, 1))
	users := corpusUsers()
	out := make([]kubeCorpusCase, 0, n)
	for i := range n {
		t := corpusTargets[r.IntN(len(corpusTargets))]
		rec := kauthorizer.AttributesRecord{
			Verb: t.verb, Namespace: t.namespace, APIGroup: t.group, APIVersion: t.version, Resource: t.resource,
			Subresource: t.subresource, Name: t.name, ResourceRequest: t.resourceRequest, Path: t.path,
		}
		if u := users[r.IntN(len(users))]; u != nil {
			rec.User = &user.DefaultInfo{Name: u.Name, UID: u.UID, Groups: u.Groups, Extra: u.Extra}
		}
		fs := corpusFieldSelectors[r.IntN(len(corpusFieldSelectors))]
		ls := corpusLabelSelectors[r.IntN(len(corpusLabelSelectors))]
		setSelectors(&rec, fs, ls)
		out = append(out, kubeCorpusCase{name: fmt.Sprintf("%03d %s %s fs=%q ls=%q", i, t.verb, t.resource+t.path, fs, ls), attrs: rec})
	}
	return out
}

// setSelectors parses selectors as k8s.io/apiserver's
// GetAuthorizerAttributes does.
func setSelectors(rec *kauthorizer.AttributesRecord, fieldSelector, labelSelector string) {
	if fieldSelector != "" {
		if s, err := fields.ParseSelector(fieldSelector); err != nil {
			rec.FieldSelectorRequirements, rec.FieldSelectorParsingErr = nil, err
		} else if reqs := s.Requirements(); len(reqs) > 0 {
			rec.FieldSelectorRequirements = reqs
		}
	}
	if labelSelector != "" {
		if s, err := labels.Parse(labelSelector); err != nil {
			rec.LabelSelectorRequirements, rec.LabelSelectorParsingErr = nil, err
		} else if reqs, _ := s.Requirements(); len(reqs) > 0 {
			rec.LabelSelectorRequirements = reqs
		}
	}
}

// gatehouseCorpus are requests as a program builds gatehouse's attributes,
// selectors included.
func gatehouseCorpus(n int, seed uint64) []*authorizer.Attributes {
	r := rand.New(rand.NewPCG(seed, 2))
	users := corpusUsers()
	labelReqs := corpusGatehouseLabelRequirements()
	fieldReqs := corpusGatehouseFieldRequirements()
	out := make([]*authorizer.Attributes, 0, n)
	for range n {
		t := corpusTargets[r.IntN(len(corpusTargets))]
		a := &authorizer.Attributes{
			User: users[r.IntN(len(users))], Verb: t.verb, ResourceRequest: t.resourceRequest, Namespace: t.namespace, APIGroup: t.group,
			APIVersion: t.version, Resource: t.resource, Subresource: t.subresource, Name: t.name, Path: t.path,
		}
		switch r.IntN(3) {
		case 0:
			a.LabelSelector = labelReqs[r.IntN(len(labelReqs))]
		case 1:
			// What a parsed selector gives.
			rec := kauthorizer.AttributesRecord{}
			setSelectors(&rec, corpusFieldSelectors[r.IntN(len(corpusFieldSelectors))], corpusLabelSelectors[r.IntN(len(corpusLabelSelectors))])
			conv := FromKubeAttributes(rec)
			a.FieldSelector, a.LabelSelector = conv.FieldSelector, conv.LabelSelector
		}
		if r.IntN(3) == 0 {
			a.FieldSelector = fieldReqs[r.IntN(len(fieldReqs))]
		}
		out = append(out, a)
	}
	return out
}

func TestCorpusCoversSelectors(t *testing.T) {
	var withFields, withLabels, withErrors int
	for _, c := range kubeCorpus(400, 1) {
		if len(c.attrs.FieldSelectorRequirements) > 0 {
			withFields++
		}
		if len(c.attrs.LabelSelectorRequirements) > 0 {
			withLabels++
		}
		if c.attrs.LabelSelectorParsingErr != nil || c.attrs.FieldSelectorParsingErr != nil {
			withErrors++
		}
	}
	if withFields < 100 || withLabels < 100 || withErrors < 20 {
		t.Fatalf("corpus too thin: %d with fields, %d with labels, %d with parse errors", withFields, withLabels, withErrors)
	}
}
