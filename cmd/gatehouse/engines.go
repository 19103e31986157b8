package main

import (
	"github.com/gatehouse-dev/gatehouse/authorizer"
)

// engines are the authorizers of the types whose engine lives outside this
// command, given by functions so that a missing engine is a clear usage
// error and never a made-up answer.
type engines struct {
	// RBAC builds kube-apiserver's RBAC authorizer from a directory of
	// Roles, ClusterRoles, RoleBindings and ClusterRoleBindings (the --rbac
	// flag of authz explain). Nil: the RBAC engine is not available, and
	// --rbac is not offered.
	RBAC func(dir string) (authorizer.Authorizer, error)
}
