package cri

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// runningContainer finds the pod's running container in the runtime.
func runningContainer(t *testing.T, rt kruntime.Runtime, pod *corev1.Pod) kruntime.ContainerStatus {
	t.Helper()
	cs := pod.Status.ContainerStatuses[0]
	id := strings.TrimPrefix(cs.ContainerID, "containerd://")
	st, err := rt.ContainerStatus(t.Context(), id)
	if err != nil {
		t.Fatalf("container %s: %v", cs.ContainerID, err)
	}
	return *st
}

func TestCRIPodLifecycleLogsAndExec(t *testing.T) {
	e := newEnv(t)
	e.startKubelet()
	p := e.pod("web", `echo hello from cri; echo to stderr >&2; exec sleep 1000`, func(p *corev1.Pod) {
		p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "GREETING", Value: "hi there"}}
		p.Spec.Containers[0].Lifecycle = &corev1.Lifecycle{
			PostStart: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"sh", "-c", "echo post-start ran > /tmp/hook"}}},
		}
		p.Spec.Containers[0].ReadinessProbe = &corev1.Probe{
			ProbeHandler:  corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"true"}}},
			PeriodSeconds: 1,
		}
	})
	got := e.waitFor(p.Name, time.Minute, "Ready", isReady)
	cs := got.Status.ContainerStatuses[0]
	if !strings.HasPrefix(cs.ContainerID, "containerd://") || cs.State.Running == nil || cs.RestartCount != 0 {
		t.Errorf("container status = %+v", cs)
	}
	if got.Status.PodIP != "127.0.0.1" || got.Status.Phase != corev1.PodRunning {
		t.Errorf("pod status: phase %s, podIP %q", got.Status.Phase, got.Status.PodIP)
	}

	rt := newRuntime(t)
	c := runningContainer(t, rt, got)
	// Logs: the CRI log file, in the format the kubelet server reads.
	var log []byte
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		log, _ = os.ReadFile(c.LogPath)
		if bytes.Contains(log, []byte("to stderr")) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !bytes.Contains(log, []byte(" stdout F hello from cri\n")) || !bytes.Contains(log, []byte(" stderr F to stderr\n")) {
		t.Errorf("log file %s = %q", c.LogPath, log)
	}
	if !strings.HasPrefix(c.LogPath, e.rootDir) {
		t.Errorf("log path %s is not under the kubelet's root dir %s", c.LogPath, e.rootDir)
	}

	// ExecSync sees the container's environment.
	res, err := rt.ExecSync(t.Context(), c.ID, []string{"sh", "-c", `echo "$GREETING"; exit 4`}, 10*time.Second)
	if err != nil || strings.TrimSpace(string(res.Stdout)) != "hi there" || res.ExitCode != 4 {
		t.Errorf("ExecSync = %q, %d, %v; want hi there, 4", res.Stdout, res.ExitCode, err)
	}
	// The postStart hook ran in the container.
	res, err = rt.ExecSync(t.Context(), c.ID, []string{"cat", "/tmp/hook"}, 10*time.Second)
	if err != nil || strings.TrimSpace(string(res.Stdout)) != "post-start ran" {
		t.Errorf("postStart hook output = %q, %v", res.Stdout, err)
	}
	// Streaming exec: stdin to stdout, its end seen, the exit code kept.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var out, errOut bytes.Buffer
	code, err := rt.Exec(ctx, c.ID, []string{"sh", "-c", "cat; echo oops >&2; exit 3"},
		kruntime.ExecStreams{Stdin: strings.NewReader("through the stream\n"), Stdout: &out, Stderr: &errOut})
	if err != nil || code != 3 || out.String() != "through the stream\n" || errOut.String() != "oops\n" {
		t.Errorf("Exec = %d, %v; stdout %q stderr %q", code, err, out.String(), errOut.String())
	}
	out.Reset()
	code, err = rt.Exec(ctx, c.ID, []string{"sh", "-c", "tty && echo in a terminal"},
		kruntime.ExecStreams{Stdout: &out, TTY: true})
	if err != nil || code != 0 || !strings.Contains(out.String(), "in a terminal") {
		t.Errorf("Exec with a TTY = %d, %v; output %q", code, err, out.String())
	}

	// Deletion stops the container and removes the sandbox.
	sandbox := c.SandboxID
	if err := e.cs.CoreV1().Pods(e.ns).Delete(e.ctx, p.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.waitGone(p.Name, time.Minute)
	if _, err := rt.PodSandboxStatus(t.Context(), sandbox); !errors.Is(err, kruntime.ErrNotFound) {
		t.Errorf("sandbox %s after the pod was deleted: %v, want not found", sandbox, err)
	}
}

func TestCRIContainerRestartsPerPolicy(t *testing.T) {
	e := newEnv(t)
	e.startKubelet()
	p := e.pod("crash", `echo crashing; exit 3`)
	got := e.waitFor(p.Name, time.Minute, "restarted", func(p *corev1.Pod) bool {
		return len(p.Status.ContainerStatuses) == 1 && p.Status.ContainerStatuses[0].RestartCount >= 1 &&
			p.Status.ContainerStatuses[0].LastTerminationState.Terminated != nil
	})
	if lt := got.Status.ContainerStatuses[0].LastTerminationState.Terminated; lt.ExitCode != 3 || lt.Reason != "Error" {
		t.Errorf("lastState = %+v, want exit 3, Error", lt)
	}
	done := e.pod("done", `exit 0`, func(p *corev1.Pod) { p.Spec.RestartPolicy = corev1.RestartPolicyNever })
	e.waitFor(done.Name, time.Minute, "Succeeded", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodSucceeded })
}

func TestCRIMissingImageIsPulled(t *testing.T) {
	e := newEnv(t)
	e.startKubelet()
	// No registry is reachable: the pull fails, and says so.
	p := e.pod("missing-image", `sleep 1000`, func(p *corev1.Pod) { p.Spec.Containers[0].Image = "127.0.0.1:1/missing:1" })
	got := e.waitFor(p.Name, time.Minute, "waiting on the pull", func(p *corev1.Pod) bool {
		cs := p.Status.ContainerStatuses
		// ErrImagePull, then ImagePullBackOff between attempts: a busy
		// machine may show either first.
		return len(cs) == 1 && cs[0].State.Waiting != nil && (cs[0].State.Waiting.Reason == "ErrImagePull" || cs[0].State.Waiting.Reason == "ImagePullBackOff")
	})
	if msg := got.Status.ContainerStatuses[0].State.Waiting.Message; !strings.Contains(msg, "127.0.0.1:1/missing:1") {
		t.Errorf("waiting message = %q", msg)
	}
}

func TestCRIRestartedKubeletReadoptsContainers(t *testing.T) {
	e := newEnv(t)
	k := e.startKubelet()
	p := e.pod("survivor", `exec sleep 1000`)
	before := e.waitFor(p.Name, time.Minute, "Ready", isReady)
	id := before.Status.ContainerStatuses[0].ContainerID
	k.stop(t)

	e.startKubelet()
	// A new status write shows the new kubelet took over: a label change
	// is not needed, the restart count and container ID must just hold.
	time.Sleep(3 * time.Second)
	after := e.waitFor(p.Name, time.Minute, "Ready", isReady)
	cs := after.Status.ContainerStatuses[0]
	if cs.ContainerID != id || cs.RestartCount != 0 {
		t.Errorf("after the kubelet restart: container %s restarts %d; want %s, 0", cs.ContainerID, cs.RestartCount, id)
	}
	rt := newRuntime(t)
	list, err := rt.ListContainers(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	running := 0
	for _, c := range list {
		if c.Name == "main" && c.State == kruntime.ContainerRunning {
			running++
		}
	}
	if running != 1 {
		t.Errorf("%d running containers named main, want 1 (no duplicate): %+v", running, list)
	}
	// The adopted pod is still managed: deleting it stops it.
	if err := e.cs.CoreV1().Pods(e.ns).Delete(e.ctx, p.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.waitGone(p.Name, time.Minute)
}
