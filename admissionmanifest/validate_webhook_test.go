package admissionmanifest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gatehouse-dev/gatehouse/kube"
)

const (
	dns1123Subdomain = `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`
	dns1035Label     = `a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`
	urlFormText      = "; desired format: https://host[/path]"
	labelValue       = `a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`
)

func TestValidateWebhookConfigurationCreate(t *testing.T) {
	type hook = admissionregistrationv1.ValidatingWebhook
	tests := []struct {
		name   string
		mutate func(c *admissionregistrationv1.ValidatingWebhookConfiguration, h *hook)
		want   []string
	}{
		{"valid", func(*admissionregistrationv1.ValidatingWebhookConfiguration, *hook) {}, nil},
		{"bad config name", func(c *admissionregistrationv1.ValidatingWebhookConfiguration, _ *hook) { c.Name = "Config" },
			[]string{`metadata.name: Invalid value: "Config": ` + dns1123Subdomain}},
		{"empty webhook name", func(_ *admissionregistrationv1.ValidatingWebhookConfiguration, h *hook) { h.Name = "" },
			[]string{`webhooks[0].name: Required value`}},
		{"two segments", func(_ *admissionregistrationv1.ValidatingWebhookConfiguration, h *hook) { h.Name = "k8s.io" },
			[]string{`webhooks[0].name: Invalid value: "k8s.io": should be a domain with at least three segments separated by dots`}},
		{"duplicate webhook names", func(c *admissionregistrationv1.ValidatingWebhookConfiguration, h *hook) {
			c.Webhooks = append(c.Webhooks, *h.DeepCopy())
		}, []string{`webhooks[1].name: Duplicate value: "hook.example.com"`}},
		{"operations", func(_ *admissionregistrationv1.ValidatingWebhookConfiguration, h *hook) {
			h.Rules[0].Operations = []admissionregistrationv1.OperationType{"*", "PATCH", ""}
		}, []string{
			`webhooks[0].rules[0].operations: Invalid value: ["*","PATCH",""]: if '*' is present, must not specify other operations`,
			`webhooks[0].rules[0].operations[1]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"`,
			`webhooks[0].rules[0].operations[2]: Unsupported value: "": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"`,
		}},
		{"empty rule", func(_ *admissionregistrationv1.ValidatingWebhookConfiguration, h *hook) {
			h.Rules[0] = admissionregistrationv1.RuleWithOperations{Rule: admissionregistrationv1.Rule{Scope: ptrTo[admissionregistrationv1.ScopeType]("Pods")}}
		}, []string{
			`webhooks[0].rules[0].operations: Required value`,
			`webhooks[0].rules[0].apiGroups: Required value`,
			`webhooks[0].rules[0].apiVersions: Required value`,
			`webhooks[0].rules[0].resources: Required value`,
			`webhooks[0].rules[0].scope: Unsupported value: "Pods": supported values: "*", "Cluster", "Namespaced"`,
		}},
		{"wildcard groups and versions", func(_ *admissionregistrationv1.ValidatingWebhookConfiguration, h *hook) {
			h.Rules[0].APIGroups = []string{"", "*"}
			h.Rules[0].APIVersions = []string{"*", ""}
		}, []string{
			`webhooks[0].rules[0].apiGroups: Invalid value: ["","*"]: if '*' is present, must not specify other API groups`,
			`webhooks[0].rules[0].apiVersions: Invalid value: ["*",""]: if '*' is present, must not specify other API versions`,
			`webhooks[0].rules[0].apiVersions[1]: Required value`,
		}},
		{"subresource wildcards", func(_ *admissionregistrationv1.ValidatingWebhookConfiguration, h *hook) {
			h.Rules[0].Resources = []string{"a/*", "a/x", "*/y", "b/y", ""}
		}, []string{
			`webhooks[0].rules[0].resources[1]: Invalid value: "a/x": if 'a/*' is present, must not specify a/x`,
			`webhooks[0].rules[0].resources[3]: Invalid value: "b/y": if '*/y' is present, must not specify b/y`,
			`webhooks[0].rules[0].resources[4]: Required value`,
		}},
		{"wildcard after the subresource is allowed", func(_ *admissionregistrationv1.ValidatingWebhookConfiguration, h *hook) {
			h.Rules[0].Resources = []string{"*", "a/b", "a/*", "*/b"}
		}, nil},
		{"double wildcard", func(_ *admissionregistrationv1.ValidatingWebhookConfiguration, h *hook) {
			h.Rules[0].Resources = []string{"*/*", "pods"}
		}, []string{`webhooks[0].rules[0].resources: Invalid value: ["*/*","pods"]: if '*/*' is present, must not specify other resources`}},
		{"wildcard then plain", func(_ *admissionregistrationv1.ValidatingWebhookConfiguration, h *hook) {
			h.Rules[0].Resources = []string{"*", "a"}
		}, []string{`webhooks[0].rules[0].resources: Invalid value: ["*","a"]: if '*' is present, must not specify other resources without subresources`}},
		{"plain then wildcard passes, as in kube-apiserver", func(_ *admissionregistrationv1.ValidatingWebhookConfiguration, h *hook) {
			h.Rules[0].Resources = []string{"a", "*"}
		}, nil},
		{"policies", func(_ *admissionregistrationv1.ValidatingWebhookConfiguration, h *hook) {
			h.FailurePolicy = ptrTo[admissionregistrationv1.FailurePolicyType]("other")
			h.MatchPolicy = ptrTo[admissionregistrationv1.MatchPolicyType]("Loose")
			h.TimeoutSeconds = ptrTo[int32](31)
		}, []string{
			`webhooks[0].failurePolicy: Unsupported value: "other": supported values: "Fail", "Ignore"`,
			`webhooks[0].matchPolicy: Unsupported value: "Loose": supported values: "Equivalent", "Exact"`,
			`webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds`,
		}},
		{"no side effects", func(_ *admissionregistrationv1.ValidatingWebhookConfiguration, h *hook) { h.SideEffects = nil },
			[]string{`webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun`}},
		{"side effects Some", func(_ *admissionregistrationv1.ValidatingWebhookConfiguration, h *hook) {
			h.SideEffects = ptrTo(admissionregistrationv1.SideEffectClassSome)
		}, []string{`webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"`}},
		{"selectors", func(_ *admissionregistrationv1.ValidatingWebhookConfiguration, h *hook) {
			h.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b c"}}
			h.ObjectSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "k", Operator: "In"}}}
		}, []string{
			`webhooks[0].namespaceSelector.matchLabels: Invalid value: "b c": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
			`webhooks[0].objectSelector.matchExpressions[0].values: Required value: must be specified when ` + "`operator`" + ` is 'In' or 'NotIn'`,
		}},
		{"no client config", func(_ *admissionregistrationv1.ValidatingWebhookConfiguration, h *hook) { h.ClientConfig.URL = nil },
			[]string{`webhooks[0].clientConfig: Required value: exactly one of url or service is required`}},
		{"url and service", func(_ *admissionregistrationv1.ValidatingWebhookConfiguration, h *hook) {
			h.ClientConfig.Service = &admissionregistrationv1.ServiceReference{Name: "s", Namespace: "n", Port: ptrTo[int32](443)}
		}, []string{`webhooks[0].clientConfig: Required value: exactly one of url or service is required`}},
		{"empty url", func(_ *admissionregistrationv1.ValidatingWebhookConfiguration, h *hook) {
			h.ClientConfig.URL = ptrTo("")
		},
			[]string{
				`webhooks[0].clientConfig.url: Invalid value: "": 'https' is the only allowed URL scheme` + urlFormText,
				`webhooks[0].clientConfig.url: Invalid value: "": host must be specified` + urlFormText,
			}},
		{"url with everything", func(_ *admissionregistrationv1.ValidatingWebhookConfiguration, h *hook) {
			h.ClientConfig.URL = ptrTo("http://user@host:8443/p?q=1#frag")
		}, []string{
			`webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme` + urlFormText,
			`webhooks[0].clientConfig.url: Invalid value: "user": user information is not permitted in the URL`,
			`webhooks[0].clientConfig.url: Invalid value: "frag": fragments are not permitted in the URL`,
			`webhooks[0].clientConfig.url: Invalid value: "q=1": query parameters are not permitted in the URL`,
		}},
		{"unparsable url", func(_ *admissionregistrationv1.ValidatingWebhookConfiguration, h *hook) {
			h.ClientConfig.URL = ptrTo("https://h/%zz")
		},
			[]string{`webhooks[0].clientConfig.url: Required value: url must be a valid URL: parse "https://h/%zz": invalid URL escape "%zz"` + urlFormText}},
		{"service", func(_ *admissionregistrationv1.ValidatingWebhookConfiguration, h *hook) {
			h.ClientConfig = admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Port: ptrTo[int32](0), Path: ptrTo("x//Y/")}}
		}, []string{
			`webhooks[0].clientConfig.service.name: Required value`,
			`webhooks[0].clientConfig.service.namespace: Required value`,
			`webhooks[0].clientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive`,
			`webhooks[0].clientConfig.service.path: Invalid value: "x//Y/": must start with a '/'`,
			`webhooks[0].clientConfig.service.path: Invalid value: "x//Y/": segment[0] may not be empty`,
			`webhooks[0].clientConfig.service.path: Invalid value: "x//Y/": segment[1] may not be empty`,
			`webhooks[0].clientConfig.service.path: Invalid value: "x//Y/": segment[2]: ` + dns1123Subdomain,
		}},
		{"service path //", func(_ *admissionregistrationv1.ValidatingWebhookConfiguration, h *hook) {
			h.ClientConfig = admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Name: "s", Namespace: "n", Port: ptrTo[int32](443), Path: ptrTo("//")}}
		}, []string{`webhooks[0].clientConfig.service.path: Invalid value: "//": segment[0] may not be empty`}},
		{"admission review versions", func(_ *admissionregistrationv1.ValidatingWebhookConfiguration, h *hook) {
			h.AdmissionReviewVersions = []string{"v2", "v2", "V3"}
		}, []string{
			`webhooks[0].admissionReviewVersions[1]: Invalid value: "v2": duplicate version`,
			`webhooks[0].admissionReviewVersions[2]: Invalid value: "V3": ` + dns1035Label,
			`webhooks[0].admissionReviewVersions: Invalid value: ["v2","v2","V3"]: must include at least one of v1, v1beta1`,
		}},
		{"an unknown review version beside a known one", func(_ *admissionregistrationv1.ValidatingWebhookConfiguration, h *hook) {
			h.AdmissionReviewVersions = []string{"v1beta1", "invalid-version"}
		}, nil},
		{"no review versions", func(_ *admissionregistrationv1.ValidatingWebhookConfiguration, h *hook) {
			h.AdmissionReviewVersions = nil
		},
			[]string{`webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1`}},
		{"match conditions", func(_ *admissionregistrationv1.ValidatingWebhookConfiguration, h *hook) {
			h.MatchConditions = []admissionregistrationv1.MatchCondition{
				{Name: "a", Expression: "object.x in [1, 2,"},
				{Name: "a", Expression: "1"},
				{Name: "", Expression: "  "},
			}
		}, []string{
			`webhooks[0].matchConditions[0].expression: Invalid value: "object.x in [1, 2,": compilation failed: ERROR: <input>:1:19: Syntax error: missing ']' at '<EOF>'
 | object.x in [1, 2,
 | ..................^`,
			`webhooks[0].matchConditions[1].expression: Invalid value: "1": must evaluate to bool but got int`,
			`webhooks[0].matchConditions[1].name: Duplicate value: "a"`,
			`webhooks[0].matchConditions[2].expression: Required value`,
			`webhooks[0].matchConditions[2].name: Required value`,
		}},
	}
	v := testValidator(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := validVWC()
			tt.mutate(c, &c.Webhooks[0])
			errs, warnings := v.ValidateValidatingWebhookConfiguration(c, nil)
			assert.Equal(t, tt.want, rendered(errs))
			assert.Empty(t, warnings)

			// The mutating configuration validates its webhooks alike.
			m := toMutating(c)
			errs, _ = v.ValidateMutatingWebhookConfiguration(m, nil)
			assert.Equal(t, tt.want, rendered(errs))
		})
	}
}

func toMutating(c *admissionregistrationv1.ValidatingWebhookConfiguration) *admissionregistrationv1.MutatingWebhookConfiguration {
	m := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: c.ObjectMeta}
	for _, h := range c.Webhooks {
		m.Webhooks = append(m.Webhooks, admissionregistrationv1.MutatingWebhook{
			Name: h.Name, ClientConfig: h.ClientConfig, Rules: h.Rules, FailurePolicy: h.FailurePolicy,
			MatchPolicy: h.MatchPolicy, NamespaceSelector: h.NamespaceSelector, ObjectSelector: h.ObjectSelector,
			SideEffects: h.SideEffects, TimeoutSeconds: h.TimeoutSeconds, AdmissionReviewVersions: h.AdmissionReviewVersions,
			MatchConditions: h.MatchConditions,
		})
	}
	return m
}

func TestValidateMutatingReinvocationPolicy(t *testing.T) {
	c := validMWC()
	c.Webhooks[0].ReinvocationPolicy = ptrTo[admissionregistrationv1.ReinvocationPolicyType]("Always")
	errs, _ := testValidator(t).ValidateMutatingWebhookConfiguration(c, nil)
	assert.Equal(t, []string{`webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"`}, rendered(errs))
}

func TestValidateWebhookConfigurationUpdate(t *testing.T) {
	v := testValidator(t)
	badCondition := []admissionregistrationv1.MatchCondition{{Name: "c", Expression: "1"}}
	tests := []struct {
		name       string
		old, new   func(c *admissionregistrationv1.ValidatingWebhookConfiguration)
		want       []string
		wantCreate []string
	}{
		{
			name: "unchanged bad match conditions are not validated",
			old: func(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
				c.Webhooks[0].MatchConditions = badCondition
			},
			new: func(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
				c.Webhooks[0].MatchConditions = badCondition
				c.Webhooks[0].TimeoutSeconds = ptrTo[int32](5)
			},
			wantCreate: []string{`webhooks[0].matchConditions[0].expression: Invalid value: "1": must evaluate to bool but got int`},
		},
		{
			name: "a changed condition is validated",
			old: func(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
				c.Webhooks[0].MatchConditions = badCondition
			},
			new: func(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
				c.Webhooks[0].MatchConditions = []admissionregistrationv1.MatchCondition{badCondition[0], {Name: "d", Expression: "true"}}
			},
			want:       []string{`webhooks[0].matchConditions[0].expression: Invalid value: "1": must evaluate to bool but got int`},
			wantCreate: []string{`webhooks[0].matchConditions[0].expression: Invalid value: "1": must evaluate to bool but got int`},
		},
		{
			name: "side effects Unknown stay if an old webhook had them",
			old: func(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
				c.Webhooks[0].SideEffects = ptrTo(admissionregistrationv1.SideEffectClassUnknown)
			},
			new: func(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
				c.Webhooks[0].SideEffects = ptrTo(admissionregistrationv1.SideEffectClassSome)
			},
			wantCreate: []string{`webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"`},
		},
		{
			name: "side effects are required from a clean old object",
			new: func(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
				c.Webhooks[0].SideEffects = ptrTo(admissionregistrationv1.SideEffectClassSome)
			},
			want:       []string{`webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"`},
			wantCreate: []string{`webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"`},
		},
		{
			name: "side effects nil lists every class on update",
			old: func(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
				c.Webhooks[0].SideEffects = nil
			},
			new: func(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
				c.Webhooks[0].SideEffects = nil
			},
			want:       []string{`webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun, Some, Unknown`},
			wantCreate: []string{`webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun`},
		},
		{
			name: "invalid label values in match labels are never allowed",
			old: func(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
				c.Webhooks[0].ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"a": "-"}}
			},
			new: func(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
				c.Webhooks[0].ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"a": "-"}}
			},
			want:       []string{`webhooks[0].objectSelector.matchLabels: Invalid value: "-": ` + labelValue},
			wantCreate: []string{`webhooks[0].objectSelector.matchLabels: Invalid value: "-": ` + labelValue},
		},
		{
			name: "unrecognized review versions stay",
			old: func(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
				c.Webhooks[0].AdmissionReviewVersions = []string{"v2"}
			},
			new: func(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
				c.Webhooks[0].AdmissionReviewVersions = []string{"v3"}
			},
			wantCreate: []string{
				`webhooks[0].admissionReviewVersions: Invalid value: ["v3"]: must include at least one of v1, v1beta1`,
			},
		},
		{
			name: "duplicate names stay",
			old: func(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
				c.Webhooks = append(c.Webhooks, *c.Webhooks[0].DeepCopy())
			},
			new: func(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
				c.Webhooks = append(c.Webhooks, *c.Webhooks[0].DeepCopy(), *c.Webhooks[0].DeepCopy())
			},
			wantCreate: []string{
				`webhooks[1].name: Duplicate value: "hook.example.com"`,
				`webhooks[2].name: Duplicate value: "hook.example.com"`,
			},
		},
		{
			name: "invalid label values stay",
			old: func(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
				c.Webhooks[0].ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"a": "-"}}
			},
			new: func(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
				c.Webhooks[0].NamespaceSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "In", Values: []string{"b c"}}}}
			},
			wantCreate: []string{
				`webhooks[0].namespaceSelector.matchExpressions[0].values[0]: Invalid value: "b c": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old, c := validVWC(), validVWC()
			if tt.old != nil {
				tt.old(old)
			}
			tt.new(c)
			errs, _ := v.ValidateValidatingWebhookConfiguration(c, old)
			assert.Equal(t, tt.want, rendered(errs), "update")
			errs, _ = v.Validate(c, nil)
			assert.Equal(t, tt.wantCreate, rendered(errs), "create")
		})
	}
}

func TestStaticNames(t *testing.T) {
	const warning = `metadata.name: names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API`
	const invalid = `metadata.name: Invalid value: "a.static.k8s.io": names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API`
	tests := []struct {
		policy                     StaticNamePolicy
		name                       string
		createErrs, createWarnings []string
		updateWarnings             []string
	}{
		{StaticNamesReserved, "a.static.k8s.io", []string{invalid}, nil, []string{warning}},
		{StaticNamesWarned, "a.static.k8s.io", nil, []string{warning}, []string{warning}},
		{StaticNamesAllowed, "a.static.k8s.io", nil, nil, nil},
		{StaticNamesReserved, "my-webhook.k8s.io", nil, nil, nil},
		{StaticNamesReserved, "static.k8s.io.my-webhook", nil, nil, nil},
	}
	for _, tt := range tests {
		v := withOptions(t, Options{StaticNames: tt.policy})
		c := validMWC()
		c.Name = tt.name
		errs, warnings := v.Validate(c, nil)
		assert.Equal(t, tt.createErrs, rendered(errs), "%v %s", tt.policy, tt.name)
		assert.Equal(t, tt.createWarnings, warnings, "%v %s", tt.policy, tt.name)
		errs, warnings = v.Validate(c, c.DeepCopy())
		assert.Empty(t, errs)
		assert.Equal(t, tt.updateWarnings, warnings, "%v %s", tt.policy, tt.name)
	}
}

func TestExcludedResourceWarnings(t *testing.T) {
	v := testValidator(t)
	tests := []struct {
		groups, resources []string
		want              []string
	}{
		{[]string{""}, []string{"pods", "configmaps"}, nil},
		{[]string{"authentication.k8s.io"}, []string{"tokenreviews"}, []string{`webhooks[0].rules[0]: tokenreviews.authentication.k8s.io is excluded from admission webhooks; this rule will have no effect`}},
		{[]string{"authorization.k8s.io", "authentication.k8s.io"}, []string{"subjectaccessreviews", "selfsubjectreviews", "subjectaccessreviews"}, []string{
			`webhooks[0].rules[0]: subjectaccessreviews.authorization.k8s.io is excluded from admission webhooks; this rule will have no effect`,
			`webhooks[0].rules[0]: selfsubjectreviews.authentication.k8s.io is excluded from admission webhooks; this rule will have no effect`,
		}},
		{[]string{"*"}, []string{"tokenreviews"}, nil},
		{[]string{"authentication.k8s.io"}, []string{"*"}, nil},
		{[]string{"example.com"}, []string{"tokenreviews"}, nil},
		{[]string{"authentication.k8s.io"}, []string{"tokenreviews/status"}, nil},
	}
	for _, tt := range tests {
		c := validVWC()
		c.Webhooks[0].Rules[0].APIGroups = tt.groups
		c.Webhooks[0].Rules[0].APIVersions = []string{"*"}
		c.Webhooks[0].Rules[0].Resources = tt.resources
		_, warnings := v.Validate(c, nil)
		assert.Equal(t, tt.want, warnings, "%v %v", tt.groups, tt.resources)
		_, warnings = v.Validate(toMutating(c), toMutating(c))
		assert.Equal(t, tt.want, warnings, "update %v %v", tt.groups, tt.resources)
	}
}

// TestExcludedResourceWarningsPerVersion: the strategies warn of the
// excluded resources from 1.37 (ExcludeAdmissionWebhookVirtualResources);
// 1.35's and 1.36's warn of none.
func TestExcludedResourceWarningsPerVersion(t *testing.T) {
	warning := `webhooks[0].rules[0]: tokenreviews.authentication.k8s.io is excluded from admission webhooks; this rule will have no effect`
	tests := []struct {
		version kube.Version
		want    []string
	}{
		{kube.V1_35, nil},
		{kube.V1_36, nil},
		{kube.V1_37, []string{warning}},
		{kube.V1_38, []string{warning}},
	}
	for _, tt := range tests {
		target, err := kube.TargetFor(tt.version)
		require.NoError(t, err)
		v := withOptions(t, Options{Kube: target, StaticNames: StaticNamesFor(target)})
		c := validVWC()
		c.Webhooks[0].Rules[0].APIGroups = []string{"authentication.k8s.io"}
		c.Webhooks[0].Rules[0].Resources = []string{"tokenreviews"}
		_, warnings := v.Validate(c, nil)
		assert.Equal(t, tt.want, warnings, "%s create", tt.version)
		_, warnings = v.Validate(toMutating(c), toMutating(c))
		assert.Equal(t, tt.want, warnings, "%s update", tt.version)
	}
}

// TestURLPasswordRedacted is the deliberate difference from kube-apiserver:
// the password of a webhook URL never appears in an error.
func TestURLPasswordRedacted(t *testing.T) {
	v := testValidator(t)
	tests := []struct {
		url  string
		want []string
	}{
		{"https://admin:s3cret@hook.example.com/x", []string{
			`webhooks[0].clientConfig.url: Invalid value: "admin:xxxxx": user information is not permitted in the URL`,
		}},
		{"https://admin@hook.example.com/x", []string{
			`webhooks[0].clientConfig.url: Invalid value: "admin": user information is not permitted in the URL`,
		}},
		{"https://admin:s3cret@hook.example.com/%zz", []string{
			`webhooks[0].clientConfig.url: Required value: url must be a valid URL: parse "https://admin:xxxxx@hook.example.com/%zz": invalid URL escape "%zz"` + urlFormText,
		}},
		{"https://a:b@c:s3cret@hook.example.com:x/", []string{
			`webhooks[0].clientConfig.url: Required value: url must be a valid URL: parse "https://a:xxxxx@hook.example.com:x/": invalid port ":x" after host` + urlFormText,
		}},
		{"//admin:s3cret@hook.example.com/%zz", []string{
			`webhooks[0].clientConfig.url: Required value: url must be a valid URL: parse "//admin:xxxxx@hook.example.com/%zz": invalid URL escape "%zz"` + urlFormText,
		}},
	}
	for _, tt := range tests {
		c := validVWC()
		c.Webhooks[0].ClientConfig.URL = ptrTo(tt.url)
		errs, _ := v.Validate(c, nil)
		got := rendered(errs)
		assert.Equal(t, tt.want, got, tt.url)
		for _, e := range got {
			assert.False(t, strings.Contains(e, "s3cret"), "the password leaks: %s", e)
		}
	}
}

func TestValidateWrongTypes(t *testing.T) {
	v := testValidator(t)
	errs, _ := v.Validate(&metav1.Status{}, nil)
	assert.Equal(t, []string{`<nil>: Internal error: cannot validate a *v1.Status`}, rendered(errs))
	errs, _ = v.Validate(validVWC(), validMWC())
	assert.Equal(t, []string{`<nil>: Internal error: cannot validate an update of a *v1.ValidatingWebhookConfiguration from a *v1.MutatingWebhookConfiguration`}, rendered(errs))
	errs, _ = v.ValidateMutatingWebhookConfiguration(nil, nil)
	assert.Len(t, errs, 1)
}
