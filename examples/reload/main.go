// Command reload shows an authorizer chain that follows its configuration
// file while it serves, as kube-apiserver does with --authorization-config,
// and a little more.
//
//	go run ./examples/reload
//
// Four goroutines authorize requests without pause while the file changes
// under them: a new webhook (applied), a broken file and a file that breaks
// kube-apiserver's reload rules (both rejected, the last good chain keeps
// serving), a rotated webhook kubeconfig (applied, although the
// configuration file did not change: kube-apiserver would not notice), and a
// webhook that fails its health check (rejected; the check is off by
// default, as in kube-apiserver). A server would call
// Reloader.Run, which checks the files every minute and on Trigger; here each
// step calls Check, so that the output is the same on every run.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/gatehouse-dev/gatehouse/authorizer"
	"github.com/gatehouse-dev/gatehouse/authorizer/authorizertest"
	"github.com/gatehouse-dev/gatehouse/metrics"
)

const configTemplate = `apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- type: Node
  name: node
- type: Webhook
  name: %s
  webhook:
    timeout: 3s
    subjectAccessReviewVersion: v1
    failurePolicy: NoOpinion
    connectionInfo:
      type: KubeConfigFile
      kubeConfigFile: %s
`

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "reload:", err)
		os.Exit(1)
	}
}

// policy answers every review with the same status.
func policy(allowed bool, reason string) authorizertest.DecideFunc {
	return authorizertest.Always(authorizationv1.SubjectAccessReviewStatus{Allowed: allowed, Denied: !allowed, Reason: reason})
}

func run(out io.Writer) error {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "gatehouse-reload")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	// Three webhooks: the policy of yesterday, of today, and today's moved to
	// a new server with a new certificate.
	var servers []*authorizertest.Server
	defer func() {
		for _, s := range servers {
			s.Close()
		}
	}()
	start := func(d authorizertest.DecideFunc) (*authorizertest.Server, error) {
		s, err := authorizertest.NewServer(authorizertest.Options{Decide: d, HTTP2: true})
		if err == nil {
			servers = append(servers, s)
		}
		return s, err
	}
	yesterday, err := start(policy(false, "yesterday's policy: no deletes"))
	if err != nil {
		return err
	}
	today, err := start(policy(true, "today's policy: deletes allowed"))
	if err != nil {
		return err
	}
	moved, err := start(policy(true, "today's policy, served from the new server"))
	if err != nil {
		return err
	}
	broken, err := start(nil)
	if err != nil {
		return err
	}
	broken.InjectAlways(authorizertest.Fault{Status: 404})

	kubeconfig := func(name string, s *authorizertest.Server) (string, error) {
		path := filepath.Join(dir, name+".kubeconfig")
		return path, s.WriteKubeconfig(path)
	}
	kcYesterday, err := kubeconfig("yesterday", yesterday)
	if err != nil {
		return err
	}
	kcToday, err := kubeconfig("today", today)
	if err != nil {
		return err
	}
	kcBroken, err := kubeconfig("broken", broken)
	if err != nil {
		return err
	}
	configPath := filepath.Join(dir, "authorization-config.yaml")
	write := func(content string) error { return os.WriteFile(configPath, []byte(content), 0o600) }
	if err := write(fmt.Sprintf(configTemplate, "policy", kcYesterday)); err != nil {
		return err
	}

	// The reloading chain.
	sink := metrics.NewMemory()
	var r *authorizer.Reloader
	r, err = authorizer.NewReloader(authorizer.ReloaderOptions{
		Path:        configPath,
		APIServerID: "example-apiserver",
		HealthCheck: true,
		Options: authorizer.Options{
			Authorizers: map[string]authorizer.Authorizer{"Node": authorizer.AlwaysDeny()},
			Metrics:     sink,
		},
		Clock: testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
		OnReload: func(ev authorizer.ReloadEvent) {
			if ev.Err != nil {
				fmt.Fprintf(out, "   reload %s (%s): %v\n", ev.Status, trigger(ev.Trigger, dir), ev.Err)
				return
			}
			fmt.Fprintf(out, "   reload %s (%s): chain %s\n", ev.Status, trigger(ev.Trigger, dir), strings.Join(chainNames(r), " → "))
		},
	})
	if err != nil {
		return err
	}

	// Serve without pause while the file changes.
	var stop atomic.Bool
	var served, unexpected atomic.Int64
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				a := deletePod(fmt.Sprintf("user-%d-%d", g, i%100))
				d, _, err := r.Authorize(ctx, a)
				if err != nil || (d != authorizer.DecisionAllow && d != authorizer.DecisionDeny) {
					unexpected.Add(1)
				}
				served.Add(1)
			}
		}()
	}

	ask := func() {
		d, reason, err := r.Authorize(ctx, deletePod("jane"))
		fmt.Fprintf(out, "   jane deletes a pod: %s %q", d, reason)
		if err != nil {
			fmt.Fprintf(out, " error: %v", err)
		}
		fmt.Fprintln(out)
	}
	steps := []struct {
		what   string
		change func() error
	}{
		{"Start: the webhook of yesterday's policy.", nil},
		{"The file now names today's webhook.", func() error { return write(fmt.Sprintf(configTemplate, "policy", kcToday)) }},
		{"A broken file (a YAML error).", func() error { return write("authorizers: [") }},
		{"A file without the Node authorizer the server started with.",
			func() error {
				return write(strings.Replace(fmt.Sprintf(configTemplate, "policy", kcToday), "- type: Node\n  name: node\n", "", 1))
			}},
		{"The good file again: the configuration in force, nothing to do.",
			func() error { return write(fmt.Sprintf(configTemplate, "policy", kcToday)) }},
		{"Today's webhook moves to a new server with a new CA; only its kubeconfig changes.",
			func() error { return moved.WriteKubeconfig(kcToday) }},
		{"A new webhook that answers 404: it fails its health check.",
			func() error { return write(fmt.Sprintf(configTemplate, "new-policy", kcBroken)) }},
	}
	for i, s := range steps {
		fmt.Fprintf(out, "%d. %s\n", i+1, s.what)
		if s.change != nil {
			if err := s.change(); err != nil {
				return err
			}
			if ev := r.Check(ctx); ev == nil {
				fmt.Fprintln(out, "   no change")
			}
		}
		ask()
	}
	stop.Store(true)
	wg.Wait()
	if served.Load() == 0 {
		return fmt.Errorf("nothing was served")
	}
	fmt.Fprintf(out, "\nWhile the file changed, every request was answered by a complete chain: %v\n", unexpected.Load() == 0)

	// The other reload metrics (last timestamps, and the hash of the
	// configuration in force) are recorded too.
	fmt.Fprintln(out, "\nThe reload counter, as kube-apiserver exposes it:")
	return sink.WriteText(out, metrics.AuthorizationConfigReloads.Name())
}

func deletePod(user string) *authorizer.Attributes {
	return &authorizer.Attributes{User: &authorizer.User{Name: user}, Verb: "delete", ResourceRequest: true,
		Namespace: "default", APIVersion: "v1", Resource: "pods", Name: "web-1"}
}

func chainNames(r *authorizer.Reloader) []string { return r.Chain().Names() }

// trigger names what changed, without the temporary directory.
func trigger(t, dir string) string {
	if t == "configuration" {
		return "the configuration file changed"
	}
	return strings.TrimPrefix(t, dir+string(filepath.Separator)) + " changed"
}
