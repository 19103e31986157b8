package main

import (
	"errors"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gatehouse-dev/gatehouse/crdapproval"
)

// crdReport is the -o json/yaml output of crd check.
type crdReport struct {
	SchemaVersion int       `json:"schemaVersion"`
	Files         []crdFile `json:"files"`
}

// crdFile is the verdict on the CRDs of one file.
type crdFile struct {
	File string `json:"file"`
	// CRDs are the CRDs of the file's good documents, in order.
	CRDs []crdVerdict `json:"crds"`
	// DecodeErrors are the documents that are not CRDs gatehouse can read.
	DecodeErrors []crdDecodeError `json:"decodeErrors"`
	// InputError says why the file could not be read.
	InputError string `json:"inputError,omitempty"`
}

// crdVerdict is kube-apiserver's verdict on one CRD.
type crdVerdict struct {
	// Document is the 1-based position of the CRD's document in the file,
	// among its non-empty documents; Line the line where it starts.
	Document   int    `json:"document"`
	Line       int    `json:"line"`
	APIVersion string `json:"apiVersion"`
	Name       string `json:"name"`
	Group      string `json:"group"`
	// Protected says whether the group needs api-approved.kubernetes.io.
	Protected bool `json:"protected"`
	// State is Approved, Unapproved, Missing, Invalid or NotRequired.
	State string `json:"state"`
	// Accepted says whether kube-apiserver 1.37 accepts the CRD: served
	// version and no approval error.
	Accepted bool `json:"accepted"`
	// Errors are kube-apiserver's errors on creating the CRD.
	Errors []kubeError `json:"errors"`
	// Condition is the KubernetesAPIApprovalPolicyConformant condition the
	// approval controller sets; absent for an unprotected group.
	Condition *crdCondition `json:"condition,omitempty"`
}

type crdCondition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

type crdDecodeError struct {
	Document int    `json:"document,omitempty"`
	Line     int    `json:"line,omitempty"`
	Field    string `json:"field,omitempty"`
	Message  string `json:"message"`
}

// v1beta1Error is kube-apiserver 1.37's answer to a CRD of
// apiextensions.k8s.io/v1beta1, removed in Kubernetes 1.22.
// kubectl's words come first; the approval verdict is that of the CRD
// converted to v1 (see package crdapproval).
const v1beta1Error = `no matches for kind "CustomResourceDefinition" in version "apiextensions.k8s.io/v1beta1": Kubernetes 1.22 removed apiextensions.k8s.io/v1beta1; use apiextensions.k8s.io/v1`

func (a *app) crdCheckCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "check FILE...",
		Short: "Check the api-approved.kubernetes.io annotation of CRDs as kube-apiserver 1.37 does",
		Long: `Check CustomResourceDefinitions in YAML or JSON files (several documents each,
as kubectl apply -f reads them) as kube-apiserver 1.37 checks their group on
create: a CRD in k8s.io, kubernetes.io or a subdomain of them needs the
api-approved.kubernetes.io annotation, set to the URL of the pull request that
approved the API or to a reason that starts with "unapproved".

For each CRD: its approval state, the errors kube-apiserver returns on create,
and the KubernetesAPIApprovalPolicyConformant condition its controller sets.
A CRD of apiextensions.k8s.io/v1beta1 is a finding too: 1.37 does not serve
that version. Every document of a file must be a CRD; other documents are input
errors (exit status 2).

Only the approval check is made, not the rest of CRD validation (schemas,
names, versions).`,
		Example: `  gatehouse crd check config/crd/
  kustomize build config/crd | gatehouse crd check -
  gatehouse crd check -o json crds.yaml`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.crdCheck(args)
		},
	}
}

func (a *app) crdCheck(args []string) error {
	report := crdReport{SchemaVersion: schemaVersion}
	findings, inputErrors := false, false
	for _, in := range readInputs(args, a.stdin) {
		f := crdFile{File: in.name, CRDs: []crdVerdict{}, DecodeErrors: []crdDecodeError{}}
		if in.err != nil {
			f.InputError = in.err.Error()
			inputErrors = true
			report.Files = append(report.Files, f)
			continue
		}
		crds, err := crdapproval.Decode(in.data)
		for _, crd := range crds {
			v := checkCRD(crd)
			if !v.Accepted {
				findings = true
			}
			f.CRDs = append(f.CRDs, v)
		}
		if err != nil {
			inputErrors = true
			for _, e := range unjoin(err) {
				de := crdDecodeError{Message: e.Error()}
				var d *crdapproval.DecodeError
				if errors.As(e, &d) {
					de = crdDecodeError{Document: d.Document, Line: d.Line, Field: d.Field, Message: d.Error()}
				}
				f.DecodeErrors = append(f.DecodeErrors, de)
			}
		}
		report.Files = append(report.Files, f)
	}
	if err := a.emit(report, report.text); err != nil {
		return err
	}
	switch {
	case inputErrors:
		return errInput
	case findings:
		return errFindings
	}
	return nil
}

func checkCRD(crd crdapproval.CRD) crdVerdict {
	v := crdVerdict{
		Document: crd.Document, Line: crd.Line, APIVersion: crd.APIVersion, Name: crd.Name, Group: crd.Group,
		Protected: crdapproval.IsProtectedGroup(crd.Group),
		State:     crdapproval.StateOf(crd.Group, crd.Annotations).String(),
		Errors:    []kubeError{},
	}
	if crd.APIVersion == crdapproval.APIVersionV1beta1 {
		v.Errors = append(v.Errors, kubeError{Type: "NotServed", Detail: v1beta1Error, Message: v1beta1Error})
	}
	for _, e := range crdapproval.ValidateCreate(crd.Group, crd.Annotations) {
		v.Errors = append(v.Errors, kubeError{Field: e.Field, Type: string(e.Type), Detail: e.Detail, Message: e.Error()})
	}
	v.Accepted = len(v.Errors) == 0
	if c, ok := crdapproval.Condition(crd.Group, crd.Annotations); ok {
		v.Condition = condition(c)
	}
	return v
}

func condition(c metav1.Condition) *crdCondition {
	return &crdCondition{Type: c.Type, Status: string(c.Status), Reason: c.Reason, Message: c.Message}
}

// unjoin returns the errors err joins, or err alone.
func unjoin(err error) []error {
	var joined interface{ Unwrap() []error }
	if errors.As(err, &joined) {
		return joined.Unwrap()
	}
	return []error{err}
}

func (r crdReport) text(p *printer) {
	for _, f := range r.Files {
		if f.InputError != "" {
			p.linef("%s: %s: %s", f.File, p.paint(red, "cannot read"), f.InputError)
			continue
		}
		for _, c := range f.CRDs {
			verdict := p.paint(green, "accepted")
			if !c.Accepted {
				verdict = p.paint(red, "rejected")
			}
			p.linef("%s:%d: %s (%s): %s: %s", f.File, c.Line, c.Name, c.Group, verdict, c.State)
			for _, e := range c.Errors {
				p.block("  error: ", e.Message)
			}
			if c.Condition != nil {
				p.block("  condition: ", c.Condition.Type+"="+c.Condition.Status+" "+c.Condition.Reason+": "+c.Condition.Message)
			}
		}
		for _, e := range f.DecodeErrors {
			p.block(f.File+": "+p.paint(red, "cannot read")+": ", e.Message)
		}
	}
}
