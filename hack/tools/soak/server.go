package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"kubecore.io/kubecore/test/utils/freeport"
)

// server is the all-in-one under test: started, killed with SIGKILL and
// started again on the same data dir and ports, so that clients carry on
// across restarts.
type server struct {
	bin, dataDir, logPath string
	args                  []string
	cmd                   *exec.Cmd
	exited                chan struct{}
	starts                int
}

// freePort finds a port below the kernel's ephemeral range, so that no
// outgoing connection takes it while all-in-one is down between a kill and
// its restart.
func freePort() (int, error) { return freeport.Get() }

func newServer(bin, dataDir string, extra []string) (*server, error) {
	apiPort, err := freePort()
	if err != nil {
		return nil, err
	}
	kubeletPort, err := freePort()
	if err != nil {
		return nil, err
	}
	args := append([]string{"all-in-one", "--data-dir", dataDir, "--secure-port", strconv.Itoa(apiPort),
		"--kubelet-port", strconv.Itoa(kubeletPort), "--runtime", "process", "--pod-network", "host", "--keep-pods"}, extra...)
	return &server{bin: bin, dataDir: dataDir, logPath: filepath.Join(filepath.Dir(dataDir), "all-in-one.log"), args: args}, nil
}

func (s *server) kubeconfig() string { return filepath.Join(s.dataDir, "admin.kubeconfig") }

// start runs all-in-one, its output appended to the log.
func (s *server) start() error {
	log, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("open server log: %w", err)
	}
	s.starts++
	fmt.Fprintf(log, "=== soak: start %d: %s %v\n", s.starts, s.bin, s.args)
	cmd := exec.Command(s.bin, s.args...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("start all-in-one: %w", err)
	}
	s.cmd, s.exited = cmd, make(chan struct{})
	go func() {
		_ = cmd.Wait()
		log.Close()
		close(s.exited)
	}()
	return nil
}

func (s *server) pid() int { return s.cmd.Process.Pid }

// running reports whether the current process has not exited.
func (s *server) running() bool {
	select {
	case <-s.exited:
		return false
	default:
		return true
	}
}

// waitReady polls /readyz until it answers 200, or the process exits.
func (s *server) waitReady(ctx context.Context, client *http.Client, host string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, host+"/readyz", nil)
		if err != nil {
			return err
		}
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-s.exited:
			return fmt.Errorf("all-in-one (pid %d) exited before ready; see %s", s.pid(), s.logPath)
		case <-ctx.Done():
			return fmt.Errorf("all-in-one not ready after %s; see %s", timeout, s.logPath)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// kill sends SIGKILL to the all-in-one process (by its PID) and waits
// for it to be gone.
func (s *server) kill() error {
	if err := syscall.Kill(s.pid(), syscall.SIGKILL); err != nil {
		return fmt.Errorf("kill -9 %d: %w", s.pid(), err)
	}
	<-s.exited
	return nil
}

// stop ends the server at the end of the run: SIGTERM, so that (with
// --keep-pods) the pods stay for cleanup by PID.
func (s *server) stop() {
	if !s.running() {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(60 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}
