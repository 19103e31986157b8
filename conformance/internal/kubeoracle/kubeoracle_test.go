package kubeoracle

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gatehouse-dev/gatehouse/conformance/oracle/protocol"
)

func TestVersions(t *testing.T) {
	require.Equal(t, []string{"1.35", "1.36", "1.37"}, Versions())
	require.Equal(t, []string{"1.35", "1.36", "1.37", "1.38"}, AllVersions())
	_, err := Build(context.Background(), "1.99")
	require.ErrorContains(t, err, `no oracle program for Kubernetes "1.99"`)
	require.False(t, errors.Is(err, ErrCannotBuild))
}

func TestInProcessAnswersAsItsVersion(t *testing.T) {
	o := NewInProcess()
	a, err := o.Eval(protocol.Query{Op: protocol.OpInfo})
	require.NoError(t, err)
	require.Equal(t, InProcessVersion, a.Kubernetes)
	_, err = o.Eval(protocol.Query{Op: "nope"})
	require.ErrorContains(t, err, `unknown op "nope"`)
}

// TestProcessChecksItsVersion: a binary built from another version than the
// one asked for is refused, and a process that dies is reported.
func TestProcessChecksItsVersion(t *testing.T) {
	bin, err := Build(context.Background(), "1.36")
	if errors.Is(err, ErrCannotBuild) {
		t.Skip(err)
	}
	require.NoError(t, err)
	_, err = StartProcess(bin, "1.35")
	require.ErrorContains(t, err, "is built from Kubernetes 1.36")

	o, err := StartProcess(bin, "1.36")
	require.NoError(t, err)
	a, err := o.Eval(protocol.Query{Op: protocol.OpCEL, Env: protocol.EnvStored, Expression: "[1].includes(1)"})
	require.NoError(t, err)
	require.Contains(t, a.CompileError, "undeclared reference to 'includes'")
	require.NoError(t, o.Close())
	_, err = o.Eval(protocol.Query{Op: protocol.OpInfo})
	require.Error(t, err)
}

// TestBetaBuildsWithItsToolchain: 1.38's oracle is built with Go 1.27, its
// modfile and its build tag, and answers as 1.38.
func TestBetaBuildsWithItsToolchain(t *testing.T) {
	o, err := Start(context.Background(), "1.38")
	if errors.Is(err, ErrCannotBuild) {
		t.Skip(err)
	}
	require.NoError(t, err)
	defer o.Close()
	a, err := o.Eval(protocol.Query{Op: protocol.OpInfo})
	require.NoError(t, err)
	require.Equal(t, "v0.38.0-beta.0", a.Apiserver)
	require.Equal(t, "cel.dev/cel-go@v0.33.2", a.CELGo)
	require.Equal(t, "1.37", a.DefaultCompat)
	require.Contains(t, a.GoVersion, "go1.27")
	a, err = o.Eval(protocol.Query{Op: protocol.OpCEL, Env: protocol.EnvStored, Expression: "cidr('10.0.0.1/8').isMask()"})
	require.NoError(t, err)
	require.JSONEq(t, "false", string(a.Result), "%+v", a)
}

// TestKubernetesProgram: the oracle of k8s.io/kubernetes's rules knows its
// own versions, and is built apart from the apiserver oracle.
func TestKubernetesProgram(t *testing.T) {
	require.Equal(t, []string{"1.35", "1.36", "1.37"}, Kubernetes.Versions())
	require.Equal(t, []string{"1.35", "1.36", "1.37", "1.38"}, Kubernetes.AllVersions())
	_, err := Kubernetes.Build(context.Background(), "1.37")
	require.ErrorContains(t, err, `no kubernetes-oracle program for Kubernetes "1.37"`)
	dir, err := Kubernetes.Dir()
	require.NoError(t, err)
	apiserver, err := OracleDir()
	require.NoError(t, err)
	require.NotEqual(t, apiserver, dir)
}

func TestInProcessFunc(t *testing.T) {
	o := NewInProcessFunc(func(q protocol.Query) protocol.Answer {
		return protocol.Answer{Kubernetes: q.Op}
	})
	a, err := o.Eval(protocol.Query{Op: protocol.OpInfo})
	require.NoError(t, err)
	require.Equal(t, protocol.OpInfo, a.Kubernetes)
	require.Equal(t, InProcessVersion, o.Version())
}
