package kubelet

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"k8s.io/klog/v2"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/util/intstr"
	"kubecore.io/apimachinery/pkg/version"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// probeKind is which of a container's probes a worker runs.
type probeKind int

const (
	probeStartup probeKind = iota
	probeReadiness
	probeLiveness
)

// title is the kind as Events name it: Startup, Readiness, Liveness.
func (k probeKind) title() string {
	n := k.String()
	return strings.ToUpper(n[:1]) + n[1:]
}

func (k probeKind) String() string {
	switch k {
	case probeStartup:
		return "startup"
	case probeReadiness:
		return "readiness"
	}
	return "liveness"
}

// probeKey names one probe of one container of one pod.
type probeKey struct {
	podUID, container string
	kind              probeKind
}

// probeTarget is what a probe runs against.
type probeTarget struct {
	containerID string
	podIP       string
	// ports are the container's ports, for httpGet and tcpSocket probes
	// that name theirs.
	ports []corev1.ContainerPort
}

// prober runs one probe once; a failed check is ok == false with the
// reason in output, an error means the probe could not run (which also
// counts as a failure).
type prober interface {
	probe(ctx context.Context, p *corev1.Probe, t probeTarget, timeout time.Duration) (ok bool, output string, err error)
}

// probeManager runs a worker per probe of each running container and
// keeps their verdicts: readiness drives the container's Ready, startup
// its Started, and a failed liveness or startup probe makes the pod worker
// kill the container (killUnhealthy). A verdict that changes wakes the
// pod's worker.
type probeManager struct {
	prober prober
	clock  Clock
	wake   func(podUID string)
	// unhealthy, when set, reports a failed probe of the container ref
	// names (an Unhealthy Event).
	unhealthy func(ctx context.Context, ref corev1.ObjectReference, message string)

	mu      sync.Mutex
	workers map[probeKey]*probeWorker
	wg      sync.WaitGroup
}

var _ probeResults = (*probeManager)(nil)

func newProbeManager(p prober, clock Clock, wake func(podUID string)) *probeManager {
	return &probeManager{prober: p, clock: clock, wake: wake, workers: map[probeKey]*probeWorker{}}
}

// probeWorker probes one container periodically. Its verdict fields are
// guarded by the manager's mu.
type probeWorker struct {
	m           *probeManager
	key         probeKey
	containerID string
	ref         corev1.ObjectReference // the container, for Events
	probe       corev1.Probe           // with defaults
	target      probeTarget
	startedAt   time.Time
	cancel      context.CancelFunc

	result              bool // ready, started, or alive
	failed              bool // liveness/startup: failureThreshold reached
	successes, failures int32
	output              string
}

// withProbeDefaults fills in the API's defaults for unset fields.
func withProbeDefaults(p corev1.Probe) corev1.Probe {
	if p.PeriodSeconds <= 0 {
		p.PeriodSeconds = 10
	}
	if p.TimeoutSeconds <= 0 {
		p.TimeoutSeconds = 1
	}
	if p.SuccessThreshold <= 0 {
		p.SuccessThreshold = 1
	}
	if p.FailureThreshold <= 0 {
		p.FailureThreshold = 3
	}
	return p
}

func newProbeWorker(m *probeManager, key probeKey, cid string, p corev1.Probe, t probeTarget, startedAt time.Time) *probeWorker {
	w := &probeWorker{m: m, key: key, containerID: cid, probe: withProbeDefaults(p), target: t, startedAt: startedAt}
	// A container is alive until its liveness probe says otherwise; it is
	// neither ready nor started until its probes succeed.
	w.result = key.kind == probeLiveness
	if key.kind != probeReadiness {
		w.probe.SuccessThreshold = 1
	}
	return w
}

// observe records one probe outcome and reports whether the verdict
// changed; m.mu is held.
func (w *probeWorker) observe(ok bool, output string) bool {
	result, failed := w.result, w.failed
	w.output = output
	if ok {
		w.successes, w.failures = w.successes+1, 0
		if w.successes >= w.probe.SuccessThreshold {
			w.result = true
		}
	} else {
		w.failures, w.successes = w.failures+1, 0
		if w.failures >= w.probe.FailureThreshold {
			w.result = false
			w.failed = w.key.kind != probeReadiness
		}
	}
	return result != w.result || failed != w.failed
}

// finished says whether the worker has nothing more to find out: a
// startup probe that succeeded, or any probe that failed for good.
func (w *probeWorker) finished() bool {
	return w.failed || (w.key.kind == probeStartup && w.result)
}

// run probes after the initial delay (counted from the container's
// start), then every period, until ctx ends or the worker is finished.
func (w *probeWorker) run(ctx context.Context) {
	delay := time.Duration(w.probe.InitialDelaySeconds)*time.Second - w.m.clock.Now().Sub(w.startedAt)
	t := w.m.clock.NewTimer(max(delay, 0))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
		}
		if !w.tick(ctx) {
			return
		}
		t.Reset(time.Duration(w.probe.PeriodSeconds) * time.Second)
	}
}

// tick runs the probe once and records it; it returns false once the
// worker is finished or stopped.
func (w *probeWorker) tick(ctx context.Context) bool {
	if w.key.kind != probeStartup && !w.m.started(w.key.podUID, w.key.container, w.containerID) {
		// Liveness and readiness wait for the startup probe.
		return true
	}
	timeout := time.Duration(w.probe.TimeoutSeconds) * time.Second
	pctx, cancel := context.WithTimeout(ctx, timeout)
	ok, output, err := w.m.prober.probe(pctx, &w.probe, w.target, timeout)
	cancel()
	if ctx.Err() != nil {
		return false
	}
	if err != nil {
		ok, output = false, err.Error()
	}
	w.m.mu.Lock()
	changed := w.observe(ok, output)
	finished := w.finished()
	result := w.result
	w.m.mu.Unlock()
	logger := klog.FromContext(ctx)
	if !ok {
		logger.V(4).Info("Probe failed", "probe", w.key.kind.String(), "podUID", w.key.podUID, "container", w.key.container, "output", output)
		if w.m.unhealthy != nil {
			msg := fmt.Sprintf("%s probe failed: %s", w.key.kind.title(), output)
			if err != nil {
				msg = fmt.Sprintf("%s probe errored: %v", w.key.kind.title(), err)
			}
			w.m.unhealthy(ctx, w.ref, msg)
		}
	}
	if changed {
		logger.V(2).Info("Probe verdict changed", "probe", w.key.kind.String(), "podUID", w.key.podUID, "container", w.key.container, "result", result, "output", output)
		w.m.wake(w.key.podUID)
	}
	return !finished
}

// sync starts a worker for each probe of the pod's running containers and
// stops the workers of containers that are gone, stopped or replaced.
func (m *probeManager) sync(ctx context.Context, pod *corev1.Pod, recs map[string]containerRecords, podIP string) {
	uid := string(pod.UID)
	wanted := map[probeKey]bool{}
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		cur := recs[c.Name].current
		if cur == nil || cur.State != kruntime.ContainerRunning {
			continue
		}
		for kind, p := range map[probeKind]*corev1.Probe{probeStartup: c.StartupProbe, probeReadiness: c.ReadinessProbe, probeLiveness: c.LivenessProbe} {
			if p == nil {
				continue
			}
			key := probeKey{podUID: uid, container: c.Name, kind: kind}
			wanted[key] = true
			if w := m.workers[key]; w != nil {
				if w.containerID == cur.ID {
					continue
				}
				w.cancel()
			}
			w := newProbeWorker(m, key, cur.ID, *p, probeTarget{containerID: cur.ID, podIP: podIP, ports: c.Ports}, cur.StartedAt)
			w.ref = podRef(pod, "spec.containers{"+c.Name+"}")
			wctx, cancel := context.WithCancel(ctx)
			w.cancel = cancel
			m.workers[key] = w
			m.wg.Go(func() { w.run(wctx) })
		}
	}
	for key, w := range m.workers {
		if key.podUID == uid && !wanted[key] {
			w.cancel()
			delete(m.workers, key)
		}
	}
}

// verdict is the result of the worker of key for the container, and
// whether the container has such a probe; m.mu is held.
func (m *probeManager) verdict(key probeKey, containerID string) (result, has bool) {
	w := m.workers[key]
	if w == nil {
		return false, false
	}
	return w.containerID == containerID && w.result, true
}

// ready implements probeResults: the readiness probe succeeded (true
// without one).
func (m *probeManager) ready(podUID, name, containerID string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, has := m.verdict(probeKey{podUID, name, probeReadiness}, containerID)
	return r || !has
}

// started implements probeResults: the startup probe succeeded (true
// without one).
func (m *probeManager) started(podUID, name, containerID string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, has := m.verdict(probeKey{podUID, name, probeStartup}, containerID)
	return r || !has
}

// failed says whether the container's startup or liveness probe failed
// for good, and returns that probe and its kind: the container must be
// restarted.
func (m *probeManager) failed(podUID, name, containerID string) (*corev1.Probe, probeKind, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, kind := range []probeKind{probeStartup, probeLiveness} {
		if w := m.workers[probeKey{podUID, name, kind}]; w != nil && w.containerID == containerID && w.failed {
			p := w.probe
			return &p, kind, true
		}
	}
	return nil, 0, false
}

// stopPod stops the probes of a pod.
func (m *probeManager) stopPod(podUID string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for key, w := range m.workers {
		if key.podUID == podUID {
			w.cancel()
			delete(m.workers, key)
		}
	}
}

// stopAll stops every probe and waits for the workers to return.
func (m *probeManager) stopAll() {
	m.mu.Lock()
	for key, w := range m.workers {
		w.cancel()
		delete(m.workers, key)
	}
	m.mu.Unlock()
	m.wg.Wait()
}

// runtimeProber runs exec probes through the runtime's ExecSync, and
// httpGet and tcpSocket probes from the kubelet against the pod's IP.
type runtimeProber struct {
	runtime kruntime.Runtime
	client  *http.Client
}

var _ prober = (*runtimeProber)(nil)

func newRuntimeProber(rt kruntime.Runtime) *runtimeProber {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // probes do not verify, as Kubernetes' do not
	tr.DisableKeepAlives = true
	tr.Proxy = nil
	return &runtimeProber{runtime: rt, client: &http.Client{Transport: tr}}
}

// maxProbeOutput bounds what is kept of a probe's output.
const maxProbeOutput = 10 << 10

func (p *runtimeProber) probe(ctx context.Context, pr *corev1.Probe, t probeTarget, timeout time.Duration) (bool, string, error) {
	switch {
	case pr.Exec != nil:
		res, err := p.runtime.ExecSync(ctx, t.containerID, pr.Exec.Command, timeout)
		if err != nil {
			return false, "", fmt.Errorf("exec probe: %w", err)
		}
		out := string(append(res.Stdout, res.Stderr...))
		if len(out) > maxProbeOutput {
			out = out[:maxProbeOutput]
		}
		// The output alone, as Kubernetes reports it (Unhealthy:
		// "Liveness probe failed: <output>").
		return res.ExitCode == 0, out, nil
	case pr.HTTPGet != nil:
		return p.httpGet(ctx, pr.HTTPGet, t)
	case pr.TCPSocket != nil:
		port, err := resolvePort(pr.TCPSocket.Port, t.ports)
		if err != nil {
			return false, "", err
		}
		host := pr.TCPSocket.Host
		if host == "" {
			host = t.podIP
		}
		var d net.Dialer
		conn, err := d.DialContext(ctx, "tcp", net.JoinHostPort(host, strconv.Itoa(port)))
		if err != nil {
			return false, err.Error(), nil
		}
		_ = conn.Close()
		return true, "", nil
	case pr.GRPC != nil:
		return grpcProbe(ctx, pr.GRPC, t.podIP)
	}
	return false, "", errors.New("probe has no handler")
}

func (p *runtimeProber) httpGet(ctx context.Context, h *corev1.HTTPGetAction, t probeTarget) (bool, string, error) {
	port, err := resolvePort(h.Port, t.ports)
	if err != nil {
		return false, "", err
	}
	host := h.Host
	if host == "" {
		host = t.podIP
	}
	scheme := "http"
	if h.Scheme == corev1.URISchemeHTTPS {
		scheme = "https"
	}
	u := &url.URL{Scheme: scheme, Host: net.JoinHostPort(host, strconv.Itoa(port))}
	if path, query, ok := splitQuery(h.Path); ok {
		u.Path, u.RawQuery = path, query
	} else {
		u.Path = h.Path
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return false, "", fmt.Errorf("http probe: %w", err)
	}
	req.Header.Set("User-Agent", "kube-probe/"+version.Get().GitVersion)
	req.Header.Set("Accept", "*/*")
	for _, hd := range h.HTTPHeaders {
		if http.CanonicalHeaderKey(hd.Name) == "Host" {
			req.Host = hd.Value
			continue
		}
		req.Header.Add(hd.Name, hd.Value)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return false, err.Error(), nil
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxProbeOutput))
	if resp.StatusCode >= 200 && resp.StatusCode < 400 {
		return true, string(body), nil
	}
	return false, fmt.Sprintf("HTTP probe failed with statuscode: %d", resp.StatusCode), nil
}

func splitQuery(path string) (string, string, bool) {
	for i := range len(path) {
		if path[i] == '?' {
			return path[:i], path[i+1:], true
		}
	}
	return "", "", false
}

// resolvePort is a probe's port number, looking a named port up in the
// container's ports.
func resolvePort(port intstr.IntOrString, ports []corev1.ContainerPort) (int, error) {
	if port.Type == intstr.Int {
		if port.IntVal <= 0 || port.IntVal > 65535 {
			return 0, fmt.Errorf("probe port %d is out of range", port.IntVal)
		}
		return int(port.IntVal), nil
	}
	for _, p := range ports {
		if p.Name == port.StrVal {
			return int(p.ContainerPort), nil
		}
	}
	if n, err := strconv.Atoi(port.StrVal); err == nil && n > 0 && n <= 65535 {
		return n, nil
	}
	return 0, fmt.Errorf("probe port %q: the container has no port of that name", port.StrVal)
}

// grpcProbe asks the gRPC health service (grpc.health.v1.Health/Check) on
// the pod's port for the probe's service, without TLS, as Kubernetes'
// kubelet does: healthy when it answers SERVING. ctx bears the probe's
// timeout.
func grpcProbe(ctx context.Context, g *corev1.GRPCAction, podIP string) (bool, string, error) {
	service := ""
	if g.Service != nil {
		service = *g.Service
	}
	addr := net.JoinHostPort(podIP, strconv.Itoa(int(g.Port)))
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithUserAgent("kube-probe/"+version.Get().GitVersion))
	if err != nil {
		return false, fmt.Sprintf("failed to connect service %q: %v", addr, err), nil
	}
	defer func() { _ = conn.Close() }()
	resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: service})
	if err != nil {
		return false, fmt.Sprintf("failed to check service %q at %s: %v", service, addr, err), nil
	}
	if resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		return false, fmt.Sprintf("service unhealthy (responded with %q)", resp.GetStatus().String()), nil
	}
	return true, "", nil
}
