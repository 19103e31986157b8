package admissionmatch

import (
	"context"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// selector is a label selector parsed once, with kube-apiserver's
// conversion (metav1.LabelSelectorAsSelector): nil selects nothing, an
// empty selector everything; a selector that does not parse is an error at
// match time. Its requirements are matched here, with labels.Requirement's
// semantics, without the interface calls of labels.Selector.
type selector struct {
	requirements []requirement
	nothing      bool // a nil selector
	empty        bool
	err          error
	// library is set when a requirement has an operator this package does
	// not match itself (none that a LabelSelector converts to).
	library labels.Selector
}

type requirement struct {
	key    string
	op     selection.Operator
	values []string
}

func newSelector(s *metav1.LabelSelector) selector {
	sel, err := metav1.LabelSelectorAsSelector(s)
	if err != nil {
		return selector{err: err}
	}
	if sel.Empty() {
		return selector{empty: true}
	}
	requirements, selectable := sel.Requirements()
	if !selectable {
		return selector{nothing: true}
	}
	c := selector{requirements: make([]requirement, len(requirements))}
	for i, r := range requirements {
		switch r.Operator() {
		case selection.In, selection.Equals, selection.DoubleEquals, selection.NotIn, selection.NotEquals,
			selection.Exists, selection.DoesNotExist:
		default:
			return selector{library: sel}
		}
		c.requirements[i] = requirement{key: r.Key(), op: r.Operator(), values: r.ValuesUnsorted()}
	}
	return c
}

// matches reports whether the selector selects the labels m.
func (s *selector) matches(m map[string]string) bool {
	if s.library != nil {
		return s.library.Matches(labels.Set(m))
	}
	if s.nothing {
		return false
	}
	for i := range s.requirements {
		r := &s.requirements[i]
		v, ok := m[r.key]
		switch r.op {
		case selection.In, selection.Equals, selection.DoubleEquals:
			if !ok || !slices.Contains(r.values, v) {
				return false
			}
		case selection.NotIn, selection.NotEquals:
			if ok && slices.Contains(r.values, v) {
				return false
			}
		case selection.Exists:
			if !ok {
				return false
			}
		case selection.DoesNotExist:
			if ok {
				return false
			}
		}
	}
	return true
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
	return s.matches(nsLabels), nil
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
	return (o.hasNew && s.matches(o.newLabels)) || (o.hasOld && s.matches(o.oldLabels)), nil
}
