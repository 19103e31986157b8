package rbac

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/gatehouse-dev/gatehouse/authorizer"
)

// Options say how an Authorizer reads its objects.
type Options struct {
	// SkipAggregation keeps the rules of ClusterRoles that have an
	// aggregationRule as they are given. By default they are computed from
	// the ClusterRoles the rule selects, as kube-controller-manager's
	// clusterrole-aggregation controller does (see Aggregate): objects read
	// from files have had no controller to do it, and objects read from a
	// cluster hold what it computed, so computing it again changes nothing
	// once the controller has caught up.
	SkipAggregation bool
}

// Authorizer is kube-apiserver's RBAC authorizer over an indexed set of
// Roles, ClusterRoles, RoleBindings and ClusterRoleBindings. It is safe for
// concurrent use; Sync and Update swap in a new index atomically while
// requests are being authorized.
type Authorizer struct {
	opts    Options
	listers *Listers

	mu   sync.Mutex // serializes Sync and Update
	snap atomic.Pointer[snapshot]
}

var _ authorizer.Authorizer = (*Authorizer)(nil)

// New returns an authorizer over the objects of the listers, read now and
// again at each Sync. With informers, wait for their caches to sync first,
// and call Sync when they report changes (see Sync).
func New(l Listers, opts Options) (*Authorizer, error) {
	a := &Authorizer{opts: opts, listers: &l}
	if err := a.Sync(); err != nil {
		return nil, err
	}
	return a, nil
}

// FromObjects returns an authorizer over objs (see Decode and Load). Two
// objects of one kind with the same name and namespace are an error.
func FromObjects(objs *Objects, opts Options) (*Authorizer, error) {
	a := &Authorizer{opts: opts}
	if err := a.Update(objs); err != nil {
		return nil, err
	}
	return a, nil
}

// Sync reads the listers again and swaps the new index in. kube-apiserver
// reads its listers on every request; an Authorizer reads them here, once
// for many requests, so call Sync when the informers report a change
// (coalescing bursts: indexing 10,000 bindings takes milliseconds).
// Requests decided during Sync use the previous index. On error the
// previous index stays.
func (a *Authorizer) Sync() error {
	if a.listers == nil {
		return errors.New("rbac: Sync needs an authorizer built by New; use Update")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	objs, err := a.listers.objects()
	if err != nil {
		return err
	}
	return a.swap(objs)
}

// Update replaces the objects the authorizer decides on. Requests decided
// during Update use the previous objects. On error the previous objects
// stay.
func (a *Authorizer) Update(objs *Objects) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.swap(objs)
}

func (a *Authorizer) swap(objs *Objects) error {
	s, err := build(objs, a.opts)
	if err != nil {
		return err
	}
	a.snap.Store(s)
	return nil
}

// Objects returns the objects the authorizer decides on, with the rules of
// aggregated ClusterRoles as computed. Do not modify them.
func (a *Authorizer) Objects() *Objects {
	o := *a.snap.Load().objects
	return &o
}

// AggregationErrors returns the problems met computing aggregated
// ClusterRoles: an aggregationRule whose selector is invalid. Such a
// ClusterRole keeps its rules as given, as it would in a cluster, where the
// controller fails to update it.
func (a *Authorizer) AggregationErrors() []error {
	return slices.Clone(a.snap.Load().aggregationErrors)
}

//lint:ignore ST1005 kube-apiserver's exact text
var errNoUser = errors.New("no user on request.")

// Authorize decides as kube-apiserver's RBAC authorizer: the
// ClusterRoleBindings, then the RoleBindings of the request's namespace,
// each applying to the user through its first subject that names the
// user, one of the user's groups, or the user's service account; the first
// rule of their roles that matches the request allows it, with the reason
// "RBAC: allowed by <binding> of <role> to <subject>". Otherwise the
// decision is NoOpinion, with the reason "" or, when bindings that applied
// refer to roles that do not exist, "RBAC: " and the errors of their
// lookup; the error is always nil, as in kube-apiserver.
func (a *Authorizer) Authorize(_ context.Context, attrs *authorizer.Attributes) (authorizer.Decision, string, error) {
	if attrs == nil || attrs.User == nil {
		return authorizer.DecisionNoOpinion, "", errNoUser
	}
	s := a.snap.Load()
	var (
		buf  [16]hit
		errs []error
	)
	if reason, ok := s.cluster.decide(attrs, buf[:0], &errs); ok {
		return authorizer.DecisionAllow, reason, nil
	}
	if attrs.Namespace != "" {
		if set := s.namespaced[attrs.Namespace]; set != nil {
			if reason, ok := set.decide(attrs, buf[:0], &errs); ok {
				return authorizer.DecisionAllow, reason, nil
			}
		}
	}
	if len(errs) > 0 {
		return authorizer.DecisionNoOpinion, "RBAC: " + utilerrors.NewAggregate(errs).Error(), nil
	}
	return authorizer.DecisionNoOpinion, "", nil
}

// decide walks the bindings of the set that apply to the request's user,
// in order, and returns the reason of the first that allows. It collects
// the errors of the others.
func (set *bindingSet) decide(attrs *authorizer.Attributes, buf []hit, errs *[]error) (string, bool) {
	hits := set.applicable(attrs.User, buf)
	last := int32(-1)
	for _, h := range hits {
		if h.pos == last {
			continue
		}
		last = h.pos
		b := set.bindings[h.pos]
		if b.role == nil {
			*errs = append(*errs, b.err)
			continue
		}
		for i := range b.role.rules {
			if b.role.rules[i].allows(attrs) {
				return b.reasons[h.subject], true
			}
		}
	}
	return "", false
}

// applicable returns the subjects of the set's bindings that apply to u,
// ordered by binding then subject (a binding may come more than once: its
// first entry is the subject kube-apiserver names).
func (set *bindingSet) applicable(u *authorizer.User, buf []hit) []hit {
	if len(set.bindings) == 0 {
		return buf
	}
	hits := append(buf, set.byUser[u.Name]...)
	sources := 0
	if len(hits) > 0 {
		sources++
	}
	for _, g := range u.Groups {
		if gh := set.byGroup[g]; len(gh) > 0 {
			hits = append(hits, gh...)
			sources++
		}
	}
	if sources > 1 {
		slices.SortFunc(hits, compareHits)
	}
	return hits
}

func compareHits(a, b hit) int {
	if a.pos != b.pos {
		return int(a.pos - b.pos)
	}
	return int(a.subject - b.subject)
}
