package mutation

import (
	"context"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// namespaceCache looks the request's namespace up once, for the selectors
// and for namespaceObject (kube-apiserver reads its lister each time; the
// answers are the same within a request).
type namespaceCache struct {
	lookup NamespaceLookup
	once   sync.Once
	name   string
	ns     *corev1.Namespace
	err    error
}

func (c *namespaceCache) get(ctx context.Context, name string) (*corev1.Namespace, error) {
	c.once.Do(func() {
		c.name = name
		if c.lookup == nil {
			c.ns = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
			return
		}
		c.ns, c.err = c.lookup.Namespace(ctx, name)
	})
	if name != c.name { // never within one request
		if c.lookup == nil {
			return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, nil
		}
		return c.lookup.Namespace(ctx, name)
	}
	return c.ns, c.err
}

// NamespaceLabels implements admissionmatch.NamespaceLookup.
func (c *namespaceCache) NamespaceLabels(ctx context.Context, name string) (map[string]string, error) {
	ns, err := c.get(ctx, name)
	if err != nil {
		return nil, err
	}
	if ns == nil {
		return nil, nil
	}
	return ns.Labels, nil
}
