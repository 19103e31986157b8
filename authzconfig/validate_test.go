package authzconfig

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// fakeFiles is a file system of absolute paths for the kubeconfig checks.
var fakeFiles = fstest.MapFS{
	"etc/kubernetes/kc.yaml":         {Data: []byte("kind: Config\n")},
	"etc/kubernetes/dir":             {Mode: fs.ModeDir},
	"kube-system-authz-webhook.yaml": {Data: []byte("kind: Config\n")},
}

func fakeStat(name string) (fs.FileInfo, error) {
	if !strings.HasPrefix(name, "/") {
		return nil, errors.New("relative path")
	}
	info, err := fakeFiles.Stat(name[1:])
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	return info, nil
}

func ptr[T any](v T) *T { return &v }

// validWebhook returns webhook settings that pass validation.
func validWebhook() *WebhookConfiguration {
	return &WebhookConfiguration{
		AuthorizedTTL:              metav1.Duration{Duration: 5 * time.Minute},
		UnauthorizedTTL:            metav1.Duration{Duration: 30 * time.Second},
		Timeout:                    metav1.Duration{Duration: 3 * time.Second},
		SubjectAccessReviewVersion: "v1",
		FailurePolicy:              "Deny",
		ConnectionInfo:             WebhookConnectionInfo{Type: "KubeConfigFile", KubeConfigFile: ptr("/etc/kubernetes/kc.yaml")},
	}
}

func webhookWith(change func(w *WebhookConfiguration)) *Configuration {
	w := validWebhook()
	change(w)
	return &Configuration{Authorizers: []AuthorizerConfiguration{{Type: "Webhook", Name: "w", Webhook: w}}}
}

func authorizers(list ...AuthorizerConfiguration) *Configuration {
	return &Configuration{Authorizers: list}
}

func TestValidateRules(t *testing.T) {
	tests := []struct {
		name string
		cfg  *Configuration
		opts ValidateOptions
		want []string
	}{
		{name: "valid", cfg: authorizers(
			AuthorizerConfiguration{Type: "RBAC", Name: "rbac"},
			AuthorizerConfiguration{Type: "Webhook", Name: "a.example.com", Webhook: validWebhook()},
			AuthorizerConfiguration{Type: "Webhook", Name: "b", Webhook: validWebhook()},
		)},
		{name: "no authorizers", cfg: authorizers(),
			want: []string{"authorizers: Required value: at least one authorization mode must be defined"}},
		{name: "no type, and nothing else is checked", cfg: authorizers(AuthorizerConfiguration{Name: "Bad_Name", Webhook: validWebhook()}),
			want: []string{"authorizers[0].type: Required value"}},
		{name: "unknown type, listed sorted", cfg: authorizers(AuthorizerConfiguration{Type: "rbac", Name: "x"}, AuthorizerConfiguration{Type: "Foo"}),
			want: []string{
				`authorizers[0].type: Unsupported value: "rbac": supported values: "ABAC", "AlwaysAllow", "AlwaysDeny", "Node", "RBAC", "Webhook"`,
				`authorizers[1].type: Unsupported value: "Foo": supported values: "ABAC", "AlwaysAllow", "AlwaysDeny", "Node", "RBAC", "Webhook"`,
			}},
		{name: "duplicate type", cfg: authorizers(
			AuthorizerConfiguration{Type: "RBAC", Name: "rbac"}, AuthorizerConfiguration{Type: "Node", Name: "node"},
			AuthorizerConfiguration{Type: "Node", Name: "Bad_Name"}, AuthorizerConfiguration{Type: "RBAC", Name: "rbac"}),
			want: []string{`authorizers[2].type: Duplicate value: "Node"`, `authorizers[3].type: Duplicate value: "RBAC"`}},
		{name: "no name", cfg: authorizers(AuthorizerConfiguration{Type: "RBAC"}, AuthorizerConfiguration{Type: "Node"}),
			want: []string{"authorizers[0].name: Required value", "authorizers[1].name: Required value"}},
		{name: "duplicate name wins over the name check", cfg: authorizers(
			AuthorizerConfiguration{Type: "RBAC", Name: "Bad_Name"}, AuthorizerConfiguration{Type: "Node", Name: "Bad_Name"}),
			want: []string{
				`authorizers[0].name: Invalid value: "Bad_Name": authorizer name is invalid: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
				`authorizers[1].name: Duplicate value: "Bad_Name"`,
			}},
		{name: "long name", cfg: authorizers(AuthorizerConfiguration{Type: "RBAC", Name: strings.Repeat("a", 254)}),
			want: []string{`authorizers[0].name: Invalid value: "` + strings.Repeat("a", 254) + `": authorizer name is invalid: must be no more than 253 characters`}},
		{name: "long invalid name", cfg: authorizers(AuthorizerConfiguration{Type: "RBAC", Name: strings.Repeat("A", 254)}),
			want: []string{`authorizers[0].name: Invalid value: "` + strings.Repeat("A", 254) + `": authorizer name is invalid: must be no more than 253 characters, a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
		{name: "webhook without settings", cfg: authorizers(AuthorizerConfiguration{Type: "Webhook", Name: "w"}),
			want: []string{"authorizers[0].webhook: Required value: required when type=Webhook"}},
		{name: "settings on another type", cfg: authorizers(AuthorizerConfiguration{Type: "RBAC", Name: "rbac", Webhook: &WebhookConfiguration{}}),
			want: []string{`authorizers[0].webhook: Invalid value: "non-null": may only be specified when type=Webhook`}},
		{name: "empty webhook settings: every check runs, under the authorizer's path",
			cfg: authorizers(AuthorizerConfiguration{Type: "Webhook", Name: "w", Webhook: &WebhookConfiguration{}}),
			want: []string{
				"authorizers[0].timeout: Required value",
				"authorizers[0].authorizedTTL: Required value",
				"authorizers[0].unauthorizedTTL: Required value",
				"authorizers[0].subjectAccessReviewVersion: Required value",
				"authorizers[0].failurePolicy: Required value",
				"authorizers[0].connectionInfo.type: Required value",
			}},
		{name: "timeout too long", cfg: webhookWith(func(w *WebhookConfiguration) { w.Timeout.Duration = time.Minute }),
			want: []string{`authorizers[0].timeout: Invalid value: "1m0s": must be > 0s and <= 30s`}},
		{name: "timeout negative", cfg: webhookWith(func(w *WebhookConfiguration) { w.Timeout.Duration = -time.Second }),
			want: []string{`authorizers[0].timeout: Invalid value: "-1s": must be > 0s and <= 30s`}},
		{name: "timeout at the limit", cfg: webhookWith(func(w *WebhookConfiguration) { w.Timeout.Duration = 30 * time.Second })},
		{name: "negative TTLs", cfg: webhookWith(func(w *WebhookConfiguration) {
			w.AuthorizedTTL.Duration, w.UnauthorizedTTL.Duration = -1, -2*time.Hour
		}), want: []string{
			`authorizers[0].authorizedTTL: Invalid value: "-1ns": must be > 0s`,
			`authorizers[0].unauthorizedTTL: Invalid value: "-2h0m0s": must be > 0s`,
		}},
		{name: "unknown SAR version", cfg: webhookWith(func(w *WebhookConfiguration) { w.SubjectAccessReviewVersion = "v2" }),
			want: []string{`authorizers[0].subjectAccessReviewVersion: Unsupported value: "v2": supported values: "v1", "v1beta1"`}},
		{name: "v1beta1 SAR", cfg: webhookWith(func(w *WebhookConfiguration) { w.SubjectAccessReviewVersion = "v1beta1" })},
		{name: "match condition SAR version other than v1, even without conditions",
			cfg:  webhookWith(func(w *WebhookConfiguration) { w.MatchConditionSubjectAccessReviewVersion = "v1beta1" }),
			want: []string{`authorizers[0].matchConditionSubjectAccessReviewVersion: Unsupported value: "v1beta1": supported values: "v1"`}},
		{name: "failure policy listed unsorted", cfg: webhookWith(func(w *WebhookConfiguration) { w.FailurePolicy = "Allow" }),
			want: []string{`authorizers[0].failurePolicy: Unsupported value: "Allow": supported values: "NoOpinion", "Deny"`}},
		{name: "unknown connection type prints the struct", cfg: webhookWith(func(w *WebhookConfiguration) {
			w.ConnectionInfo = WebhookConnectionInfo{Type: "Foo", KubeConfigFile: ptr("relative/kc")}
		}), want: []string{`authorizers[0].connectionInfo.type: Unsupported value: {"Type":"Foo","KubeConfigFile":"relative/kc"}: supported values: "InClusterConfig", "KubeConfigFile"`}},
		{name: "unknown connection type without a file", cfg: webhookWith(func(w *WebhookConfiguration) {
			w.ConnectionInfo = WebhookConnectionInfo{Type: "KubeConfig"}
		}), want: []string{`authorizers[0].connectionInfo.type: Unsupported value: {"Type":"KubeConfig","KubeConfigFile":null}: supported values: "InClusterConfig", "KubeConfigFile"`}},
		{name: "in-cluster", cfg: webhookWith(func(w *WebhookConfiguration) { w.ConnectionInfo = WebhookConnectionInfo{Type: "InClusterConfig"} })},
		{name: "in-cluster with an empty file", cfg: webhookWith(func(w *WebhookConfiguration) {
			w.ConnectionInfo = WebhookConnectionInfo{Type: "InClusterConfig", KubeConfigFile: ptr("")}
		}), want: []string{`authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "": can only be set when type=KubeConfigFile`}},
		{name: "in-cluster rejected by option", opts: ValidateOptions{RejectInClusterConfig: true},
			cfg:  webhookWith(func(w *WebhookConfiguration) { w.ConnectionInfo = WebhookConnectionInfo{Type: "InClusterConfig"} }),
			want: []string{`authorizers[0].connectionInfo.type: Unsupported value: "InClusterConfig": supported values: "KubeConfigFile"`}},
		{name: "kubeconfig file absent", cfg: webhookWith(func(w *WebhookConfiguration) { w.ConnectionInfo.KubeConfigFile = nil }),
			want: []string{"authorizers[0].connectionInfo.kubeConfigFile: Required value"}},
		{name: "kubeconfig file empty", cfg: webhookWith(func(w *WebhookConfiguration) { w.ConnectionInfo.KubeConfigFile = ptr("") }),
			want: []string{"authorizers[0].connectionInfo.kubeConfigFile: Required value"}},
		{name: "kubeconfig file relative", cfg: webhookWith(func(w *WebhookConfiguration) { w.ConnectionInfo.KubeConfigFile = ptr("relative/kc") }),
			want: []string{`authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "relative/kc": must be an absolute path`}},
		{name: "kubeconfig file missing", cfg: webhookWith(func(w *WebhookConfiguration) { w.ConnectionInfo.KubeConfigFile = ptr("/nonexistent/kc") }),
			want: []string{`authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "/nonexistent/kc": error loading file: stat /nonexistent/kc: file does not exist`}},
		{name: "kubeconfig file is a directory", cfg: webhookWith(func(w *WebhookConfiguration) { w.ConnectionInfo.KubeConfigFile = ptr("/etc/kubernetes/dir") }),
			want: []string{`authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "/etc/kubernetes/dir": must be a regular file`}},
		{name: "file checks skipped", opts: ValidateOptions{SkipFileChecks: true},
			cfg: webhookWith(func(w *WebhookConfiguration) { w.ConnectionInfo.KubeConfigFile = ptr("/nonexistent/kc") })},
		{name: "relative path even when file checks are skipped", opts: ValidateOptions{SkipFileChecks: true},
			cfg:  webhookWith(func(w *WebhookConfiguration) { w.ConnectionInfo.KubeConfigFile = ptr("kc") }),
			want: []string{`authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "kc": must be an absolute path`}},
		{name: "match conditions without their SAR version", cfg: webhookWith(func(w *WebhookConfiguration) {
			w.MatchConditions = []WebhookMatchCondition{{Expression: "true"}}
		}), want: []string{"authorizers[0].matchConditionSubjectAccessReviewVersion: Required value: required if match conditions are specified"}},
		{name: "a generic apiserver's known types", opts: ValidateOptions{KnownTypes: []string{"Webhook"}},
			cfg:  authorizers(AuthorizerConfiguration{Type: "RBAC", Name: "rbac"}),
			want: []string{`authorizers[0].type: Unsupported value: "RBAC": supported values: "Webhook"`}},
		{name: "no known types", opts: ValidateOptions{KnownTypes: []string{}},
			cfg:  authorizers(AuthorizerConfiguration{Type: "RBAC", Name: "rbac"}),
			want: []string{`authorizers[0].type: Unsupported value: "RBAC"`}},
		{name: "repeatable types", opts: ValidateOptions{RepeatableTypes: []string{"RBAC"}},
			cfg: authorizers(AuthorizerConfiguration{Type: "RBAC", Name: "a"}, AuthorizerConfiguration{Type: "RBAC", Name: "b"},
				AuthorizerConfiguration{Type: "Webhook", Name: "c", Webhook: validWebhook()}, AuthorizerConfiguration{Type: "Webhook", Name: "d", Webhook: validWebhook()}),
			want: []string{`authorizers[3].type: Duplicate value: "Webhook"`}},
		{name: "root path", opts: ValidateOptions{Path: field.NewPath("spec", "authorization")}, cfg: authorizers(AuthorizerConfiguration{Type: "RBAC"}),
			want: []string{"spec.authorization.authorizers[0].name: Required value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.opts.Stat == nil {
				tt.opts.Stat = fakeStat
			}
			errs := Validate(tt.cfg, tt.opts)
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestValidateAggregate(t *testing.T) {
	one := Validate(authorizers(), ValidateOptions{})
	assert.EqualError(t, one.ToAggregate(), "authorizers: Required value: at least one authorization mode must be defined")
	two := Validate(authorizers(AuthorizerConfiguration{Type: "RBAC"}, AuthorizerConfiguration{Type: "Foo"}), ValidateOptions{})
	assert.EqualError(t, two.ToAggregate(), `[authorizers[0].name: Required value, authorizers[1].type: Unsupported value: "Foo": supported values: "ABAC", "AlwaysAllow", "AlwaysDeny", "Node", "RBAC", "Webhook"]`)
}

func TestValidateRealFileSystem(t *testing.T) {
	dir := t.TempDir()
	errs := Validate(webhookWith(func(w *WebhookConfiguration) { w.ConnectionInfo.KubeConfigFile = &dir }), ValidateOptions{})
	require.Len(t, errs, 1)
	assert.Equal(t, `authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "`+dir+`": must be a regular file`, errs[0].Error())
	missing := dir + "/kc"
	errs = Validate(webhookWith(func(w *WebhookConfiguration) { w.ConnectionInfo.KubeConfigFile = &missing }), ValidateOptions{})
	require.Len(t, errs, 1)
	assert.Equal(t, `authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "`+missing+`": error loading file: stat `+missing+`: no such file or directory`, errs[0].Error())
}

func TestValidateErrorValues(t *testing.T) {
	errs := Validate(webhookWith(func(w *WebhookConfiguration) {
		w.Timeout.Duration = time.Minute
		w.ConnectionInfo.Type = "Foo"
	}), ValidateOptions{})
	require.Len(t, errs, 2)
	assert.Equal(t, &field.Error{Type: field.ErrorTypeInvalid, Field: "authorizers[0].timeout", BadValue: "1m0s", Detail: "must be > 0s and <= 30s"}, errs[0])
	assert.Equal(t, field.ErrorTypeNotSupported, errs[1].Type)
	assert.Equal(t, connectionInfoValue{Type: "Foo", KubeConfigFile: ptr("/etc/kubernetes/kc.yaml")}, errs[1].BadValue)
}

func TestValidateRequireTypeNames(t *testing.T) {
	cfg := authorizers(
		AuthorizerConfiguration{Type: "RBAC", Name: "myrbac"},
		AuthorizerConfiguration{Type: "Node", Name: "node"},
		AuthorizerConfiguration{Type: "AlwaysAllow"},
		AuthorizerConfiguration{Type: "Webhook", Name: "anything", Webhook: validWebhook()},
		AuthorizerConfiguration{Type: "RBAC", Name: "again"},
		AuthorizerConfiguration{Type: "ABAC", Name: "Policy"},
	)
	var got []string
	for _, e := range Validate(cfg, ValidateOptions{Stat: fakeStat, RequireTypeNames: true}) {
		got = append(got, e.Error())
	}
	assert.Equal(t, []string{
		"authorizers[2].name: Required value",
		`authorizers[4].type: Duplicate value: "RBAC"`,
		`authorizers[5].name: Invalid value: "Policy": authorizer name is invalid: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
		`authorizers[0].name: Invalid value: "myrbac": expected name rbac for authorizer RBAC instead of myrbac`,
		`authorizers[5].name: Invalid value: "Policy": expected name abac for authorizer ABAC instead of Policy`,
	}, got)
	assert.Len(t, Validate(cfg, ValidateOptions{Stat: fakeStat}), 3, "not without the option")
}
