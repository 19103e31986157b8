package builtintypes

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestWithoutMetadata(t *testing.T) {
	for _, tt := range []struct {
		gvk  schema.GroupVersionKind
		want bool
	}{
		{schema.GroupVersionKind{Version: "v1", Kind: "PodExecOptions"}, true},
		{schema.GroupVersionKind{Version: "v1", Kind: "PodAttachOptions"}, true},
		{schema.GroupVersionKind{Version: "v1", Kind: "NodeProxyOptions"}, true},
		{schema.GroupVersionKind{Version: "v1", Kind: "PodList"}, true},
		{schema.GroupVersionKind{Version: "v1", Kind: "DeleteOptions"}, true},
		{schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, false},
		{schema.GroupVersionKind{Version: "v1", Kind: "Binding"}, false},
		{schema.GroupVersionKind{Group: "policy", Version: "v1", Kind: "Eviction"}, false},
		{schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}, false},
		{schema.GroupVersionKind{Group: "authentication.k8s.io", Version: "v1", Kind: "TokenReview"}, false},
		// Unknown kinds are custom resources, held unstructured.
		{schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "WidgetOptions"}, false},
		{schema.GroupVersionKind{}, false},
	} {
		assert.Equal(t, tt.want, WithoutMetadata(tt.gvk), "%v", tt.gvk)
	}
}
