package kubectl

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// background is a CLI run left running (a watch).
type background struct {
	cmd    *exec.Cmd
	out    strings.Builder
	cancel context.CancelFunc
}

func (e *env) start(t *testing.T, c cli, args ...string) *background {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	b := &background{cancel: cancel}
	switch c {
	case stock:
		b.cmd = exec.CommandContext(ctx, stockKubectl, args...)
	default:
		b.cmd = exec.CommandContext(ctx, e.bin, append([]string{"kubectl"}, args...)...)
	}
	b.cmd.Env = []string{"KUBECONFIG=" + e.kubeconfig, "HOME=" + e.home, "PATH=" + os.Getenv("PATH")}
	b.cmd.Stdout, b.cmd.Stderr = &b.out, &b.out
	if err := b.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cancel)
	return b
}

// stop interrupts the run and returns what it printed.
func (b *background) stop() string {
	_ = b.cmd.Process.Signal(syscall.SIGINT)
	done := make(chan struct{})
	go func() { _ = b.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		b.cancel()
		<-done
	}
	return b.out.String()
}

func TestGetWatch(t *testing.T) {
	t.Parallel()
	ns := getNamespace(t)
	for _, mode := range [][]string{
		{"-w"},
		{"--watch-only"},
		{"-w", "--output-watch-events"},
		{"-w", "-o", "name"},
	} {
		t.Run(strings.Join(mode, " "), func(t *testing.T) {
			args := append([]string{"get", "cm", "-n", ns}, mode...)
			runs := []*background{suite.start(t, stock, args...), suite.start(t, bundled, args...)}
			time.Sleep(time.Second)
			name := "watched-" + strings.NewReplacer("-", "", " ", "").Replace(strings.Join(mode, ""))
			suite.mustRun(t, "", "create", "configmap", name, "-n", ns)
			suite.mustRun(t, "", "label", "configmap", name, "-n", ns, "seen=yes")
			suite.mustRun(t, "", "delete", "configmap", name, "-n", ns)
			time.Sleep(time.Second)
			want, got := runs[0].stop(), runs[1].stop()
			if d := diffLines(mask(want, nil), mask(got, nil)); d != "" {
				t.Errorf("kubectl %s differs:\n%s\nstock:\n%s\nbundled:\n%s", strings.Join(args, " "), d, want, got)
			}
			if !strings.Contains(got, name) {
				t.Errorf("the watch did not show %s:\n%s", name, got)
			}
		})
	}
}
