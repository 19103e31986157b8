package conformance

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	api "k8s.io/apiserver/pkg/apis/apiserver"
	"k8s.io/apiserver/pkg/apis/apiserver/load"
	"k8s.io/apiserver/pkg/apis/apiserver/validation"
	authorizationcel "k8s.io/apiserver/pkg/authorization/cel"

	"github.com/gatehouse-dev/gatehouse/authzconfig"
)

// kubeconfigPlaces creates the files the corpus' placeholders stand for and
// returns the replacer of the placeholders.
func kubeconfigPlaces(t testing.TB) *strings.Replacer {
	dir := t.TempDir()
	file := filepath.Join(dir, "kubeconfig.yaml")
	require.NoError(t, os.WriteFile(file, []byte("apiVersion: v1\nkind: Config\n"), 0o600))
	sub := filepath.Join(dir, "kubeconfigs")
	require.NoError(t, os.Mkdir(sub, 0o700))
	require.NoError(t, os.Symlink(file, filepath.Join(dir, "link-to-file")))
	require.NoError(t, os.Symlink(sub, filepath.Join(dir, "link-to-dir")))
	require.NoError(t, os.Symlink(filepath.Join(dir, "nothing"), filepath.Join(dir, "dangling")))
	return strings.NewReplacer(
		kcFile, file,
		kcDir, sub,
		kcMissing, filepath.Join(dir, "missing.yaml"),
		kcLinkFile, filepath.Join(dir, "link-to-file"),
		kcLinkDir, filepath.Join(dir, "link-to-dir"),
		kcDangling, filepath.Join(dir, "dangling"),
	)
}

func kubeAPIServerKnownTypes() (known, repeatable sets.Set[string]) {
	return sets.New("AlwaysAllow", "AlwaysDeny", "ABAC", "Webhook", "RBAC", "Node"), sets.New("Webhook")
}

// fromKubeAPIServer converts kube-apiserver's decoded configuration to
// gatehouse's form, for comparison.
func fromKubeAPIServer(in *api.AuthorizationConfiguration) *authzconfig.Configuration {
	out := &authzconfig.Configuration{}
	if in.Authorizers != nil {
		out.Authorizers = []authzconfig.AuthorizerConfiguration{}
	}
	for _, a := range in.Authorizers {
		o := authzconfig.AuthorizerConfiguration{Type: string(a.Type), Name: a.Name}
		if w := a.Webhook; w != nil {
			cacheAuthorized, cacheUnauthorized := w.CacheAuthorizedRequests, w.CacheUnauthorizedRequests
			o.Webhook = &authzconfig.WebhookConfiguration{
				AuthorizedTTL:                            w.AuthorizedTTL,
				CacheAuthorizedRequests:                  &cacheAuthorized,
				UnauthorizedTTL:                          w.UnauthorizedTTL,
				CacheUnauthorizedRequests:                &cacheUnauthorized,
				Timeout:                                  w.Timeout,
				SubjectAccessReviewVersion:               w.SubjectAccessReviewVersion,
				MatchConditionSubjectAccessReviewVersion: w.MatchConditionSubjectAccessReviewVersion,
				FailurePolicy:                            w.FailurePolicy,
				ConnectionInfo:                           authzconfig.WebhookConnectionInfo{Type: w.ConnectionInfo.Type, KubeConfigFile: w.ConnectionInfo.KubeConfigFile},
			}
			if w.MatchConditions != nil {
				o.Webhook.MatchConditions = []authzconfig.WebhookMatchCondition{}
			}
			for _, c := range w.MatchConditions {
				o.Webhook.MatchConditions = append(o.Webhook.MatchConditions, authzconfig.WebhookMatchCondition{Expression: c.Expression})
			}
		}
		out.Authorizers = append(out.Authorizers, o)
	}
	return out
}

// fieldErrorView is what the test compares of a field error.
type fieldErrorView struct {
	Type     field.ErrorType
	Field    string
	BadValue string // as JSON, so that values of different Go types compare
	Detail   string
	Text     string
}

func viewErrors(t testing.TB, errs field.ErrorList) []fieldErrorView {
	var out []fieldErrorView
	for _, e := range errs {
		bad, err := json.Marshal(e.BadValue)
		require.NoError(t, err)
		out = append(out, fieldErrorView{Type: e.Type, Field: e.Field, BadValue: string(bad), Detail: e.Detail, Text: e.Error()})
	}
	return out
}

func errorText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// authzOutcome is what both implementations say of one input.
type authzOutcome struct {
	decodeErr string
	config    *authzconfig.Configuration
	errs      []fieldErrorView
	aggregate string
}

func kubeAPIServerOutcome(t testing.TB, compiler authorizationcel.Compiler, data []byte) authzOutcome {
	cfg, err := load.LoadFromData(data)
	if err != nil {
		return authzOutcome{decodeErr: err.Error()}
	}
	known, repeatable := kubeAPIServerKnownTypes()
	errs := validation.ValidateAuthorizationConfiguration(compiler, nil, cfg, known, repeatable)
	return authzOutcome{decodeErr: "<nil>", config: fromKubeAPIServer(cfg), errs: viewErrors(t, errs), aggregate: errorText(errs.ToAggregate())}
}

func gatehouseOutcome(t testing.TB, data []byte) authzOutcome {
	cfg, err := authzconfig.Decode(data)
	if err != nil {
		return authzOutcome{decodeErr: err.Error()}
	}
	errs := authzconfig.Validate(cfg, authzconfig.ValidateOptions{})
	return authzOutcome{decodeErr: "<nil>", config: cfg, errs: viewErrors(t, errs), aggregate: errorText(errs.ToAggregate())}
}

func compareAuthzOutcomes(t *testing.T, compiler authorizationcel.Compiler, data []byte) authzOutcome {
	t.Helper()
	want := kubeAPIServerOutcome(t, compiler, data)
	got := gatehouseOutcome(t, data)
	require.Equal(t, want.decodeErr, got.decodeErr, "decode error; input:\n%s", data)
	if want.config == nil {
		return want
	}
	assert.Equal(t, want.config, got.config, "decoded configuration; input:\n%s", data)
	assert.Equal(t, want.errs, got.errs, "validation errors; input:\n%s", data)
	assert.Equal(t, want.aggregate, got.aggregate, "aggregate text; input:\n%s", data)
	return want
}

// TestAuthzConfigCorpusMatchesKubeAPIServer decodes and validates every
// configuration of the generated corpus with k8s.io/apiserver's load and
// validation packages and with authzconfig, and requires the same decode
// error, the same decoded configuration and the same validation errors
// (type, field, bad value, detail, text, and the aggregate text).
func TestAuthzConfigCorpusMatchesKubeAPIServer(t *testing.T) {
	places := kubeconfigPlaces(t)
	compiler := authorizationcel.NewDefaultCompiler()
	corpus := authzCorpus(true)
	var decodeErrs, valid, invalid int
	for _, c := range corpus {
		t.Run(c.name, func(t *testing.T) {
			o := compareAuthzOutcomes(t, compiler, []byte(places.Replace(c.data)))
			switch {
			case o.config == nil:
				decodeErrs++
			case len(o.errs) == 0:
				valid++
			default:
				invalid++
			}
		})
	}
	t.Logf("%d configurations: %d rejected by decoding, %d valid, %d invalid", len(corpus), decodeErrs, valid, invalid)
	assert.Greater(t, decodeErrs, 100)
	assert.Greater(t, valid, 30)
	assert.Greater(t, invalid, 300)
}

// TestAuthzConfigRealWorldMatchesKubeAPIServer runs the published
// configurations (the shared realworld files, copied into authzconfig's
// testdata) through both implementations. Their kubeconfig files do not
// exist here, which both report alike.
func TestAuthzConfigRealWorldMatchesKubeAPIServer(t *testing.T) {
	dir := filepath.Join("..", "authzconfig", "testdata", "realworld")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.NotEmpty(t, entries)
	compiler := authorizationcel.NewDefaultCompiler()
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".yaml") && !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		t.Run(e.Name(), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			require.NoError(t, err)
			compareAuthzOutcomes(t, compiler, data)
		})
	}
}

// TestAuthzConfigDecodeAndValidateMatchesKubeAPIServer checks that the
// first two steps of DecodeAndValidate print what kube-apiserver's
// LoadAndValidateData prints for them: the wrapped decode error, then the
// validation aggregate.
func TestAuthzConfigDecodeAndValidateMatchesKubeAPIServer(t *testing.T) {
	places := kubeconfigPlaces(t)
	compiler := authorizationcel.NewDefaultCompiler()
	for _, c := range authzCorpus(true) {
		data := []byte(places.Replace(c.data))
		want := kubeAPIServerOutcome(t, compiler, data)
		_, err := authzconfig.DecodeAndValidate(data, nil, authzconfig.ValidateOptions{})
		switch {
		case want.config == nil:
			assert.EqualError(t, err, "failed to load AuthorizationConfiguration from file: "+want.decodeErr, c.name)
		case len(want.errs) > 0:
			assert.EqualError(t, err, want.aggregate, c.name)
		case err != nil:
			// Only kube-apiserver's own name rule may reject a valid configuration.
			assert.Contains(t, err.Error(), "expected name ", c.name)
		}
	}
}

// FuzzAuthzConfigMatchesKubeAPIServer decodes and validates arbitrary data
// with both implementations and requires the same outcome, starting from
// the corpus.
func FuzzAuthzConfigMatchesKubeAPIServer(f *testing.F) {
	places := kubeconfigPlaces(f)
	for _, c := range authzCorpus(true) {
		f.Add([]byte(places.Replace(c.data)))
	}
	compiler := authorizationcel.NewDefaultCompiler()
	f.Fuzz(func(t *testing.T, data []byte) {
		want := kubeAPIServerOutcome(t, compiler, data)
		got := gatehouseOutcome(t, data)
		require.Equal(t, want, got, "input:\n%q", data)
	})
}
