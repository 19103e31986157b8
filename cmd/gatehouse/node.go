package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gatehouse-dev/gatehouse/authorizer"
)

// errNodeGraph is the Node authorizer's answer when it would need the
// cluster's objects.
var errNodeGraph = errors.New("the Node authorizer needs the cluster's objects (pods, secrets, volumes bound to the node) to decide for a node, which gatehouse does not have")

// nodeAuthorizer is the part of kube-apiserver's Node authorizer that needs
// no cluster state. A request of a user who is not a node (name
// system:node:<node> and group system:nodes) gets no opinion, and one of a
// node without a name no opinion with kube-apiserver's reason; a request of a
// named node gets errNodeGraph, which authz explain turns into a usage error
// rather than an answer.
func nodeAuthorizer() authorizer.Authorizer {
	return authorizer.Func(func(_ context.Context, a *authorizer.Attributes) (authorizer.Decision, string, error) {
		node, isNode := nodeIdentity(a.User)
		switch {
		case !isNode:
			return authorizer.DecisionNoOpinion, "", nil
		case node == "":
			return authorizer.DecisionNoOpinion, fmt.Sprintf("unknown node for user %q", a.User.Name), nil
		}
		return authorizer.DecisionNoOpinion, "", errNodeGraph
	})
}

// nodeIdentity is kube-apiserver's node identifier: a user named
// system:node:<name> in the group system:nodes is the node <name>.
func nodeIdentity(u *authorizer.User) (string, bool) {
	if u == nil {
		return "", false
	}
	name, ok := strings.CutPrefix(u.Name, "system:node:")
	if !ok || !slices.Contains(u.Groups, "system:nodes") {
		return "", false
	}
	return name, true
}
