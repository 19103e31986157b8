package validatingpolicy

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"

	"github.com/gatehouse-dev/gatehouse/internal/admissionpolicy"
	"github.com/gatehouse-dev/gatehouse/metrics"

	"github.com/gatehouse-dev/gatehouse/internal/kubeversions"
)

const (
	// ValidationFailureAnnotation is the audit annotation of Audit actions.
	ValidationFailureAnnotation = "validation.policy.admission.k8s.io/validation_failure"
	// maxValidationFailures is how many failures the annotation holds.
	maxValidationFailures = 50
	// maxAnnotationValue is the longest value of one audit annotation.
	maxAnnotationValue = 10 * 1024
)

// ValidationFailure is one entry of the validation_failure audit
// annotation, in kube-apiserver's JSON.
type ValidationFailure struct {
	Message           string                                     `json:"message"`
	Policy            string                                     `json:"policy"`
	Binding           string                                     `json:"binding"`
	ExpressionIndex   int                                        `json:"expressionIndex"`
	ValidationActions []admissionregistrationv1.ValidationAction `json:"validationActions"`
}

// The enforcement_action label values of the metrics.
const (
	actionAllow = "allow"
	actionDeny  = "deny"
	actionWarn  = "warn"
	actionAudit = "audit"
)

// effects applies one invocation's decisions with the binding's validation
// actions, as kube-apiserver's dispatcher does, and collects its audit
// annotations.
func (s *state) effects(cp *compiledPolicy, cb *compiledBinding, r *validateResult, annotations *annotationCollector) {
	for i := range r.decisions {
		dec := &r.decisions[i]
		if !dec.deny {
			if dec.evalError {
				s.observe(cp, cb, dec, actionAllow)
			}
			continue
		}
		for _, action := range cb.binding.Spec.ValidationActions {
			switch action {
			case admissionregistrationv1.Deny:
				s.denied = append(s.denied, deniedDecision{policy: cp, binding: cb, decision: *dec})
				s.observe(cp, cb, dec, actionDeny)
			case admissionregistrationv1.Audit:
				s.failures = append(s.failures, ValidationFailure{
					ExpressionIndex:   i,
					Message:           dec.message,
					ValidationActions: cb.binding.Spec.ValidationActions,
					Binding:           cb.name,
					Policy:            cb.binding.Spec.PolicyName,
				})
				s.observe(cp, cb, dec, actionAudit)
			case admissionregistrationv1.Warn:
				s.result.Warnings = append(s.result.Warnings, fmt.Sprintf("Validation failed for ValidatingAdmissionPolicy '%s' with binding '%s': %s", cp.name, cb.name, dec.message))
				s.observe(cp, cb, dec, actionWarn)
			}
		}
	}
	for i := range r.annotations {
		a := &r.annotations[i]
		switch a.action {
		case annotationPublish:
			value := a.value
			if len(value) > maxAnnotationValue {
				value = value[:maxAnnotationValue]
			}
			annotations.add(a.key, value)
		case annotationError:
			// An audit annotation's error denies, whatever the actions.
			dec := decision{deny: true, evalError: true, message: a.err, elapsed: a.elapsed, index: -1}
			s.denied = append(s.denied, deniedDecision{policy: cp, binding: cb, decision: dec})
			s.observe(cp, cb, &dec, actionDeny)
		}
	}
}

// observe records one decision in the metrics.
func (s *state) observe(cp *compiledPolicy, cb *compiledBinding, dec *decision, action string) {
	sink := s.d.o.Metrics
	if sink == nil {
		return
	}
	errType := dec.errorType()
	sink.Add(metrics.ValidatingAdmissionPolicyChecks, 1, cp.name, cb.name, errType, action)
	sink.Observe(metrics.ValidatingAdmissionPolicyCheckDuration, dec.elapsed.Seconds(), cp.name, cb.name, errType, action)
}

// errorType classifies a decision as kube-apiserver's metrics do: no_error
// for an admitting evaluation, otherwise by the message's prefix (so a
// plain denial is an invalid_error).
func (dec *decision) errorType() string {
	switch {
	case !dec.deny && !dec.evalError:
		return "no_error"
	case strings.HasPrefix(dec.message, "compilation"):
		return "compile_error"
	case strings.HasPrefix(dec.message, "validation failed due to running out of cost budget"):
		return "out_of_budget"
	}
	return "invalid_error"
}

// annotationCollector gathers one policy's audit annotations over its
// bindings: values per key, without duplicates.
type annotationCollector struct {
	keys   []string
	values map[string][]string
}

func (c *annotationCollector) add(key, value string) {
	if c.values == nil {
		c.values = map[string][]string{}
	}
	for _, v := range c.values[key] {
		if v == value {
			return
		}
	}
	if _, ok := c.values[key]; !ok {
		c.keys = append(c.keys, key)
	}
	c.values[key] = append(c.values[key], value)
}

// publish adds the policy's annotations to the result as
// "<policy>/<key>", the values joined with ", ", and returns those the
// request's attributes refused, which kube-apiserver logs and drops.
func (c *annotationCollector) publish(policy string, r *Result) []DroppedAuditAnnotation {
	var dropped []DroppedAuditAnnotation
	for _, key := range c.keys {
		full, value := policy+"/"+key, strings.Join(c.values[key], ", ")
		if err := addAnnotation(r, full, value); err != nil {
			dropped = append(dropped, DroppedAuditAnnotation{Key: full, Value: value, Err: err.Error()})
		}
	}
	return dropped
}

// addAnnotation adds an audit annotation as kube-apiserver's admission
// attributes do (AddAnnotation, at audit level Metadata), with their
// errors: a key that is not a qualified name with a prefix is refused, and
// so is a key already set to another value.
func addAnnotation(r *Result, key, value string) error {
	if strings.Count(key, "/") != 1 {
		return errors.New("annotation key has invalid format, the right format is a DNS subdomain prefix and '/' and key name. (e.g. 'podsecuritypolicy.admission.k8s.io/admit-policy')")
	}
	if msgs := utilvalidation.IsQualifiedName(key); len(msgs) != 0 {
		//lint:ignore ST1005 kube-apiserver's text
		return fmt.Errorf("annotation key has invalid format %s. A qualified name like 'podsecuritypolicy.admission.k8s.io/admit-policy' is required.", strings.Join(msgs, ","))
	}
	if old, ok := r.AuditAnnotations[key]; ok && old != value {
		// kube-apiserver's text, its typo and its annotation struct
		// (level, value) included.
		return fmt.Errorf("admission annotations are not allowd to be overwritten, key:%q, old value: {Metadata %s}, new value: {Metadata %s}", key, old, value)
	}
	if r.AuditAnnotations == nil {
		r.AuditAnnotations = map[string]string{}
	}
	r.AuditAnnotations[key] = value
	return nil
}

// publishFailures adds the validation_failure annotation of the Audit
// actions.
func (s *state) publishFailures() {
	failures := s.failures
	if len(failures) == 0 {
		return
	}
	if len(failures) > maxValidationFailures {
		failures = failures[:maxValidationFailures]
	}
	if !kubeversions.Has(s.d.o.Kube, kubeversions.AuditFailuresAggregated) {
		// Before 1.37 each failure was published as a list of one, and
		// every one after the first refused as an overwrite.
		failures = failures[:1]
	}
	b, err := json.Marshal(failures)
	if err != nil {
		return
	}
	_ = addAnnotation(&s.result, ValidationFailureAnnotation, string(b)) // a valid key, set once
}

// denial is kube-apiserver's status of the first denied decision, or nil.
func (s *state) denial() error {
	if len(s.denied) == 0 {
		return nil
	}
	first := s.denied[0]
	var message string
	if first.binding != nil {
		message = fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s", first.policy.name, first.binding.name, first.message)
	} else {
		message = fmt.Sprintf("ValidatingAdmissionPolicy '%s' denied request: %s", first.policy.name, first.message)
	}
	status := apierrors.NewForbidden(s.req.Resource.GroupResource(), admissionpolicy.ForbiddenName(s.req.Name, s.req.Object), errors.New(message))
	reason := first.reason
	if reason == "" {
		reason = metav1.StatusReasonInvalid
	}
	status.ErrStatus.Reason = reason
	status.ErrStatus.Code = reasonToCode(reason)
	status.ErrStatus.Details.Causes = append(status.ErrStatus.Details.Causes, metav1.StatusCause{Message: message})
	return status
}

// reasonToCode is kube-apiserver's code of a denial's reason.
func reasonToCode(r metav1.StatusReason) int32 {
	switch r {
	case metav1.StatusReasonForbidden:
		return http.StatusForbidden
	case metav1.StatusReasonUnauthorized:
		return http.StatusUnauthorized
	case metav1.StatusReasonRequestEntityTooLarge:
		return http.StatusRequestEntityTooLarge
	}
	return http.StatusUnprocessableEntity
}
