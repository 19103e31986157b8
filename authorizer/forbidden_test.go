package authorizer

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestForbidden(t *testing.T) {
	alice := &User{Name: "alice"}
	for _, tc := range []struct {
		name    string
		a       *Attributes
		reason  string
		message string
	}{
		{"namespaced", &Attributes{User: alice, Verb: "delete", ResourceRequest: true, Namespace: "default", Resource: "pods", Name: "web"}, "no rule allows it",
			`pods "web" is forbidden: User "alice" cannot delete resource "pods" in API group "" in the namespace "default": no rule allows it`},
		{"cluster scope, subresource, no reason", &Attributes{User: alice, Verb: "update", ResourceRequest: true, APIGroup: "apps", Resource: "deployments", Subresource: "scale"}, "",
			`deployments.apps is forbidden: User "alice" cannot update resource "deployments/scale" in API group "apps" at the cluster scope`},
		{"path, no user, escaped", &Attributes{Verb: "get", Path: "/a&<b>"}, "x",
			`forbidden: User "" cannot get path "/a&amp;&lt;b&gt;": x`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Forbidden(tc.a, tc.reason)
			assert.Equal(t, tc.message, err.Error())
			assert.Equal(t, int32(http.StatusForbidden), err.ErrStatus.Code)
			assert.Equal(t, metav1.StatusReasonForbidden, err.ErrStatus.Reason)
		})
	}
}
