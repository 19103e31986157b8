package apiserver

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apiserver/pkg/authentication/user"
	kauthorizer "k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/gatehouse-dev/gatehouse/authorizer"
)

// view is everything a k8s.io/apiserver authorizer can read of attributes.
type view struct {
	User                                                               *user.DefaultInfo
	Verb                                                               string
	ReadOnly, ResourceRequest                                          bool
	Namespace, Resource, Subresource, Name, APIGroup, APIVersion, Path string
	Fields                                                             []fields.Requirement
	FieldErr                                                           string
	Labels                                                             []string
	LabelErr                                                           string
}

func viewOf(a kauthorizer.Attributes) view {
	v := view{
		Verb: a.GetVerb(), ReadOnly: a.IsReadOnly(), ResourceRequest: a.IsResourceRequest(), Namespace: a.GetNamespace(),
		Resource: a.GetResource(), Subresource: a.GetSubresource(), Name: a.GetName(), APIGroup: a.GetAPIGroup(),
		APIVersion: a.GetAPIVersion(), Path: a.GetPath(),
	}
	if u := a.GetUser(); u != nil {
		v.User = &user.DefaultInfo{Name: u.GetName(), UID: u.GetUID(), Groups: u.GetGroups(), Extra: u.GetExtra()}
	}
	fs, err := a.GetFieldSelector()
	v.Fields, v.FieldErr = fs, errText(err)
	ls, err := a.GetLabelSelector()
	for _, r := range ls {
		// String() would render invalid requirements lossily; these are
		// the raw parts.
		v.Labels = append(v.Labels, r.Key()+"|"+string(r.Operator())+"|"+joinValues(r.ValuesUnsorted()))
	}
	v.LabelErr = errText(err)
	return v
}

func joinValues(vs []string) string {
	out := ""
	for _, v := range vs {
		out += "[" + v + "]"
	}
	return out
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestFromKubeAttributesKeepsEveryField(t *testing.T) {
	rec := kauthorizer.AttributesRecord{
		User: &user.DefaultInfo{Name: "jane", UID: "1", Groups: []string{"g1", "g2"}, Extra: map[string][]string{"k": {"v"}}},
		Verb: "list", Namespace: "ns", APIGroup: "apps", APIVersion: "v1", Resource: "deployments", Subresource: "status",
		Name: "web", ResourceRequest: true, Path: "/apis/apps/v1/namespaces/ns/deployments",
	}
	setSelectors(&rec, "spec.nodeName=n1,status.phase!=Running", "app in (web,api),!legacy,x>3")
	got := FromKubeAttributes(rec)
	assert.Equal(t, &authorizer.Attributes{
		User: &authorizer.User{Name: "jane", UID: "1", Groups: []string{"g1", "g2"}, Extra: map[string][]string{"k": {"v"}}},
		Verb: "list", ResourceRequest: true, Namespace: "ns", APIGroup: "apps", APIVersion: "v1", Resource: "deployments",
		Subresource: "status", Name: "web", Path: "/apis/apps/v1/namespaces/ns/deployments",
		FieldSelector: []authorizer.FieldRequirement{
			{Field: "spec.nodeName", Operator: selection.Equals, Value: "n1"},
			{Field: "status.phase", Operator: selection.NotEquals, Value: "Running"},
		},
		// labels.Parse sorts the requirements by key.
		LabelSelector: []authorizer.LabelRequirement{
			{Key: "app", Operator: selection.In, Values: []string{"api", "web"}},
			{Key: "legacy", Operator: selection.DoesNotExist},
			{Key: "x", Operator: selection.GreaterThan, Values: []string{"3"}},
		},
	}, got)
	assert.Nil(t, FromKubeAttributes(nil))
	assert.Nil(t, FromKubeAttributes(kauthorizer.AttributesRecord{Verb: "get"}).User)
}

func TestFromKubeAttributesKeepsRequirementsDespiteParseErrors(t *testing.T) {
	ls, err := labels.NewRequirement("app", selection.Equals, []string{"web"})
	require.NoError(t, err)
	rec := kauthorizer.AttributesRecord{
		Verb:                      "list",
		FieldSelectorRequirements: fields.Requirements{{Field: "a", Operator: selection.Equals, Value: "b"}},
		FieldSelectorParsingErr:   errors.New("partly parsed"),
		LabelSelectorRequirements: labels.Requirements{*ls},
		LabelSelectorParsingErr:   errors.New("partly parsed"),
	}
	got := FromKubeAttributes(rec)
	assert.Equal(t, []authorizer.FieldRequirement{{Field: "a", Operator: selection.Equals, Value: "b"}}, got.FieldSelector)
	assert.Equal(t, []authorizer.LabelRequirement{{Key: "app", Operator: selection.Equals, Values: []string{"web"}}}, got.LabelSelector)
}

func TestToKubeAttributesKeepsInvalidLabelRequirementsAndReportsThem(t *testing.T) {
	a := &authorizer.Attributes{Verb: "list", LabelSelector: []authorizer.LabelRequirement{
		{Key: "app", Operator: selection.In, Values: []string{"b", "a"}},
		{Key: "not a key", Operator: selection.Equals, Values: []string{"v"}},
		{Key: "n", Operator: selection.GreaterThan, Values: []string{"x"}},
	}}
	rec := ToKubeAttributes(a)
	reqs, err := rec.GetLabelSelector()
	require.Len(t, reqs, 3)
	assert.Equal(t, []string{"b", "a"}, reqs[0].ValuesUnsorted(), "order kept")
	assert.Equal(t, "not a key", reqs[1].Key())
	assert.Equal(t, selection.GreaterThan, reqs[2].Operator())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "key: Invalid value: \"not a key\"")
	assert.Contains(t, err.Error(), "must be an integer")
	assert.Equal(t, a, FromKubeAttributes(rec), "nothing lost")

	valid := ToKubeAttributes(&authorizer.Attributes{LabelSelector: a.LabelSelector[:1]})
	assert.NoError(t, valid.LabelSelectorParsingErr)
	assert.Equal(t, kauthorizer.AttributesRecord{}, ToKubeAttributes(nil))
}

// TestRoundTripsLoseNothing converts every request of both corpora there
// and back.
func TestRoundTripsLoseNothing(t *testing.T) {
	for i, a := range gatehouseCorpus(500, 7) {
		assert.Equal(t, a, FromKubeAttributes(ToKubeAttributes(a)), "gatehouse request %d", i)
	}
	for _, c := range kubeCorpus(500, 7) {
		// The filter's *AttributesRecord is read field by field, any other
		// implementation through its methods: the same attributes.
		assert.Equal(t, FromKubeAttributes(c.attrs), FromKubeAttributes(&c.attrs), c.name)
		assert.Equal(t, FromKubeAttributes(c.attrs), FromKubeAttributes(methodsOnly{c.attrs}), c.name)
		want := viewOf(c.attrs)
		// The parsing errors have no place in gatehouse's attributes.
		want.FieldErr, want.LabelErr = "", ""
		got := viewOf(ToKubeAttributes(FromKubeAttributes(c.attrs)))
		assert.Equal(t, want, got, c.name)
	}
}

// TestViewEqualsConversion checks that the view FromKube gives
// k8s.io/apiserver's authorizers reads exactly as the converted record.
func TestViewEqualsConversion(t *testing.T) {
	for i, a := range gatehouseCorpus(500, 8) {
		assert.Equal(t, viewOf(ToKubeAttributes(a)), viewOf(kubeAttributes{a: a}), "request %d", i)
	}
}

func FuzzAttributesRoundTrip(f *testing.F) {
	f.Add("jane", "g", "list", "ns", "pods", "spec.nodeName", "=", "n", "app", "in", "web", true)
	f.Add("", "", "get", "", "", "", "notin", "", "not a key", "gt", "x", false)
	f.Add("\xff", "system:masters", "watch", "kube-system", "secrets", "a", "!=", "\n", "example.com/x", "exists", "", true)
	f.Fuzz(func(t *testing.T, name, group, verb, ns, resource, field, fieldOp, fieldValue, key, labelOp, labelValue string, resourceRequest bool) {
		a := &authorizer.Attributes{
			User: &authorizer.User{Name: name, Groups: []string{group}}, Verb: verb, Namespace: ns, Resource: resource,
			ResourceRequest: resourceRequest, Path: "/" + resource,
			FieldSelector: []authorizer.FieldRequirement{{Field: field, Operator: selection.Operator(fieldOp), Value: fieldValue}},
			LabelSelector: []authorizer.LabelRequirement{{Key: key, Operator: selection.Operator(labelOp), Values: []string{labelValue}}},
		}
		rec := ToKubeAttributes(a)
		if got := FromKubeAttributes(rec); !assert.Equal(t, a, got) {
			return
		}
		assert.Equal(t, viewOf(rec), viewOf(kubeAttributes{a: a}))
		// The same selectors as a client would send them, parsed as
		// k8s.io/apiserver parses them, convert without loss.
		var parsed kauthorizer.AttributesRecord
		setSelectors(&parsed, field+fieldOp+fieldValue, key+labelOp+labelValue)
		want := viewOf(parsed)
		want.FieldErr, want.LabelErr = "", ""
		assert.Equal(t, want, viewOf(ToKubeAttributes(FromKubeAttributes(parsed))))
	})
}

// methodsOnly hides the type of the attributes and of their user, so that
// only their methods can be called.
type methodsOnly struct{ rec kauthorizer.AttributesRecord }

func (m methodsOnly) GetUser() user.Info {
	if m.rec.User == nil {
		return nil
	}
	return userMethodsOnly{m.rec.User}
}
func (m methodsOnly) GetVerb() string         { return m.rec.GetVerb() }
func (m methodsOnly) IsReadOnly() bool        { return m.rec.IsReadOnly() }
func (m methodsOnly) GetNamespace() string    { return m.rec.GetNamespace() }
func (m methodsOnly) GetResource() string     { return m.rec.GetResource() }
func (m methodsOnly) GetSubresource() string  { return m.rec.GetSubresource() }
func (m methodsOnly) GetName() string         { return m.rec.GetName() }
func (m methodsOnly) GetAPIGroup() string     { return m.rec.GetAPIGroup() }
func (m methodsOnly) GetAPIVersion() string   { return m.rec.GetAPIVersion() }
func (m methodsOnly) IsResourceRequest() bool { return m.rec.IsResourceRequest() }
func (m methodsOnly) GetPath() string         { return m.rec.GetPath() }
func (m methodsOnly) GetFieldSelector() (fields.Requirements, error) {
	return m.rec.GetFieldSelector()
}
func (m methodsOnly) GetLabelSelector() (labels.Requirements, error) {
	return m.rec.GetLabelSelector()
}

type userMethodsOnly struct{ u user.Info }

func (u userMethodsOnly) GetName() string               { return u.u.GetName() }
func (u userMethodsOnly) GetUID() string                { return u.u.GetUID() }
func (u userMethodsOnly) GetGroups() []string           { return u.u.GetGroups() }
func (u userMethodsOnly) GetExtra() map[string][]string { return u.u.GetExtra() }

func TestTypedNilUserIsNoUser(t *testing.T) {
	var u *user.DefaultInfo
	assert.Nil(t, FromKubeAttributes(&kauthorizer.AttributesRecord{User: u, Verb: "get"}).User)
}

// TestPooledAttributesEqualFreshConversions asks, from several goroutines at
// once, an authorizer wrapped by ToKube about the whole corpus: the
// attributes it sees, taken from the pool and reused, must equal a fresh
// conversion of each request, whatever was converted into them before.
func TestPooledAttributesEqualFreshConversions(t *testing.T) {
	corpus := kubeCorpus(300, 11)
	seen := func(ctx context.Context, a *authorizer.Attributes) (authorizer.Decision, string, error) {
		want := ctx.Value(wantKey{}).(*authorizer.Attributes)
		if !reflect.DeepEqual(want, a) {
			return authorizer.DecisionDeny, fmt.Sprintf("saw %+v, want %+v", a, want), nil
		}
		return authorizer.DecisionAllow, "", nil
	}
	adapter := ToKube(authorizer.Func(seen))
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range corpus {
				c := &corpus[(i*7+g*13)%len(corpus)]
				ctx := context.WithValue(context.Background(), wantKey{}, FromKubeAttributes(c.attrs))
				// The filter's *AttributesRecord, and another implementation.
				var attrs kauthorizer.Attributes = &c.attrs
				if i%2 == 1 {
					attrs = methodsOnly{c.attrs}
				}
				d, reason, err := adapter.Authorize(ctx, attrs)
				assert.NoError(t, err)
				assert.Equal(t, kauthorizer.DecisionAllow, d, "%s: %s", c.name, reason)
			}
		})
	}
	wg.Wait()
}

type wantKey struct{}
