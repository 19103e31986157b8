package kubeeval

import (
	"sync"

	"k8s.io/apiserver/pkg/admission"
)

// AnnotatedAttributes records the audit annotations the attributes record
// accepts (Annotations, once the dispatch returned). The oracle's vap op
// and the conformance module's in-process harnesses record with it.
type AnnotatedAttributes struct {
	admission.Attributes
	mu          sync.Mutex
	Annotations map[string]string
}

// AddAnnotation is the record's, kept when the record accepts it.
func (a *AnnotatedAttributes) AddAnnotation(key, value string) error {
	if err := a.Attributes.AddAnnotation(key, value); err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.Annotations == nil {
		a.Annotations = map[string]string{}
	}
	a.Annotations[key] = value
	return nil
}

// WarningList is a warning recorder that keeps the raw warnings in order
// (List, once the dispatch returned).
type WarningList struct {
	mu   sync.Mutex
	List []string
}

// AddWarning records text.
func (w *WarningList) AddWarning(_, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.List = append(w.List, text)
}
