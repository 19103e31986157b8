package authzconfig

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gatehouse-dev/gatehouse/matchcond"
)

// TestRealWorldVerdicts gives kube-apiserver's verdict on every published
// configuration in testdata/realworld (see SOURCES.md there): the decoding
// error, or the validation errors, on a control-plane node where the
// kubeconfig files they name exist (conformance/ checks the same files
// against kube-apiserver's own packages, with the files missing).
func TestRealWorldVerdicts(t *testing.T) {
	tests := []struct {
		file      string
		decodeErr string
		errs      []string
	}{
		{file: "gardener__gardener__authz-config-with-seedauthorizer-0s-ttl.yaml", errs: nil},
		{file: "gardener__gardener__authz-config-with-seedauthorizer.yaml", errs: nil},
		{file: "gardener__gardener__authz-config-without-seedauthorizer.yaml", errs: nil},
		{file: "kubernetes__enhancements__kep-3221-design-details.yaml", decodeErr: "strict decoding error: unknown field \"authorizers[0].webhook.name\", unknown field \"authorizers[3].webhook.name\""},
		{file: "kubernetes__enhancements__kep-3221-proposal.yaml", errs: []string{
			"authorizers[0].name: Required value",
			"authorizers[0].matchConditionSubjectAccessReviewVersion: Required value: required if match conditions are specified",
			"authorizers[0].connectionInfo.type: Unsupported value: {\"Type\":\"KubeConfig\",\"KubeConfigFile\":\"/kube-system-authz-webhook.yaml\"}: supported values: \"InClusterConfig\", \"KubeConfigFile\"",
			"authorizers[0].matchConditions[2].expression: Invalid value: \"in request.user.groups)\": compilation failed: ERROR: <input>:1:1: Syntax error: extraneous input 'in' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | in request.user.groups)\n | ^\nERROR: <input>:1:23: Syntax error: extraneous input ')' expecting <EOF>\n | in request.user.groups)\n | ......................^",
			"authorizers[1].name: Required value",
			"authorizers[2].name: Required value",
			"authorizers[3].name: Required value",
		}},
		{file: "kubernetes__enhancements__kep-3221-story1-crd-protector.yaml", errs: []string{
			"authorizers[0].matchConditionSubjectAccessReviewVersion: Required value: required if match conditions are specified",
			"authorizers[0].connectionInfo.type: Unsupported value: {\"Type\":\"KubeConfig\",\"KubeConfigFile\":\"/kube-system-authz-webhook.yaml\"}: supported values: \"InClusterConfig\", \"KubeConfigFile\"",
			"authorizers[0].matchConditions[2].expression: Invalid value: \"in request.user.groups)\": compilation failed: ERROR: <input>:1:1: Syntax error: extraneous input 'in' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | in request.user.groups)\n | ^\nERROR: <input>:1:23: Syntax error: extraneous input ')' expecting <EOF>\n | in request.user.groups)\n | ......................^",
			"authorizers[1].name: Required value",
			"authorizers[2].name: Required value",
		}},
		{file: "kubernetes__kubernetes__authz-config-test-rbac-only-v1alpha1.yaml", errs: nil},
		{file: "kubernetes__kubernetes__load-test-unknown-field-typo.json", decodeErr: "strict decoding error: unknown field \"authorzers\""},
		{file: "kubernetes__kubernetes__load-test-v1beta1-defaults.json", errs: []string{
			"authorizers[0].timeout: Required value",
			"authorizers[0].subjectAccessReviewVersion: Required value",
			"authorizers[0].failurePolicy: Required value",
			"authorizers[0].connectionInfo.type: Required value",
		}},
		{file: "kubernetes__website__authorization-docs-conditional-example.yaml", decodeErr: "strict decoding error: unknown field \"authorizers[0].webhook.authorizationConditionsReviewVersion\", unknown field \"authorizers[0].webhook.conditionsEndpointKubeConfigContext\""},
		{file: "kubernetes__website__authorization-docs-example.yaml", decodeErr: "strict decoding error: unknown field \"authorizers[0].webhook.authorizationConditionsReviewVersion\", unknown field \"authorizers[0].webhook.conditionsEndpointKubeConfigContext\""},
		{file: "kubernetes__website__blog-structured-authz-beta-crd-protector-original.yaml", errs: []string{
			"authorizers[0].connectionInfo.type: Unsupported value: {\"Type\":\"KubeConfig\",\"KubeConfigFile\":\"/files/kube-system-authz-webhook.yaml\"}: supported values: \"InClusterConfig\", \"KubeConfigFile\"",
			"authorizers[0].matchConditions[1].expression: Invalid value: \"request.resourceAttributes.resource.resource = \\\"customresourcedefinitions\\\"\": compilation failed: ERROR: <input>:1:46: Syntax error: token recognition error at: '= '\n | request.resourceAttributes.resource.resource = \"customresourcedefinitions\"\n | .............................................^\nERROR: <input>:1:48: Syntax error: extraneous input '\"customresourcedefinitions\"' expecting <EOF>\n | request.resourceAttributes.resource.resource = \"customresourcedefinitions\"\n | ...............................................^",
			"authorizers[0].matchConditions[2].expression: Invalid value: \"request.resourceAttributes.resource.group = \\\"\\\"\": compilation failed: ERROR: <input>:1:43: Syntax error: token recognition error at: '= '\n | request.resourceAttributes.resource.group = \"\"\n | ..........................................^\nERROR: <input>:1:45: Syntax error: extraneous input '\"\"' expecting <EOF>\n | request.resourceAttributes.resource.group = \"\"\n | ............................................^",
			"authorizers[1].name: Required value",
			"authorizers[2].name: Required value",
		}},
		{file: "kubernetes__website__blog-structured-authz-beta-nested-webhooks-original.yaml", errs: []string{
			"authorizers[0].connectionInfo.type: Unsupported value: {\"Type\":\"KubeConfig\",\"KubeConfigFile\":\"/files/kube-system-authz-webhook.yaml\"}: supported values: \"InClusterConfig\", \"KubeConfigFile\"",
			"authorizers[0].matchConditions[1].expression: Invalid value: \"request.resourceAttributes.resource.resource = \\\"customresourcedefinitions\\\"\": compilation failed: ERROR: <input>:1:46: Syntax error: token recognition error at: '= '\n | request.resourceAttributes.resource.resource = \"customresourcedefinitions\"\n | .............................................^\nERROR: <input>:1:48: Syntax error: extraneous input '\"customresourcedefinitions\"' expecting <EOF>\n | request.resourceAttributes.resource.resource = \"customresourcedefinitions\"\n | ...............................................^",
			"authorizers[0].matchConditions[2].expression: Invalid value: \"request.resourceAttributes.resource.group = \\\"\\\"\": compilation failed: ERROR: <input>:1:43: Syntax error: token recognition error at: '= '\n | request.resourceAttributes.resource.group = \"\"\n | ..........................................^\nERROR: <input>:1:45: Syntax error: extraneous input '\"\"' expecting <EOF>\n | request.resourceAttributes.resource.group = \"\"\n | ............................................^",
			"authorizers[1].name: Required value",
			"authorizers[2].name: Required value",
			"authorizers[3].connectionInfo.type: Unsupported value: {\"Type\":\"KubeConfig\",\"KubeConfigFile\":\"/files/opa-default-authz-webhook.yaml\"}: supported values: \"InClusterConfig\", \"KubeConfigFile\"",
			"authorizers[3].matchConditions[2].expression: Invalid value: \"in request.user.groups)\": compilation failed: ERROR: <input>:1:1: Syntax error: extraneous input 'in' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | in request.user.groups)\n | ^\nERROR: <input>:1:23: Syntax error: extraneous input ')' expecting <EOF>\n | in request.user.groups)\n | ......................^",
		}},
		{file: "kubernetes__website__blog-structured-authz-beta-nested-webhooks-revised.yaml", errs: []string{
			"authorizers[0].matchConditions[1].expression: Invalid value: \"request.resourceAttributes.resource.resource = \\\"customresourcedefinitions\\\"\": compilation failed: ERROR: <input>:1:46: Syntax error: token recognition error at: '= '\n | request.resourceAttributes.resource.resource = \"customresourcedefinitions\"\n | .............................................^\nERROR: <input>:1:48: Syntax error: extraneous input '\"customresourcedefinitions\"' expecting <EOF>\n | request.resourceAttributes.resource.resource = \"customresourcedefinitions\"\n | ...............................................^",
			"authorizers[0].matchConditions[2].expression: Invalid value: \"request.resourceAttributes.resource.group = \\\"\\\"\": compilation failed: ERROR: <input>:1:43: Syntax error: token recognition error at: '= '\n | request.resourceAttributes.resource.group = \"\"\n | ..........................................^\nERROR: <input>:1:45: Syntax error: extraneous input '\"\"' expecting <EOF>\n | request.resourceAttributes.resource.group = \"\"\n | ............................................^",
			"authorizers[1].name: Required value",
			"authorizers[2].name: Required value",
		}},
		{file: "kubernetes__website__blog-structured-authz-beta-sample-original.yaml", errs: []string{
			"authorizers[0].connectionInfo.type: Unsupported value: {\"Type\":\"KubeConfig\",\"KubeConfigFile\":\"/kube-system-authz-webhook.yaml\"}: supported values: \"InClusterConfig\", \"KubeConfigFile\"",
			"authorizers[0].matchConditions[2].expression: Invalid value: \"in request.user.groups)\": compilation failed: ERROR: <input>:1:1: Syntax error: extraneous input 'in' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | in request.user.groups)\n | ^\nERROR: <input>:1:23: Syntax error: extraneous input ')' expecting <EOF>\n | in request.user.groups)\n | ......................^",
		}},
		{file: "telekom__auth-operator__run-authorization-chain-authorization.yaml", errs: nil},
	}
	files, err := filepath.Glob("testdata/realworld/*.[jy]*")
	require.NoError(t, err)
	require.Len(t, files, len(tests), "every file has its verdict")
	compiler, err := matchcond.NewAuthorizationCompiler()
	require.NoError(t, err)
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata/realworld", tt.file))
			require.NoError(t, err)
			cfg, err := Decode(data)
			if tt.decodeErr != "" {
				require.EqualError(t, err, tt.decodeErr)
				return
			}
			require.NoError(t, err)
			var got []string
			for _, e := range Validate(cfg, ValidateOptions{SkipFileChecks: true, Compiler: compiler}) {
				got = append(got, e.Error())
			}
			assert.Equal(t, tt.errs, got)
		})
	}
}
