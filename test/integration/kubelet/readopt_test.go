package kubelet

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/kubelet/runtime/process"
)

// readPID waits for a container to write its shell's PID to path.
func readPID(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(path)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
			return pid
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no PID in %s", path)
	return 0
}

func processExists(pid int) bool { return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }

// TestRestartedKubeletReadoptsContainers kills a kubelet (its Run is
// cancelled without stopping pods and its runtime dropped, as SIGKILL
// would) and starts a new one on the same root dir: running containers go
// on with the same ID, PID and restart count; one that exited meanwhile
// reports the exit code its shim recorded; one whose pod was deleted
// meanwhile is killed.
func TestRestartedKubeletReadoptsContainers(t *testing.T) {
	e := newAPIEnv(t)
	first := e.startKubelet("process", false)
	dir := t.TempDir()
	keepPID, gonePID := filepath.Join(dir, "keep"), filepath.Join(dir, "gone")
	keep := e.pod("keep", `echo $$$$ > "`+keepPID+`"; exec sleep 1000`)
	gone := e.pod("gone", `echo $$$$ > "`+gonePID+`"; exec sleep 1000`)
	exits := e.pod("exits", `sleep 2; exit 3`, func(p *corev1.Pod) { p.Spec.RestartPolicy = corev1.RestartPolicyNever })
	running := func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning && isReady(p) }
	before := containerStatus(e.waitFor(keep.Name, 20*time.Second, "Running and Ready", running))
	e.waitFor(gone.Name, 20*time.Second, "Running and Ready", running)
	e.waitFor(exits.Name, 20*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	pid, pid2 := readPID(t, keepPID), readPID(t, gonePID)
	t.Cleanup(func() {
		// Whatever happens, end the processes this test started.
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		_ = syscall.Kill(-pid2, syscall.SIGKILL)
	})

	first.stop(t)
	first.runtime.(*process.Runtime).Close()
	if !processExists(pid) {
		t.Fatalf("container process %d died with the kubelet", pid)
	}
	zero := int64(0)
	if err := e.cs.CoreV1().Pods(e.ns).Delete(e.ctx, gone.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second) // "exits" exits while no kubelet runs

	second := e.startKubelet("process", true)
	_ = second
	got := e.waitFor(exits.Name, 20*time.Second, "Failed with exit code 3", func(p *corev1.Pod) bool {
		cs := containerStatus(p)
		return p.Status.Phase == corev1.PodFailed && cs != nil && cs.State.Terminated != nil && cs.State.Terminated.ExitCode == 3
	})
	if cs := containerStatus(got); cs.RestartCount != 0 {
		t.Errorf("exited container restarted: %s", describe(got))
	}
	deadline := time.Now().Add(10 * time.Second)
	for processExists(pid2) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if processExists(pid2) {
		t.Errorf("the process %d of a pod deleted while the kubelet was down still runs", pid2)
	}
	// Several syncs and relists later, the kept container is the same.
	time.Sleep(3 * time.Second)
	after := e.waitFor(keep.Name, 10*time.Second, "Running and Ready", running)
	cs := containerStatus(after)
	if cs.ContainerID != before.ContainerID || cs.RestartCount != 0 || cs.State.Running == nil ||
		!cs.State.Running.StartedAt.Equal(&before.State.Running.StartedAt) {
		t.Errorf("after the restart: %s id %s started %v; before: id %s started %v", describe(after),
			cs.ContainerID, cs.State.Running, before.ContainerID, before.State.Running.StartedAt)
	}
	if !processExists(pid) {
		t.Errorf("container process %d is gone after the kubelet restart", pid)
	}
	if b, _ := os.ReadFile(keepPID); strings.TrimSpace(string(b)) != strconv.Itoa(pid) {
		t.Errorf("the container ran again: PID file now %q, was %d", b, pid)
	}

	// The re-adopted container still stops on deletion.
	if err := e.cs.CoreV1().Pods(e.ns).Delete(e.ctx, keep.Name, metav1.DeleteOptions{GracePeriodSeconds: new(int64(1))}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	e.waitGone(keep.Name, 20*time.Second)
	if processExists(pid) {
		t.Errorf("container process %d still runs after its pod was deleted", pid)
	}
}
