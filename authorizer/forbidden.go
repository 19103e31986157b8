package authorizer

import (
	"errors"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// forbiddenSanitizer escapes what kube-apiserver escapes in a 403's message.
var forbiddenSanitizer = strings.NewReplacer(`&`, "&amp;", `<`, "&lt;", `>`, "&gt;")

// Forbidden is the error kube-apiserver answers a request its authorizers
// did not allow with (HTTP 403, reason Forbidden): its message names the
// user, the verb and the resource or path, then the reason, if any, e.g.
//
//	pods "web" is forbidden: User "alice" cannot delete resource "pods" in API group "" in the namespace "default": no rule allows it
//
// The 1.38 AuthorizationConditionsEnforcer denies with the same error.
func Forbidden(a *Attributes, reason string) *apierrors.StatusError {
	msg := forbiddenSanitizer.Replace(forbiddenMessage(a))
	if reason != "" {
		msg += ": " + reason
	}
	return apierrors.NewForbidden(schema.GroupResource{Group: a.APIGroup, Resource: a.Resource}, a.Name, errors.New(msg))
}

// forbiddenMessage is kube-apiserver's text for who cannot do what.
func forbiddenMessage(a *Attributes) string {
	user := ""
	if a.User != nil {
		user = a.User.Name
	}
	var b strings.Builder
	b.WriteString("User ")
	b.WriteString(strconv.Quote(user))
	b.WriteString(" cannot ")
	b.WriteString(a.Verb)
	if !a.ResourceRequest {
		b.WriteString(" path ")
		b.WriteString(strconv.Quote(a.Path))
		return b.String()
	}
	resource := a.Resource
	if a.Subresource != "" {
		resource += "/" + a.Subresource
	}
	b.WriteString(" resource ")
	b.WriteString(strconv.Quote(resource))
	b.WriteString(" in API group ")
	b.WriteString(strconv.Quote(a.APIGroup))
	if a.Namespace != "" {
		b.WriteString(" in the namespace ")
		b.WriteString(strconv.Quote(a.Namespace))
	} else {
		b.WriteString(" at the cluster scope")
	}
	return b.String()
}
