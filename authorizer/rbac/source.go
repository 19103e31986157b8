package rbac

import (
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// RoleLister lists Roles. client-go's rbac/v1 RoleLister, read from an
// informer's cache, satisfies it.
type RoleLister interface {
	List(selector labels.Selector) ([]*rbacv1.Role, error)
}

// RoleBindingLister lists RoleBindings. client-go's rbac/v1
// RoleBindingLister satisfies it.
type RoleBindingLister interface {
	List(selector labels.Selector) ([]*rbacv1.RoleBinding, error)
}

// ClusterRoleLister lists ClusterRoles. client-go's rbac/v1
// ClusterRoleLister satisfies it.
type ClusterRoleLister interface {
	List(selector labels.Selector) ([]*rbacv1.ClusterRole, error)
}

// ClusterRoleBindingLister lists ClusterRoleBindings. client-go's rbac/v1
// ClusterRoleBindingLister satisfies it.
type ClusterRoleBindingLister interface {
	List(selector labels.Selector) ([]*rbacv1.ClusterRoleBinding, error)
}

// Listers are the four listers an informer factory gives for rbac/v1, the
// source kube-apiserver's RBAC authorizer reads:
//
//	f := informers.NewSharedInformerFactory(client, 0)
//	v1 := f.Rbac().V1()
//	listers := rbac.Listers{
//		Roles:               v1.Roles().Lister(),
//		RoleBindings:        v1.RoleBindings().Lister(),
//		ClusterRoles:        v1.ClusterRoles().Lister(),
//		ClusterRoleBindings: v1.ClusterRoleBindings().Lister(),
//	}
//
// Every lister must be set.
type Listers struct {
	Roles               RoleLister
	RoleBindings        RoleBindingLister
	ClusterRoles        ClusterRoleLister
	ClusterRoleBindings ClusterRoleBindingLister
}

// objects reads every object of the listers.
func (l Listers) objects() (*Objects, error) {
	if l.Roles == nil || l.RoleBindings == nil || l.ClusterRoles == nil || l.ClusterRoleBindings == nil {
		return nil, errMissingLister
	}
	var (
		o   Objects
		err error
	)
	if o.Roles, err = l.Roles.List(labels.Everything()); err != nil {
		return nil, err
	}
	if o.RoleBindings, err = l.RoleBindings.List(labels.Everything()); err != nil {
		return nil, err
	}
	if o.ClusterRoles, err = l.ClusterRoles.List(labels.Everything()); err != nil {
		return nil, err
	}
	if o.ClusterRoleBindings, err = l.ClusterRoleBindings.List(labels.Everything()); err != nil {
		return nil, err
	}
	return &o, nil
}
