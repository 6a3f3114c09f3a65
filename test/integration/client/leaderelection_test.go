package client

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "kubecore.io/api/coordination/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/tools/clientcmd"
	"kubecore.io/client/tools/leaderelection"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/test/integration/client/testserver"
)

// The timing of every elector in these tests: short enough that a takeover
// takes seconds, long enough that a busy machine renews in time.
const (
	leaseDuration = 4 * time.Second
	renewDeadline = 3 * time.Second
	retryPeriod   = 500 * time.Millisecond

	// slack is added to every upper bound on a takeover: the machine is
	// shared and the API server answers each attempt in its own time.
	slack = 3 * time.Second

	leaseNamespace = "election"
)

// The environment of an elector process (see runElectorProcess).
const (
	electorEnv           = "KUBECORE_TEST_ELECTOR" // its identity
	electorKubeconfigEnv = "KUBECORE_TEST_ELECTOR_KUBECONFIG"
	electorLeaseEnv      = "KUBECORE_TEST_ELECTOR_LEASE"
)

func electorConfig(client leaderelection.LeaseClient, lease, id string, release bool, cb leaderelection.Callbacks) leaderelection.Config {
	return leaderelection.Config{
		Client: client, LeaseName: lease, Identity: id,
		LeaseDuration: leaseDuration, RenewDeadline: renewDeadline, RetryPeriod: retryPeriod,
		ReleaseOnCancel: release, Callbacks: cb,
	}
}

// leaders knows, for every candidate of one Lease, whether it leads now, and
// checks continuously that no two do.
type leaders struct {
	t *testing.T

	mu      sync.Mutex
	probes  map[string]func() bool
	samples int
	bad     int
}

func newLeaders(t *testing.T) *leaders {
	return &leaders{t: t, probes: map[string]func() bool{}}
}

func (l *leaders) add(id string, leading func() bool) {
	l.mu.Lock()
	l.probes[id] = leading
	l.mu.Unlock()
}

// now returns the candidates leading at this instant, sorted.
func (l *leaders) now() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for id, leading := range l.probes {
		if leading() {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// check fails the test if more than one candidate leads now; what tells
// where the check was made.
func (l *leaders) check(what string) []string {
	now := l.now()
	l.mu.Lock()
	l.samples++
	report := len(now) > 1 && l.bad < 10
	if len(now) > 1 {
		l.bad++
	}
	l.mu.Unlock()
	if report {
		l.t.Errorf("%s: %d candidates lead at once: %v", what, len(now), now)
	}
	return now
}

// logChecks logs how many times the leaders were counted.
func (l *leaders) logChecks() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.t.Logf("who leads was checked %d times (every millisecond and on every Lease write); two leaders %d times", l.samples, l.bad)
}

// watch samples who leads every millisecond until ctx ends.
func (l *leaders) watch(ctx context.Context) {
	for ctx.Err() == nil {
		l.check("sampler")
		time.Sleep(time.Millisecond)
	}
}

// requireExactlyOne samples for d that exactly one candidate, want, leads.
func (l *leaders) requireExactlyOne(want string, d time.Duration) {
	l.t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if now := l.now(); len(now) != 1 || now[0] != want {
			l.t.Fatalf("leaders %v while %s should lead alone", now, want)
		}
		time.Sleep(time.Millisecond)
	}
}

// waitLeader waits until exactly one candidate leads and returns it.
func (l *leaders) waitLeader(timeout time.Duration) string {
	l.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if now := l.now(); len(now) == 1 {
			return now[0]
		}
		if time.Now().After(deadline) {
			l.t.Fatalf("no single leader after %v: %v", timeout, l.now())
		}
		time.Sleep(time.Millisecond)
	}
}

// waitFor waits until want leads alone.
func (l *leaders) waitFor(want string, timeout time.Duration) {
	l.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if now := l.now(); len(now) == 1 && now[0] == want {
			return
		}
		if time.Now().After(deadline) {
			l.t.Fatalf("%s does not lead alone after %v: %v lead", want, timeout, l.now())
		}
		time.Sleep(time.Millisecond)
	}
}

// errPartitioned is what a cut-off candidate's Lease client answers.
var errPartitioned = errors.New("partitioned from the API server")

// leaseClient is a candidate's Lease client: it can be cut off from the
// API server, and after every Lease write it makes it checks that no other
// candidate leads — the instant a takeover becomes visible.
type leaseClient struct {
	leaderelection.LeaseClient
	leaders *leaders
	id      string
	cut     atomic.Bool
}

func (c *leaseClient) Get(ctx context.Context, name string, opts metav1.GetOptions) (*coordinationv1.Lease, error) {
	if c.cut.Load() {
		return nil, errPartitioned
	}
	return c.LeaseClient.Get(ctx, name, opts)
}

func (c *leaseClient) Create(ctx context.Context, lease *coordinationv1.Lease, opts metav1.CreateOptions) (*coordinationv1.Lease, error) {
	if c.cut.Load() {
		return nil, errPartitioned
	}
	out, err := c.LeaseClient.Create(ctx, lease, opts)
	if err == nil {
		c.written(out)
	}
	return out, err
}

func (c *leaseClient) Update(ctx context.Context, lease *coordinationv1.Lease, opts metav1.UpdateOptions) (*coordinationv1.Lease, error) {
	if c.cut.Load() {
		return nil, errPartitioned
	}
	out, err := c.LeaseClient.Update(ctx, lease, opts)
	if err == nil {
		c.written(out)
	}
	return out, err
}

func (c *leaseClient) written(l *coordinationv1.Lease) {
	holder := ""
	if l.Spec.HolderIdentity != nil {
		holder = *l.Spec.HolderIdentity
	}
	for _, id := range c.leaders.check("after " + c.id + " wrote the Lease") {
		if id != holder {
			c.leaders.t.Errorf("%s leads while the Lease names %q as holder", id, holder)
		}
	}
}

// candidate is an elector running in this process.
type candidate struct {
	id     string
	client *leaseClient
	cancel context.CancelFunc
	done   chan struct{}

	mu        sync.Mutex
	leadCtx   context.Context
	startedAt time.Time
	stoppedAt time.Time
}

func (c *candidate) leading() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.leadCtx != nil && c.leadCtx.Err() == nil
}

func (c *candidate) times() (started, stopped time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.startedAt, c.stoppedAt
}

// startCandidate runs an elector for lease in this process until the test ends.
func startCandidate(t *testing.T, cs *typed.Clientset, l *leaders, lease, id string, release bool) *candidate {
	t.Helper()
	c := &candidate{id: id, done: make(chan struct{})}
	c.client = &leaseClient{LeaseClient: cs.CoordinationV1().Leases(leaseNamespace), leaders: l, id: id}
	e, err := leaderelection.New(electorConfig(c.client, lease, id, release, leaderelection.Callbacks{
		OnStartedLeading: func(ctx context.Context) {
			c.mu.Lock()
			c.leadCtx, c.startedAt = ctx, time.Now()
			c.mu.Unlock()
			<-ctx.Done()
			c.mu.Lock()
			c.stoppedAt = time.Now()
			c.mu.Unlock()
		},
		OnStoppedLeading: func() {},
	}))
	if err != nil {
		t.Fatal(err)
	}
	l.add(id, c.leading)
	ctx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	go func() {
		defer close(c.done)
		e.Run(ctx)
	}()
	t.Cleanup(func() { cancel(); <-c.done })
	return c
}

// stop cancels the candidate's Run and waits for it to return.
func (c *candidate) stop(t *testing.T) {
	t.Helper()
	c.cancel()
	select {
	case <-c.done:
	case <-time.After(renewDeadline + slack):
		t.Fatalf("%s: Run did not return within %v of its context's cancel", c.id, renewDeadline+slack)
	}
}

// TestLeaderElection runs two electors on one Lease of a real API server:
// exactly one leads at any time (checked every millisecond, and on every
// write of the Lease), and the other takes over in time when the leader is
// cancelled, killed without releasing the Lease, or cut off from the server.
func TestLeaderElection(t *testing.T) {
	s := testserver.Start(t)
	if _, err := s.Clientset.CoreV1().Namespaces().Create(context.Background(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: leaseNamespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	t.Run("cancel releases the lease", func(t *testing.T) {
		l := newLeaders(t)
		ctx, stopWatch := context.WithCancel(context.Background())
		defer stopWatch()
		go l.watch(ctx)
		defer l.logChecks()
		cands := map[string]*candidate{
			"a": startCandidate(t, s.Clientset, l, "cancel", "a", true),
			"b": startCandidate(t, s.Clientset, l, "cancel", "b", true),
		}
		first := l.waitLeader(30 * time.Second)
		second := map[string]string{"a": "b", "b": "a"}[first]
		// Several renewals: the leader keeps the Lease, the other waits.
		l.requireExactlyOne(first, leaseDuration+retryPeriod)

		cancelled := time.Now()
		cands[first].stop(t)
		if lease, err := s.Clientset.CoordinationV1().Leases(leaseNamespace).Get(context.Background(), "cancel", metav1.GetOptions{}); err != nil {
			t.Fatal(err)
		} else if h := deref(lease.Spec.HolderIdentity); h != "" && h != second {
			t.Errorf("after %s was cancelled the Lease is held by %q; want it released", first, h)
		}
		if got := l.waitLeader(leaseDuration + retryPeriod + slack); got != second {
			t.Fatalf("%s leads after %s was cancelled; want %s", got, first, second)
		}
		started, _ := cands[second].times()
		_, stopped := cands[first].times()
		takeover := started.Sub(cancelled)
		t.Logf("figure: takeover %v after the leader's context was cancelled (target: <= lease duration + retry period = %v)", takeover.Round(time.Millisecond), leaseDuration+retryPeriod)
		if takeover > leaseDuration+retryPeriod+slack {
			t.Errorf("%s took over %v after %s was cancelled; want <= %v (+%v slack)", second, takeover, first, leaseDuration+retryPeriod, slack)
		}
		if !stopped.Before(started) {
			t.Errorf("%s stopped leading at %v, not before %s started at %v", first, stopped, second, started)
		}
		l.requireExactlyOne(second, 2*retryPeriod)
	})

	t.Run("kill without release", func(t *testing.T) {
		l := newLeaders(t)
		ctx, stopWatch := context.WithCancel(context.Background())
		defer stopWatch()
		go l.watch(ctx)
		defer l.logChecks()

		proc := startElectorProcess(t, s.Kubeconfig, "kill", "proc")
		l.add("proc", proc.leading.Load)
		select {
		case <-proc.led:
		case <-time.After(30 * time.Second):
			t.Fatalf("the elector process did not lead within 30s; its log:\n%s", proc.stop())
		}
		b := startCandidate(t, s.Clientset, l, "kill", "b", true)
		l.requireExactlyOne("proc", leaseDuration+retryPeriod)

		killed := time.Now()
		proc.kill(t)
		if got := l.waitLeader(leaseDuration + 2*retryPeriod + slack); got != "b" {
			t.Fatalf("%s leads after the leader was killed", got)
		}
		started, _ := b.times()
		takeover := started.Sub(killed)
		// b times the Lease from when it last saw it renewed, by its own
		// clock: at most one retry period after the kill, and the check that
		// finds it expired comes at most one retry period after it expires.
		t.Logf("figure: takeover %v after the leader was killed without releasing (target: lease duration %v; by construction at most lease duration + 2 retry periods = %v)",
			takeover.Round(time.Millisecond), leaseDuration, leaseDuration+2*retryPeriod)
		if takeover > leaseDuration+2*retryPeriod+slack {
			t.Errorf("b took over %v after the leader was killed; want <= %v (+%v slack)", takeover, leaseDuration+2*retryPeriod, slack)
		}
		// The killed leader renewed at most renewDeadline before it died,
		// and b must let its Lease run out.
		if floor := leaseDuration - renewDeadline; takeover < floor {
			t.Errorf("b took over %v after the leader was killed, before its Lease (renewed within %v) could have expired", takeover, floor)
		}
		l.requireExactlyOne("b", 2*retryPeriod)
	})

	t.Run("leader cut off stops leading first", func(t *testing.T) {
		l := newLeaders(t)
		ctx, stopWatch := context.WithCancel(context.Background())
		defer stopWatch()
		go l.watch(ctx)
		defer l.logChecks()
		cands := map[string]*candidate{
			"a": startCandidate(t, s.Clientset, l, "partition", "a", true),
			"b": startCandidate(t, s.Clientset, l, "partition", "b", true),
		}
		first := l.waitLeader(30 * time.Second)
		second := map[string]string{"a": "b", "b": "a"}[first]
		l.requireExactlyOne(first, 2*retryPeriod)

		cut := time.Now()
		cands[first].client.cut.Store(true)
		l.waitFor(second, leaseDuration+2*retryPeriod+slack)
		_, stopped := cands[first].times()
		started, _ := cands[second].times()
		t.Logf("%s stopped leading %v after it was cut off; %s took over %v after the cut",
			first, stopped.Sub(cut).Round(time.Millisecond), second, started.Sub(cut).Round(time.Millisecond))
		if stopped.IsZero() || stopped.Sub(cut) > renewDeadline+slack {
			t.Errorf("%s stopped leading %v after it was cut off; want <= renew deadline %v (+%v slack)", first, stopped.Sub(cut), renewDeadline, slack)
		}
		if !stopped.Before(started) {
			t.Errorf("%s stopped leading at %v, not before %s took over at %v", first, stopped, second, started)
		}
		// Back in touch, the old leader follows.
		cands[first].client.cut.Store(false)
		l.requireExactlyOne(second, leaseDuration)
	})
}

// electorProcess is a candidate running as a child process, so that it can
// be killed without a chance to release its Lease.
type electorProcess struct {
	cmd     *exec.Cmd
	leading atomic.Bool
	led     chan struct{} // closed when it first leads
	read    chan struct{} // closed when its stdout is drained
	stderr  *bytes.Buffer
}

// startElectorProcess runs this test binary as the elector id of lease
// (see TestMain) and follows what it says on stdout.
func startElectorProcess(t *testing.T, kubeconfig, lease, id string) *electorProcess {
	t.Helper()
	p := &electorProcess{led: make(chan struct{}), read: make(chan struct{}), stderr: &bytes.Buffer{}}
	p.cmd = exec.Command(os.Args[0])
	p.cmd.Env = append(os.Environ(), electorEnv+"="+id, electorKubeconfigEnv+"="+kubeconfig, electorLeaseEnv+"="+lease)
	p.cmd.Stderr = p.stderr
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start the elector process: %v", err)
	}
	go func() {
		defer close(p.read)
		var once sync.Once
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			switch sc.Text() {
			case "leading":
				p.leading.Store(true)
				once.Do(func() { close(p.led) })
			case "stopped":
				p.leading.Store(false)
			}
		}
	}()
	t.Cleanup(func() { p.stop() })
	return p
}

// stop kills the process if it still runs and returns its log.
func (p *electorProcess) stop() string {
	if p.cmd.ProcessState == nil {
		_ = p.cmd.Process.Kill()
		<-p.read
		_ = p.cmd.Wait()
		p.leading.Store(false)
	}
	return p.stderr.String()
}

// kill kills the process with SIGKILL and waits until it is gone; it leads
// no more from then on.
func (p *electorProcess) kill(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatalf("kill the elector process: %v", err)
	}
	<-p.read
	err := p.cmd.Wait()
	p.leading.Store(false)
	if !strings.Contains(fmt.Sprint(err), "killed") {
		t.Fatalf("the elector process ended with %v before it was killed; its log:\n%s", err, p.stderr.String()) // Wait has returned: the log is complete
	}
}

// runElectorProcess is the elector process: it campaigns for the Lease
// named in its environment, says "leading" and "stopped" on stdout as its
// leadership starts and ends, and runs until it is killed.
func runElectorProcess() int {
	id := os.Getenv(electorEnv)
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Getenv(electorKubeconfigEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	cs, err := typed.NewForConfig(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	e, err := leaderelection.New(electorConfig(cs.CoordinationV1().Leases(leaseNamespace), os.Getenv(electorLeaseEnv), id, false, leaderelection.Callbacks{
		OnStartedLeading: func(ctx context.Context) {
			fmt.Println("leading")
			<-ctx.Done()
			fmt.Println("stopped")
		},
		OnStoppedLeading: func() {},
	}))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	for {
		// Run returns when it fails to renew; campaign again.
		e.Run(context.Background())
	}
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
