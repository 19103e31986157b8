package authorizer

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestConditionsAwareRequest(t *testing.T) {
	for _, tc := range []struct {
		name string
		a    Attributes
		want bool
	}{
		{"create pods", Attributes{ResourceRequest: true, Verb: "create", Resource: "pods"}, true},
		{"patch a subresource", Attributes{ResourceRequest: true, Verb: "patch", APIGroup: "apps", Resource: "deployments", Subresource: "scale"}, true},
		{"deletecollection", Attributes{ResourceRequest: true, Verb: "deletecollection", Resource: "configmaps"}, true},
		{"get: no admission", Attributes{ResourceRequest: true, Verb: "get", Resource: "pods"}, false},
		{"watch", Attributes{ResourceRequest: true, Verb: "watch", Resource: "pods"}, false},
		{"a non-resource request", Attributes{Verb: "post", Path: "/apis"}, false},
		{"create tokenreviews: excluded from admission", Attributes{ResourceRequest: true, Verb: "create", APIGroup: "authentication.k8s.io", Resource: "tokenreviews"}, false},
		{"create subjectaccessreviews", Attributes{ResourceRequest: true, Verb: "create", APIGroup: "authorization.k8s.io", Resource: "subjectaccessreviews"}, false},
		{"tokenreviews in another group", Attributes{ResourceRequest: true, Verb: "create", APIGroup: "example.com", Resource: "tokenreviews"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, ConditionsAwareRequest(&tc.a))
		})
	}
}
