package admissionmanifest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// fieldError is what a test compares of a field.Error.
type fieldError struct {
	Type     field.ErrorType
	Field    string
	BadValue any
	Detail   string
}

func fieldErrors(errs field.ErrorList) []fieldError {
	var out []fieldError
	for _, e := range errs {
		out = append(out, fieldError{e.Type, e.Field, e.BadValue, e.Detail})
	}
	return out
}

// TestValidateWebhookService pins the errors of a clientConfig.service, each
// field alone. kube-apiserver swaps the name and the namespace: a missing
// name is Required at service.namespace, a missing namespace at
// service.name.
func TestValidateWebhookService(t *testing.T) {
	const svc = "webhooks[0].clientConfig.service"
	tests := []struct {
		name    string
		service admissionregistrationv1.ServiceReference
		want    []fieldError
	}{
		{"valid", admissionregistrationv1.ServiceReference{Namespace: "ns", Name: "svc"}, nil},
		{"valid with port and path", admissionregistrationv1.ServiceReference{Namespace: "ns", Name: "svc", Port: ptrTo[int32](8443), Path: ptrTo("/a.b/c-d/")}, nil},
		{"name missing: reported at namespace", admissionregistrationv1.ServiceReference{Namespace: "ns"},
			[]fieldError{{field.ErrorTypeRequired, svc + ".namespace", "", ""}}},
		{"namespace missing: reported at name", admissionregistrationv1.ServiceReference{Name: "svc"},
			[]fieldError{{field.ErrorTypeRequired, svc + ".name", "", ""}}},
		{"both missing", admissionregistrationv1.ServiceReference{},
			[]fieldError{{field.ErrorTypeRequired, svc + ".name", "", ""}, {field.ErrorTypeRequired, svc + ".namespace", "", ""}}},
		{"invalid names are not checked", admissionregistrationv1.ServiceReference{Namespace: "NS", Name: "Svc_1"}, nil},
		{"port 0", admissionregistrationv1.ServiceReference{Namespace: "ns", Name: "svc", Port: ptrTo[int32](0)},
			[]fieldError{{field.ErrorTypeInvalid, svc + ".port", int32(0), "port is not valid: must be between 1 and 65535, inclusive"}}},
		{"port 65536", admissionregistrationv1.ServiceReference{Namespace: "ns", Name: "svc", Port: ptrTo[int32](65536)},
			[]fieldError{{field.ErrorTypeInvalid, svc + ".port", int32(65536), "port is not valid: must be between 1 and 65535, inclusive"}}},
		{"port -1", admissionregistrationv1.ServiceReference{Namespace: "ns", Name: "svc", Port: ptrTo[int32](-1)},
			[]fieldError{{field.ErrorTypeInvalid, svc + ".port", int32(-1), "port is not valid: must be between 1 and 65535, inclusive"}}},
		{"port 65535", admissionregistrationv1.ServiceReference{Namespace: "ns", Name: "svc", Port: ptrTo[int32](65535)}, nil},
		{"empty path", admissionregistrationv1.ServiceReference{Namespace: "ns", Name: "svc", Path: ptrTo("")}, nil},
		{"path /", admissionregistrationv1.ServiceReference{Namespace: "ns", Name: "svc", Path: ptrTo("/")}, nil},
		{"path //", admissionregistrationv1.ServiceReference{Namespace: "ns", Name: "svc", Path: ptrTo("//")},
			[]fieldError{{field.ErrorTypeInvalid, svc + ".path", "//", "segment[0] may not be empty"}}},
		// The first character is dropped, '/' or not, before the segments
		// are checked.
		{"relative path", admissionregistrationv1.ServiceReference{Namespace: "ns", Name: "svc", Path: ptrTo("a/b")},
			[]fieldError{
				{field.ErrorTypeInvalid, svc + ".path", "a/b", "must start with a '/'"},
				{field.ErrorTypeInvalid, svc + ".path", "a/b", "segment[0] may not be empty"},
			}},
		{"empty segment", admissionregistrationv1.ServiceReference{Namespace: "ns", Name: "svc", Path: ptrTo("/a//b")},
			[]fieldError{{field.ErrorTypeInvalid, svc + ".path", "/a//b", "segment[1] may not be empty"}}},
		{"invalid segment", admissionregistrationv1.ServiceReference{Namespace: "ns", Name: "svc", Path: ptrTo("/a/B_c")},
			[]fieldError{{field.ErrorTypeInvalid, svc + ".path", "/a/B_c", "segment[1]: " + dns1123Subdomain}}},
		{"everything", admissionregistrationv1.ServiceReference{Port: ptrTo[int32](0), Path: ptrTo("x//Y/")},
			[]fieldError{
				{field.ErrorTypeRequired, svc + ".name", "", ""},
				{field.ErrorTypeRequired, svc + ".namespace", "", ""},
				{field.ErrorTypeInvalid, svc + ".port", int32(0), "port is not valid: must be between 1 and 65535, inclusive"},
				{field.ErrorTypeInvalid, svc + ".path", "x//Y/", "must start with a '/'"},
				{field.ErrorTypeInvalid, svc + ".path", "x//Y/", "segment[0] may not be empty"},
				{field.ErrorTypeInvalid, svc + ".path", "x//Y/", "segment[1] may not be empty"},
				{field.ErrorTypeInvalid, svc + ".path", "x//Y/", "segment[2]: " + dns1123Subdomain},
			}},
	}
	v := testValidator(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := validVWC()
			c.Webhooks[0].ClientConfig = admissionregistrationv1.WebhookClientConfig{Service: tt.service.DeepCopy()}
			if c.Webhooks[0].ClientConfig.Service.Port == nil {
				SetDefaultsValidatingWebhookConfiguration(c) // port 443
			}
			errs, _ := v.ValidateValidatingWebhookConfiguration(c, nil)
			assert.Equal(t, tt.want, fieldErrors(errs))

			errs, _ = v.ValidateMutatingWebhookConfiguration(toMutating(c), nil)
			assert.Equal(t, tt.want, fieldErrors(errs), "mutating")
		})
	}
}
