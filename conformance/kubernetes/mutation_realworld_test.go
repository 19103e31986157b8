package kubernetes

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/admissionregistration"
	admvalidation "k8s.io/kubernetes/pkg/apis/admissionregistration/validation"
	"sigs.k8s.io/yaml"

	"github.com/gatehouse-dev/gatehouse/mutation"
)

// The real-world MutatingAdmissionPolicy files (the main module's
// mutation/testdata/realworld, copied from
// shared/realworld/mutating-admission-policy): each decoded by
// kube-apiserver's codec (defaults of the file's version, conversion to the
// internal type) and validated on create, against mutation.Decode and the
// Validator. The verdicts are kept in mutation/testdata/realworld-verdicts.json,
// which the main module's test asserts too; GATEHOUSE_UPDATE_VERDICTS=1
// rewrites it from kube-apiserver's.
const (
	mvRealworldDir      = "../../mutation/testdata/realworld"
	mvRealworldVerdicts = "../../mutation/testdata/realworld-verdicts.json"
)

// mvKubeDecode decodes the MutatingAdmissionPolicies and bindings of a file
// as kube-apiserver does, in order; other kinds are skipped.
func mvKubeDecode(t *testing.T, data []byte) []runtime.Object {
	t.Helper()
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var out []runtime.Object
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out
		}
		require.NoError(t, err)
		var tm metav1.TypeMeta
		require.NoError(t, yaml.Unmarshal(doc, &tm))
		if !strings.HasPrefix(tm.APIVersion, "admissionregistration.k8s.io/") || !strings.HasPrefix(tm.Kind, "MutatingAdmissionPolicy") {
			continue
		}
		js, err := yaml.YAMLToJSON(doc)
		require.NoError(t, err)
		obj, _, err := legacyscheme.Codecs.UniversalDecoder().Decode(js, nil, nil)
		require.NoError(t, err)
		out = append(out, obj)
	}
}

// mvVerdict is the verdict of one object: its kind and name, and its
// errors as kube-apiserver prints them, none when valid.
type mvVerdict struct {
	Object string   `json:"object"`
	Errors []string `json:"errors,omitempty"`
}

func newMVVerdict(kind, name string, errs field.ErrorList) mvVerdict {
	v := mvVerdict{Object: kind + " " + name}
	for _, e := range errs {
		v.Errors = append(v.Errors, e.Error())
	}
	return v
}

func TestMutationRealWorldMatchesKube(t *testing.T) {
	entries, err := os.ReadDir(mvRealworldDir)
	require.NoError(t, err)
	verdicts := map[string][]mvVerdict{}
	invalid := 0
	for _, e := range entries {
		name := e.Name()
		data, err := os.ReadFile(filepath.Join(mvRealworldDir, name))
		require.NoError(t, err)
		kubeObjs := mvKubeDecode(t, data)
		if len(kubeObjs) == 0 {
			continue
		}
		// mutation.Decode returns the policies, then the bindings.
		sort.SliceStable(kubeObjs, func(i, j int) bool {
			_, pi := kubeObjs[i].(*admissionregistration.MutatingAdmissionPolicy)
			_, pj := kubeObjs[j].(*admissionregistration.MutatingAdmissionPolicy)
			return pi && !pj
		})
		var want, wantChecked []mvVerdict
		for _, obj := range kubeObjs {
			// The REST API clears the namespace of a cluster-scoped
			// object before it validates it (rest.BeforeCreate).
			obj.(metav1.Object).SetNamespace("")
			var v mvVerdict
			switch o := obj.(type) {
			case *admissionregistration.MutatingAdmissionPolicy:
				v = newMVVerdict("MutatingAdmissionPolicy", o.Name, admvalidation.ValidateMutatingAdmissionPolicy(o))
			case *admissionregistration.MutatingAdmissionPolicyBinding:
				v = newMVVerdict("MutatingAdmissionPolicyBinding", o.Name, admvalidation.ValidateMutatingAdmissionPolicyBinding(o))
			default:
				t.Fatalf("%s: kube decoded a %T", name, obj)
			}
			if len(v.Errors) > 0 {
				invalid++
			}
			want = append(want, v)
			wantChecked = append(wantChecked, mvWithoutExpressionVerdict(v))
		}
		verdicts[name] = want
		if mvExpressionsChecked {
			wantChecked = want
		}

		objs, err := mutation.Decode(data)
		for _, e := range flatten(err) {
			var ke *mutation.KindError
			require.ErrorAs(t, e, &ke, "%s: only other kinds may be refused", name)
		}
		v := mvGatehouseValidator(t)
		var got []mvVerdict
		var gotObjs []runtime.Object
		for _, p := range objs.Policies {
			got = append(got, newMVVerdict("MutatingAdmissionPolicy", p.Name, v.ValidateMutatingAdmissionPolicy(p, nil)))
			in := &admissionregistration.MutatingAdmissionPolicy{}
			require.NoError(t, legacyscheme.Scheme.Convert(p, in, nil))
			gotObjs = append(gotObjs, in)
		}
		for _, b := range objs.Bindings {
			got = append(got, newMVVerdict("MutatingAdmissionPolicyBinding", b.Name, v.ValidateMutatingAdmissionPolicyBinding(b, nil)))
			in := &admissionregistration.MutatingAdmissionPolicyBinding{}
			require.NoError(t, legacyscheme.Scheme.Convert(b, in, nil))
			gotObjs = append(gotObjs, in)
		}
		assert.Equal(t, kubeObjs, gotObjs, "%s: decoded objects differ", name)
		assert.Equal(t, wantChecked, got, "%s: verdicts differ", name)
	}
	if os.Getenv("GATEHOUSE_UPDATE_VERDICTS") == "1" {
		data, err := json.MarshalIndent(verdicts, "", "  ")
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(mvRealworldVerdicts, append(data, '\n'), 0o644))
	}
	data, err := os.ReadFile(mvRealworldVerdicts)
	require.NoError(t, err)
	var stored map[string][]mvVerdict
	require.NoError(t, json.Unmarshal(data, &stored))
	assert.Equal(t, verdicts, stored, "kube-apiserver's verdicts and %s differ", mvRealworldVerdicts)
	t.Logf("%d real-world files with policies or bindings, %d invalid objects", len(verdicts), invalid)
}

// mvWithoutExpressionVerdict is a verdict without the compile errors of
// variables and mutations.
func mvWithoutExpressionVerdict(v mvVerdict) mvVerdict {
	out := mvVerdict{Object: v.Object}
	for _, e := range v.Errors {
		path, _, _ := strings.Cut(e, ": ")
		if !mvExpressionPath.MatchString(path) || strings.HasPrefix(e, path+": Required value") {
			out.Errors = append(out.Errors, e)
		}
	}
	return out
}

// flatten returns the errors that err joins.
func flatten(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
