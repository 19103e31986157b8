package admissionmatch

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// selector is a label selector parsed once, with kube-apiserver's
// conversion (metav1.LabelSelectorAsSelector): nil selects nothing, an
// empty selector everything; a selector that does not parse is an error at
// match time.
type selector struct {
	sel   labels.Selector
	empty bool
	err   error
}

func newSelector(s *metav1.LabelSelector) selector {
	sel, err := metav1.LabelSelectorAsSelector(s)
	if err != nil {
		return selector{err: err}
	}
	return selector{sel: sel, empty: sel.Empty()}
}

// matchNamespace is kube-apiserver's namespace predicate: a cluster-scoped
// request (not on a namespace) always matches; an empty selector matches;
// otherwise the namespace's labels (the object's own for a Namespace being
// created or updated) must match.
func (s *selector) matchNamespace(ctx context.Context, r *Request) (bool, *apierrors.StatusError) {
	if r.Namespace == "" && r.Resource.Resource != "namespaces" {
		return true, nil
	}
	if s.err != nil {
		return false, apierrors.NewInternalError(s.err)
	}
	if s.empty {
		return true, nil
	}
	nsLabels, err := r.namespace(ctx)
	if err != nil {
		// A copy: the caller may keep or change it.
		return false, &apierrors.StatusError{ErrStatus: *err.ErrStatus.DeepCopy()}
	}
	return s.sel.Matches(labels.Set(nsLabels)), nil
}

// matchObject is kube-apiserver's object predicate: an empty selector
// matches; otherwise the labels of the new or of the old object must match;
// an absent object matches nothing.
func (s *selector) matchObject(r *Request) (bool, *apierrors.StatusError) {
	if s.err != nil {
		return false, apierrors.NewInternalError(s.err)
	}
	if s.empty {
		return true, nil
	}
	o := r.objectLabels()
	return (o.hasNew && s.sel.Matches(labels.Set(o.newLabels))) ||
		(o.hasOld && s.sel.Matches(labels.Set(o.oldLabels))), nil
}
