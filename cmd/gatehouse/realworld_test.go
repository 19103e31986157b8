package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/gatehouse-dev/gatehouse/authzconfig"
	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/gatehouse-dev/gatehouse/matchcond"
)

// The real-world files are copies of the ones the library's packages test
// with kube-apiserver's verdicts (authzconfig/realworld_test.go,
// crdapproval/realworld_test.go, and the conformance module, which checks
// them against kube-apiserver's own packages), so that this module's tests
// read them from its own testdata.
var realworldCopies = map[string]string{
	rwAuthz: "../../authzconfig/testdata/realworld",
	rwCRDs:  "../../crdapproval/testdata/realworld",
	rwAdm:   "../../admissionmanifest/testdata/realworld",
	rwMAP:   "../../mutation/testdata/realworld",
	rwVAP:   "../../validatingpolicy/testdata/realworld",
}

// TestRealworldCopies checks that the copies are those files, byte for byte,
// all of them.
func TestRealworldCopies(t *testing.T) {
	for dir, origin := range realworldCopies {
		want, err := filepath.Glob(filepath.Join(origin, "*"))
		require.NoError(t, err)
		require.NotEmpty(t, want)
		got, err := filepath.Glob(filepath.Join(dir, "*"))
		require.NoError(t, err)
		require.Len(t, got, len(want), dir)
		for _, w := range want {
			a, err := os.ReadFile(w)
			require.NoError(t, err)
			b, err := os.ReadFile(filepath.Join(dir, filepath.Base(w)))
			require.NoError(t, err)
			assert.Equal(t, string(a), string(b), "%s is a copy of %s", filepath.Join(dir, filepath.Base(w)), w)
		}
	}
}

// authzVerdict is kube-apiserver 1.37's verdict on a real-world
// configuration, with the kubeconfig files present on its node, and the
// hints gatehouse must give.
type authzVerdict struct {
	// decode: the file fails to decode (strict decoding); errs: the number
	// of validation errors; firstErr: the start of the first error.
	decode   bool
	errs     int
	firstErr string
	// hints are texts that must each start one hint's field path or
	// message ("path: message"), in order.
	hints []string
}

// realworldAuthz holds the verdicts, from authzconfig's TestRealWorldVerdicts
// and the notes of SOURCES.md.
var realworldAuthz = map[string]authzVerdict{
	// TTLs 0s: valid, and defaulted to 5m and 30s.
	"gardener__gardener__authz-config-with-seedauthorizer-0s-ttl.yaml": {hints: []string{
		"authorizers[2].webhook.authorizedTTL: a zero TTL is defaulted to 5m",
		"authorizers[2].webhook.unauthorizedTTL: a zero TTL is defaulted to 30s",
	}},
	"gardener__gardener__authz-config-with-seedauthorizer.yaml":    {},
	"gardener__gardener__authz-config-without-seedauthorizer.yaml": {},
	// name nested under webhook; type KubeConfig; "!(" read as a YAML tag.
	"kubernetes__enhancements__kep-3221-design-details.yaml": {decode: true,
		firstErr: `failed to load AuthorizationConfiguration from file: strict decoding error: unknown field "authorizers[0].webhook.name", unknown field "authorizers[3].webhook.name"`,
		hints: []string{
			"authorizers[0].webhook.name: the authorizer's name moved out of webhook",
			"authorizers[0].webhook.connectionInfo.type: KubeConfig is the early KEP name: the final value is KubeConfigFile",
			"authorizers[0].webhook.matchConditionSubjectAccessReviewVersion:",
			"authorizers[0].webhook.matchConditions[2].expression: request.user.groups does not exist",
			"authorizers[0].webhook.matchConditions[2].expression: in YAML, an unquoted value that starts with ! is a tag",
			"authorizers[1].name: kube-apiserver requires a Node authorizer to be named after its lowercased type: name: node",
			"authorizers[2].name: kube-apiserver requires a RBAC authorizer to be named after its lowercased type: name: rbac",
			"authorizers[3].webhook.name:",
			"authorizers[3].webhook.connectionInfo.type: kube-apiserver accepts InClusterConfig",
		}},
	"kubernetes__enhancements__kep-3221-proposal.yaml": {errs: 7, firstErr: "authorizers[0].name: Required value", hints: []string{
		"authorizers[0].webhook.connectionInfo.type: KubeConfig is the early KEP name",
		"authorizers[0].webhook.matchConditionSubjectAccessReviewVersion:",
		"authorizers[0].webhook.matchConditions[2].expression: request.user.groups does not exist: request.user is the user name, a string; use request.groups",
		"authorizers[0].webhook.matchConditions[2].expression: in YAML",
	}},
	"kubernetes__enhancements__kep-3221-story1-crd-protector.yaml": {errs: 5, firstErr: "authorizers[0].matchConditionSubjectAccessReviewVersion: Required value", hints: []string{
		"authorizers[0].webhook.connectionInfo.type: KubeConfig",
		"authorizers[0].webhook.matchConditions[2].expression: request.user.groups",
	}},
	"kubernetes__kubernetes__authz-config-test-rbac-only-v1alpha1.yaml": {},
	"kubernetes__kubernetes__load-test-unknown-field-typo.json": {decode: true,
		firstErr: `failed to load AuthorizationConfiguration from file: strict decoding error: unknown field "authorzers"`,
		hints:    []string{"authorzers: unknown field: did you mean authorizers?"}},
	"kubernetes__kubernetes__load-test-v1beta1-defaults.json": {errs: 4, firstErr: "authorizers[0].timeout: Required value"},
	// Fields of conditional authorization, which 1.37 does not have.
	"kubernetes__website__authorization-docs-conditional-example.yaml": {decode: true,
		firstErr: `failed to load AuthorizationConfiguration from file: strict decoding error: unknown field "authorizers[0].webhook.authorizationConditionsReviewVersion"`,
		hints: []string{
			"authorizers[0].webhook.authorizationConditionsReviewVersion: not a field of AuthorizationConfiguration in Kubernetes 1.37",
			"authorizers[0].webhook.conditionsEndpointKubeConfigContext: not a field",
		}},
	"kubernetes__website__authorization-docs-example.yaml": {decode: true,
		firstErr: `failed to load AuthorizationConfiguration from file: strict decoding error: unknown field "authorizers[0].webhook.authorizationConditionsReviewVersion"`,
		hints: []string{
			"authorizers[0].webhook.authorizationConditionsReviewVersion:",
			"authorizers[0].webhook.conditionsEndpointKubeConfigContext:",
			"authorizers[3].webhook.connectionInfo.type: kube-apiserver accepts InClusterConfig",
		}},
	// type KubeConfig; = for ==; a field of a string; unnamed Node and RBAC.
	"kubernetes__website__blog-structured-authz-beta-crd-protector-original.yaml": {errs: 5, firstErr: `authorizers[0].connectionInfo.type: Unsupported value: {"Type":"KubeConfig"`, hints: []string{
		"authorizers[0].webhook.connectionInfo.type: KubeConfig",
		"authorizers[0].webhook.matchConditions[1].expression: request.resourceAttributes.resource is a string and has no field resource: use request.resourceAttributes.resource",
		"authorizers[0].webhook.matchConditions[1].expression: CEL compares with ==",
		"authorizers[0].webhook.matchConditions[2].expression: request.resourceAttributes.resource is a string and has no field group: use request.resourceAttributes.group",
		"authorizers[0].webhook.matchConditions[2].expression: CEL compares with ==",
		"authorizers[1].name: kube-apiserver requires a Node authorizer to be named after its lowercased type: name: node",
		"authorizers[2].name: kube-apiserver requires a RBAC authorizer to be named after its lowercased type: name: rbac",
	}},
	"kubernetes__website__blog-structured-authz-beta-nested-webhooks-original.yaml": {errs: 7, firstErr: `authorizers[0].connectionInfo.type: Unsupported value`, hints: []string{
		"authorizers[0].webhook.connectionInfo.type: KubeConfig",
		"authorizers[3].webhook.connectionInfo.type: KubeConfig",
		"authorizers[3].webhook.matchConditions[2].expression: request.user.groups",
		"authorizers[3].webhook.matchConditions[2].expression: in YAML",
	}},
	// The corrected blog post: still = for == and unnamed Node and RBAC.
	"kubernetes__website__blog-structured-authz-beta-nested-webhooks-revised.yaml": {errs: 4, firstErr: `authorizers[0].matchConditions[1].expression: Invalid value`, hints: []string{
		"authorizers[0].webhook.matchConditions[1].expression: CEL compares with ==",
		"authorizers[1].name:",
		"authorizers[2].name:",
	}},
	"kubernetes__website__blog-structured-authz-beta-sample-original.yaml": {errs: 2, firstErr: `authorizers[0].connectionInfo.type: Unsupported value`, hints: []string{
		"authorizers[0].webhook.connectionInfo.type: KubeConfig",
		"authorizers[0].webhook.matchConditions[2].expression: request.user.groups",
		"authorizers[0].webhook.matchConditions[2].expression: in YAML",
		"authorizers[3].webhook.connectionInfo.type: kube-apiserver accepts InClusterConfig",
	}},
	// 0s TTLs with the caches switched off: valid, and no hint.
	"telekom__auth-operator__run-authorization-chain-authorization.yaml": {},
}

// TestRealworldAuthzValidate runs every real-world configuration through
// authz validate -o json and checks kube-apiserver's verdict and the hints.
func TestRealworldAuthzValidate(t *testing.T) {
	files := realworldFiles(t, rwAuthz)
	require.ElementsMatch(t, keys(realworldAuthz), files, "every file has its verdict, every verdict its file")
	for _, name := range files {
		t.Run(name, func(t *testing.T) {
			want := realworldAuthz[name]
			stdout, stderr, exit := runCommand([]string{"authz", "validate", "-o", "json", filepath.Join(rwAuthz, name)}, "")
			require.Empty(t, stderr)
			var report validateReport
			require.NoError(t, json.Unmarshal([]byte(stdout), &report))
			require.Len(t, report.Files, 1)
			f := report.Files[0]
			valid := !want.decode && want.errs == 0
			if valid {
				assert.Equal(t, verdictValid, f.Verdict)
				assert.Equal(t, exitOK, exit)
				assert.Empty(t, f.Errors)
			} else {
				assert.Equal(t, verdictInvalid, f.Verdict)
				assert.Equal(t, exitFindings, exit)
				if want.decode {
					require.Len(t, f.Errors, 1)
					assert.Equal(t, "Decode", f.Errors[0].Type)
				} else {
					require.Len(t, f.Errors, want.errs)
					for _, e := range f.Errors {
						assert.NotEqual(t, "Decode", e.Type)
						assert.True(t, strings.HasPrefix(e.Message, e.Field+": "), "%q names its field %q first", e.Message, e.Field)
					}
				}
				assert.True(t, strings.HasPrefix(f.Errors[0].Message, want.firstErr), "first error %q starts with %q", f.Errors[0].Message, want.firstErr)
			}
			// The hints expected, in order, among the hints given.
			var got []string
			for _, h := range f.Hints {
				got = append(got, h.Field+": "+h.Message)
			}
			i := 0
			for _, g := range got {
				if i < len(want.hints) && strings.HasPrefix(g, want.hints[i]) {
					i++
				}
			}
			assert.Equal(t, len(want.hints), i, "hints %q must include, in order, %q", got, want.hints)
			if len(want.hints) == 0 {
				assert.Empty(t, got)
			}
			// Hints are never among kube-apiserver's errors.
			for _, e := range f.Errors {
				assert.NotContains(t, e.Message, "hint")
			}
		})
	}
}

// crdVerdicts are kube-apiserver 1.37's verdicts on the CRDs of a real-world
// file, from crdapproval's TestRealworldCRDs: each CRD's state, and whether
// it is accepted (a served version and no approval error).
var realworldCRDVerdicts = map[string][]struct {
	state    string
	accepted bool
}{
	"Azure__aad-pod-identity__crd.yaml":                                                                          {{"Unapproved", true}, {"Unapproved", true}, {"Unapproved", true}, {"Unapproved", true}},
	"kcp-dev__kcp__rbac.authorization.k8s.io_clusterrolebindings.yaml":                                           {{"Approved", true}},
	"kcp-dev__kcp__rbac.authorization.k8s.io_roles.yaml":                                                         {{"Approved", true}},
	"kubernetes-csi__external-snapshot-metadata__cbt.storage.k8s.io_snapshotmetadataservices-no-annotation.yaml": {{"Missing", false}},
	"kubernetes-csi__external-snapshot-metadata__cbt.storage.k8s.io_snapshotmetadataservices.yaml":               {{"Approved", true}},
	"kubernetes-csi__external-snapshotter__groupsnapshot.storage.k8s.io_volumegroupsnapshotclasses.yaml":         {{"Approved", true}},
	"kubernetes-csi__external-snapshotter__snapshot.storage.k8s.io_volumesnapshotclasses.yaml":                   {{"Approved", true}},
	"kubernetes-sigs__external-dns__dnsendpoint.yaml":                                                            {{"Approved", true}},
	"kubernetes-sigs__gateway-api__gateway.networking.k8s.io_referencegrants-experimental.yaml":                  {{"Approved", true}},
	"kubernetes-sigs__gateway-api__gateway.networking.x-k8s.io_xreferencegrants.yaml":                            {{"NotRequired", true}},
	"kubernetes-sigs__mcs-api__multicluster.x-k8s.io_serviceexports.yaml":                                        {{"NotRequired", true}},
	// apiextensions.k8s.io/v1beta1: not served by 1.37, and Missing once
	// converted to v1.
	"kubernetes__autoscaler__vpa-v1-crd-v1beta1.yaml":                              {{"Missing", false}, {"Missing", false}},
	"kubernetes__kubernetes__sample-controller-crd-scale-subresource-v1beta1.yaml": {{"Missing", false}},
	"kubernetes__kubernetes__sample-controller-crd.yaml":                           {{"Approved", true}},
	"kubernetes__sample-controller__crd-status-subresource.yaml":                   {{"Unapproved", true}},
	"kubernetes__sample-controller__crd-v1beta1-sessionjobs.yaml":                  {{"Missing", false}},
}

// TestRealworldCRDCheck runs every real-world CRD file through crd check
// -o json and checks kube-apiserver's verdict on each CRD.
func TestRealworldCRDCheck(t *testing.T) {
	files := realworldFiles(t, rwCRDs)
	require.ElementsMatch(t, keys(realworldCRDVerdicts), files, "every file has its verdicts, every verdict its file")
	for _, name := range files {
		t.Run(name, func(t *testing.T) {
			want := realworldCRDVerdicts[name]
			stdout, stderr, exit := runCommand([]string{"crd", "check", "-o", "json", filepath.Join(rwCRDs, name)}, "")
			require.Empty(t, stderr)
			var report crdReport
			require.NoError(t, json.Unmarshal([]byte(stdout), &report))
			require.Len(t, report.Files, 1)
			f := report.Files[0]
			assert.Empty(t, f.DecodeErrors)
			require.Len(t, f.CRDs, len(want))
			allAccepted := true
			for i, w := range want {
				c := f.CRDs[i]
				assert.Equal(t, w.state, c.State, c.Name)
				assert.Equal(t, w.accepted, c.Accepted, c.Name)
				assert.Equal(t, w.accepted, len(c.Errors) == 0, c.Name)
				assert.Equal(t, c.APIVersion == "apiextensions.k8s.io/v1beta1", len(c.Errors) > 0 && c.Errors[0].Type == "NotServed", c.Name)
				assert.Equal(t, c.State != "NotRequired", c.Condition != nil, "%s: a condition in a protected group only", c.Name)
				allAccepted = allAccepted && w.accepted
			}
			if allAccepted {
				assert.Equal(t, exitOK, exit)
			} else {
				assert.Equal(t, exitFindings, exit)
			}
		})
	}
}

func realworldFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		if hasInputExtension(e.Name()) {
			out = append(out, e.Name())
		}
	}
	require.NotEmpty(t, out)
	return out
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestValidateIsDecodeAndValidate: the errors of authz validate, put
// together as kube-apiserver prints them, are the text of
// authzconfig.DecodeAndValidate, which gives kube-apiserver's text at
// startup and on reload (its differential tests are in the conformance
// module), for every pair of a file and a startup configuration.
func TestValidateIsDecodeAndValidate(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(rwAuthz, "*.[jy]*"))
	require.NoError(t, err)
	more, err := filepath.Glob("testdata/validate/*.yaml")
	require.NoError(t, err)
	files = append(files, more...)
	files = append(files, expl+"/chain.yaml", expl+"/rbac.yaml", expl+"/incluster.yaml")
	compiler, err := matchcond.NewAuthorizationCompiler()
	require.NoError(t, err)
	startups := []*authzconfig.Configuration{nil}
	for _, f := range []string{
		rwAuthz + "/kubernetes__kubernetes__authz-config-test-rbac-only-v1alpha1.yaml",
		rwAuthz + "/gardener__gardener__authz-config-without-seedauthorizer.yaml",
		expl + "/chain.yaml",
		expl + "/incluster.yaml",
	} {
		cfg, err := authzconfig.Load(f)
		require.NoError(t, err)
		startups = append(startups, cfg)
	}
	reloads := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		for i, startup := range startups {
			_, got := validateConfig(kube.Target{}, data, compiler, false, startup)
			_, want := authzconfig.DecodeAndValidate(data, startup, authzconfig.ValidateOptions{SkipFileChecks: true, Compiler: compiler})
			if want == nil {
				assert.Empty(t, got, "%s, startup %d", file, i)
				continue
			}
			errs := make([]error, len(got))
			for i, e := range got {
				errs[i] = errors.New(e.Message)
				if e.Type == "Reload" {
					reloads++
				}
			}
			require.NotEmpty(t, errs, file)
			assert.Equal(t, want.Error(), utilerrors.NewAggregate(errs).Error(), "%s, startup %d", file, i)
		}
	}
	assert.NotZero(t, reloads, "some pairs break the reload rules")
}
