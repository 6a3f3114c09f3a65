// Package kubectl is the end-to-end suite of the bundled CLI: on an API
// server started by test/e2e/framework it runs the same commands with the
// stock kubectl (/usr/bin/kubectl) and with `kubecore kubectl`, and compares
// what they print after masking what differs between any two runs (ages,
// uids, generated names).
package kubectl

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"kubecore.io/kubecore/test/e2e/framework"
)

// env is the one API server the package's tests share, and the CLIs.
type env struct {
	server *framework.APIServer
	bin    string // $KUBECORE_BIN
	link   string // a symlink named kubectl to bin
	dir    string // manifests the tests write
}

// suite is set by TestMain for the tests.
var suite *env

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "kubecore-e2e-kubectl-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		return 1
	}
	defer func() { _ = os.RemoveAll(dir) }()
	suite, err = newEnv(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		return 1
	}
	return framework.RunWithAPIServer(m, &suite.server)
}

// newEnv checks that both CLIs are there and links kubectl to the binary
// under dir; the server is started by framework.RunWithAPIServer.
func newEnv(dir string) (*env, error) {
	bin, err := framework.Binary()
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(framework.KubectlPath); err != nil {
		return nil, fmt.Errorf("the stock kubectl is needed at %s: %w", framework.KubectlPath, err)
	}
	link := filepath.Join(dir, "bin", "kubectl")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		return nil, err
	}
	if err := os.Symlink(bin, link); err != nil {
		return nil, err
	}
	return &env{bin: bin, link: link, dir: dir}, nil
}

// cli is one way of running kubectl.
type cli int

const (
	stock   cli = iota // /usr/bin/kubectl
	bundled            // kubecore kubectl
	link               // the binary through a link named kubectl
)

// kubectl returns the runner of c against the suite's server.
func (e *env) kubectl(c cli) *framework.Kubectl {
	switch c {
	case bundled:
		return e.server.CLI(e.bin, "kubectl")
	case link:
		return e.server.CLI(e.link)
	default:
		return e.server.CLI(framework.KubectlPath)
	}
}

// run runs one CLI with args and stdin.
func (e *env) run(t testing.TB, c cli, stdin string, args ...string) framework.Result {
	t.Helper()
	return e.kubectl(c).RunStdin(t, stdin, args...)
}

// runEnv runs one CLI with args and extra environment variables.
func (e *env) runEnv(t testing.TB, c cli, extraEnv []string, args ...string) framework.Result {
	t.Helper()
	return e.kubectl(c).With(extraEnv...).Run(t, args...)
}

// mustRun runs with the stock kubectl (setup steps) and fails on error.
func (e *env) mustRun(t testing.TB, stdin string, args ...string) string {
	t.Helper()
	return e.kubectl(stock).MustRunStdin(t, stdin, args...)
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
func compareResults(t testing.TB, want, got framework.Result, replace map[string]string) {
	t.Helper()
	if d := diffLines(mask(want.Stdout, replace), mask(got.Stdout, replace)); d != "" {
		t.Errorf("kubectl %s: stdout differs:\n%s\nstock:\n%s\nbundled:\n%s", strings.Join(got.Args, " "), d, want.Stdout, got.Stdout)
	}
	if d := diffLines(mask(want.Stderr, replace), mask(got.Stderr, replace)); d != "" {
		t.Errorf("kubectl %s: stderr differs:\n%s", strings.Join(got.Args, " "), d)
	}
	if want.ExitCode != got.ExitCode {
		t.Errorf("kubectl %s: exit code %d, stock kubectl %d", strings.Join(got.Args, " "), got.ExitCode, want.ExitCode)
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
		var res [2]framework.Result
		for i, c := range []cli{stock, bundled} {
			args := make([]string, len(s.args))
			for j, a := range s.args {
				args[j] = strings.ReplaceAll(a, "NS", nss[i])
			}
			res[i] = e.kubectl(c).With(s.env...).RunStdin(t, strings.ReplaceAll(s.stdin, "NS", nss[i]), args...)
		}
		replace := map[string]string{nss[0]: "NS", nss[1]: "NS"}
		compareResults(t, res[0], res[1], replace)
	}
}

// step is one command of a pair.
type step struct {
	args  []string
	stdin string
	// env is added to the command's environment (EDITOR=...).
	env []string
}

// cmd makes a step of args.
func cmd(args ...string) step { return step{args: args} }

// withStdin makes a step reading stdin.
func withStdin(stdin string, args ...string) step { return step{args: args, stdin: stdin} }

// sortedLines sorts the lines of s.
func sortedLines(s string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n") + "\n"
}
