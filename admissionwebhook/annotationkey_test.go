package admissionwebhook

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

// upstreamAnnotationKey is kube-apiserver's check of an audit annotation's
// key.
func upstreamAnnotationKey(key string) bool {
	return len(strings.Split(key, "/")) == 2 && len(validation.IsQualifiedName(key)) == 0
}

var annotationKeySeeds = []string{
	"w.example.com/key", "a/b", "a-b.c/d_e.f-G", "0/0", "w.example.com/", "/key", "key",
	"a/b/c", "A.example.com/key", "-a/b", "a-/b", "a..b/c", ".a/b", "a./b", "a/-b", "a/b-",
	"a/b c", "a/_b", "a/b_", "a/b.c", "é/b", "a/é",
	strings.Repeat("a", 253) + "/b", strings.Repeat("a", 254) + "/b",
	"a/" + strings.Repeat("b", 63), "a/" + strings.Repeat("b", 64),
	strings.Repeat("a", 63) + "." + strings.Repeat("b", 63) + "/x",
	"mutation.webhook.admission.k8s.io/round_0_index_0", "patch.webhook.admission.k8s.io/round_1_index_2",
	"failed-open.validating.webhook.admission.k8s.io/round_0_index_0",
}

func TestAnnotationKey(t *testing.T) {
	valid := 0
	for _, key := range annotationKeySeeds {
		want := upstreamAnnotationKey(key)
		if got := annotationKey(key); got != want {
			t.Errorf("annotationKey(%q) = %v, kube-apiserver says %v", key, got, want)
		}
		if want {
			valid++
		}
	}
	if valid == 0 || valid == len(annotationKeySeeds) {
		t.Fatalf("%d of %d seeds valid: the table tells nothing apart", valid, len(annotationKeySeeds))
	}
}

func FuzzAnnotationKey(f *testing.F) {
	for _, key := range annotationKeySeeds {
		f.Add(key)
	}
	f.Fuzz(func(t *testing.T, key string) {
		if got, want := annotationKey(key), upstreamAnnotationKey(key); got != want {
			t.Fatalf("annotationKey(%q) = %v, kube-apiserver says %v", key, got, want)
		}
	})
}
