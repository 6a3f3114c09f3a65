package kubelet

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/util/intstr"
)

// hookServer counts the GETs of each path.
func hookServer(t *testing.T) (port int32, hits func(path string) int32) {
	t.Helper()
	var start, stop atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/start":
			start.Add(1)
		case "/stop":
			stop.Add(1)
		default:
			http.Error(w, "no such hook", http.StatusNotFound)
		}
	}))
	t.Cleanup(srv.Close)
	_, p, _ := net.SplitHostPort(srv.Listener.Addr().String())
	n, _ := strconv.Atoi(p)
	return int32(n), func(path string) int32 {
		if path == "/start" {
			return start.Load()
		}
		return stop.Load()
	}
}

func TestPostStartHooksRunBeforeThePodIsReady(t *testing.T) {
	e := newEnv(t, "process")
	dir := t.TempDir()
	marker := filepath.Join(dir, "post-start")
	port, hits := hookServer(t)
	// The exec hook runs in the container's environment: it sees its env.
	p := e.pod("post-start", `exec sleep 1000`, func(p *corev1.Pod) {
		p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "GREETING", Value: "hello"}}
		p.Spec.Containers[0].Lifecycle = &corev1.Lifecycle{
			PostStart: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"sh", "-c", `echo "$GREETING" > ` + marker}}},
		}
		always := corev1.ContainerRestartPolicyAlways
		p.Spec.InitContainers = []corev1.Container{{
			Name: "sidecar", Image: "busybox", Command: []string{"sleep", "1000"}, RestartPolicy: &always,
			Lifecycle: &corev1.Lifecycle{PostStart: &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/start", Port: intstr.FromInt32(port)}}},
		}}
	})
	got := e.waitFor(p.Name, 20*time.Second, "Ready", isReady)
	b, err := os.ReadFile(marker)
	if err != nil || strings.TrimSpace(string(b)) != "hello" {
		t.Errorf("postStart exec hook wrote %q, %v; want hello", b, err)
	}
	if n := hits("/start"); n != 1 {
		t.Errorf("postStart httpGet hook of the sidecar ran %d times, want 1", n)
	}
	if cs := containerStatus(got); cs.RestartCount != 0 {
		t.Errorf("restartCount = %d, want 0", cs.RestartCount)
	}
}

func TestFailingPostStartHookRestartsContainer(t *testing.T) {
	e := newEnv(t, "process")
	p := e.pod("post-start-fails", `exec sleep 1000`, func(p *corev1.Pod) {
		p.Spec.Containers[0].Lifecycle = &corev1.Lifecycle{
			PostStart: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"sh", "-c", "echo broken hook; exit 7"}}},
		}
		grace := int64(1)
		p.Spec.TerminationGracePeriodSeconds = &grace
	})
	got := e.waitFor(p.Name, 30*time.Second, "restarted after its postStart hook failed", func(p *corev1.Pod) bool {
		cs := containerStatus(p)
		return cs != nil && cs.RestartCount >= 1 && cs.State.Waiting != nil
	})
	if isReady(got) {
		t.Errorf("pod whose postStart hook fails is Ready: %s", describe(got))
	}
	cs := containerStatus(got)
	if cs.LastTerminationState.Terminated == nil {
		t.Errorf("no lastState.terminated: %s", describe(got))
	}
	var events []corev1.Event
	deadline := time.Now().Add(10 * time.Second)
	for len(events) == 0 && time.Now().Before(deadline) {
		list, err := e.cs.CoreV1().Events(e.ns).List(e.ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range list.Items {
			if ev.Reason == "FailedPostStartHook" && ev.InvolvedObject.Name == p.Name {
				events = append(events, ev)
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(events) == 0 {
		t.Fatal("no FailedPostStartHook event")
	}
	ev := events[0]
	// As in Kubernetes the hook's output stays out of the Event (it may
	// hold secrets).
	if ev.Type != corev1.EventTypeWarning || ev.InvolvedObject.Kind != "Pod" || ev.InvolvedObject.UID != p.UID ||
		ev.InvolvedObject.FieldPath != "spec.containers{main}" || ev.Source.Component != "kubelet" ||
		ev.Message != "PostStartHook failed" {
		t.Errorf("event = %+v", ev)
	}

	// With restartPolicy Never it is not restarted: the pod fails.
	never := e.pod("post-start-fails-never", `exec sleep 1000`, func(p *corev1.Pod) {
		p.Spec.RestartPolicy = corev1.RestartPolicyNever
		p.Spec.Containers[0].Lifecycle = &corev1.Lifecycle{
			PostStart: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"false"}}},
		}
		grace := int64(1)
		p.Spec.TerminationGracePeriodSeconds = &grace
	})
	e.waitFor(never.Name, 20*time.Second, "Failed", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodFailed })
}

func TestPreStopHooksRunBeforeSIGTERM(t *testing.T) {
	e := newEnv(t, "process")
	dir := t.TempDir()
	marker, order := filepath.Join(dir, "pre-stop"), filepath.Join(dir, "order")
	port, hits := hookServer(t)
	// On SIGTERM the container records whether the preStop hook already
	// ran; the second container's hook is an httpGet.
	script := `trap 'if [ -f ` + marker + ` ]; then echo after > ` + order + `; else echo before > ` + order + `; fi; exit 0' TERM; while :; do sleep 0.1; done`
	p := e.pod("pre-stop", script, func(p *corev1.Pod) {
		p.Spec.Containers[0].Lifecycle = &corev1.Lifecycle{
			PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"sh", "-c", "sleep 0.5; echo done > " + marker}}},
		}
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{
			Name: "web", Image: "busybox", Command: []string{"sleep", "1000"},
			Lifecycle: &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/stop", Port: intstr.FromInt32(port)}}},
		})
	})
	e.waitFor(p.Name, 20*time.Second, "Ready", isReady)
	grace := int64(10)
	start := time.Now()
	if err := e.cs.CoreV1().Pods(e.ns).Delete(e.ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &grace}); err != nil {
		t.Fatal(err)
	}
	e.waitGone(p.Name, 20*time.Second)
	if took := time.Since(start); took > 8*time.Second {
		t.Errorf("pod removed %s after deletion; the hooks should not use the whole grace period", took)
	}
	b, err := os.ReadFile(order)
	if err != nil || strings.TrimSpace(string(b)) != "after" {
		t.Errorf("SIGTERM came %q the preStop hook (%v), want after", b, err)
	}
	if n := hits("/stop"); n != 1 {
		t.Errorf("preStop httpGet hook ran %d times, want 1", n)
	}
}
