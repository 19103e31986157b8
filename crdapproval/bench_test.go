package crdapproval

import (
	"os"
	"path/filepath"
	"testing"
)

// benchValues are the annotation values of the benchmarks, one per state.
var benchValues = []struct{ name, value string }{
	{"Approved", approvedURL},
	{"Unapproved", "unapproved, experimental-only"},
	{"Missing", ""},
	{"Invalid", "github.com/kubernetes/enhancements/pull/1111"},
}

func BenchmarkIsProtectedGroup(b *testing.B) {
	for _, group := range []string{"gateway.networking.k8s.io", "gateway.networking.x-k8s.io"} {
		b.Run(group, func(b *testing.B) {
			for b.Loop() {
				IsProtectedGroup(group)
			}
		})
	}
}

func BenchmarkStateOf(b *testing.B) {
	for _, v := range benchValues {
		annotations := map[string]string{AnnotationKey: v.value, "controller-gen.kubebuilder.io/version": "v0.15.0"}
		b.Run(v.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				StateOf("snapshot.storage.k8s.io", annotations)
			}
		})
	}
}

func BenchmarkValidateCreate(b *testing.B) {
	for _, v := range benchValues {
		annotations := map[string]string{AnnotationKey: v.value}
		b.Run(v.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ValidateCreate("snapshot.storage.k8s.io", annotations)
			}
		})
	}
}

func BenchmarkValidateUpdate(b *testing.B) {
	for _, v := range benchValues {
		annotations := map[string]string{AnnotationKey: v.value}
		b.Run(v.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ValidateUpdate("snapshot.storage.k8s.io", annotations, annotations)
			}
		})
	}
}

func BenchmarkCondition(b *testing.B) {
	for _, v := range benchValues {
		annotations := map[string]string{AnnotationKey: v.value}
		b.Run(v.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Condition("snapshot.storage.k8s.io", annotations)
			}
		})
	}
}

func BenchmarkDecode(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(realworldDir, "Azure__aad-pod-identity__crd.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}
