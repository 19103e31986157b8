package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gatehouse-dev/gatehouse/authorizer/rbac"
)

// rbacSet is kube-apiserver's RBAC authorizer over the objects of files and
// directories, with what was left out on the way.
type rbacSet struct {
	authorizer *rbac.Authorizer
	// notes are the documents skipped because they are not RBAC objects
	// (GitOps directories mix kinds) and the aggregation rules that could
	// not be applied.
	notes []string
}

// loadRBAC reads the Roles, ClusterRoles, RoleBindings and
// ClusterRoleBindings of paths (files, directories, "-" for stdin) and
// builds the RBAC authorizer over them. Documents of other kinds are skipped
// with a note; an unreadable file, a document that is not valid (a bad RBAC
// object, or an RBAC object of a version kube-apiserver no longer serves),
// or two objects with the same name are an error.
func loadRBAC(paths []string, stdin io.Reader) (*rbacSet, error) {
	set := &rbacSet{}
	objs := &rbac.Objects{}
	var problems []string
	for _, in := range readInputs(paths, stdin) {
		if in.err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", in.name, in.err))
			continue
		}
		got, err := rbac.Decode(in.data)
		objs.Append(got)
		for _, e := range joined(err) {
			msg := in.name + ": " + e.Error()
			var kind *rbac.KindError
			if errors.As(e, &kind) && !strings.HasPrefix(kind.APIVersion, "rbac.authorization.k8s.io/") {
				set.notes = append(set.notes, fmt.Sprintf("%s: skipped (%s %s is not an RBAC object)", strings.TrimSuffix(msg, ": "+kind.Error()), kind.Kind, kind.APIVersion))
				continue
			}
			problems = append(problems, msg)
		}
	}
	if len(problems) > 0 {
		return nil, errors.New(strings.Join(problems, "\n"))
	}
	if objs.Len() == 0 {
		return nil, errors.New("no Role, ClusterRole, RoleBinding or ClusterRoleBinding found")
	}
	az, err := rbac.FromObjects(objs, rbac.Options{})
	if err != nil {
		return nil, err
	}
	for _, e := range az.AggregationErrors() {
		set.notes = append(set.notes, "aggregation: "+e.Error())
	}
	set.authorizer = az
	return set, nil
}

// joined returns the errors err joins, err alone if it joins none, nothing
// if it is nil.
func joined(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
