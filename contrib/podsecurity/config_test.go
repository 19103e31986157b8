package podsecurity

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecodeAndNew(t *testing.T) {
	for _, tc := range []struct {
		name      string
		data      string
		decodeErr string
		newErr    string
		want      Configuration
	}{{
		name: "empty: the defaults", data: "",
		want: Configuration{Defaults: Defaults{Enforce: "privileged", EnforceVersion: "latest", Audit: "privileged", AuditVersion: "latest", Warn: "privileged", WarnVersion: "latest"}},
	}, {
		name: "v1 with defaults and exemptions", data: `
apiVersion: pod-security.admission.config.k8s.io/v1
kind: PodSecurityConfiguration
defaults: {enforce: baseline, enforce-version: v1.30, warn: restricted}
exemptions: {usernames: [admin], namespaces: [kube-system], runtimeClasses: [kata]}`,
		want: Configuration{Defaults: Defaults{Enforce: "baseline", EnforceVersion: "v1.30", Audit: "privileged", AuditVersion: "latest", Warn: "restricted", WarnVersion: "latest"},
			Exemptions: Exemptions{Usernames: []string{"admin"}, Namespaces: []string{"kube-system"}, RuntimeClasses: []string{"kata"}}},
	}, {
		name: "v1beta1 reads alike", data: `{"apiVersion": "pod-security.admission.config.k8s.io/v1beta1", "kind": "PodSecurityConfiguration", "defaults": {"audit": "restricted"}}`,
		want: Configuration{Defaults: Defaults{Enforce: "privileged", EnforceVersion: "latest", Audit: "restricted", AuditVersion: "latest", Warn: "privileged", WarnVersion: "latest"}},
	}, {
		name: "unknown field", data: "apiVersion: pod-security.admission.config.k8s.io/v1\nkind: PodSecurityConfiguration\nexemptions: {users: [a]}",
		decodeErr: `strict decoding error: unknown field "exemptions.users"`,
	}, {
		name: "no kind", data: "apiVersion: pod-security.admission.config.k8s.io/v1", decodeErr: "Object 'Kind' is missing",
	}, {
		name: "an invalid default level: kube's configuration error", data: "apiVersion: pod-security.admission.config.k8s.io/v1\nkind: PodSecurityConfiguration\ndefaults: {enforce: strict, warn-version: v2}",
		newErr: `PodSecurity configuration error: [enforce: must be one of privileged, baseline, restricted, warn-version: must be "latest" or "v1.x"]`,
	}, {
		name: "invalid exemptions: kube's validation", data: "apiVersion: pod-security.admission.config.k8s.io/v1\nkind: PodSecurityConfiguration\nexemptions: {usernames: [a, a, ''], namespaces: [Bad_NS], runtimeClasses: [x.y]}",
		newErr: `PodSecurity invalid: [exemptions.namespaces[0]: Invalid value: "Bad_NS": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), exemptions.usernames[1]: Duplicate value: "a", exemptions.usernames[2]: Invalid value: "": username must not be empty]`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Decode([]byte(tc.data))
			if tc.decodeErr != "" {
				require.ErrorContains(t, err, tc.decodeErr)
				return
			}
			require.NoError(t, err)
			_, err = New(c, Options{})
			if tc.newErr != "" {
				require.EqualError(t, err, tc.newErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want.Defaults, c.Defaults)
			assert.Equal(t, tc.want.Exemptions, c.Exemptions)
		})
	}
}

func TestFromAdmissionConfiguration(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "psa.yaml"), []byte("apiVersion: pod-security.admission.config.k8s.io/v1\nkind: PodSecurityConfiguration\ndefaults: {enforce: baseline}\n"), 0o600))
	for _, tc := range []struct {
		name, data, enforce, err string
	}{{
		name: "embedded", enforce: "restricted", data: `
apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: ValidatingAdmissionWebhook
  path: nowhere.yaml
- name: PodSecurity
  configuration:
    apiVersion: pod-security.admission.config.k8s.io/v1
    kind: PodSecurityConfiguration
    defaults: {enforce: restricted}`,
	}, {
		name: "by a relative path", enforce: "baseline", data: "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- {name: PodSecurity, path: psa.yaml}",
	}, {
		name: "no entry: the defaults", enforce: "privileged", data: "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins: []",
	}, {
		name: "a missing file", data: "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- {name: PodSecurity, path: missing.yaml}",
		err: "Couldn't open admission plugin configuration " + filepath.Join(dir, "missing.yaml"),
	}, {
		name: "not an AdmissionConfiguration", data: "apiVersion: v1\nkind: Pod", err: `kind "Pod": want AdmissionConfiguration`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(dir, "admission.yaml")
			require.NoError(t, os.WriteFile(file, []byte(tc.data), 0o600))
			c, err := ReadAdmissionConfiguration(file)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.enforce, c.Defaults.Enforce)
		})
	}
}
