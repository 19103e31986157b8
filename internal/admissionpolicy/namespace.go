package admissionpolicy

import (
	"context"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NamespaceCache looks the request's namespace up once, for the selectors
// and for namespaceObject (kube-apiserver reads its lister each time; the
// answers are the same within a request). Lookup nil answers every
// namespace as existing, without labels.
type NamespaceCache struct {
	Lookup NamespaceLookup
	once   sync.Once
	name   string
	ns     *corev1.Namespace
	err    error
}

// Get returns the namespace name, looked up once per request.
func (c *NamespaceCache) Get(ctx context.Context, name string) (*corev1.Namespace, error) {
	c.once.Do(func() {
		c.name = name
		if c.Lookup == nil {
			c.ns = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
			return
		}
		c.ns, c.err = c.Lookup.Namespace(ctx, name)
	})
	if name != c.name { // never within one request
		if c.Lookup == nil {
			return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, nil
		}
		return c.Lookup.Namespace(ctx, name)
	}
	return c.ns, c.err
}

// NamespaceLabels implements admissionmatch.NamespaceLookup.
func (c *NamespaceCache) NamespaceLabels(ctx context.Context, name string) (map[string]string, error) {
	ns, err := c.Get(ctx, name)
	if err != nil {
		return nil, err
	}
	if ns == nil {
		return nil, nil
	}
	return ns.Labels, nil
}
