package policyworld

import (
	"context"
	"encoding/json"
	"errors"
	"os"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/matchcond"
	"github.com/gatehouse-dev/gatehouse/validatingpolicy"
)

// Verdicts are what kube-apiserver does with a world: the policies and
// bindings it refuses, and the outcome of creating each object.
type Verdicts struct {
	Scenario string    `json:"scenario"`
	Invalid  []string  `json:"invalid"`
	Outcomes []Outcome `json:"outcomes"`
}

// Outcome is the outcome of creating one object.
type Outcome struct {
	Object string `json:"object"`
	File   string `json:"file"`
	// Denied is the denial's message, Code and Reason its status'.
	Denied           string            `json:"denied,omitempty"`
	Code             int32             `json:"code,omitempty"`
	Reason           string            `json:"reason,omitempty"`
	Warnings         []string          `json:"warnings,omitempty"`
	AuditAnnotations map[string]string `json:"auditAnnotations,omitempty"`
}

// User is the user who creates the objects.
var User = authenticationv1.UserInfo{Username: "alice", UID: "u1", Groups: []string{"system:authenticated"}}

// Name names an object in outcomes: "<Kind> <namespace>/<name>".
func Name(o *Object) string {
	return o.Object.GetKind() + " " + o.Object.GetNamespace() + "/" + o.Object.GetName()
}

// Namespaces are the world's namespaces: those of its files, and every
// other namespace its objects are in, with the scenario's labels and
// kubernetes.io/metadata.name, which kube-apiserver sets on every
// namespace.
func (w *World) Namespaces() map[string]*corev1.Namespace {
	out := map[string]*corev1.Namespace{}
	for _, o := range w.Objects {
		if o.Object.GetKind() == "Namespace" && o.Object.GetAPIVersion() == "v1" {
			ns := &corev1.Namespace{}
			if runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object.Object, ns) == nil {
				out[ns.Name] = ns
			}
		}
	}
	for _, o := range w.Objects {
		if n := o.Object.GetNamespace(); n != "" && out[n] == nil {
			out[n] = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}}
		}
	}
	for name, labels := range w.namespaceLabels {
		if out[name] == nil {
			out[name] = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
		}
		for k, v := range labels {
			metav1.SetMetaDataLabel(&out[name].ObjectMeta, k, v)
		}
	}
	for name, ns := range out {
		metav1.SetMetaDataLabel(&ns.ObjectMeta, "kubernetes.io/metadata.name", name)
	}
	return out
}

// ConfigMaps are the world's ConfigMaps: the only params it serves.
func (w *World) ConfigMaps() []*Object {
	var out []*Object
	for i := range w.Objects {
		if o := &w.Objects[i]; o.Object.GetKind() == "ConfigMap" && o.Object.GetAPIVersion() == "v1" {
			out = append(out, o)
		}
	}
	return out
}

// Request is the request that creates o: namespaced unless it has no
// namespace; a Namespace carries its own name as its namespace.
func Request(o *Object) *validatingpolicy.Request {
	gvk := o.Object.GroupVersionKind()
	ns := o.Object.GetNamespace()
	if gvk.Group == "" && gvk.Kind == "Namespace" {
		ns = o.Object.GetName()
	}
	return &validatingpolicy.Request{
		Operation: admissionv1.Create, Kind: gvk, Resource: gvk.GroupVersion().WithResource(Resource(gvk.Kind)),
		Name: o.Object.GetName(), Namespace: ns, UserInfo: User, Object: o.Object.DeepCopy(),
	}
}

// Dispatcher is gatehouse's dispatcher over the world: namespaces as
// Namespaces says, ConfigMap params, every authorizer check allowed.
func (w *World) Dispatcher() (*validatingpolicy.Dispatcher, error) {
	namespaces := w.Namespaces()
	var params []runtime.Object
	for _, o := range w.ConfigMaps() {
		params = append(params, o.Object)
	}
	configMaps := validatingpolicy.NewParamObjects(nil, params...)
	return validatingpolicy.NewDispatcher(w.Policies, w.Bindings, validatingpolicy.Options{
		Params: validatingpolicy.ParamSourceFunc(func(kind schema.GroupVersionKind) (validatingpolicy.Params, error) {
			if kind != corev1.SchemeGroupVersion.WithKind("ConfigMap") {
				return nil, validatingpolicy.ErrParamKindNotKnown
			}
			return configMaps.Params(kind)
		}),
		Namespaces: validatingpolicy.NamespaceLookupFunc(func(_ context.Context, name string) (*corev1.Namespace, error) {
			if ns, ok := namespaces[name]; ok {
				return ns, nil
			}
			return nil, apierrors.NewNotFound(corev1.Resource("namespaces"), name)
		}),
		Authorizer: allowAll{},
		Static:     w.Static,
	})
}

type allowAll struct{}

func (allowAll) Authorize(context.Context, *matchcond.AuthorizationAttributes) (matchcond.Decision, string, error) {
	return matchcond.DecisionAllow, "", nil
}

// NewOutcome is the outcome of creating o: the error and what the plugin
// returned.
func NewOutcome(o *Object, err error, warnings []string, annotations map[string]string) Outcome {
	out := Outcome{Object: Name(o), File: o.File, Warnings: warnings, AuditAnnotations: annotations}
	var status *apierrors.StatusError
	if errors.As(err, &status) {
		out.Denied, out.Code, out.Reason = status.ErrStatus.Message, status.ErrStatus.Code, string(status.ErrStatus.Reason)
	} else if err != nil {
		out.Denied = err.Error()
	}
	if len(out.AuditAnnotations) == 0 {
		out.AuditAnnotations = nil
	}
	if len(out.Warnings) == 0 {
		out.Warnings = nil
	}
	return out
}

// Validate gives gatehouse's verdicts on the world.
func (w *World) Validate(ctx context.Context) (*Verdicts, error) {
	d, err := w.Dispatcher()
	if err != nil {
		return nil, err
	}
	v := &Verdicts{Scenario: w.Name, Invalid: w.Invalid}
	for i := range w.Objects {
		o := &w.Objects[i]
		res, err := d.Validate(ctx, Request(o))
		v.Outcomes = append(v.Outcomes, NewOutcome(o, err, res.Warnings, res.AuditAnnotations))
	}
	return v, nil
}

// ReadVerdicts reads a verdicts file: the verdicts of each scenario.
func ReadVerdicts(path string) ([]*Verdicts, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var v []*Verdicts
	return v, json.Unmarshal(data, &v)
}

// WriteVerdicts writes a verdicts file.
func WriteVerdicts(path string, v []*Verdicts) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}
