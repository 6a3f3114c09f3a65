package process

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// TestMain makes the test binary the runtime's shim, as the kubecore binary
// is through `kubecore kubelet process-shim`.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == ShimSubcommand {
		os.Exit(RunShim(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// newRuntime returns a runtime whose state dir is a temp dir (unless set)
// and whose shim is the test binary.
func newRuntime(t *testing.T, o Options) *Runtime {
	t.Helper()
	if o.StateDir == "" {
		o.StateDir = t.TempDir()
	}
	o.ShimCommand = []string{os.Args[0], ShimSubcommand}
	r, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// sandbox runs a pod sandbox that is stopped and removed when t ends
// (removing it unmounts its pinned namespaces; t.Context() ends before
// cleanups run).
func sandbox(t *testing.T, r *Runtime) string {
	t.Helper()
	sb, err := r.RunPodSandbox(t.Context(), kruntime.PodSandboxConfig{UID: "u", LogDirectory: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = r.StopPodSandbox(context.Background(), sb)
		_ = r.RemovePodSandbox(context.Background(), sb)
	})
	return sb
}

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
			r := newRuntime(t, Options{HostIP: "127.0.0.1"})
			logDir := t.TempDir()
			s := waitExited(t, r, start(t, r, logDir, tc.script))
			if s.ExitCode != tc.code || s.Reason != tc.reason || s.FinishedAt.Before(s.StartedAt) {
				t.Errorf("status = %+v, want exit %d %s", s, tc.code, tc.reason)
			}
			b, err := os.ReadFile(filepath.Join(logDir, "c/0.log"))
			if err != nil || !strings.HasSuffix(strings.TrimSpace(string(b)), " stdout F hi") {
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
			r := newRuntime(t, Options{})
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
	r := newRuntime(t, Options{Root: new(bool)})
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
		{"no command, unknown image", kruntime.ContainerConfig{Name: "c", Image: "example.com/unknown"}, ReasonNeedsCommand},
		{"volumes without root", kruntime.ContainerConfig{Name: "c", Command: []string{"true"}, Mounts: []kruntime.Mount{{ContainerPath: "/data", HostPath: "/tmp"}}}, ReasonNeedsRoot},
		{"volumes beside the API access one without root", kruntime.ContainerConfig{Name: "c", Command: []string{"true"}, Mounts: []kruntime.Mount{
			{ContainerPath: corev1.ServiceAccountMountPath, HostPath: "/tmp"}, {ContainerPath: "/data", HostPath: "/tmp"},
		}}, ReasonNeedsRoot},
	} {
		_, err := r.CreateContainer(ctx, sb, tc.cfg)
		var ce *kruntime.ContainerError
		if !errors.As(err, &ce) || ce.Reason != tc.reason || ce.Message == "" {
			t.Errorf("%s: CreateContainer = %v, want a %s container error", tc.name, err, tc.reason)
		}
	}
	// Only the API access volume: the container runs without it.
	saOnly, err := r.CreateContainer(ctx, sb, kruntime.ContainerConfig{Name: "sa", Command: []string{"true"},
		Mounts: []kruntime.Mount{{ContainerPath: corev1.ServiceAccountMountPath, HostPath: "/tmp", ReadOnly: true}}})
	if err != nil {
		t.Errorf("a container whose only volume is the API access one: %v", err)
	} else if err := r.StartContainer(ctx, saOnly); err != nil {
		t.Error(err)
	} else if s := waitExited(t, r, saOnly); s.ExitCode != 0 {
		t.Errorf("container with the API access volume dropped: %+v", s)
	}
	// An optional mount (the termination message file) is dropped too.
	optional, err := r.CreateContainer(ctx, sb, kruntime.ContainerConfig{Name: "opt", Command: []string{"true"},
		Mounts: []kruntime.Mount{{ContainerPath: "/dev/termination-log", HostPath: "/tmp/x", Optional: true}}})
	if err != nil {
		t.Errorf("a container whose only mount is optional: %v", err)
	} else if err := r.StartContainer(ctx, optional); err != nil {
		t.Error(err)
	} else if s := waitExited(t, r, optional); s.ExitCode != 0 {
		t.Errorf("container with its optional mount dropped: %+v", s)
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
	r := newRuntime(t, Options{})
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

func TestRestartedRuntimeReadoptsContainers(t *testing.T) {
	ctx := t.Context()
	state, logDir := t.TempDir(), t.TempDir()
	r1 := newRuntime(t, Options{StateDir: state})
	running := start(t, r1, logDir, `trap 'exit 0' TERM; while :; do sleep 0.05; done`)
	exiting := start(t, r1, logDir, `sleep 0.3; exit 7`)
	before, _ := r1.ContainerStatus(ctx, running)
	// The first runtime dies (as with SIGKILL); the second one takes over.
	r1.Close()
	time.Sleep(time.Second)
	r2 := newRuntime(t, Options{StateDir: state})
	after, err := r2.ContainerStatus(ctx, running)
	if err != nil {
		t.Fatal(err)
	}
	if after.State != kruntime.ContainerRunning || after.PID != before.PID || !after.StartedAt.Equal(before.StartedAt) {
		t.Errorf("re-adopted container = %+v, want running as %+v", after, before)
	}
	// Exited while no runtime watched: the shim kept its exit code.
	if s := waitExited(t, r2, exiting); s.ExitCode != 7 || s.Reason != kruntime.ReasonError {
		t.Errorf("container that exited meanwhile = %+v, want exit 7", s)
	}
	if err := r2.StopContainer(ctx, running, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if s, _ := r2.ContainerStatus(ctx, running); s.State != kruntime.ContainerExited || s.ExitCode != 0 {
		t.Errorf("stopped re-adopted container = %+v, want exited 0 on SIGTERM", s)
	}
	sandboxes, _ := r2.ListPodSandbox(ctx)
	if len(sandboxes) != 2 {
		t.Errorf("sandboxes after restart = %d, want 2", len(sandboxes))
	}
}

func TestParseStat(t *testing.T) {
	line := "4242 (a (weird) name) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 100"
	if got, err := parseStat(line); err != nil || got != 987654 {
		t.Errorf("parseStat = %d, %v; want 987654", got, err)
	}
	if _, err := parseStat("1 (x) Z 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0"); err == nil {
		t.Error("a zombie should count as gone")
	}
	if start, err := procStartTime(os.Getpid()); err != nil || !alive(os.Getpid(), start) || alive(os.Getpid(), start+1) {
		t.Errorf("own start time %d, %v", start, err)
	}
}

// TestBusyboxImageRunsBusyboxPrograms: a busybox container's programs are
// busybox's applets, its sh included (busybox's sh knows [[ ]], which the
// e2e Job programs use and Debian's /bin/sh does not), in its command, in
// a command from the image and in exec.
func TestBusyboxImageRunsBusyboxPrograms(t *testing.T) {
	if _, err := exec.LookPath("busybox"); err != nil {
		t.Fatal("no busybox on this host: hack/install-deps.sh installs it")
	}
	ctx := t.Context()
	r := newRuntime(t, Options{})
	const script = `if [[ -n "$0" ]]; then echo brackets; else echo none; fi`
	for _, tc := range []struct {
		name          string
		image         string
		command, args []string
	}{
		{"command /bin/sh", "registry.k8s.io/e2e-test-images/busybox:1.37.0-1", []string{"/bin/sh", "-c"}, []string{script}},
		{"command sh", "busybox", []string{"sh", "-c", script}, nil},
		{"the image's sh", "docker.io/library/busybox:1.36", nil, []string{"-c", script}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logDir := t.TempDir()
			sb, err := r.RunPodSandbox(ctx, kruntime.PodSandboxConfig{UID: tc.name, LogDirectory: logDir})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = r.StopPodSandbox(ctx, sb); _ = r.RemovePodSandbox(ctx, sb) })
			args := tc.args
			if tc.command == nil {
				// The image's cmd is sh: args replace it, so give sh again.
				args = append([]string{"sh"}, args...)
			}
			id, err := r.CreateContainer(ctx, sb, kruntime.ContainerConfig{Name: "c", Image: tc.image, Command: tc.command, Args: args, LogPath: "c/0.log"})
			if err != nil {
				t.Fatal(err)
			}
			if err := r.StartContainer(ctx, id); err != nil {
				t.Fatal(err)
			}
			if s := waitExited(t, r, id); s.ExitCode != 0 {
				t.Fatalf("exit %d: %s", s.ExitCode, s.Message)
			}
			b, _ := os.ReadFile(filepath.Join(logDir, "c/0.log"))
			if !strings.HasSuffix(strings.TrimSpace(string(b)), " stdout F brackets") {
				t.Errorf("log %q, want brackets (busybox's sh)", b)
			}
		})
	}

	sb, err := r.RunPodSandbox(ctx, kruntime.PodSandboxConfig{UID: "exec"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.StopPodSandbox(ctx, sb); _ = r.RemovePodSandbox(ctx, sb) })
	bb, err := r.CreateContainer(ctx, sb, kruntime.ContainerConfig{Name: "c", Image: "busybox", Command: []string{"sleep", "60"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.StartContainer(ctx, bb); err != nil {
		t.Fatal(err)
	}
	res, err := r.ExecSync(ctx, bb, []string{"/bin/sh", "-c", script}, 5*time.Second)
	if err != nil || res.ExitCode != 0 || strings.TrimSpace(string(res.Stdout)) != "brackets" {
		t.Errorf("exec in a busybox container: %+v (%q), %v; want brackets", res, res.Stdout, err)
	}
	// An applet named by its path in the image calls itself by it, as
	// the e2e "read only busybox container" spec expects of /bin/sh.
	for argv0, want := range map[string]string{"/bin/sh": "/bin/sh: can't create /proc/kubecore/x: nonexistent directory\n", "sh": "sh: can't create /proc/kubecore/x: nonexistent directory\n"} {
		res, err = r.ExecSync(ctx, bb, []string{argv0, "-c", "echo $0; echo x >/proc/kubecore/x"}, 5*time.Second)
		if err != nil || string(res.Stdout) != argv0+"\n" || string(res.Stderr) != want {
			t.Errorf("exec %s in a busybox container: %q %q, %v; want %q", argv0, res.Stdout, res.Stderr, err, want)
		}
	}
}

// A container that names no working directory (nor does its image)
// works in one of its own, and so do its execs: a file it writes by a
// relative name is its own, and the host's / is left alone.
func TestWorkingDirOfItsOwn(t *testing.T) {
	r := newRuntime(t, Options{})
	id := start(t, r, t.TempDir(), "echo mine > kubecore-relative.txt; exec sleep 60")
	own := r.workDir(id)
	written := func() bool { _, err := os.Stat(filepath.Join(own, "kubecore-relative.txt")); return err == nil }
	deadline := time.Now().Add(10 * time.Second)
	for !written() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !written() {
		t.Fatalf("the container's relative write is not in %s", own)
	}
	if _, err := os.Stat("/kubecore-relative.txt"); err == nil {
		t.Error("the container wrote into the host's /")
	}
	res, err := r.ExecSync(t.Context(), id, []string{"pwd"}, 5*time.Second)
	if err != nil || strings.TrimSpace(string(res.Stdout)) != own {
		t.Errorf("exec pwd = %q, %v; want %s", res.Stdout, err, own)
	}
}

// TestFileMountAtMissingPath: a file (the termination message file) is
// mounted at a path the host lacks as a file, which a container running
// as another user can write.
func TestFileMountAtMissingPath(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounts need root")
	}
	r := newRuntime(t, Options{})
	ctx := t.Context()
	sb := sandbox(t, r)
	src := filepath.Join(t.TempDir(), "msg")
	if err := os.WriteFile(src, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(src, 0o666); err != nil {
		t.Fatal(err)
	}
	// The user reaches the mount point as it reaches /dev.
	top := t.TempDir()
	for _, d := range []string{filepath.Dir(top), top} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	dst := filepath.Join(top, "dev", "termination-custom-log")
	id, err := r.CreateContainer(ctx, sb, kruntime.ContainerConfig{Name: "c", LogPath: "c.log",
		Command: []string{"sh", "-c", "printf DONE > " + dst}, User: &kruntime.User{UID: 10000, GID: 10000},
		Mounts: []kruntime.Mount{{ContainerPath: dst, HostPath: src}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.StartContainer(ctx, id); err != nil {
		t.Fatal(err)
	}
	if s := waitExited(t, r, id); s.ExitCode != 0 {
		log, _ := os.ReadFile(s.LogPath)
		t.Fatalf("container: %+v\n%s", s, log)
	}
	if b, err := os.ReadFile(src); err != nil || string(b) != "DONE" {
		t.Errorf("mounted file = %q, %v; want DONE", b, err)
	}
	if fi, err := os.Stat(dst); err != nil || fi.IsDir() {
		t.Errorf("mount point = %v, %v; want a file", fi, err)
	}
}

// TestExecWorkingDirWithMounts: an exec in a container with mounts (its
// own mount namespace) runs in the container's working directory, not in
// the namespace's root.
func TestExecWorkingDirWithMounts(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounts need root")
	}
	r := newRuntime(t, Options{})
	ctx := t.Context()
	sb := sandbox(t, r)
	wd := t.TempDir()
	id, err := r.CreateContainer(ctx, sb, kruntime.ContainerConfig{Name: "c", Command: []string{"sleep", "60"}, WorkingDir: wd,
		Mounts: []kruntime.Mount{{ContainerPath: filepath.Join(t.TempDir(), "data"), HostPath: t.TempDir()}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.StartContainer(ctx, id); err != nil {
		t.Fatal(err)
	}
	res, err := r.ExecSync(ctx, id, []string{"pwd"}, 5*time.Second)
	if err != nil || strings.TrimSpace(string(res.Stdout)) != wd {
		t.Errorf("exec pwd = %q, %v; want %s", res.Stdout, err, wd)
	}
}
