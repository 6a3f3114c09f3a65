// Package kubectl is the end-to-end suite of the bundled CLI: it starts the
// built kubecore apiserver, runs the same commands with the stock kubectl
// (/usr/bin/kubectl) and with `kubecore kubectl`, and compares what they
// print after masking what differs between any two runs (ages, uids,
// generated names).
package kubectl

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// binEnv names the built kubecore binary; hack/test-e2e.sh sets it.
const binEnv = "KUBECORE_BIN"

// stockKubectl is the reference CLI.
const stockKubectl = "/usr/bin/kubectl"

// env is the one API server the package's tests share, and the CLIs.
type env struct {
	bin        string // $KUBECORE_BIN
	link       string // a symlink named kubectl to bin
	kubeconfig string
	home       string // HOME of every CLI run (kubectl's discovery cache)
	dir        string
}

// suite is set by TestMain for the tests.
var suite *env

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	bin := os.Getenv(binEnv)
	if bin == "" {
		fmt.Fprintf(os.Stderr, "FAIL: $%s is not set: build with make and run this suite as `%s=$PWD/_output/bin/kubecore go test ./test/e2e/kubectl/...` (hack/test-e2e.sh does both)\n", binEnv, binEnv)
		return 1
	}
	if _, err := os.Stat(stockKubectl); err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: the stock kubectl is needed at %s: %v\n", stockKubectl, err)
		return 1
	}
	dir, err := os.MkdirTemp("", "kubecore-e2e-kubectl-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		return 1
	}
	defer func() { _ = os.RemoveAll(dir) }()
	stop, e, err := start(bin, dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		return 1
	}
	suite = e
	code := m.Run()
	if err := stop(); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL: stop apiserver:", err)
		return 1
	}
	return code
}

var readyLine = regexp.MustCompile(`"kubecore apiserver is ready" url="([^"]+)"`)

// start runs `kubecore apiserver` on a free port and waits for its ready
// line.
func start(bin, dir string) (func() error, *env, error) {
	port, err := freePort()
	if err != nil {
		return nil, nil, err
	}
	logPath := filepath.Join(dir, "apiserver.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, nil, err
	}
	data := filepath.Join(dir, "data")
	cmd := exec.Command(bin, "apiserver", "--data-dir", data, "--secure-port", strconv.Itoa(port), "--bind-address", "127.0.0.1")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("start %s apiserver: %w", bin, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait(); _ = logFile.Close() }()
	stop := func() error {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-done:
			return err
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			return fmt.Errorf("apiserver did not stop within 20s of SIGTERM")
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if ready(logPath) {
			break
		}
		select {
		case err := <-done:
			log, _ := os.ReadFile(logPath)
			return nil, nil, fmt.Errorf("apiserver exited before it was ready: %v\n%s", err, log)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = stop()
			log, _ := os.ReadFile(logPath)
			return nil, nil, fmt.Errorf("apiserver not ready after 30s\n%s", log)
		}
	}
	linkDir := filepath.Join(dir, "bin")
	if err := os.MkdirAll(linkDir, 0o755); err != nil {
		return nil, nil, err
	}
	link := filepath.Join(linkDir, "kubectl")
	if err := os.Symlink(bin, link); err != nil {
		return nil, nil, err
	}
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, nil, err
	}
	return stop, &env{bin: bin, link: link, kubeconfig: filepath.Join(data, "admin.kubeconfig"), home: home, dir: dir}, nil
}

func ready(logPath string) bool {
	f, err := os.Open(logPath)
	if err != nil {
		return false
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		if readyLine.MatchString(sc.Text()) {
			return true
		}
	}
	return false
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer func() { _ = ln.Close() }()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// cli is one way of running kubectl.
type cli int

const (
	stock   cli = iota // /usr/bin/kubectl
	bundled            // kubecore kubectl
	link               // the binary through a link named kubectl
)

func (c cli) String() string {
	return [...]string{"stock kubectl", "kubecore kubectl", "kubectl link"}[c]
}

// result is what one run printed.
type result struct {
	args   []string
	stdout string
	stderr string
	code   int
}

func (r result) String() string {
	return fmt.Sprintf("kubectl %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(r.args, " "), r.code, r.stdout, r.stderr)
}

// run runs one CLI with args and stdin.
func (e *env) run(t testing.TB, c cli, stdin string, args ...string) result {
	t.Helper()
	return e.runWith(t, c, stdin, nil, args...)
}

// runEnv runs one CLI with args and extra environment variables.
func (e *env) runEnv(t testing.TB, c cli, extraEnv []string, args ...string) result {
	t.Helper()
	return e.runWith(t, c, "", extraEnv, args...)
}

func (e *env) runWith(t testing.TB, c cli, stdin string, extraEnv []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var cmd *exec.Cmd
	switch c {
	case stock:
		cmd = exec.CommandContext(ctx, stockKubectl, args...)
	case bundled:
		cmd = exec.CommandContext(ctx, e.bin, append([]string{"kubectl"}, args...)...)
	case link:
		cmd = exec.CommandContext(ctx, e.link, args...)
	}
	cmd.Env = append([]string{"KUBECONFIG=" + e.kubeconfig, "HOME=" + e.home, "PATH=" + os.Getenv("PATH")}, extraEnv...)
	cmd.Dir = e.dir
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	r := result{args: args, stdout: out.String(), stderr: errOut.String()}
	if ctx.Err() != nil {
		t.Fatalf("%s %s: no answer within 60s\n%s", c, strings.Join(args, " "), r)
	}
	if exitErr, ok := err.(*exec.ExitError); ok {
		r.code = exitErr.ExitCode()
	} else if err != nil {
		t.Fatalf("run %s %s: %v", c, strings.Join(args, " "), err)
	}
	return r
}

// mustRun runs with the stock kubectl (setup steps) and fails on error.
func (e *env) mustRun(t testing.TB, stdin string, args ...string) string {
	t.Helper()
	r := e.run(t, stock, stdin, args...)
	if r.code != 0 {
		t.Fatalf("setup failed: %s", r)
	}
	return r.stdout
}

// writeFile writes a manifest under the suite's directory and returns its
// path.
func (e *env) writeFile(t testing.TB, name, content string) string {
	t.Helper()
	p := filepath.Join(e.dir, "manifests", t.Name(), name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

var (
	// ageRe matches an age as tables print it: 5s, 3m2s, 4h, 2d3h, 1y.
	ageRe = regexp.MustCompile(`\b\d+[smhdy](\d+[smh])?\b`)
	// uidRe, timeRe and rvRe match what differs between two objects made
	// alike.
	uidRe  = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	timeRe = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z|[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} [+-]\d{4}`)
	rvRe   = regexp.MustCompile(`("?resourceVersion"?: *)"\d+"`)
	// genRe matches the random suffix of a generated name.
	genRe = regexp.MustCompile(`-[a-z0-9]{5}\b`)
	// tempRe matches a temporary file kubectl edit leaves.
	tempRe = regexp.MustCompile(`kubectl-edit-[0-9]+\.yaml`)
	// columnGap is the padding between table columns, which moves with
	// the width of masked cells.
	columnGap = regexp.MustCompile(` {3,}`)
)

// mask hides what legitimately differs between two runs: ages, uids,
// timestamps, resource versions, the test namespaces and extra spaces of
// column padding.
func mask(s string, replace map[string]string) string {
	for from, to := range replace {
		s = strings.ReplaceAll(s, from, to)
	}
	s = uidRe.ReplaceAllString(s, "<uid>")
	s = tempRe.ReplaceAllString(s, "kubectl-edit-<n>.yaml")
	s = timeRe.ReplaceAllString(s, "<time>")
	s = rvRe.ReplaceAllString(s, `${1}"<rv>"`)
	s = ageRe.ReplaceAllString(s, "<age>")
	s = genRe.ReplaceAllString(s, "-<gen>")
	s = columnGap.ReplaceAllString(s, "   ")
	return s
}

// diffLines compares two outputs line by line.
func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  stock:   %q\n  bundled: %q\n", i+1, wl, gl)
		}
	}
	return b.String()
}

// compareResults fails the test unless the two runs printed the same
// after masking, and exited alike.
func compareResults(t testing.TB, want, got result, replace map[string]string) {
	t.Helper()
	if d := diffLines(mask(want.stdout, replace), mask(got.stdout, replace)); d != "" {
		t.Errorf("kubectl %s: stdout differs:\n%s\nstock:\n%s\nbundled:\n%s", strings.Join(got.args, " "), d, want.stdout, got.stdout)
	}
	if d := diffLines(mask(want.stderr, replace), mask(got.stderr, replace)); d != "" {
		t.Errorf("kubectl %s: stderr differs:\n%s", strings.Join(got.args, " "), d)
	}
	if want.code != got.code {
		t.Errorf("kubectl %s: exit code %d, stock kubectl %d", strings.Join(got.args, " "), got.code, want.code)
	}
}

// same runs args with both CLIs against the same state and compares.
func (e *env) same(t testing.TB, args ...string) {
	t.Helper()
	e.sameStdin(t, "", args...)
}

func (e *env) sameStdin(t testing.TB, stdin string, args ...string) {
	t.Helper()
	want := e.run(t, stock, stdin, args...)
	got := e.run(t, bundled, stdin, args...)
	compareResults(t, want, got, nil)
}

// pair runs one sequence of commands with each CLI, each in a namespace of
// its own made for it, so that mutating verbs see the same state; "NS" in
// an argument or stdin stands for the namespace. Outputs are compared step
// by step with the namespace masked.
func (e *env) pair(t *testing.T, setup func(ns string), steps ...step) {
	t.Helper()
	base := strings.ToLower(regexp.MustCompile(`[^a-zA-Z0-9]+`).ReplaceAllString(t.Name(), "-"))
	if len(base) > 40 {
		base = base[:40]
	}
	nss := [2]string{base + "-stock", base + "-bundled"}
	for _, ns := range nss {
		e.mustRun(t, "", "create", "namespace", ns)
		if setup != nil {
			setup(ns)
		}
	}
	t.Cleanup(func() {
		for _, ns := range nss {
			e.run(t, stock, "", "delete", "namespace", ns, "--wait=false")
		}
	})
	for _, s := range steps {
		var res [2]result
		for i, c := range []cli{stock, bundled} {
			args := make([]string, len(s.args))
			for j, a := range s.args {
				args[j] = strings.ReplaceAll(a, "NS", nss[i])
			}
			res[i] = e.run(t, c, strings.ReplaceAll(s.stdin, "NS", nss[i]), args...)
		}
		replace := map[string]string{nss[0]: "NS", nss[1]: "NS"}
		compareResults(t, res[0], res[1], replace)
	}
}

// step is one command of a pair.
type step struct {
	args  []string
	stdin string
}

// cmd makes a step of args.
func cmd(args ...string) step { return step{args: args} }

// withStdin makes a step reading stdin.
func withStdin(stdin string, args ...string) step { return step{args: args, stdin: stdin} }

var _ = io.Discard

// sortedLines sorts the lines of s.
func sortedLines(s string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n") + "\n"
}
