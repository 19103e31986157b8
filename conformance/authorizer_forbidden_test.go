package conformance

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apiserver/pkg/authentication/user"
	kubeauthorizer "k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"

	"github.com/gatehouse-dev/gatehouse/authorizer"
)

// TestForbiddenMatchesKubeAPIServer compares authorizer.Forbidden with
// kube-apiserver's 403 (responsewriters.ForbiddenStatusError, which the
// authorization filter and 1.38's conditions enforcer answer with) over
// generated attributes: resource and non-resource requests, subresources,
// namespaces, names, no user, reasons, and the characters the message
// escapes.
func TestForbiddenMatchesKubeAPIServer(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	words := []string{"", "pods", "a&b", "<x>", `q"uote`, "système", "web-1", "status", "apps", "kube-system", "/healthz", "\n"}
	pick := func() string { return words[rng.IntN(len(words))] }
	for i := 0; i < 2000; i++ {
		a := &authorizer.Attributes{
			Verb: pick(), ResourceRequest: rng.IntN(2) == 0, Namespace: pick(), APIGroup: pick(), APIVersion: "v1",
			Resource: pick(), Subresource: pick(), Name: pick(), Path: pick(),
		}
		if rng.IntN(5) > 0 {
			a.User = &authorizer.User{Name: pick(), Groups: []string{pick()}}
		}
		reason := pick()
		kube := kubeauthorizer.AttributesRecord{
			Verb: a.Verb, ResourceRequest: a.ResourceRequest, Namespace: a.Namespace, APIGroup: a.APIGroup,
			APIVersion: a.APIVersion, Resource: a.Resource, Subresource: a.Subresource, Name: a.Name, Path: a.Path,
		}
		if a.User != nil {
			kube.User = &user.DefaultInfo{Name: a.User.Name, Groups: a.User.Groups}
		}
		want := responsewriters.ForbiddenStatusError(kube, reason)
		got := authorizer.Forbidden(a, reason)
		require.Equal(t, want.ErrStatus, got.ErrStatus, "attributes %+v, reason %q", a, reason)
	}
}
