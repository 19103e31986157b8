package authorizer

import (
	"context"
	"errors"
)

const (
	// SystemPrivilegedGroup is the group whose members every chain built by
	// New allows, first, before any configured authorizer: a webhook can
	// never deny them.
	SystemPrivilegedGroup = "system:masters"

	// PrivilegedGroupsName is the name kube-apiserver 1.37 gives the
	// system:masters authorizer in its chain; it prefixes that authorizer's
	// reasons.
	PrivilegedGroupsName = "system-privileged-group.authorizer.kubernetes.io"
)

// PrivilegedGroups returns an authorizer that allows every request of a user
// in one of groups, with an empty reason, and has no opinion otherwise. A
// request without a user gets NoOpinion, reason "Error" and the error
// "no user on request.", as in kube-apiserver.
func PrivilegedGroups(groups ...string) Authorizer {
	return privilegedGroups(append([]string(nil), groups...))
}

type privilegedGroups []string

//lint:ignore ST1005 kube-apiserver's exact text
var errNoUser = errors.New("no user on request.")

func (p privilegedGroups) Authorize(_ context.Context, a *Attributes) (Decision, string, error) {
	if a == nil || a.User == nil {
		return DecisionNoOpinion, "Error", errNoUser
	}
	for _, g := range a.User.Groups {
		for _, priv := range p {
			if g == priv {
				return DecisionAllow, "", nil
			}
		}
	}
	return DecisionNoOpinion, "", nil
}

// AlwaysAllow returns an authorizer that allows every request, with an empty
// reason.
func AlwaysAllow() Authorizer { return alwaysAllow{} }

type alwaysAllow struct{}

func (alwaysAllow) Authorize(context.Context, *Attributes) (Decision, string, error) {
	return DecisionAllow, "", nil
}

// AlwaysDeny returns kube-apiserver's AlwaysDeny authorizer. Despite its
// name it answers NoOpinion, with the reason "Everything is forbidden.", so a
// later authorizer can still allow; a chain that ends with it forbids what
// nobody allowed.
func AlwaysDeny() Authorizer { return alwaysDeny{} }

type alwaysDeny struct{}

// AlwaysDenyReason is the reason AlwaysDeny gives.
const AlwaysDenyReason = "Everything is forbidden."

func (alwaysDeny) Authorize(context.Context, *Attributes) (Decision, string, error) {
	return DecisionNoOpinion, AlwaysDenyReason, nil
}
