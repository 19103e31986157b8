// Package kubeoracle gives the differential tests one interface to
// kube-apiserver's own code, whatever its version: Kubernetes 1.37, which
// this module links (k8s.io/apiserver v0.37.2), answers in process; 1.35 and
// 1.36, whose k8s.io/apiserver needs cel-go v0.26.0 while this module links
// cel-go v0.29.2, and 1.38's beta, which needs cel.dev/cel-go v0.33.2 and Go
// 1.27, answer from the oracle program of ../../oracle, built with that
// version's modfile (and build tags, and Go toolchain) and run as a child
// process.
//
// Both sides run the same code (oracle/kubeeval), compiled against each
// version's packages, and speak the same protocol (oracle/protocol).
//
// It is a package of its own, not a _test.go file, so that the tests of
// every package of this module (and their helpers) can use it.
package kubeoracle

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gatehouse-dev/gatehouse/conformance/oracle/kubeeval"
	"github.com/gatehouse-dev/gatehouse/conformance/oracle/protocol"
)

// Oracle answers queries as one Kubernetes version's kube-apiserver code.
// It is safe for concurrent use (queries are answered one at a time).
type Oracle interface {
	// Version is the Kubernetes minor it answers for, "1.36".
	Version() string
	// Eval answers q. The error is a failure of the oracle itself (the
	// process died, the answer could not be decoded, Answer.Error).
	Eval(q protocol.Query) (protocol.Answer, error)
	// Close stops the oracle.
	Close() error
}

// InProcessVersion is the version this module links.
const InProcessVersion = "1.37"

// outOfProcess is how an oracle module builds for one version.
type outOfProcess struct {
	modfile   string // the modfile that pins the version
	tags      string // -tags, for the files of an API that differs
	toolchain string // GOTOOLCHAIN for the go command, when the version needs a newer Go
	beta      bool   // a pre-release: in AllVersions, not in Versions
}

// Program is an oracle program: a module of this repository, built per
// version with that version's modfile, tags and toolchain, that speaks the
// protocol.
type Program struct {
	name   string                  // names its binaries
	dir    string                  // its module's directory, from this package's
	builds map[string]outOfProcess // per version answered out of process
}

// The oracle programs.
var (
	// APIServer is ../../oracle: the rules of k8s.io/apiserver (CEL,
	// authorization, admission plugins).
	APIServer = &Program{name: "oracle", dir: filepath.Join("..", "..", "oracle"), builds: modfiles}
	// Kubernetes is ../../kubernetes/oracle: the rules that live in
	// k8s.io/kubernetes (the REST validation of admission objects). Its
	// 1.37 is linked in process by the conformance/kubernetes module; its
	// go.mod (1.36) builds with -tags k8s136, as 1.36 and 1.37 differ in
	// APIs it calls.
	Kubernetes = &Program{name: "kubernetes-oracle", dir: filepath.Join("..", "..", "kubernetes", "oracle"), builds: map[string]outOfProcess{
		"1.35": {modfile: "go.v1.35.mod", tags: "k8s135"},
		"1.36": {modfile: "go.mod", tags: "k8s136"},
		"1.38": {modfile: "go.v1.38.mod", tags: "k8s138", toolchain: "go1.27.3", beta: true},
	}}
)

// modfiles names, per version the apiserver oracle answers out of process,
// how to build it.
var modfiles = map[string]outOfProcess{
	"1.35": {modfile: "go.v1.35.mod", tags: "k8s135"},
	"1.36": {modfile: "go.mod"},
	"1.38": {modfile: "go.v1.38.mod", tags: "k8s138", toolchain: "go1.27.3", beta: true},
}

// Versions lists every released version an oracle can answer for, oldest
// first: the versions whose differences the reference's tables name.
func Versions() []string { return APIServer.Versions() }

// AllVersions is Versions and the pre-releases (1.38's beta).
func AllVersions() []string { return APIServer.AllVersions() }

// Versions lists the released versions the program answers for (out of
// process, and InProcessVersion), oldest first.
func (p *Program) Versions() []string { return p.versions(false) }

// AllVersions is the program's Versions and its pre-releases.
func (p *Program) AllVersions() []string { return p.versions(true) }

func (p *Program) versions(beta bool) []string {
	vs := []string{InProcessVersion}
	for v, b := range p.builds {
		if beta || !b.beta {
			vs = append(vs, v)
		}
	}
	// Minors of two digits: the strings sort as the versions.
	slices.Sort(vs)
	return vs
}

// ErrCannotBuild is wrapped by Start's error when the go command cannot get
// the modules of an oracle (no network and nothing in the module cache), the
// one failure a test may skip on.
var ErrCannotBuild = errors.New("cannot download the oracle's modules")

// Start returns the apiserver oracle of version.
func Start(ctx context.Context, version string) (Oracle, error) {
	if version == InProcessVersion {
		return NewInProcess(), nil
	}
	return APIServer.Start(ctx, version)
}

// --- in process ---

type inProcess struct {
	mu     sync.Mutex
	answer func(protocol.Query) protocol.Answer
}

// NewInProcess returns the apiserver oracle of InProcessVersion, run in
// this process.
func NewInProcess() Oracle { return NewInProcessFunc(kubeeval.New().Answer) }

// NewInProcessFunc returns the oracle of InProcessVersion that answers with
// answer in this process, as a program's main does: a module that links the
// evaluation package of another program for InProcessVersion (the
// conformance/kubernetes module links ../../kubernetes/oracle's) gives its
// Answer.
func NewInProcessFunc(answer func(protocol.Query) protocol.Answer) Oracle {
	return &inProcess{answer: answer}
}

func (o *inProcess) Version() string { return InProcessVersion }
func (o *inProcess) Close() error    { return nil }
func (o *inProcess) Eval(q protocol.Query) (protocol.Answer, error) {
	// Round-trip the query through JSON as the process does, so that both
	// kinds of oracle see the same input.
	b, err := json.Marshal(q)
	if err != nil {
		return protocol.Answer{}, err
	}
	var q2 protocol.Query
	if err := json.Unmarshal(b, &q2); err != nil {
		return protocol.Answer{}, err
	}
	o.mu.Lock()
	a := o.answer(q2)
	o.mu.Unlock()
	if a.Error != "" {
		return a, fmt.Errorf("oracle %s: %s", InProcessVersion, a.Error)
	}
	return a, nil
}

// --- out of process ---

var (
	buildMu    sync.Mutex
	buildCache = map[string]string{} // by program and version
	buildDir   string
)

// RemoveBuilds removes the binaries Build wrote (some hundred megabytes a
// process): a test binary that starts oracles calls it from TestMain once
// its tests are done (see RunTests). The oracles must be closed first.
func RemoveBuilds() error {
	buildMu.Lock()
	defer buildMu.Unlock()
	if buildDir == "" {
		return nil
	}
	err := os.RemoveAll(buildDir)
	buildDir = ""
	clear(buildCache)
	return err
}

// RunTests is a TestMain of a package whose tests start oracles: it runs
// them, then removes the oracles' binaries.
func RunTests(m interface{ Run() int }) int {
	code := m.Run()
	if err := RemoveBuilds(); err != nil {
		fmt.Fprintln(os.Stderr, "removing the oracles' binaries:", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// OracleDir returns the directory of the apiserver oracle's module.
func OracleDir() (string, error) { return APIServer.Dir() }

// Dir returns the directory of the program's module.
func (p *Program) Dir() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return "", fmt.Errorf("cannot locate the oracle module from %q (built with -trimpath?)", file)
	}
	dir := filepath.Join(filepath.Dir(file), p.dir)
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		return "", err
	}
	return dir, nil
}

// Build builds the apiserver oracle of version (APIServer.Build).
func Build(ctx context.Context, version string) (string, error) {
	return APIServer.Build(ctx, version)
}

// Start returns the program's oracle of version, run as a child process;
// InProcessVersion, which this module links, is not among them (see
// NewInProcess and NewInProcessFunc).
func (p *Program) Start(ctx context.Context, version string) (Oracle, error) {
	bin, err := p.Build(ctx, version)
	if err != nil {
		return nil, err
	}
	return StartProcess(bin, version)
}

// Build builds the program for version into a temporary directory (once per
// process; the go build cache makes later processes fast) and returns the
// binary's path.
func (p *Program) Build(ctx context.Context, version string) (string, error) {
	how, ok := p.builds[version]
	modfile := how.modfile
	if !ok {
		return "", fmt.Errorf("no %s program for Kubernetes %q (out of process: %v)", p.name, version, slices.Sorted(maps.Keys(p.builds)))
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	key := p.name + "-" + version
	if bin, ok := buildCache[key]; ok {
		return bin, nil
	}
	dir, err := p.Dir()
	if err != nil {
		return "", err
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrCannotBuild, err)
	}
	if buildDir == "" {
		if buildDir, err = os.MkdirTemp("", "gatehouse-oracles-"); err != nil {
			return "", err
		}
	}
	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
	if how.toolchain != "" {
		// The go command downloads the toolchain (from the module proxy)
		// and runs it; for this build only.
		env = append(env, "GOTOOLCHAIN="+how.toolchain)
	}
	run := func(args ...string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, gobin, args...)
		cmd.Dir = dir
		cmd.Env = env
		return cmd.CombinedOutput()
	}
	// Downloading is the step that needs the network: its failure is the
	// one a test skips on. A build failure after it is a real failure.
	if out, err := run("mod", "download", "-modfile="+modfile); err != nil {
		return "", fmt.Errorf("%w (go mod download -modfile=%s in %s): %v\n%s", ErrCannotBuild, modfile, dir, err, out)
	}
	bin := filepath.Join(buildDir, key)
	args := []string{"build", "-modfile=" + modfile}
	if how.tags != "" {
		args = append(args, "-tags", how.tags)
	}
	if out, err := run(append(args, "-o", bin, ".")...); err != nil {
		return "", fmt.Errorf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	buildCache[key] = bin
	return bin, nil
}

// Timeout bounds the wait for one answer.
var Timeout = 2 * time.Minute

type process struct {
	version string
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	out     *bufio.Reader
	stderr  *lockedBuffer

	mu   sync.Mutex
	dead error
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() > 1<<16 {
		return len(p), nil
	}
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// StartProcess runs the oracle binary bin, which answers for version, and
// checks that it is built from the k8s.io/apiserver of that version.
func StartProcess(bin, version string) (Oracle, error) {
	cmd := exec.Command(bin)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p := &process{version: version, cmd: cmd, stdin: stdin, out: bufio.NewReaderSize(stdout, 1<<20), stderr: &lockedBuffer{}}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	a, err := p.Eval(protocol.Query{Op: protocol.OpInfo})
	if err != nil {
		p.Close()
		return nil, err
	}
	if a.Kubernetes != version {
		p.Close()
		return nil, fmt.Errorf("oracle %s is built from Kubernetes %s (k8s.io/apiserver %s)", bin, a.Kubernetes, a.Apiserver)
	}
	return p, nil
}

func (p *process) Version() string { return p.version }

func (p *process) Eval(q protocol.Query) (protocol.Answer, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dead != nil {
		return protocol.Answer{}, p.dead
	}
	line, err := json.Marshal(q)
	if err != nil {
		return protocol.Answer{}, err
	}
	type reply struct {
		line []byte
		err  error
	}
	ch := make(chan reply, 1)
	go func() {
		if _, err := p.stdin.Write(append(line, '\n')); err != nil {
			ch <- reply{err: err}
			return
		}
		b, err := p.out.ReadBytes('\n')
		ch <- reply{b, err}
	}()
	var r reply
	select {
	case r = <-ch:
	case <-time.After(Timeout):
		r.err = fmt.Errorf("no answer within %v", Timeout)
		_ = p.cmd.Process.Kill()
	}
	if r.err != nil {
		p.dead = fmt.Errorf("oracle %s: %v (query %s); its stderr:\n%s", p.version, r.err, truncate(line), p.stderr.String())
		return protocol.Answer{}, p.dead
	}
	var a protocol.Answer
	if err := json.Unmarshal(r.line, &a); err != nil {
		return protocol.Answer{}, fmt.Errorf("oracle %s: decoding %s: %v", p.version, truncate(r.line), err)
	}
	if a.Error != "" {
		return a, fmt.Errorf("oracle %s: %s", p.version, a.Error)
	}
	return a, nil
}

func truncate(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

func (p *process) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	_ = p.stdin.Close()
	err := p.cmd.Wait()
	if p.dead == nil {
		p.dead = errors.New("oracle closed")
	}
	return err
}
