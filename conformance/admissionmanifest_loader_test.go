package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	admissionregistrationv1alpha1 "k8s.io/api/admissionregistration/v1alpha1"
	admissionregistrationv1beta1 "k8s.io/api/admissionregistration/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	manifestmetrics "k8s.io/apiserver/pkg/admission/plugin/manifest/metrics"
	policygeneric "k8s.io/apiserver/pkg/admission/plugin/policy/generic"
	policyloader "k8s.io/apiserver/pkg/admission/plugin/policy/manifest/loader"
	policysource "k8s.io/apiserver/pkg/admission/plugin/policy/manifest/source"
	"k8s.io/apiserver/pkg/admission/plugin/webhook"
	webhookloader "k8s.io/apiserver/pkg/admission/plugin/webhook/manifest/loader"
	webhooksource "k8s.io/apiserver/pkg/admission/plugin/webhook/manifest/source"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
)

// kube-apiserver's manifest loaders (k8s.io/apiserver's generic loaders
// and sources) take their decoder and their defaulting and validation from
// kube-apiserver (k8s.io/kubernetes pkg/admission/plugin/.../manifest/loader),
// which is not importable here. kubeManifests builds them as
// kube-apiserver does — the same scheme (without kube-apiserver's internal
// types), the same type dispatch, the same error wording — around
// gatehouse's defaults and REST validation, so that what is compared is
// the loaders themselves.
type kubeManifests struct {
	decoder   runtime.Decoder
	validator *admissionmanifest.Validator
}

func newKubeManifests(t testing.TB) *kubeManifests {
	scheme := runtime.NewScheme()
	require.NoError(t, admissionregistrationv1.AddToScheme(scheme))
	require.NoError(t, admissionregistrationv1beta1.AddToScheme(scheme))
	require.NoError(t, admissionregistrationv1alpha1.AddToScheme(scheme))
	scheme.AddUnversionedTypes(metav1.SchemeGroupVersion, &metav1.List{}, &metav1.Status{})
	v, err := admissionmanifest.NewValidator(admissionmanifest.Options{StaticNames: admissionmanifest.StaticNamesAllowed})
	require.NoError(t, err)
	return &kubeManifests{decoder: serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer(), validator: v}
}

// The defaultAndValidate functions of kube-apiserver: defaults, the
// conversion round trip (which leaves no apiVersion and kind), validation.

func (k *kubeManifests) defaultAndValidateVWC(c *admissionregistrationv1.ValidatingWebhookConfiguration) error {
	admissionmanifest.SetDefaultsValidatingWebhookConfiguration(c)
	if errs, _ := k.validator.ValidateValidatingWebhookConfiguration(c, nil); len(errs) > 0 {
		return fmt.Errorf("ValidatingWebhookConfiguration %q: %w", c.Name, errs.ToAggregate())
	}
	c.TypeMeta = metav1.TypeMeta{}
	return nil
}

func (k *kubeManifests) defaultAndValidateMWC(c *admissionregistrationv1.MutatingWebhookConfiguration) error {
	admissionmanifest.SetDefaultsMutatingWebhookConfiguration(c)
	if errs, _ := k.validator.ValidateMutatingWebhookConfiguration(c, nil); len(errs) > 0 {
		return fmt.Errorf("MutatingWebhookConfiguration %q: %w", c.Name, errs.ToAggregate())
	}
	c.TypeMeta = metav1.TypeMeta{}
	return nil
}

func (k *kubeManifests) defaultAndValidateVAP(p *admissionregistrationv1.ValidatingAdmissionPolicy) error {
	admissionmanifest.SetDefaultsValidatingAdmissionPolicy(p)
	if errs, _ := k.validator.ValidateValidatingAdmissionPolicy(p, nil); len(errs) > 0 {
		return fmt.Errorf("ValidatingAdmissionPolicy %q: %w", p.Name, errs.ToAggregate())
	}
	p.TypeMeta = metav1.TypeMeta{}
	return nil
}

func (k *kubeManifests) defaultAndValidateVAPB(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) error {
	admissionmanifest.SetDefaultsValidatingAdmissionPolicyBinding(b)
	if errs, _ := k.validator.ValidateValidatingAdmissionPolicyBinding(b, nil); len(errs) > 0 {
		return fmt.Errorf("ValidatingAdmissionPolicyBinding %q: %w", b.Name, errs.ToAggregate())
	}
	b.TypeMeta = metav1.TypeMeta{}
	return nil
}

func (k *kubeManifests) defaultAndValidateMAP(p *admissionregistrationv1.MutatingAdmissionPolicy) error {
	admissionmanifest.SetDefaultsMutatingAdmissionPolicy(p)
	if errs, _ := k.validator.ValidateMutatingAdmissionPolicy(p, nil); len(errs) > 0 {
		return fmt.Errorf("MutatingAdmissionPolicy %q: %w", p.Name, errs.ToAggregate())
	}
	p.TypeMeta = metav1.TypeMeta{}
	return nil
}

func (k *kubeManifests) defaultAndValidateMAPB(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) error {
	admissionmanifest.SetDefaultsMutatingAdmissionPolicyBinding(b)
	if errs, _ := k.validator.ValidateMutatingAdmissionPolicyBinding(b, nil); len(errs) > 0 {
		return fmt.Errorf("MutatingAdmissionPolicyBinding %q: %w", b.Name, errs.ToAggregate())
	}
	b.TypeMeta = metav1.TypeMeta{}
	return nil
}

// acceptObject is kube-apiserver's webhook type dispatch.
func acceptObject[T runtime.Object](obj runtime.Object, extract func(runtime.Object) ([]T, bool), process func(T) error) ([]T, error) {
	items, ok := extract(obj)
	if !ok {
		return nil, fmt.Errorf("unsupported resource type %T", obj)
	}
	for _, item := range items {
		if err := process(item); err != nil {
			return nil, err
		}
	}
	return items, nil
}

func extractOne[T any, L any](obj runtime.Object, items func(*L) []T) ([]*T, bool) {
	if c, ok := obj.(any).(*T); ok {
		return []*T{c}, true
	}
	if l, ok := obj.(any).(*L); ok {
		list := items(l)
		out := make([]*T, len(list))
		for i := range list {
			out[i] = &list[i]
		}
		return out, true
	}
	return nil, false
}

func (k *kubeManifests) loadVWC(dir string) ([]*admissionregistrationv1.ValidatingWebhookConfiguration, string, error) {
	return webhookloader.LoadManifests(dir, k.decoder, func(obj runtime.Object) ([]*admissionregistrationv1.ValidatingWebhookConfiguration, error) {
		return acceptObject(obj, func(o runtime.Object) ([]*admissionregistrationv1.ValidatingWebhookConfiguration, bool) {
			return extractOne(o, func(l *admissionregistrationv1.ValidatingWebhookConfigurationList) []admissionregistrationv1.ValidatingWebhookConfiguration {
				return l.Items
			})
		}, k.defaultAndValidateVWC)
	})
}

func (k *kubeManifests) loadMWC(dir string) ([]*admissionregistrationv1.MutatingWebhookConfiguration, string, error) {
	return webhookloader.LoadManifests(dir, k.decoder, func(obj runtime.Object) ([]*admissionregistrationv1.MutatingWebhookConfiguration, error) {
		return acceptObject(obj, func(o runtime.Object) ([]*admissionregistrationv1.MutatingWebhookConfiguration, bool) {
			return extractOne(o, func(l *admissionregistrationv1.MutatingWebhookConfigurationList) []admissionregistrationv1.MutatingWebhookConfiguration {
				return l.Items
			})
		}, k.defaultAndValidateMWC)
	})
}

// acceptPolicyKind is kube-apiserver's policy type dispatch: each item
// defaulted and validated as it is extracted.
func acceptPolicyKind[T any, L any](obj runtime.Object, items func(*L) []T, process func(*T) error) ([]*T, error) {
	list, ok := extractOne(obj, items)
	if !ok {
		return nil, policyloader.ErrUnrecognizedType
	}
	for _, item := range list {
		if err := process(item); err != nil {
			return nil, err
		}
	}
	return list, nil
}

func (k *kubeManifests) loadVAP(dir string) ([]*admissionregistrationv1.ValidatingAdmissionPolicy, []*admissionregistrationv1.ValidatingAdmissionPolicyBinding, string, error) {
	return policyloader.LoadPolicyManifests(dir, k.decoder,
		func(obj runtime.Object) ([]*admissionregistrationv1.ValidatingAdmissionPolicy, error) {
			return acceptPolicyKind(obj, func(l *admissionregistrationv1.ValidatingAdmissionPolicyList) []admissionregistrationv1.ValidatingAdmissionPolicy {
				return l.Items
			}, k.defaultAndValidateVAP)
		},
		func(obj runtime.Object) ([]*admissionregistrationv1.ValidatingAdmissionPolicyBinding, error) {
			return acceptPolicyKind(obj, func(l *admissionregistrationv1.ValidatingAdmissionPolicyBindingList) []admissionregistrationv1.ValidatingAdmissionPolicyBinding {
				return l.Items
			}, k.defaultAndValidateVAPB)
		},
		func(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) string { return b.Spec.PolicyName })
}

func (k *kubeManifests) loadMAP(dir string) ([]*admissionregistrationv1.MutatingAdmissionPolicy, []*admissionregistrationv1.MutatingAdmissionPolicyBinding, string, error) {
	return policyloader.LoadPolicyManifests(dir, k.decoder,
		func(obj runtime.Object) ([]*admissionregistrationv1.MutatingAdmissionPolicy, error) {
			return acceptPolicyKind(obj, func(l *admissionregistrationv1.MutatingAdmissionPolicyList) []admissionregistrationv1.MutatingAdmissionPolicy {
				return l.Items
			}, k.defaultAndValidateMAP)
		},
		func(obj runtime.Object) ([]*admissionregistrationv1.MutatingAdmissionPolicyBinding, error) {
			return acceptPolicyKind(obj, func(l *admissionregistrationv1.MutatingAdmissionPolicyBindingList) []admissionregistrationv1.MutatingAdmissionPolicyBinding {
				return l.Items
			}, k.defaultAndValidateMAPB)
		},
		func(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) string { return b.Spec.PolicyName })
}

// manifestState is what kube-apiserver's source holds after loading a
// directory, in a form both sides can be put in.
type manifestState struct {
	Err      string
	Hash     string
	Objects  string // the loaded objects, as JSON
	Webhooks []accessorState
}

type accessorState struct {
	UID, Configuration, Name string
	NamespaceSelector        string
	ObjectSelector           string
	Webhook                  any
}

func objectsJSON(t testing.TB, objs ...any) string {
	data, err := json.Marshal(objs)
	require.NoError(t, err)
	return string(data)
}

type nopEvaluator struct{}

// kubeLoad loads dir with kube-apiserver's loader for the plugin, then
// builds kube-apiserver's static source on it (LoadInitial: the loader,
// then the accessors and their selectors, or the policy hooks).
func (k *kubeManifests) kubeLoad(t testing.TB, plugin admissionmanifest.Plugin, dir string) manifestState {
	var st manifestState
	switch plugin {
	case admissionmanifest.ValidatingAdmissionWebhook:
		configs, hash, err := k.loadVWC(dir)
		if err != nil {
			return manifestState{Err: err.Error()}
		}
		src := webhooksource.NewValidatingSource(dir, "", webhooksource.ValidatingWebhookLoadFunc(k.loadVWC))
		if err := src.LoadInitial(); err != nil {
			return manifestState{Err: err.Error()}
		}
		st = manifestState{Hash: hash, Objects: objectsJSON(t, configs), Webhooks: accessorStates(src.Webhooks())}
	case admissionmanifest.MutatingAdmissionWebhook:
		configs, hash, err := k.loadMWC(dir)
		if err != nil {
			return manifestState{Err: err.Error()}
		}
		src := webhooksource.NewMutatingSource(dir, "", webhooksource.MutatingWebhookLoadFunc(k.loadMWC))
		if err := src.LoadInitial(); err != nil {
			return manifestState{Err: err.Error()}
		}
		st = manifestState{Hash: hash, Objects: objectsJSON(t, configs), Webhooks: accessorStates(src.Webhooks())}
	case admissionmanifest.ValidatingAdmissionPolicy:
		policies, bindings, hash, err := k.loadVAP(dir)
		if err != nil {
			return manifestState{Err: err.Error()}
		}
		src := policysource.NewStaticPolicySource(dir, "",
			func(*admissionregistrationv1.ValidatingAdmissionPolicy) (nopEvaluator, error) {
				return nopEvaluator{}, nil
			},
			policysource.PolicyLoadFunc[*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding](k.loadVAP),
			func(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) string { return b.Spec.PolicyName },
			manifestmetrics.VAPManifestType)
		if err := src.LoadInitial(); err != nil {
			return manifestState{Err: err.Error()}
		}
		st = manifestState{Hash: hash, Objects: objectsJSON(t, policies, bindings)}
		requireHooksGroupBindings(t, src.Hooks())
	default:
		policies, bindings, hash, err := k.loadMAP(dir)
		if err != nil {
			return manifestState{Err: err.Error()}
		}
		st = manifestState{Hash: hash, Objects: objectsJSON(t, policies, bindings)}
	}
	return st
}

func requireHooksGroupBindings[P, B runtime.Object, E policygeneric.Evaluator](t testing.TB, hooks []policygeneric.PolicyHook[P, B, E]) {
	for _, h := range hooks {
		for _, b := range h.Bindings {
			require.NotNil(t, b)
		}
	}
}

func accessorStates(accessors []webhook.WebhookAccessor) []accessorState {
	var out []accessorState
	for _, a := range accessors {
		ns, _ := a.GetParsedNamespaceSelector()
		obj, _ := a.GetParsedObjectSelector()
		s := accessorState{UID: a.GetUID(), Configuration: a.GetConfigurationName(), Name: a.GetName(), NamespaceSelector: ns.String(), ObjectSelector: obj.String()}
		if h, ok := a.GetValidatingWebhook(); ok {
			s.Webhook = h
		} else if h, ok := a.GetMutatingWebhook(); ok {
			s.Webhook = h
		}
		out = append(out, s)
	}
	return out
}

// gatehouseLoad is the same on gatehouse's side: admissionmanifest.Load.
func gatehouseLoad(t testing.TB, plugin admissionmanifest.Plugin, dir string) manifestState {
	m, err := admissionmanifest.Load(plugin, dir, admissionmanifest.LoadOptions{})
	if err != nil {
		return manifestState{Err: err.Error()}
	}
	st := manifestState{Hash: m.Hash()}
	switch plugin {
	case admissionmanifest.ValidatingAdmissionWebhook:
		st.Objects = objectsJSON(t, m.ValidatingWebhookConfigurations())
	case admissionmanifest.MutatingAdmissionWebhook:
		st.Objects = objectsJSON(t, m.MutatingWebhookConfigurations())
	case admissionmanifest.ValidatingAdmissionPolicy:
		st.Objects = objectsJSON(t, m.ValidatingAdmissionPolicies(), m.ValidatingAdmissionPolicyBindings())
	default:
		st.Objects = objectsJSON(t, m.MutatingAdmissionPolicies(), m.MutatingAdmissionPolicyBindings())
	}
	for _, w := range m.Webhooks() {
		s := accessorState{UID: w.UID, Configuration: w.ConfigurationName, Name: w.Name(), NamespaceSelector: w.NamespaceSelector.String(), ObjectSelector: w.ObjectSelector.String()}
		if w.Validating != nil {
			s.Webhook = w.Validating
		} else {
			s.Webhook = w.Mutating
		}
		st.Webhooks = append(st.Webhooks, s)
	}
	return st
}

// TestAdmissionManifestLoaderMatchesKubeAPIServer loads generated
// directories with both loaders, each with all four plugins: the same
// error text, or the same objects (defaulted, in the same order), hash and
// webhook accessors (UIDs, names, parsed selectors).
func TestAdmissionManifestLoaderMatchesKubeAPIServer(t *testing.T) {
	k := newKubeManifests(t)
	g := manifestGen{r: rand.New(rand.NewSource(5793))}
	const dirs = 1500
	var cases, loaded, failed int
	for i := range dirs {
		plugin := admissionmanifest.Plugins()[i%4]
		d := g.dir(string(plugin))
		root := t.TempDir()
		require.NoError(t, d.write(root))
		for _, p := range admissionmanifest.Plugins() {
			want := k.kubeLoad(t, p, root)
			got := gatehouseLoad(t, p, root)
			cases++
			if debugManifestErrors && want.Err != "" {
				t.Log("ERR", want.Err)
			}
			if want.Err == "" {
				loaded++
			} else {
				failed++
			}
			if !reflect.DeepEqual(want, got) {
				t.Errorf("directory %d %v, plugin %s:\nkube-apiserver: %+v\ngatehouse:      %+v", i, d, p, want, got)
			}
		}
	}
	t.Logf("%d directories, %d loads: %d loaded, %d failed", dirs, cases, loaded, failed)
	assert.Greater(t, loaded, cases/10, "the corpus should load often")
	assert.Greater(t, failed, cases/10, "the corpus should fail often")
}

var _ = context.Background

const debugManifestErrors = false

// TestAdmissionManifestRealWorldMatchesKubeAPIServer loads every published
// file of ../admissionmanifest/testdata/realworld (the project's shared
// real-world corpus), alone in a directory, for each plugin, with both
// loaders: the same verdicts, objects, hashes and accessors. (The two
// AdmissionConfigurations are decoded as plugin manifests too, and refused
// alike.)
func TestAdmissionManifestRealWorldMatchesKubeAPIServer(t *testing.T) {
	k := newKubeManifests(t)
	files, err := filepath.Glob("../admissionmanifest/testdata/realworld/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var cases, loaded int
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644))
		for _, p := range admissionmanifest.Plugins() {
			want, got := k.kubeLoad(t, p, dir), gatehouseLoad(t, p, dir)
			cases++
			if want.Err == "" {
				loaded++
			}
			assert.Equal(t, want, got, "%s, plugin %s", filepath.Base(f), p)
		}
	}
	t.Logf("%d files × 4 plugins: %d cases, %d loaded", len(files), cases, loaded)
}

// FuzzAdmissionManifestLoaderMatchesKubeAPIServer loads fuzzed directories
// (the input cut into files at 0xFF bytes) with both loaders, for the four
// plugins: the same error text, or the same objects, hash and accessors.
// Its seeds are directories of the generated corpus.
func FuzzAdmissionManifestLoaderMatchesKubeAPIServer(f *testing.F) {
	g := manifestGen{r: rand.New(rand.NewSource(11))}
	for i := range 40 {
		d := g.dir(string(admissionmanifest.Plugins()[i%4]))
		var parts [][]byte
		for _, name := range []string{"10-a.yaml", "20-b.yml", "40-d.json", "60-f.txt"} {
			parts = append(parts, []byte(d[name]))
		}
		f.Add(bytes.Join(parts, []byte{0xff}))
	}
	k := newKubeManifests(f)
	names := []string{"a.yaml", "b.yml", "c.json", "d.txt"}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		dir := t.TempDir()
		for i, content := range bytes.SplitN(data, []byte{0xff}, len(names)) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, names[i]), content, 0o644))
		}
		for _, p := range admissionmanifest.Plugins() {
			want, got := k.kubeLoad(t, p, dir), gatehouseLoad(t, p, dir)
			if !reflect.DeepEqual(want, got) {
				t.Fatalf("plugin %s, files %q:\nkube-apiserver: %+v\ngatehouse:      %+v", p, data, want, got)
			}
		}
	})
}
