package conformance

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/gatehouse-dev/gatehouse/crdapproval"
)

// Side-by-side benchmarks of crdapproval and k8s.io/apiextensions-apiserver
// v0.37.2. Compare with benchstat after renaming the sub-benchmarks:
//
//	go test -run '^$' -bench 'CRDApproval' -benchmem -count 6 . > crd.txt
//	benchstat -col /impl crd.txt

var crdApprovalBenchValues = []struct{ name, value string }{
	{"Approved", "https://github.com/kubernetes/enhancements/pull/1111"},
	{"Unapproved", "unapproved, experimental-only"},
	{"Missing", ""},
	{"Invalid", "github.com/kubernetes/enhancements/pull/1111"},
}

// BenchmarkCRDApprovalState compares StateOf with what kube-apiserver does to
// get the same answer: IsProtectedCommunityGroup, then GetAPIApprovalState.
func BenchmarkCRDApprovalState(b *testing.B) {
	const group = "snapshot.storage.k8s.io"
	for _, v := range crdApprovalBenchValues {
		annotations := crdApprovalAnnotations(v.value)
		b.Run("value="+v.name+"/impl=gatehouse", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				crdapproval.StateOf(group, annotations)
			}
		})
		b.Run("value="+v.name+"/impl=kube", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if apihelpers.IsProtectedCommunityGroup(group) {
					apihelpers.GetAPIApprovalState(annotations)
				}
			}
		})
	}
}

// BenchmarkCRDApprovalValidateCreate compares ValidateCreate with the
// narrowest exported kube-apiserver function that makes the check,
// ValidateCustomResourceDefinition, which validates the whole (minimal) CRD:
// the price of getting this answer from kube's package.
func BenchmarkCRDApprovalValidateCreate(b *testing.B) {
	const group = "snapshot.storage.k8s.io"
	ctx := context.Background()
	for _, v := range crdApprovalBenchValues {
		annotations := crdApprovalAnnotations(v.value)
		crd := kubeCRD(group, annotations)
		b.Run("value="+v.name+"/impl=gatehouse", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				crdapproval.ValidateCreate(group, annotations)
			}
		})
		b.Run("value="+v.name+"/impl=kube", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				validation.ValidateCustomResourceDefinition(ctx, crd)
			}
		})
	}
}

// BenchmarkCRDApprovalDecode compares Decode with kube's decoding of the same
// four-CRD file (document split and strict typed decode, no conversion).
func BenchmarkCRDApprovalDecode(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(crdApprovalRealworldDir, "Azure__aad-pod-identity__crd.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("impl=gatehouse", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := crdapproval.Decode(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=kube", func(b *testing.B) {
		scheme := runtime.NewScheme()
		install.Install(scheme)
		deserializer := serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer()
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
			for {
				doc, err := reader.Read()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
				if _, _, err := deserializer.Decode(doc, nil, nil); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
