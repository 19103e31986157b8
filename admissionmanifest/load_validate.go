package admissionmanifest

import (
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// This file is the loaders' REST step, kube-apiserver's injected
// "defaultAndValidate" functions: the v1 defaults, the REST validation of a
// create with static names allowed, the error worded "<Kind> \"name\":
// <aggregate>", and the object as kube-apiserver's round trip through its
// internal version leaves it (defaulted, without apiVersion and kind).

// restValidator returns the Validator of the load, built on first use.
func (l *loader) restValidator() (*Validator, error) {
	if l.validator == nil {
		v, err := NewValidator(Options{StaticNames: StaticNamesAllowed})
		if err != nil {
			return nil, err
		}
		l.validator = v
	}
	return l.validator, nil
}

func (l *loader) defaultAndValidateValidatingWebhookConfiguration(c *admissionregistrationv1.ValidatingWebhookConfiguration) error {
	SetDefaultsValidatingWebhookConfiguration(c)
	v, err := l.restValidator()
	if err != nil {
		return err
	}
	if errs, _ := v.ValidateValidatingWebhookConfiguration(c, nil); len(errs) > 0 {
		return fmt.Errorf("ValidatingWebhookConfiguration %q: %w", c.Name, errs.ToAggregate())
	}
	c.TypeMeta = metav1.TypeMeta{}
	return nil
}

func (l *loader) defaultAndValidateMutatingWebhookConfiguration(c *admissionregistrationv1.MutatingWebhookConfiguration) error {
	SetDefaultsMutatingWebhookConfiguration(c)
	v, err := l.restValidator()
	if err != nil {
		return err
	}
	if errs, _ := v.ValidateMutatingWebhookConfiguration(c, nil); len(errs) > 0 {
		return fmt.Errorf("MutatingWebhookConfiguration %q: %w", c.Name, errs.ToAggregate())
	}
	c.TypeMeta = metav1.TypeMeta{}
	return nil
}

func (l *loader) defaultAndValidateValidatingAdmissionPolicy(p *admissionregistrationv1.ValidatingAdmissionPolicy) error {
	SetDefaultsValidatingAdmissionPolicy(p)
	v, err := l.restValidator()
	if err != nil {
		return err
	}
	if errs, _ := v.ValidateValidatingAdmissionPolicy(p, nil); len(errs) > 0 {
		return fmt.Errorf("ValidatingAdmissionPolicy %q: %w", p.Name, errs.ToAggregate())
	}
	p.TypeMeta = metav1.TypeMeta{}
	return nil
}

func (l *loader) defaultAndValidateValidatingAdmissionPolicyBinding(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) error {
	SetDefaultsValidatingAdmissionPolicyBinding(b)
	v, err := l.restValidator()
	if err != nil {
		return err
	}
	if errs, _ := v.ValidateValidatingAdmissionPolicyBinding(b, nil); len(errs) > 0 {
		return fmt.Errorf("ValidatingAdmissionPolicyBinding %q: %w", b.Name, errs.ToAggregate())
	}
	b.TypeMeta = metav1.TypeMeta{}
	return nil
}

func (l *loader) defaultAndValidateMutatingAdmissionPolicy(p *admissionregistrationv1.MutatingAdmissionPolicy) error {
	SetDefaultsMutatingAdmissionPolicy(p)
	v, err := l.restValidator()
	if err != nil {
		return err
	}
	if errs, _ := v.ValidateMutatingAdmissionPolicy(p, nil); len(errs) > 0 {
		return fmt.Errorf("MutatingAdmissionPolicy %q: %w", p.Name, errs.ToAggregate())
	}
	p.TypeMeta = metav1.TypeMeta{}
	return nil
}

func (l *loader) defaultAndValidateMutatingAdmissionPolicyBinding(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) error {
	SetDefaultsMutatingAdmissionPolicyBinding(b)
	v, err := l.restValidator()
	if err != nil {
		return err
	}
	if errs, _ := v.ValidateMutatingAdmissionPolicyBinding(b, nil); len(errs) > 0 {
		return fmt.Errorf("MutatingAdmissionPolicyBinding %q: %w", b.Name, errs.ToAggregate())
	}
	b.TypeMeta = metav1.TypeMeta{}
	return nil
}
