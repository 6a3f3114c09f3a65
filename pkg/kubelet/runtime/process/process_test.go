package process

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// start runs script in sh in a new sandbox and returns the container ID.
func start(t *testing.T, r *Runtime, logDir, script string) string {
	t.Helper()
	ctx := t.Context()
	sb, err := r.RunPodSandbox(ctx, kruntime.PodSandboxConfig{UID: "u", LogDirectory: logDir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.StopPodSandbox(ctx, sb) })
	id, err := r.CreateContainer(ctx, sb, kruntime.ContainerConfig{
		Name: "c", Command: []string{"sh", "-c", script}, Env: []kruntime.KeyValue{{Key: "GREETING", Value: "hi"}}, LogPath: "c/0.log",
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.StartContainer(ctx, id); err != nil {
		t.Fatal(err)
	}
	return id
}

func waitExited(t *testing.T, r *Runtime, id string) *kruntime.ContainerStatus {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		s, err := r.ContainerStatus(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if s.State == kruntime.ContainerExited {
			return s
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("container %s did not exit", id)
	return nil
}

func TestExitCodesAndLogs(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		code         int32
		reason       string
	}{
		{"success", `echo "$GREETING"`, 0, kruntime.ReasonCompleted},
		{"failure", `echo "$GREETING"; exit 3`, 3, kruntime.ReasonError},
		{"killed by a signal", `echo "$GREETING"; kill -9 $$`, 137, kruntime.ReasonError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := New(Options{HostIP: "127.0.0.1"})
			logDir := t.TempDir()
			s := waitExited(t, r, start(t, r, logDir, tc.script))
			if s.ExitCode != tc.code || s.Reason != tc.reason || s.FinishedAt.Before(s.StartedAt) {
				t.Errorf("status = %+v, want exit %d %s", s, tc.code, tc.reason)
			}
			b, err := os.ReadFile(filepath.Join(logDir, "c/0.log"))
			if err != nil || strings.TrimSpace(string(b)) != "hi" {
				t.Errorf("log = %q, %v; want hi", b, err)
			}
		})
	}
}

func TestStopContainerEscalatesToSIGKILL(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		grace        time.Duration
		minTook      time.Duration
		code         int32
	}{
		{"exits on SIGTERM", `trap 'exit 0' TERM; while :; do sleep 0.05; done`, 5 * time.Second, 0, 0},
		{"ignores SIGTERM", `trap '' TERM; while :; do sleep 0.05; done`, time.Second, time.Second, 137},
		{"no grace", `trap '' TERM; while :; do sleep 0.05; done`, 0, 0, 137},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := New(Options{})
			id := start(t, r, t.TempDir(), tc.script)
			time.Sleep(100 * time.Millisecond) // let the trap be set
			begin := time.Now()
			if err := r.StopContainer(t.Context(), id, tc.grace); err != nil {
				t.Fatal(err)
			}
			took := time.Since(begin)
			s, _ := r.ContainerStatus(t.Context(), id)
			if s.State != kruntime.ContainerExited || s.ExitCode != tc.code {
				t.Errorf("after stop: %+v, want exited with %d", s, tc.code)
			}
			if took < tc.minTook || took > tc.minTook+3*time.Second {
				t.Errorf("stop took %s, want about %s", took, tc.minTook)
			}
		})
	}
}

func TestRefusals(t *testing.T) {
	r := New(Options{Root: new(bool)})
	ctx := t.Context()
	sb, err := r.RunPodSandbox(ctx, kruntime.PodSandboxConfig{UID: "u"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		cfg    kruntime.ContainerConfig
		reason string
	}{
		{"no command", kruntime.ContainerConfig{Name: "c", Image: "nginx"}, ReasonNeedsCommand},
		{"volumes without root", kruntime.ContainerConfig{Name: "c", Command: []string{"true"}, Mounts: []kruntime.Mount{{ContainerPath: "/data", HostPath: "/tmp"}}}, ReasonNeedsRoot},
	} {
		_, err := r.CreateContainer(ctx, sb, tc.cfg)
		var ce *kruntime.ContainerError
		if !errors.As(err, &ce) || ce.Reason != tc.reason || ce.Message == "" {
			t.Errorf("%s: CreateContainer = %v, want a %s container error", tc.name, err, tc.reason)
		}
	}
	// A command that cannot start makes the container exit with 128.
	id, err := r.CreateContainer(ctx, sb, kruntime.ContainerConfig{Name: "c", Command: []string{"/no/such/binary"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.StartContainer(ctx, id); err != nil {
		t.Fatal(err)
	}
	if s := waitExited(t, r, id); s.ExitCode != 128 || s.Reason != ReasonStartError {
		t.Errorf("unstartable command: %+v", s)
	}
}

func TestExecSync(t *testing.T) {
	r := New(Options{})
	id := start(t, r, t.TempDir(), "exec sleep 60")
	for _, tc := range []struct {
		name    string
		cmd     []string
		timeout time.Duration
		code    int32
		out     string
		wantErr bool
	}{
		{"sees the container's env", []string{"sh", "-c", `echo "$GREETING"`}, time.Second, 0, "hi\n", false},
		{"non-zero exit is not an error", []string{"sh", "-c", "exit 4"}, time.Second, 4, "", false},
		{"timeout", []string{"sleep", "5"}, 200 * time.Millisecond, 0, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := r.ExecSync(t.Context(), id, tc.cmd, tc.timeout)
			if (err != nil) != tc.wantErr || (!tc.wantErr && (res.ExitCode != tc.code || string(res.Stdout) != tc.out)) {
				t.Errorf("ExecSync = %+v (%q), %v", res, res.Stdout, err)
			}
		})
	}
}
