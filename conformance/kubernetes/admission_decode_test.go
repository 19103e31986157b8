package kubernetes

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// admDecodeAll decodes the admissionregistration.k8s.io/v1 webhook
// configurations, validating admission policies and bindings of a YAML
// stream, unwrapping v1 Lists; other kinds are skipped. A document that does
// not decode is an error, returned with the objects before it and, if it
// decodes without its caBundles, its objects (and the stream stops there).
func admDecodeAll(data []byte) ([]runtime.Object, error) {
	var out []runtime.Object
	r := utilyaml.NewYAMLReader(bufioReader(data))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading YAML: %w", err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		objs, err := admDecodeDoc(doc)
		if err != nil {
			stripped, err2 := admWithoutCABundles(doc)
			if err2 != nil {
				return nil, err
			}
			if objs, err2 = admDecodeDoc(stripped); err2 != nil {
				return nil, err
			}
			return append(out, objs...), err
		}
		out = append(out, objs...)
	}
}

func admDecodeDoc(doc []byte) ([]runtime.Object, error) {
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return nil, fmt.Errorf("decoding a document: %w", err)
	}
	var obj runtime.Object
	switch {
	case tm.APIVersion == "v1" && tm.Kind == "List":
		var list struct {
			Items []runtime.RawExtension `json:"items"`
		}
		if err := yaml.Unmarshal(doc, &list); err != nil {
			return nil, fmt.Errorf("decoding a List: %w", err)
		}
		var out []runtime.Object
		for _, item := range list.Items {
			objs, err := admDecodeDoc(item.Raw)
			if err != nil {
				return nil, err
			}
			out = append(out, objs...)
		}
		return out, nil
	case tm.APIVersion != admissionregistrationv1.SchemeGroupVersion.String():
		return nil, nil
	case tm.Kind == "ValidatingWebhookConfiguration":
		obj = &admissionregistrationv1.ValidatingWebhookConfiguration{}
	case tm.Kind == "MutatingWebhookConfiguration":
		obj = &admissionregistrationv1.MutatingWebhookConfiguration{}
	case tm.Kind == "ValidatingAdmissionPolicy":
		obj = &admissionregistrationv1.ValidatingAdmissionPolicy{}
	case tm.Kind == "ValidatingAdmissionPolicyBinding":
		obj = &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
	default:
		return nil, nil
	}
	if err := yaml.Unmarshal(doc, obj); err != nil {
		return nil, fmt.Errorf("decoding a %s: %w", tm.Kind, err)
	}
	return []runtime.Object{obj}, nil
}

// admWithoutCABundles is doc without the caBundle of its webhooks (which
// validation never reads), so that a document whose caBundle is not base64
// can be validated for the rest.
func admWithoutCABundles(doc []byte) ([]byte, error) {
	var m map[string]any
	if err := yaml.Unmarshal(doc, &m); err != nil {
		return nil, err
	}
	if hooks, ok := m["webhooks"].([]any); ok {
		for _, h := range hooks {
			if hm, ok := h.(map[string]any); ok {
				if cc, ok := hm["clientConfig"].(map[string]any); ok {
					delete(cc, "caBundle")
				}
			}
		}
	}
	return yaml.Marshal(m)
}

func bufioReader(data []byte) *bufio.Reader { return bufio.NewReader(bytes.NewReader(data)) }
