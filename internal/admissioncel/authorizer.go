package admissioncel

import (
	"context"

	"github.com/google/cel-go/common/types/ref"
	admissionv1 "k8s.io/api/admission/v1"

	icel "github.com/gatehouse-dev/gatehouse/internal/cel"
)

// UserOf is the requesting user of r, as the Authz library sees it; nil for
// a nil request.
func UserOf(r *admissionv1.AdmissionRequest) *icel.UserInfo {
	if r == nil {
		return nil
	}
	u := &icel.UserInfo{Name: r.UserInfo.Username, UID: r.UserInfo.UID, Groups: r.UserInfo.Groups}
	if r.UserInfo.Extra != nil {
		u.Extra = make(map[string][]string, len(r.UserInfo.Extra))
		for k, v := range r.UserInfo.Extra {
			u.Extra[k] = v
		}
	}
	return u
}

// RequestResourceCheck is authorizer.requestResource: a check of the
// request's own resource (the resource requested, not the matched one).
func RequestResourceCheck(ctx context.Context, a icel.Authorizer, r *admissionv1.AdmissionRequest) ref.Val {
	user := UserOf(r)
	if r == nil {
		r = &admissionv1.AdmissionRequest{}
	}
	var group, resource string
	if r.RequestResource != nil {
		group, resource = r.RequestResource.Group, r.RequestResource.Resource
	}
	return icel.NewResourceCheckValue(ctx, user, a, group, resource, r.RequestSubResource, r.Namespace, r.Name)
}
