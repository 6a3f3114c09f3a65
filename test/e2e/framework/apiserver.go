// Package framework runs the built kubecore binary for the e2e suite: it
// starts `kubecore apiserver` as a child process and drives it with kubectl.
//
// A test package usually shares one API server, started from TestMain:
//
//	var server *framework.APIServer
//
//	func TestMain(m *testing.M) { os.Exit(framework.RunWithAPIServer(m, &server)) }
//
//	func TestSomething(t *testing.T) {
//		k := server.Kubectl(t)
//		ns := server.CreateNamespace(t, "something")
//		out := k.MustRun(t, "get", "configmaps", "-n", ns)
//		...
//	}
//
// Tests that need a server of their own (a restart, say) call
// StartAPIServer(t, dir); it stops when the test ends.
package framework

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"kubecore.io/kubecore/test/utils/freeport"
)

// BinaryEnv names the environment variable holding the path of the built
// kubecore binary; hack/test-e2e.sh sets it.
const BinaryEnv = "KUBECORE_BIN"

const (
	// readyTimeout bounds how long a start may take before it is a failure.
	readyTimeout = 30 * time.Second
	// stopTimeout bounds a graceful shutdown after SIGTERM; past it the
	// process gets SIGKILL and the stop is reported as a failure.
	stopTimeout = 20 * time.Second
	// logTail is how much of a server log is printed when a test fails.
	logTail = 64 << 10
)

// readyLine matches the line `kubecore <subcommand>` logs once when it
// serves ("kubecore apiserver is ready", "kubecore all-in-one is ready");
// its url key is the address clients use.
func readyLine(subcommand string) *regexp.Regexp {
	return regexp.MustCompile(`"kubecore ` + regexp.QuoteMeta(subcommand) + ` is ready" url="([^"]+)"`)
}

// Subcommands an APIServer runs.
const (
	SubcommandAPIServer = "apiserver"
	SubcommandAllInOne  = "all-in-one"
)

// Binary returns the kubecore binary named by $KUBECORE_BIN, or an error
// saying how to get one: the suite is meaningless without it.
func Binary() (string, error) {
	p := os.Getenv(BinaryEnv)
	if p == "" {
		return "", fmt.Errorf("$%s is not set: run the suite with hack/test-e2e.sh (or make test-e2e), which builds the binary and sets it", BinaryEnv)
	}
	st, err := os.Stat(p)
	if err != nil {
		return "", fmt.Errorf("$%s=%s: %w (build it with make)", BinaryEnv, p, err)
	}
	if st.IsDir() || st.Mode()&0o111 == 0 {
		return "", fmt.Errorf("$%s=%s is not an executable file", BinaryEnv, p)
	}
	return p, nil
}

// FreePort returns a TCP port nothing listens on right now, below the
// kernel's ephemeral range, so that no port-0 listener of the server
// itself (its embedded etcd) takes it first.
func FreePort() (int, error) { return freeport.Get() }

// APIServer is one `kubecore apiserver` child process.
type APIServer struct {
	// DataDir is the server's --data-dir.
	DataDir string
	// Port is its --secure-port; a restart keeps it so that the kubeconfig
	// stays valid.
	Port int
	// URL is the address from the server's ready line.
	URL string
	// Kubeconfig is DataDir/admin.kubeconfig.
	Kubeconfig string
	// LogPath holds the server's stdout and stderr, across restarts.
	LogPath string
	// LogLevel is the server's -v: 3 (NewAPIServer's default) logs every
	// request, which helps when a test fails; benchmarks want 0.
	LogLevel int
	// Subcommand is what runs: SubcommandAPIServer (the default) or
	// SubcommandAllInOne, which adds the controllers, the scheduler and a
	// kubelet with the process runtime on a free port.
	Subcommand string
	// ExtraArgs are added to the command line of every start.
	ExtraArgs []string

	bin string
	// home is a directory of this server's own for kubectl's HOME, so that
	// its discovery cache is never shared with another server or user.
	home string

	mu      sync.Mutex
	cmd     *exec.Cmd
	done    chan struct{}
	waitErr error
	nsSeq   int
}

// NewAPIServer prepares a server on dataDir with a free port; Start runs
// it. The log and kubectl's home live beside dataDir, in workDir.
func NewAPIServer(dataDir, workDir string) (*APIServer, error) {
	bin, err := Binary()
	if err != nil {
		return nil, err
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	home := filepath.Join(workDir, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, fmt.Errorf("kubectl home: %w", err)
	}
	return &APIServer{
		DataDir:    dataDir,
		Port:       port,
		Kubeconfig: filepath.Join(dataDir, "admin.kubeconfig"),
		LogPath:    filepath.Join(workDir, "apiserver.log"),
		LogLevel:   3,
		bin:        bin,
		home:       home,
	}, nil
}

// Start runs the binary and waits until it logs its ready line and
// /readyz answers ok. A process that exits first is an error carrying its
// log.
func (s *APIServer) Start() error {
	s.mu.Lock()
	running := s.cmd != nil
	s.mu.Unlock()
	if running {
		return errors.New("apiserver is already running")
	}
	logFile, err := os.OpenFile(s.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open apiserver log: %w", err)
	}
	offset, err := logFile.Seek(0, io.SeekEnd)
	if err != nil {
		_ = logFile.Close()
		return fmt.Errorf("seek apiserver log: %w", err)
	}
	sub := s.subcommand()
	fmt.Fprintf(logFile, "=== starting %s %s --data-dir %s --secure-port %d at %s\n",
		s.bin, sub, s.DataDir, s.Port, time.Now().Format(time.RFC3339Nano))
	args := []string{sub,
		"--data-dir", s.DataDir,
		"--secure-port", strconv.Itoa(s.Port),
		"--bind-address", "127.0.0.1",
		"-v", strconv.Itoa(s.LogLevel),
	}
	if sub == SubcommandAllInOne {
		// Pods share the host's network, without the service proxy and
		// the cluster DNS (on by default as root): the tests run many
		// clusters on one machine at once, which cannot share one pod
		// bridge, one nftables table or the node IP's port 53. The
		// network tests (test/e2e/network, servicenet) run them in
		// network namespaces of their own.
		args = append(args, "--kubelet-port", "0", "--pod-network", "host", "--run-service-proxy=false", "--run-cluster-dns=false")
	} else {
		// No controller runs beside a bare API server to clear the
		// protection finalizers and the not-ready taint of new objects:
		// leave those plugins out, as Kubernetes' test servers do.
		args = append(args, "--disable-admission-plugins", "StorageObjectInUseProtection,TaintNodesByCondition")
	}
	args = append(args, s.ExtraArgs...)
	cmd := exec.Command(s.bin, args...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = childProcAttr()
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return fmt.Errorf("start %s apiserver: %w", s.bin, err)
	}
	done := make(chan struct{})
	s.mu.Lock()
	s.cmd, s.done, s.waitErr = cmd, done, nil
	s.mu.Unlock()
	go func() {
		err := cmd.Wait()
		_ = logFile.Close()
		s.mu.Lock()
		s.waitErr = err
		s.mu.Unlock()
		close(done)
	}()

	url, err := s.waitReady(offset, done)
	if err != nil {
		if stopErr := s.Stop(); stopErr != nil {
			err = errors.Join(err, stopErr)
		}
		return fmt.Errorf("%w\n%s", err, s.logTail())
	}
	s.URL = url
	return nil
}

// waitReady polls the log (from offset) for the ready line, then /readyz.
func (s *APIServer) waitReady(offset int64, done <-chan struct{}) (string, error) {
	deadline := time.Now().Add(readyTimeout)
	url := ""
	for time.Now().Before(deadline) {
		select {
		case <-done:
			return "", errors.New("apiserver exited before it was ready")
		default:
		}
		if url == "" {
			url = s.findReadyLine(offset)
		}
		if url != "" {
			if err := s.checkReadyz(url); err == nil {
				return url, nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return "", fmt.Errorf("apiserver not ready after %s", readyTimeout)
}

func (s *APIServer) subcommand() string {
	if s.Subcommand == "" {
		return SubcommandAPIServer
	}
	return s.Subcommand
}

func (s *APIServer) findReadyLine(offset int64) string {
	f, err := os.Open(s.LogPath)
	if err != nil {
		return ""
	}
	defer func() { _ = f.Close() }()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return ""
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	ready := readyLine(s.subcommand())
	for sc.Scan() {
		if m := ready.FindStringSubmatch(sc.Text()); m != nil {
			return m[1]
		}
	}
	return ""
}

func (s *APIServer) checkReadyz(url string) error {
	c, err := s.HTTPClient(false)
	if err != nil {
		return err
	}
	resp, err := c.Get(url + "/readyz")
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("/readyz: %d %s", resp.StatusCode, body)
	}
	return nil
}

// HTTPClient returns a client trusting the server's CA, presenting the
// admin client certificate when withCert is set and no certificate at all
// otherwise.
func (s *APIServer) HTTPClient(withCert bool) (*http.Client, error) {
	pkiDir := filepath.Join(s.DataDir, "pki")
	caPEM, err := os.ReadFile(filepath.Join(pkiDir, "ca.crt"))
	if err != nil {
		return nil, fmt.Errorf("read CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, errors.New("no certificate in pki/ca.crt")
	}
	cfg := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	if withCert {
		cert, err := tls.LoadX509KeyPair(filepath.Join(pkiDir, "admin.crt"), filepath.Join(pkiDir, "admin.key"))
		if err != nil {
			return nil, fmt.Errorf("load admin certificate: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return &http.Client{
		Timeout:   10 * time.Second,
		Transport: &http.Transport{TLSClientConfig: cfg},
	}, nil
}

// Stop sends SIGTERM and waits for the process to exit; past stopTimeout
// it sends SIGKILL. It fails unless the process exited by itself with
// status 0. Stopping a stopped server does nothing.
func (s *APIServer) Stop() error {
	s.mu.Lock()
	cmd, done := s.cmd, s.done
	s.mu.Unlock()
	if cmd == nil {
		return nil
	}
	defer func() {
		s.mu.Lock()
		s.cmd, s.done = nil, nil
		s.mu.Unlock()
	}()
	select {
	case <-done:
		s.mu.Lock()
		err := s.waitErr
		s.mu.Unlock()
		return fmt.Errorf("apiserver (pid %d) had already exited: %v", cmd.Process.Pid, err)
	default:
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return fmt.Errorf("SIGTERM apiserver (pid %d): %w", cmd.Process.Pid, err)
	}
	select {
	case <-done:
	case <-time.After(stopTimeout):
		_ = cmd.Process.Kill()
		<-done
		return fmt.Errorf("apiserver (pid %d) did not exit within %s of SIGTERM; killed", cmd.Process.Pid, stopTimeout)
	}
	s.mu.Lock()
	err := s.waitErr
	s.mu.Unlock()
	if err != nil {
		return fmt.Errorf("apiserver (pid %d) exited uncleanly after SIGTERM: %w", cmd.Process.Pid, err)
	}
	return nil
}

// PID is the process ID of the running server, 0 when it is not running.
func (s *APIServer) PID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

// Running reports whether the process is alive.
func (s *APIServer) Running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done == nil {
		return false
	}
	select {
	case <-s.done:
		return false
	default:
		return true
	}
}

// logTail returns the end of the server log, to print beside a failure.
func (s *APIServer) logTail() string {
	b, err := os.ReadFile(s.LogPath)
	if err != nil {
		return fmt.Sprintf("(no apiserver log: %v)", err)
	}
	head := fmt.Sprintf("----- apiserver log %s", s.LogPath)
	if len(b) > logTail {
		head += fmt.Sprintf(" (last %d of %d bytes)", logTail, len(b))
		b = b[len(b)-logTail:]
	}
	return head + " -----\n" + string(b) + "----- end of apiserver log -----"
}

// Log returns the end of the server's log.
func (s *APIServer) Log() string { return s.logTail() }

// Kubectl returns the stock kubectl bound to this server's admin
// kubeconfig.
func (s *APIServer) Kubectl(t testing.TB) *Kubectl {
	t.Helper()
	return s.CLI(KubectlPath)
}

// CLI is Kubectl for another kubectl-like binary, path, run with args
// before each run's own: CLI(bin, "kubectl") is kubecore's bundled CLI. It
// shares the server's kubeconfig and kubectl's home with Kubectl.
func (s *APIServer) CLI(path string, args ...string) *Kubectl {
	return &Kubectl{Path: path, Args: args, Kubeconfig: s.Kubeconfig, Home: s.home}
}

// CreateNamespace creates a namespace named after base with a suffix
// unique on this server, and returns its name.
func (s *APIServer) CreateNamespace(t testing.TB, base string) string {
	t.Helper()
	s.mu.Lock()
	s.nsSeq++
	name := fmt.Sprintf("%s-%d", base, s.nsSeq)
	s.mu.Unlock()
	s.Kubectl(t).MustRun(t, "create", "namespace", name)
	return name
}

// StartAPIServer starts a server of the test's own on dataDir (a new temp
// dir when empty). When the test ends it is stopped — a failure if it does
// not stop cleanly — and its log is printed if the test failed.
func StartAPIServer(t testing.TB, dataDir string) *APIServer {
	t.Helper()
	return start(t, dataDir, SubcommandAPIServer)
}

// StartAllInOne is StartAPIServer for `kubecore all-in-one`: the whole
// cluster, with one kubelet (process runtime) whose logs and exec server
// listens on a free port. It is ready once the all-in-one ready line is
// logged and /readyz answers; the kubelet registers its node just after.
// A test that runs pods deletes them before it ends: the kubelet leaves
// running pods' processes behind when it stops, to re-adopt them.
func StartAllInOne(t testing.TB, dataDir string) *APIServer {
	t.Helper()
	return start(t, dataDir, SubcommandAllInOne)
}

func start(t testing.TB, dataDir, subcommand string) *APIServer {
	t.Helper()
	work := t.TempDir()
	if dataDir == "" {
		dataDir = filepath.Join(work, "data")
	}
	s, err := NewAPIServer(dataDir, work)
	if err != nil {
		t.Fatal(err)
	}
	s.Subcommand = subcommand
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Error(err)
		}
		if t.Failed() {
			t.Log(s.logTail())
		}
	})
	return s
}

// RunWithAPIServer is the body of a TestMain: it starts one server in a
// temp dir, stores it in *server, runs the tests, stops the server and
// returns the exit code. The server log is printed when a test failed or
// the server did not stop cleanly.
func RunWithAPIServer(m *testing.M, server **APIServer) int {
	work, err := os.MkdirTemp("", "kubecore-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer func() { _ = os.RemoveAll(work) }()
	s, err := NewAPIServer(filepath.Join(work, "data"), work)
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	if err := s.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: start apiserver:", err)
		return 1
	}
	*server = s
	code := m.Run()
	if err := s.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: stop apiserver:", err)
		code = 1
	}
	if code != 0 {
		fmt.Fprintln(os.Stderr, s.logTail())
	}
	return code
}

// WaitFor polls cond every 50 ms until it returns true or timeout passes.
func WaitFor(ctx context.Context, timeout time.Duration, cond func() bool) bool {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if cond() {
			return true
		}
		select {
		case <-ctx.Done():
			return cond()
		case <-tick.C:
		}
	}
}

// embeddedEtcdLine is the line the server logs once its embedded etcd
// member serves; its first client URL is what EmbeddedEtcdURL returns.
var embeddedEtcdLine = regexp.MustCompile(`"Embedded etcd ready".*clientURLs=\["([^"]+)"`)

// EmbeddedEtcdURL returns the loopback client URL of the server's embedded
// etcd member, from the server's log, for tests that watch etcd beside the
// apiserver.
func (s *APIServer) EmbeddedEtcdURL() (string, error) {
	b, err := os.ReadFile(s.LogPath)
	if err != nil {
		return "", err
	}
	all := embeddedEtcdLine.FindAllSubmatch(b, -1)
	if len(all) == 0 {
		return "", fmt.Errorf("no embedded etcd client URL in %s", s.LogPath)
	}
	return string(all[len(all)-1][1]), nil
}
