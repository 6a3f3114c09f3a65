package kubelet

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/intstr"
	"kubecore.io/client/tools/record"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
	"kubecore.io/kubecore/pkg/kubelet/runtime/fake"
)

// eventLog is a recorder that keeps the Events it is given.
type eventLog struct {
	mu     sync.Mutex
	events []string // "Type Reason: message"
	refs   []corev1.ObjectReference
}

var _ record.EventRecorder = (*eventLog)(nil)

func (l *eventLog) Event(obj runtime.Object, eventType, reason, message string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, eventType+" "+reason+": "+message)
	var ref corev1.ObjectReference
	if r, ok := obj.(*record.Reference); ok {
		ref = r.ObjectReference
	}
	l.refs = append(l.refs, ref)
}

// reset forgets the Events so far; probe workers may record at any time.
func (l *eventLog) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events, l.refs = nil, nil
}

// fieldPaths are the involvedObject fieldPaths of the Events of reason.
func (l *eventLog) fieldPaths(reason string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for i, e := range l.events {
		if strings.Contains(e, " "+reason+": ") {
			out = append(out, l.refs[i].FieldPath)
		}
	}
	return out
}

// all returns a copy of the Events so far.
func (l *eventLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.events)
}

func (l *eventLog) Eventf(obj runtime.Object, eventType, reason, format string, args ...any) {
	l.Event(obj, eventType, reason, format)
}

func (l *eventLog) AnnotatedEventf(obj runtime.Object, _ map[string]string, eventType, reason, format string, args ...any) {
	l.Event(obj, eventType, reason, format)
}

func (l *eventLog) with(reason string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, e := range l.events {
		if strings.Contains(e, " "+reason+": ") {
			out = append(out, e)
		}
	}
	return out
}

// newTestKubelet is a standalone kubelet on the fake runtime whose syncs
// tests call directly.
func newTestKubelet(t *testing.T) (*Kubelet, *fake.Runtime, *eventLog) {
	t.Helper()
	rt := fake.New("127.0.0.1", nil)
	events := &eventLog{}
	kl, err := New(Config{
		NodeName: "n", Runtime: rt, RootDir: t.TempDir(), NodeIP: "127.0.0.1",
		StaticPodPath: t.TempDir(), Machine: &MachineInfo{}, Recorder: events,
	})
	if err != nil {
		t.Fatal(err)
	}
	return kl, rt, events
}

func hookPod(lc *corev1.Lifecycle, grace int64) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "uid-1"},
		Spec: corev1.PodSpec{
			RestartPolicy:                 corev1.RestartPolicyAlways,
			TerminationGracePeriodSeconds: &grace,
			Containers:                    []corev1.Container{{Name: "main", Image: "x", Command: []string{"sleep", "1000"}, Lifecycle: lc}},
		},
	}
}

func runningContainer(t *testing.T, rt *fake.Runtime) string {
	t.Helper()
	ctx := t.Context()
	sb, err := rt.RunPodSandbox(ctx, kruntime.PodSandboxConfig{UID: "u"})
	if err != nil {
		t.Fatal(err)
	}
	id, err := rt.CreateContainer(ctx, sb, kruntime.ContainerConfig{Name: "c", Command: []string{"sleep"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.StartContainer(ctx, id); err != nil {
		t.Fatal(err)
	}
	return id
}

func serverPort(t *testing.T, srv *httptest.Server) int32 {
	t.Helper()
	_, p, _ := net.SplitHostPort(srv.Listener.Addr().String())
	n, err := strconv.Atoi(p)
	if err != nil {
		t.Fatal(err)
	}
	return int32(n)
}

func TestHookRunner(t *testing.T) {
	rt := fake.New("127.0.0.1", nil)
	id := runningContainer(t, rt)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/ok" {
			return
		}
		http.Error(w, "no", http.StatusInternalServerError)
	}))
	defer srv.Close()
	port := serverPort(t, srv)
	c := &corev1.Container{Name: "c", Ports: []corev1.ContainerPort{{Name: "web", ContainerPort: port}}}
	for _, tc := range []struct {
		name    string
		h       corev1.LifecycleHandler
		wantErr string
	}{
		{"exec success", corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"sh", "-c", "exit 0"}}}, ""},
		{"exec failure", corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"sh", "-c", "exit 3"}}}, "exited with 3"},
		{"http 200 on a named port", corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/ok", Port: intstr.FromString("web")}}, ""},
		{"http 500", corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/bad", Port: intstr.FromInt32(port)}}, "statuscode: 500"},
		{"http unknown port", corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromString("nope")}}, "no port"},
		{"sleep cut by the deadline", corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 60}}, ""},
		{"tcpSocket does nothing", corev1.LifecycleHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(1)}}, ""},
		{"no action", corev1.LifecycleHandler{}, "no action"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
			defer cancel()
			err := newHookRunner(rt).run(ctx, &tc.h, c, id, "127.0.0.1")
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("run = %v, want success", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("run = %v, want an error with %q", err, tc.wantErr)
			}
		})
	}
}

func TestPostStartHookFailureKillsAndRestartsWithBackOff(t *testing.T) {
	kl, rt, events := newTestKubelet(t)
	ctx := t.Context()
	pod := hookPod(&corev1.Lifecycle{PostStart: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"sh", "-c", "exit 3"}}}}, 1)
	st := newPodState()

	if _, _, err := kl.syncPod(ctx, st, pod, false); err != nil {
		t.Fatal(err)
	}
	list, err := rt.ListContainers(ctx, st.sandboxID)
	if err != nil || len(list) != 1 {
		t.Fatalf("containers = %v, %v; want one", list, err)
	}
	if list[0].State != kruntime.ContainerExited {
		t.Errorf("container state = %s, want exited after its postStart hook failed", list[0].State)
	}
	// The hook's output stays out of the Event (it may hold secrets), in
	// the waiting message.
	if got := events.with(eventFailedPostStartHook); len(got) != 1 || got[0] != "Warning FailedPostStartHook: PostStartHook failed" {
		t.Errorf("FailedPostStartHook events = %q", got)
	}
	if got := events.fieldPaths(eventFailedPostStartHook); len(got) != 1 || got[0] != "spec.containers{main}" {
		t.Errorf("FailedPostStartHook fieldPaths = %q", got)
	}
	if got := events.with(eventKilling); len(got) != 1 || got[0] != "Normal Killing: FailedPostStartHook" {
		t.Errorf("Killing events = %q, want the one of the failed hook", got)
	}
	if w := st.waiting["main"]; w.reason != reasonPostStartHookError || !strings.Contains(w.message, "exited with 3") {
		t.Errorf("waiting = %+v, want %s with the hook's failure", w, reasonPostStartHookError)
	}

	// The restart policy runs it again at once, then backs off.
	if _, _, err := kl.syncPod(ctx, st, pod, false); err != nil {
		t.Fatal(err)
	}
	if got := len(events.with(eventFailedPostStartHook)); got != 2 {
		t.Errorf("FailedPostStartHook events = %d, want 2 after the restart", got)
	}
	requeue, _, err := kl.syncPod(ctx, st, pod, false)
	if err != nil {
		t.Fatal(err)
	}
	if w := st.waiting["main"]; w.reason != reasonCrashLoopBackOff || requeue <= 0 {
		t.Errorf("third sync: waiting %+v, requeue %s; want CrashLoopBackOff with a requeue", w, requeue)
	}
	if got := len(events.with(eventFailedPostStartHook)); got != 2 {
		t.Errorf("FailedPostStartHook events = %d, want still 2 during back-off", got)
	}
}

func TestPostStartHookSuccessLeavesContainerRunning(t *testing.T) {
	kl, rt, events := newTestKubelet(t)
	ctx := t.Context()
	pod := hookPod(&corev1.Lifecycle{PostStart: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"true"}}}}, 1)
	st := newPodState()
	if _, _, err := kl.syncPod(ctx, st, pod, false); err != nil {
		t.Fatal(err)
	}
	list, _ := rt.ListContainers(ctx, st.sandboxID)
	if len(list) != 1 || list[0].State != kruntime.ContainerRunning {
		t.Errorf("containers = %+v, want one running", list)
	}
	want := []string{
		`Normal Pulled: Container image "x" already present on machine`,
		"Normal Created: Created container: main",
		"Normal Started: Started container main",
	}
	if got := events.all(); !slices.Equal(got, want) {
		t.Errorf("events = %q, want %q", got, want)
	}
}

func TestPreStopHookRunsBeforeStop(t *testing.T) {
	for _, tc := range []struct {
		name      string
		status    int
		wantEvent bool
	}{
		{"hook succeeds", http.StatusOK, false},
		{"hook fails, container still stopped", http.StatusServiceUnavailable, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kl, rt, events := newTestKubelet(t)
			ctx := t.Context()
			var mu sync.Mutex
			var callsAtHook []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				callsAtHook = rt.Calls()
				mu.Unlock()
				w.WriteHeader(tc.status)
			}))
			defer srv.Close()
			pod := hookPod(&corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/stop", Port: intstr.FromInt32(serverPort(t, srv))}}}, 5)
			st := newPodState()
			if _, _, err := kl.syncPod(ctx, st, pod, false); err != nil {
				t.Fatal(err)
			}
			sandbox := st.sandboxID
			if _, done, err := kl.syncPod(ctx, st, pod, true); err != nil || !done {
				t.Fatalf("sync of the removed pod = %v, %v; want done", done, err)
			}
			mu.Lock()
			defer mu.Unlock()
			if callsAtHook == nil {
				t.Fatal("the preStop hook was not called")
			}
			if slices.ContainsFunc(callsAtHook, func(c string) bool { return strings.HasPrefix(c, "StopContainer") }) {
				t.Errorf("the container was stopped before its preStop hook: %q", callsAtHook)
			}
			if !slices.ContainsFunc(rt.Calls(), func(c string) bool { return strings.HasPrefix(c, "StopContainer") }) {
				t.Errorf("the container was not stopped: %q", rt.Calls())
			}
			if _, err := rt.PodSandboxStatus(ctx, sandbox); err == nil {
				t.Errorf("sandbox %s is left", sandbox)
			}
			if got := events.with(eventFailedPreStopHook); (len(got) > 0) != tc.wantEvent {
				t.Errorf("FailedPreStopHook events = %q, want one: %v", got, tc.wantEvent)
			}
			if got := events.with(eventKilling); len(got) != 1 || got[0] != "Normal Killing: Stopping container main" {
				t.Errorf("Killing events = %q, want one", got)
			}
		})
	}
}

// stopRecorder is the fake runtime recording the grace of each stop.
type stopRecorder struct {
	*fake.Runtime
	mu     sync.Mutex
	graces []time.Duration
}

func (r *stopRecorder) StopContainer(ctx context.Context, id string, grace time.Duration) error {
	r.mu.Lock()
	r.graces = append(r.graces, grace)
	r.mu.Unlock()
	return r.Runtime.StopContainer(ctx, id, grace)
}

func TestPreStopHookUsesUpGracePeriod(t *testing.T) {
	rt := &stopRecorder{Runtime: fake.New("127.0.0.1", nil)}
	kl, err := New(Config{NodeName: "n", Runtime: rt, RootDir: t.TempDir(), NodeIP: "127.0.0.1",
		StaticPodPath: t.TempDir(), Machine: &MachineInfo{}, Recorder: &eventLog{}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	id := runningContainer(t, rt.Runtime)
	lc := &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 1}}}
	start := time.Now()
	if err := kl.stopContainer(ctx, hookPod(lc, 3), "main", id, "", true, 3*time.Second, ""); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < time.Second {
		t.Errorf("stop took %s, want the 1 s preStop sleep first", d)
	}
	// A hook that outlives the grace period is cut, and SIGTERM still
	// gets the minimum.
	id2 := runningContainer(t, rt.Runtime)
	if err := kl.stopContainer(ctx, hookPod(lc, 1), "main", id2, "", true, 500*time.Millisecond, ""); err != nil {
		t.Fatal(err)
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if len(rt.graces) != 2 || rt.graces[0] > 2100*time.Millisecond || rt.graces[0] < 1500*time.Millisecond || rt.graces[1] != minStopGrace {
		t.Errorf("stop graces = %v, want ~2s (3s less the hook's 1s) and %s", rt.graces, minStopGrace)
	}
}

// TestPreStopHTTPHookGoesToPodIP: an httpGet preStop hook without a host
// asks the pod's IP, not the node's (they differ on a pod network).
func TestPreStopHTTPHookGoesToPodIP(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no second loopback address: %v", err)
	}
	hits := make(chan string, 4)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits <- r.URL.RequestURI() }))
	srv.Listener = ln
	srv.Start()
	defer srv.Close()
	rt := fake.New("127.0.0.2", nil) // the pod's IP
	kl, err := New(Config{NodeName: "n", Runtime: rt, RootDir: t.TempDir(), NodeIP: "127.0.0.1",
		StaticPodPath: t.TempDir(), Machine: &MachineInfo{}, Recorder: &eventLog{}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	pod := hookPod(&corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{
		Path: "/echo?msg=prestop", Port: intstr.FromInt32(serverPort(t, srv))}}}, 5)
	st := newPodState()
	if _, _, err := kl.syncPod(ctx, st, pod, false); err != nil {
		t.Fatal(err)
	}
	if _, done, err := kl.syncPod(ctx, st, pod, true); err != nil || !done {
		t.Fatalf("sync of the removed pod = %v, %v; want done", done, err)
	}
	select {
	case got := <-hits:
		if got != "/echo?msg=prestop" {
			t.Errorf("hook asked for %q", got)
		}
	default:
		t.Error("the preStop hook did not reach the server on the pod's IP")
	}
}
