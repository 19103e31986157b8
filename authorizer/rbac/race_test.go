package rbac

import (
	"context"
	"k8s.io/apimachinery/pkg/labels"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/gatehouse-dev/gatehouse/authorizer"
)

// TestConcurrentUpdates decides, explains and reviews while the objects are
// replaced: run with -race. Every answer is that of one of the two sets of
// objects, never a mix.
func TestConcurrentUpdates(t *testing.T) {
	a := newFixture(t)
	full := a.Objects()
	without := *full
	without.ClusterRoleBindings = nil
	attrs := &authorizer.Attributes{User: &authorizer.User{Name: "rita", Groups: []string{"readers"}}, Verb: "list", ResourceRequest: true, Namespace: "team-a", Resource: "pods"}
	const allowed = `RBAC: allowed by ClusterRoleBinding "b-readers" of ClusterRole "pod-reader" to Group "readers"`

	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		defer close(stop)
		for i := range 200 {
			objs := full
			if i%2 == 0 {
				objs = &without
			}
			assert.NoError(t, a.Update(objs))
		}
	})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				d, reason, err := a.Authorize(context.Background(), attrs)
				require.NoError(t, err)
				switch d {
				case authorizer.DecisionAllow:
					assert.Equal(t, allowed, reason)
				case authorizer.DecisionNoOpinion:
					assert.Empty(t, reason)
				default:
					t.Errorf("decision %v", d)
				}
				e := a.Explain(context.Background(), attrs)
				assert.Contains(t, []string{allowed, ""}, e.Reason)
				_, _ = a.WhoCan(attrs)
				_, _ = a.RulesFor(attrs.User, "team-a")
				assert.Contains(t, []int{0, len(full.ClusterRoleBindings)}, len(a.Objects().ClusterRoleBindings))
			}
		})
	}
	wg.Wait()
}

// listers serves objects as informer listers would, with a switch to change
// them.
type fakeListers struct {
	mu   sync.Mutex
	objs *Objects
}

func (f *fakeListers) get() *Objects { f.mu.Lock(); defer f.mu.Unlock(); return f.objs }

type roleLister struct{ *fakeListers }
type roleBindingLister struct{ *fakeListers }
type clusterRoleLister struct{ *fakeListers }
type clusterRoleBindingLister struct{ *fakeListers }

func (l roleLister) List(labels.Selector) ([]*rbacv1.Role, error) { return l.get().Roles, nil }
func (l roleBindingLister) List(labels.Selector) ([]*rbacv1.RoleBinding, error) {
	return l.get().RoleBindings, nil
}
func (l clusterRoleLister) List(labels.Selector) ([]*rbacv1.ClusterRole, error) {
	return l.get().ClusterRoles, nil
}
func (l clusterRoleBindingLister) List(labels.Selector) ([]*rbacv1.ClusterRoleBinding, error) {
	return l.get().ClusterRoleBindings, nil
}

func (f *fakeListers) listers() Listers {
	return Listers{Roles: roleLister{f}, RoleBindings: roleBindingLister{f}, ClusterRoles: clusterRoleLister{f}, ClusterRoleBindings: clusterRoleBindingLister{f}}
}

func TestSync(t *testing.T) {
	full := newFixture(t).Objects()
	f := &fakeListers{objs: &Objects{}}
	a, err := New(f.listers(), Options{})
	require.NoError(t, err)
	attrs := &authorizer.Attributes{User: &authorizer.User{Name: "rita", Groups: []string{"readers"}}, Verb: "list", ResourceRequest: true, Resource: "pods"}
	d, _, _ := a.Authorize(context.Background(), attrs)
	assert.Equal(t, authorizer.DecisionNoOpinion, d)

	f.mu.Lock()
	f.objs = full
	f.mu.Unlock()
	d, _, _ = a.Authorize(context.Background(), attrs)
	assert.Equal(t, authorizer.DecisionNoOpinion, d, "not read before Sync")
	require.NoError(t, a.Sync())
	d, _, _ = a.Authorize(context.Background(), attrs)
	assert.Equal(t, authorizer.DecisionAllow, d)

	_, err = New(Listers{}, Options{})
	assert.EqualError(t, err, "rbac: every lister of Listers must be set")
}
