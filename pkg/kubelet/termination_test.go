package kubelet

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
	"kubecore.io/kubecore/pkg/kubelet/runtime/fake"
)

// writingRuntime is the fake runtime whose containers, when started, do
// what their container's run says with the mounts and log file the
// kubelet gave them: what a process of the container would write.
type writingRuntime struct {
	*fake.Runtime
	mu   sync.Mutex
	cfgs map[string]kruntime.ContainerConfig
	run  map[string]func(cfg kruntime.ContainerConfig, logPath string) error // by container name
}

func (r *writingRuntime) CreateContainer(ctx context.Context, sandboxID string, cfg kruntime.ContainerConfig) (string, error) {
	id, err := r.Runtime.CreateContainer(ctx, sandboxID, cfg)
	if err == nil {
		r.mu.Lock()
		r.cfgs[id] = cfg
		r.mu.Unlock()
	}
	return id, err
}

func (r *writingRuntime) StartContainer(ctx context.Context, id string) error {
	r.mu.Lock()
	cfg := r.cfgs[id]
	run := r.run[cfg.Name]
	r.mu.Unlock()
	if run != nil {
		st, err := r.ContainerStatus(ctx, id)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(st.LogPath), 0o755); err != nil {
			return err
		}
		if err := run(cfg, st.LogPath); err != nil {
			return err
		}
	}
	return r.Runtime.StartContainer(ctx, id)
}

// writeMounted writes content to the file mounted at path.
func writeMounted(cfg kruntime.ContainerConfig, path, content string) error {
	for _, m := range cfg.Mounts {
		if m.ContainerPath == path {
			return os.WriteFile(m.HostPath, []byte(content), 0o644)
		}
	}
	return fmt.Errorf("nothing is mounted at %s: %+v", path, cfg.Mounts)
}

// writeLog writes CRI log lines: "P" parts and "F" ends of lines.
func writeLog(logPath string, entries ...string) error {
	var b strings.Builder
	for _, e := range entries {
		tag, content, _ := strings.Cut(e, " ")
		fmt.Fprintf(&b, "%s stdout %s %s\n", time.Now().UTC().Format(time.RFC3339Nano), tag, content)
	}
	return os.WriteFile(logPath, []byte(b.String()), 0o644)
}

func TestTerminationMessage(t *testing.T) {
	const defaultPath = "/dev/termination-log"
	for _, tc := range []struct {
		name   string
		path   string
		policy corev1.TerminationMessagePolicy
		exit   int32
		run    func(cfg kruntime.ContainerConfig, logPath string) error
		want   string
	}{
		{"file at a non-default path", "/dev/termination-custom-log", corev1.TerminationMessageReadFile, 0,
			func(cfg kruntime.ContainerConfig, _ string) error {
				return writeMounted(cfg, "/dev/termination-custom-log", "DONE")
			}, "DONE"},
		{"file wins over the log with FallbackToLogsOnError", defaultPath, corev1.TerminationMessageFallbackToLogsOnError, 0,
			func(cfg kruntime.ContainerConfig, logPath string) error {
				if err := writeLog(logPath, "F DONE"); err != nil {
					return err
				}
				return writeMounted(cfg, defaultPath, "OK")
			}, "OK"},
		{"log of a failed container with FallbackToLogsOnError", defaultPath, corev1.TerminationMessageFallbackToLogsOnError, 1,
			func(_ kruntime.ContainerConfig, logPath string) error {
				return writeLog(logPath, "F first", "P DO", "P NE")
			}, "first\nDONE"},
		{"no log message when it succeeded", defaultPath, corev1.TerminationMessageFallbackToLogsOnError, 0,
			func(_ kruntime.ContainerConfig, logPath string) error { return writeLog(logPath, "P DONE") }, ""},
		{"no log message with File", defaultPath, corev1.TerminationMessageReadFile, 1,
			func(_ kruntime.ContainerConfig, logPath string) error { return writeLog(logPath, "P DONE") }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api, cs := newPodAPI(t)
			rt := &writingRuntime{Runtime: fake.New("10.0.0.7", nil), cfgs: map[string]kruntime.ContainerConfig{},
				run: map[string]func(kruntime.ContainerConfig, string) error{"c": tc.run}}
			kl, err := New(Config{NodeName: "n", Client: cs, Runtime: rt, RootDir: t.TempDir(), NodeIP: "10.0.0.7",
				Machine: &MachineInfo{}, DisableEvents: true, Recorder: &eventLog{}})
			if err != nil {
				t.Fatal(err)
			}
			kl.objects = objects{}
			pod := &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "uid-1", ResourceVersion: "1"},
				Spec: corev1.PodSpec{NodeName: "n", RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{
					Name: "c", Image: "busybox", Command: []string{"sh", "-c", fmt.Sprintf("exit %d", tc.exit)},
					TerminationMessagePath: tc.path, TerminationMessagePolicy: tc.policy,
				}}},
			}
			api.put(pod)
			st := newPodState()
			if _, _, err := kl.syncPod(t.Context(), st, pod, false); err != nil {
				t.Fatal(err)
			}
			got := api.get("ns", "p").Status.ContainerStatuses
			if len(got) != 1 || got[0].State.Terminated == nil {
				t.Fatalf("container statuses = %+v, want one terminated", got)
			}
			if msg := got[0].State.Terminated.Message; msg != tc.want {
				t.Errorf("termination message = %q, want %q", msg, tc.want)
			}
		})
	}
}

func TestTerminationMessageFileIsOptionalAndWritable(t *testing.T) {
	kl, _, _ := newTestKubelet(t)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "uid-1"}}
	c := &corev1.Container{Name: "c", TerminationMessagePath: "/dev/termination-log"}
	m, err := kl.terminationMessageMount(pod, c, 2, nil)
	if err != nil || m == nil {
		t.Fatalf("mount = %+v, %v", m, err)
	}
	if !m.Optional || m.ReadOnly || m.ContainerPath != "/dev/termination-log" {
		t.Errorf("mount = %+v, want an optional writable mount at the path", m)
	}
	fi, err := os.Stat(m.HostPath)
	if err != nil || fi.Mode().Perm() != 0o666 || fi.Size() != 0 {
		t.Errorf("file = %v, %v; want empty with mode 0666 (any user of the container writes it)", fi, err)
	}
	// A volume mounted at the path is the container's own: no file.
	if m, err := kl.terminationMessageMount(pod, c, 2, []kruntime.Mount{{ContainerPath: "/dev/termination-log/"}}); m != nil || err != nil {
		t.Errorf("mount over a volume = %+v, %v; want none", m, err)
	}
	if m, err := kl.terminationMessageMount(pod, &corev1.Container{Name: "c"}, 0, nil); m != nil || err != nil {
		t.Errorf("mount without a path = %+v, %v; want none", m, err)
	}
}

func TestSidecarsStopAfterAppContainers(t *testing.T) {
	kl, rt, _ := newTestKubelet(t)
	ctx := t.Context()
	always := corev1.ContainerRestartPolicyAlways
	grace := int64(5)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "uid-1"},
		Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyAlways, TerminationGracePeriodSeconds: &grace,
			InitContainers: []corev1.Container{
				{Name: "side-1", Image: "x", Command: []string{"sleep"}, RestartPolicy: &always},
				{Name: "side-2", Image: "x", Command: []string{"sleep"}, RestartPolicy: &always},
			},
			Containers: []corev1.Container{{Name: "main", Image: "x", Command: []string{"sleep"}}},
		},
	}
	st := newPodState()
	ids := map[string]string{}
	for range 4 {
		if _, _, err := kl.syncPod(ctx, st, pod, false); err != nil {
			t.Fatal(err)
		}
		list, err := rt.ListContainers(ctx, st.sandboxID)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range list {
			ids[c.Name] = c.ID
		}
		if len(ids) == 3 {
			break
		}
	}
	if len(ids) != 3 {
		t.Fatalf("containers = %v, want the two sidecars and main running", ids)
	}
	if _, done, err := kl.syncPod(ctx, st, pod, true); err != nil || !done {
		t.Fatalf("sync of the removed pod = %v, %v; want done", done, err)
	}
	var order []string
	for _, call := range rt.Calls() {
		id, ok := strings.CutPrefix(call, "StopContainer ")
		if !ok {
			continue
		}
		for name, cid := range ids {
			if cid == id {
				order = append(order, name)
			}
		}
	}
	if want := []string{"main", "side-2", "side-1"}; !slices.Equal(order, want) {
		t.Errorf("stop order = %q, want %q (the app container first, then the sidecars in reverse order)", order, want)
	}
}

// TestFinishedPodIsNotRunAgain: once a pod's terminal phase is written, a
// sync with a copy of the pod from before (its phase not yet seen through
// the watch) leaves it finished: no new sandbox, its containers not run
// again.
func TestFinishedPodIsNotRunAgain(t *testing.T) {
	kl, rt, events := newTestKubelet(t)
	ctx := t.Context()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "uid-1"},
		Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{Name: "c", Image: "x", Command: []string{"sh", "-c", "exit 0"}}}},
	}
	st := newPodState()
	for range 3 {
		if _, _, err := kl.syncPod(ctx, st, pod, false); err != nil {
			t.Fatal(err)
		}
	}
	sandboxes, err := rt.ListPodSandbox(ctx)
	if err != nil {
		t.Fatal(err)
	}
	containers, err := rt.ListContainers(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(sandboxes) != 1 || len(containers) != 1 {
		t.Errorf("%d sandboxes and %d containers, want the one of each of the finished pod", len(sandboxes), len(containers))
	}
	if got := events.with(eventSandboxChanged); len(got) > 0 {
		t.Errorf("events %q: the finished pod's sandbox was replaced", got)
	}
}
