package crdapproval

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestIsProtectedGroup(t *testing.T) {
	tests := []struct {
		group string
		want  bool
	}{
		// The two domains and their subdomains.
		{"k8s.io", true},
		{"kubernetes.io", true},
		{"x.k8s.io", true},
		{"sigs.k8s.io", true},
		{"gateway.networking.k8s.io", true},
		{"a.b.kubernetes.io", true},
		{"apps.kubernetes.io", true},
		{".k8s.io", true}, // an invalid group, but the suffix test passes it
		{".kubernetes.io", true},
		{"-.k8s.io", true},

		// A subdomain needs its dot.
		{"xk8s.io", false},
		{"x-k8s.io", false},
		{"gateway.networking.x-k8s.io", false},
		{"multicluster.x-k8s.io", false},
		{"notk8s.io", false},
		{"mykubernetes.io", false},
		{"x_kubernetes.io", false},

		// The domain must be at the end.
		{"k8s.io.example.com", false},
		{"k8s.iox", false},
		{"k8s.io.", false},
		{"kubernetes.io.", false},
		{"k8s.io/v1", false},

		// Case matters, as in kube-apiserver.
		{"K8S.IO", false},
		{"x.K8s.io", false},
		{"Kubernetes.io", false},
		{"x.KUBERNETES.IO", false},

		// Nothing is trimmed.
		{" k8s.io", false}, // ends with "k8s.io", but with a space, not a dot, before it
		{"k8s.io ", false},
		{"x.k8s.io\n", false},
		{"\tk8s.io", false},
		{" .k8s.io", true}, // a space before the dot is part of the subdomain

		// Other groups.
		{"", false},
		{"io", false},
		{"k8s", false},
		{".io", false},
		{"8s.io", false},
		{"example.com", false},
		{"different.io", false},
		{"apiextensions.k8s", false},
	}
	for _, tt := range tests {
		t.Run(tt.group, func(t *testing.T) {
			assert.Equal(t, tt.want, IsProtectedGroup(tt.group))
		})
	}
}
