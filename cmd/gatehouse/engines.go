package main

import (
	"github.com/gatehouse-dev/gatehouse/authorizer"
)

// engines are the authorizers of the types whose engine lives outside this
// command, given by functions so that a missing engine is a clear usage
// error and never a made-up answer.
//
// To wire in package authorizer/rbac, main passes
//
//	engines{RBAC: func(dir string) (authorizer.Authorizer, error) {
//		// read dir with readInputs (files, directories, "-"), decode the
//		// Roles, ClusterRoles, RoleBindings and ClusterRoleBindings, and
//		// build kube-apiserver's RBAC authorizer from them
//		return rbac.FromObjects(...)
//	}}
//
// and authz explain then offers --rbac DIR and puts the authorizer in place
// of every authorizer of type RBAC of the configuration.
type engines struct {
	// RBAC builds kube-apiserver's RBAC authorizer from a directory of
	// Roles, ClusterRoles, RoleBindings and ClusterRoleBindings (the --rbac
	// flag of authz explain). Nil: the RBAC engine is not available, --rbac
	// is not offered, and a configuration with an RBAC authorizer cannot be
	// explained (a usage error).
	RBAC func(dir string) (authorizer.Authorizer, error)
}
