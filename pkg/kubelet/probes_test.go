package kubelet

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/util/intstr"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
	"kubecore.io/kubecore/pkg/kubelet/runtime/fake"
)

func TestProbeWorkerObserve(t *testing.T) {
	for _, tc := range []struct {
		name       string
		kind       probeKind
		success    int32
		failure    int32
		outcomes   []bool
		wantResult bool
		wantFailed bool
	}{
		{"readiness starts unready", probeReadiness, 1, 3, nil, false, false},
		{"readiness ready after one success", probeReadiness, 1, 3, []bool{true}, true, false},
		{"readiness needs successThreshold", probeReadiness, 3, 3, []bool{true, true}, false, false},
		{"readiness ready at successThreshold", probeReadiness, 3, 3, []bool{true, true, true}, true, false},
		{"readiness stays ready below failureThreshold", probeReadiness, 1, 3, []bool{true, false, false}, true, false},
		{"readiness unready at failureThreshold, never failed", probeReadiness, 1, 3, []bool{true, false, false, false}, false, false},
		{"a success resets the failures", probeReadiness, 1, 3, []bool{true, false, false, true, false, false}, true, false},
		{"liveness starts alive", probeLiveness, 1, 3, nil, true, false},
		{"liveness fails at failureThreshold", probeLiveness, 1, 2, []bool{false, false}, false, true},
		{"liveness ignores successThreshold", probeLiveness, 5, 2, []bool{false, true}, true, false},
		{"startup started at first success", probeStartup, 1, 3, []bool{false, true}, true, false},
		{"startup fails at failureThreshold", probeStartup, 1, 3, []bool{false, false, false}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newProbeWorker(nil, probeKey{"u", "c", tc.kind}, "cid",
				corev1.Probe{SuccessThreshold: tc.success, FailureThreshold: tc.failure}, probeTarget{}, time.Time{})
			for _, ok := range tc.outcomes {
				w.observe(ok, "")
			}
			if w.result != tc.wantResult || w.failed != tc.wantFailed {
				t.Errorf("result %v failed %v; want %v %v", w.result, w.failed, tc.wantResult, tc.wantFailed)
			}
		})
	}
}

func TestRuntimeProber(t *testing.T) {
	rt := fake.New("127.0.0.1", nil)
	ctx := t.Context()
	sb, err := rt.RunPodSandbox(ctx, kruntime.PodSandboxConfig{UID: "u"})
	if err != nil {
		t.Fatal(err)
	}
	cid, err := rt.CreateContainer(ctx, sb, kruntime.ContainerConfig{Name: "c", Command: []string{"sleep"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.StartContainer(ctx, cid); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/healthz":
			if r.Header.Get("X-Probe") != "yes" || r.URL.RawQuery != "full=1" {
				http.Error(w, "bad request", http.StatusBadRequest)
				return
			}
			_, _ = w.Write([]byte("ok"))
		case "/redirect":
			http.Redirect(w, r, "/healthz?full=1", http.StatusFound)
		default:
			http.Error(w, "sick", http.StatusInternalServerError)
		}
	}))
	defer srv.Close()
	_, portStr, _ := net.SplitHostPort(srv.Listener.Addr().String())
	port, _ := strconv.Atoi(portStr)
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedPort := closed.Addr().(*net.TCPAddr).Port
	_ = closed.Close()

	target := probeTarget{containerID: cid, podIP: "127.0.0.1", ports: []corev1.ContainerPort{{Name: "http", ContainerPort: int32(port)}}}
	httpGet := func(path string, p intstr.IntOrString) corev1.ProbeHandler {
		return corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: p, HTTPHeaders: []corev1.HTTPHeader{{Name: "X-Probe", Value: "yes"}}}}
	}
	for _, tc := range []struct {
		name    string
		handler corev1.ProbeHandler
		want    bool
		wantErr bool
	}{
		{"exec success", corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"sh", "-c", "exit 0"}}}, true, false},
		{"exec failure", corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"sh", "-c", "exit 1"}}}, false, false},
		{"http 200 on a named port", httpGet("/healthz?full=1", intstr.FromString("http")), true, false},
		{"http redirect followed", httpGet("/redirect", intstr.FromInt32(int32(port))), true, false},
		{"http 500", httpGet("/sick", intstr.FromInt32(int32(port))), false, false},
		{"http refused", httpGet("/", intstr.FromInt32(int32(closedPort))), false, false},
		{"unknown named port", httpGet("/", intstr.FromString("nope")), false, true},
		{"tcp open", corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(int32(port))}}, true, false},
		{"tcp closed", corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(int32(closedPort))}}, false, false},
		{"grpc refused", corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: int32(closedPort)}}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newRuntimeProber(rt)
			pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			defer cancel()
			ok, out, err := p.probe(pctx, &corev1.Probe{ProbeHandler: tc.handler}, target, 2*time.Second)
			if ok != tc.want || (err != nil) != tc.wantErr {
				t.Errorf("probe = %v, %q, %v; want %v, error %v", ok, out, err, tc.want, tc.wantErr)
			}
		})
	}
}

// scriptedProber answers probes from a function and counts them.
type scriptedProber struct {
	calls  atomic.Int32
	answer func(n int32) bool
}

func (p *scriptedProber) probe(context.Context, *corev1.Probe, probeTarget, time.Duration) (bool, string, error) {
	n := p.calls.Add(1)
	return p.answer(n), "", nil
}

func TestProbeManager(t *testing.T) {
	clock := newFakeClock()
	var mu sync.Mutex
	woken := 0
	readiness := &scriptedProber{answer: func(int32) bool { return true }}
	m := newProbeManager(readiness, clock, func(string) { mu.Lock(); woken++; mu.Unlock() })
	defer m.stopAll()
	pod := testPod("u")
	pod.Spec.Containers = []corev1.Container{{Name: "c", ReadinessProbe: &corev1.Probe{InitialDelaySeconds: 5, PeriodSeconds: 2}}}
	recs := map[string]containerRecords{"c": {current: &kruntime.ContainerStatus{ID: "c1", Name: "c", State: kruntime.ContainerRunning, StartedAt: clock.Now()}}}

	m.sync(t.Context(), pod, recs, "127.0.0.1")
	eventually(t, "the worker's timer", func() bool { return clock.waiters() == 1 })
	if m.ready("u", "c", "c1") {
		t.Fatal("ready before the first probe")
	}
	clock.Step(4 * time.Second)
	time.Sleep(20 * time.Millisecond)
	if n := readiness.calls.Load(); n != 0 {
		t.Fatalf("probed %d times before initialDelaySeconds", n)
	}
	clock.Step(time.Second)
	eventually(t, "the first probe", func() bool { return m.ready("u", "c", "c1") })
	mu.Lock()
	if woken != 1 {
		t.Errorf("pod woken %d times, want 1", woken)
	}
	mu.Unlock()
	if m.ready("u", "c", "other-container") {
		t.Error("a new container inherited the old one's readiness")
	}

	// The container is replaced: its new instance starts unready again.
	recs["c"] = containerRecords{current: &kruntime.ContainerStatus{ID: "c2", Name: "c", State: kruntime.ContainerRunning, StartedAt: clock.Now()}}
	m.sync(t.Context(), pod, recs, "127.0.0.1")
	if m.ready("u", "c", "c2") {
		t.Error("the restarted container is ready before its probe")
	}
	// Without probes the container is ready and started.
	if !m.ready("u", "other", "x") || !m.started("u", "other", "x") {
		t.Error("a container without probes is not ready")
	}
	m.stopPod("u")
	if !m.ready("u", "c", "c2") {
		t.Error("stopPod kept the workers")
	}
}

func TestProbeManagerLivenessWaitsForStartup(t *testing.T) {
	clock := newFakeClock()
	var startupOK atomic.Bool
	p := &scriptedProber{}
	p.answer = func(int32) bool { return startupOK.Load() }
	m := newProbeManager(p, clock, func(string) {})
	defer m.stopAll()
	pod := testPod("u")
	pod.Spec.Containers = []corev1.Container{{
		Name:          "c",
		StartupProbe:  &corev1.Probe{PeriodSeconds: 1, FailureThreshold: 100},
		LivenessProbe: &corev1.Probe{PeriodSeconds: 1, FailureThreshold: 1},
	}}
	recs := map[string]containerRecords{"c": {current: &kruntime.ContainerStatus{ID: "c1", Name: "c", State: kruntime.ContainerRunning, StartedAt: clock.Now()}}}
	m.sync(t.Context(), pod, recs, "")
	eventually(t, "two workers", func() bool { return clock.waiters() == 2 })
	// Both fire; the startup probe fails, the liveness probe must wait.
	clock.Step(0)
	eventually(t, "the startup probe", func() bool { return p.calls.Load() == 1 && clock.waiters() == 2 })
	if _, _, failed := m.failed("u", "c", "c1"); failed || m.started("u", "c", "c1") {
		t.Fatal("liveness ran before startup succeeded, or startup succeeded early")
	}
	startupOK.Store(true)
	clock.Step(time.Second)
	eventually(t, "started", func() bool { return m.started("u", "c", "c1") })
	// Now liveness runs, and fails once startupOK turns false again.
	startupOK.Store(false)
	eventually(t, "liveness failure", func() bool {
		clock.Step(time.Second)
		_, _, f := m.failed("u", "c", "c1")
		return f
	})
	if probe, kind, _ := m.failed("u", "c", "c1"); probe == nil || kind != probeLiveness || probe.FailureThreshold != 1 {
		t.Errorf("failed returned probe %+v, want the liveness probe", probe)
	}
}

// TestGRPCProbe: a gRPC probe asks the pod's health service: SERVING is
// healthy; NOT_SERVING, an unknown service and nobody listening are not.
func TestGRPCProbe(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	hs := health.NewServer()
	healthpb.RegisterHealthServer(srv, hs)
	go func() { _ = srv.Serve(lis) }()
	defer srv.Stop()
	hs.SetServingStatus("up", healthpb.HealthCheckResponse_SERVING)
	hs.SetServingStatus("down", healthpb.HealthCheckResponse_NOT_SERVING)
	port := int32(lis.Addr().(*net.TCPAddr).Port)
	for _, tc := range []struct {
		service *string
		port    int32
		want    bool
	}{
		{nil, port, true}, // the server's overall health
		{ptrTo("up"), port, true},
		{ptrTo("down"), port, false},
		{ptrTo("unknown"), port, false},
		{nil, unusedPort(t), false},
	} {
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		ok, out, err := grpcProbe(ctx, &corev1.GRPCAction{Port: tc.port, Service: tc.service}, "127.0.0.1")
		cancel()
		if err != nil || ok != tc.want {
			t.Errorf("service %v port %d: healthy %v (%q), %v; want %v", tc.service, tc.port, ok, out, err, tc.want)
		}
	}
}

func ptrTo[T any](v T) *T { return &v }

// unusedPort is a loopback port nobody listens on.
func unusedPort(t *testing.T) int32 {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := int32(l.Addr().(*net.TCPAddr).Port)
	_ = l.Close()
	return port
}
