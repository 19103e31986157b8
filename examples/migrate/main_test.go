package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gatehouse-dev/gatehouse/authzconfig"
)

func TestMigrateSample(t *testing.T) {
	var out strings.Builder
	require.NoError(t, migrate(&out, sample()))
	text := out.String()
	assert.Contains(t, text, "--authorization-config=/etc/kubernetes/authorization-config.yaml\n")
	// The file between the header and the flags decodes to what
	// kube-apiserver builds from the flags.
	file := text[strings.Index(text, "apiVersion:"):strings.Index(text, "\n# kube-apiserver flags")]
	got, err := authzconfig.Decode([]byte(file))
	require.NoError(t, err)
	flags, err := authzconfig.ParseFlags(sample())
	require.NoError(t, err)
	want, err := authzconfig.FromFlags(flags)
	require.NoError(t, err)
	want.Authorizers[2].Webhook.UnauthorizedTTL.Duration = 30e9 // zero is defaulted when read back
	assert.Equal(t, want, got)
}

func TestMigrateRefuses(t *testing.T) {
	for args, msg := range map[string]string{
		"--authorization-config=/a.yaml":      "--authorization-config is already used (/a.yaml)",
		"--authorization-mode=Webhook":        "kube-apiserver would refuse these flags: [authorization-mode Webhook's authorization config file not passed]",
		"--authorization-mode=RBAC,Node,RBAC": `kube-apiserver would refuse these flags: [authorization-mode ["RBAC" "Node" "RBAC"] has mode specified more than once]`,
	} {
		var out strings.Builder
		assert.EqualError(t, migrate(&out, []string{args}), msg)
		assert.Empty(t, out.String())
	}
	var out strings.Builder
	err := migrate(&out, []string{"--authorization-mode=Webhook", "--authorization-webhook-config-file=/kc", "--authorization-webhook-cache-authorized-ttl=-1s"})
	assert.EqualError(t, err, `the flags translate to a configuration kube-apiserver would reject: authorizers[0].authorizedTTL: Invalid value: "-1s": must be > 0s`)
}
