package main

import (
	"fmt"
	"os"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook/admissionwebhooktest"
	"github.com/gatehouse-dev/gatehouse/kube"
)

// admissionAnswers is the file of scripted admission webhook answers of
// admit and test (--webhook-answers), in place of calls to the real
// webhooks.
type admissionAnswers struct {
	Webhooks []scriptedAdmissionWebhook `json:"webhooks"`
}

// scriptedAdmissionWebhook answers for the admission webhook of that name.
type scriptedAdmissionWebhook struct {
	Name string `json:"name"`
	// Answers are tried in order; the first whose when matches answers.
	// None matching: allowed.
	Answers []scriptedAdmissionAnswer `json:"answers,omitempty"`
	// Fail, an HTTP status such as 500, answers every call with that status,
	// so that the webhook's failure policy decides.
	Fail int `json:"fail,omitempty"`
}

// scriptedAdmissionAnswer is one answer: allowed, or a denial (status),
// with a JSON patch (mutating webhooks), warnings and audit annotations.
type scriptedAdmissionAnswer struct {
	When             *admissionWhen    `json:"when,omitempty"`
	Allowed          bool              `json:"allowed,omitempty"`
	Status           *metav1.Status    `json:"status,omitempty"`
	Patch            []any             `json:"patch,omitempty"`
	Warnings         []string          `json:"warnings,omitempty"`
	AuditAnnotations map[string]string `json:"auditAnnotations,omitempty"`
}

// admissionWhen selects the reviews an answer is for: every field given
// must equal the review's.
type admissionWhen struct {
	Operation string `json:"operation,omitempty"`
	Kind      string `json:"kind,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
	User      string `json:"user,omitempty"`
}

func (w *admissionWhen) matches(r *admissionv1.AdmissionRequest) bool {
	if w == nil {
		return true
	}
	return (w.Operation == "" || strings.EqualFold(w.Operation, string(r.Operation))) && (w.Kind == "" || w.Kind == r.Kind.Kind) &&
		(w.Namespace == "" || w.Namespace == r.Namespace) && (w.Name == "" || w.Name == r.Name) && (w.User == "" || w.User == r.UserInfo.Username)
}

func (s scriptedAdmissionWebhook) answer(r *admissionv1.AdmissionRequest) admissionwebhooktest.Answer {
	for _, a := range s.Answers {
		if !a.When.matches(r) {
			continue
		}
		out := admissionwebhooktest.Answer{Allowed: a.Status == nil || a.Allowed, Status: a.Status, Warnings: a.Warnings, AuditAnnotations: a.AuditAnnotations}
		if a.Status != nil {
			out.Allowed = false
		}
		if a.Patch != nil {
			out.Patch, _ = yaml.YAMLToJSON(mustYAML(a.Patch))
		}
		return out
	}
	return admissionwebhooktest.Answer{Allowed: true}
}

func mustYAML(v any) []byte {
	b, _ := yaml.Marshal(v)
	return b
}

// readAdmissionAnswers reads a file of scripted answers, strictly.
func readAdmissionAnswers(path string) (*admissionAnswers, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var a admissionAnswers
	if err := yaml.UnmarshalStrict(data, &a); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &a, nil
}

// readWebhookConfigurations reads the webhook configurations of documents,
// with their defaults, validated as the REST API validates them on create.
func readWebhookConfigurations(t kube.Target, docs []document, report *admitReport) ([]*admissionregistrationv1.MutatingWebhookConfiguration, []*admissionregistrationv1.ValidatingWebhookConfiguration, []string) {
	var problems []string
	v, err := admissionmanifest.NewValidator(admissionmanifest.Options{Kube: t, StaticNames: admissionmanifest.StaticNamesFor(t)})
	if err != nil {
		return nil, nil, []string{err.Error()}
	}
	var mutating []*admissionregistrationv1.MutatingWebhookConfiguration
	var validating []*admissionregistrationv1.ValidatingWebhookConfiguration
	for _, d := range docs {
		if d.object.GetAPIVersion() != "admissionregistration.k8s.io/v1" {
			problems = append(problems, fmt.Sprintf("%s: %s %q: only admissionregistration.k8s.io/v1 webhook configurations are read", d.source, d.object.GetKind(), d.object.GetAPIVersion()))
			continue
		}
		switch d.object.GetKind() {
		case "MutatingWebhookConfiguration":
			c := &admissionregistrationv1.MutatingWebhookConfiguration{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(d.object.Object, c); err != nil {
				problems = append(problems, fmt.Sprintf("%s: %v", d.source, err))
				continue
			}
			admissionmanifest.SetDefaultsMutatingWebhookConfiguration(c)
			if errs, _ := v.ValidateMutatingWebhookConfiguration(c, nil); len(errs) > 0 {
				report.Invalid = append(report.Invalid, mutateInvalid{Kind: "MutatingWebhookConfiguration", Name: c.Name, Errors: errorStrings(errs)})
				continue
			}
			mutating = append(mutating, c)
		case "ValidatingWebhookConfiguration":
			c := &admissionregistrationv1.ValidatingWebhookConfiguration{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(d.object.Object, c); err != nil {
				problems = append(problems, fmt.Sprintf("%s: %v", d.source, err))
				continue
			}
			admissionmanifest.SetDefaultsValidatingWebhookConfiguration(c)
			if errs, _ := v.ValidateValidatingWebhookConfiguration(c, nil); len(errs) > 0 {
				report.Invalid = append(report.Invalid, mutateInvalid{Kind: "ValidatingWebhookConfiguration", Name: c.Name, Errors: errorStrings(errs)})
				continue
			}
			validating = append(validating, c)
		default:
			problems = append(problems, fmt.Sprintf("%s: %s: not a webhook configuration", d.source, d.object.GetKind()))
		}
	}
	return mutating, validating, problems
}

// scriptAdmissionWebhooks points every webhook at a local fake server that
// answers from the script (a webhook the script does not name allows
// everything), and returns the function that stops it.
func scriptAdmissionWebhooks(mutating []*admissionregistrationv1.MutatingWebhookConfiguration, validating []*admissionregistrationv1.ValidatingWebhookConfiguration, answers *admissionAnswers) (func(), error) {
	srv, err := admissionwebhooktest.NewServer(admissionwebhooktest.Options{})
	if err != nil {
		return nil, err
	}
	scripts := map[string]scriptedAdmissionWebhook{}
	if answers != nil {
		for _, s := range answers.Webhooks {
			scripts[s.Name] = s
		}
	}
	point := func(name string, cc *admissionregistrationv1.WebhookClientConfig) {
		path := "/" + name
		*cc = srv.ClientConfig(path)
		script := scripts[name]
		srv.Handle(path, script.answer)
		if script.Fail != 0 {
			srv.InjectAlways(admissionwebhooktest.Fault{Path: path, Status: script.Fail})
		}
	}
	for _, c := range mutating {
		for i := range c.Webhooks {
			point(c.Webhooks[i].Name, &c.Webhooks[i].ClientConfig)
		}
	}
	for _, c := range validating {
		for i := range c.Webhooks {
			point(c.Webhooks[i].Name, &c.Webhooks[i].ClientConfig)
		}
	}
	return srv.Close, nil
}
