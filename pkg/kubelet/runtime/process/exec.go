package process

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"unsafe"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// execCommand builds cmd as it runs in a container: its env and working
// dir, its mount namespace when it has volumes, its network and UTS
// namespaces in a pod with a network of its own, a process group of its
// own; in a busybox container its programs are busybox's.
func (r *Runtime) execCommand(ctx context.Context, id string, cmd []string) (*exec.Cmd, error) {
	if len(cmd) == 0 {
		return nil, errors.New("exec: empty command")
	}
	r.mu.Lock()
	c, ok := r.containers[id]
	if !ok {
		r.mu.Unlock()
		return nil, fmt.Errorf("container %s: %w", id, kruntime.ErrNotFound)
	}
	if c.status.State != kruntime.ContainerRunning {
		r.mu.Unlock()
		return nil, fmt.Errorf("exec in container %s: not running", id)
	}
	cfg, pid, multicall := c.cfg, c.status.PID, c.multicall
	ownNet, ownUTS, ownIPC := false, false, false
	ownMount := len(cfg.Mounts) > 0 || cfg.Security != nil && cfg.Security.ReadOnlyRootfs
	if s, ok := r.sandboxes[c.status.SandboxID]; ok {
		ownNet = s.NetNS != ""
		ownUTS = ownNet && s.Config.Hostname != ""
		ownIPC = s.IPCNS != ""
		// The pod's resolv.conf and /etc/hosts are mounts of its own.
		ownMount = ownMount || ownNet && (s.Config.DNS != nil || s.Config.Hosts != nil)
	}
	r.mu.Unlock()
	creds, err := r.credentials(cfg)
	if err != nil {
		return nil, fmt.Errorf("exec in container %s: %w", id, err)
	}

	if _, err := exec.LookPath(cmd[0]); err != nil {
		// A program of the image (exec probes run often: look the
		// image up only then).
		if image, _, err := r.entrypoints.lookup(ctx, cfg.Image); err == nil {
			cmd = imageCommand(image, cfg.Image, cmd, r.builtins)
		}
	}
	argv := append(creds, r.multicall.command(multicall, cmd)...)
	var enter []string
	if ownMount {
		// Entering a mount namespace moves to its root: --wd keeps the
		// container's working directory (that of its process).
		enter = append(enter, "--mount", "--wd")
	}
	if ownNet {
		enter = append(enter, "--net")
	}
	if ownUTS {
		enter = append(enter, "--uts")
	}
	if ownIPC {
		enter = append(enter, "--ipc")
	}
	if len(enter) > 0 {
		argv = append(append(append([]string{"nsenter", "--target", strconv.Itoa(pid)}, enter...), "--"), argv...)
	}
	x := exec.CommandContext(ctx, argv[0], argv[1:]...)
	x.Env = environ(cfg.Env)
	x.Dir = cfg.WorkingDir
	if x.Dir == "" {
		x.Dir = r.workDir(id)
		if _, err := os.Stat(x.Dir); err != nil || cfg.User != nil {
			// A container started before working dirs of their own, or
			// of another user (see startShim).
			x.Dir = "/"
		}
	}
	x.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	x.Cancel = func() error { return syscall.Kill(-x.Process.Pid, syscall.SIGKILL) }
	return x, nil
}

// Exec runs cmd with the container's environment, attached to the streams
// (through a pseudo-terminal with TTY).
func (r *Runtime) Exec(ctx context.Context, id string, cmd []string, s kruntime.ExecStreams) (int32, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	x, err := r.execCommand(ctx, id, cmd)
	if err != nil {
		return 0, err
	}
	var copies sync.WaitGroup
	var stdin io.WriteCloser
	if s.TTY {
		master, slave, err := openPTY()
		if err != nil {
			return 0, fmt.Errorf("exec: %w", err)
		}
		defer func() { _ = master.Close() }()
		x.Stdin, x.Stdout, x.Stderr = slave, slave, slave
		// The terminal becomes the controlling one of a new session.
		x.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
		x.Cancel = func() error { return syscall.Kill(-x.Process.Pid, syscall.SIGKILL) }
		if err := x.Start(); err != nil {
			_ = slave.Close()
			return 0, fmt.Errorf("exec %q: %w", cmd[0], err)
		}
		_ = slave.Close()
		if s.Stdout != nil {
			// Reading the master fails with EIO once the command and its
			// children closed the terminal.
			copies.Go(func() { _, _ = io.Copy(s.Stdout, master) })
		}
		if s.Stdin != nil {
			stdin = master
		}
		go forwardResizes(ctx, s.Resize, func(sz kruntime.TerminalSize) error {
			_ = setWinsize(master, sz)
			return nil
		})
	} else {
		if s.Stdin != nil {
			p, err := x.StdinPipe()
			if err != nil {
				return 0, fmt.Errorf("exec: %w", err)
			}
			stdin = p
		}
		x.Stdout, x.Stderr = s.Stdout, s.Stderr
		if err := x.Start(); err != nil {
			return 0, fmt.Errorf("exec %q: %w", cmd[0], err)
		}
	}
	if stdin != nil {
		// Not waited for: the reader may block after the command exits.
		go func() {
			_, _ = io.Copy(stdin, s.Stdin)
			if !s.TTY {
				_ = stdin.Close()
			} else {
				_, _ = stdin.Write([]byte{4}) // ^D: end of input on a terminal
			}
		}()
	}
	err = x.Wait()
	copies.Wait()
	if ctx.Err() != nil {
		return 0, fmt.Errorf("exec %q: %w", cmd[0], ctx.Err())
	}
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		code := int32(exitErr.ExitCode())
		if code < 0 {
			code = 137
		}
		return code, nil
	case err != nil:
		return 0, fmt.Errorf("exec %q: %w", cmd[0], err)
	}
	return 0, nil
}

// openPTY opens a new pseudo-terminal pair.
func openPTY() (master, slave *os.File, err error) {
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("open pty: %w", err)
	}
	var unlock int32
	if err := ioctl(m, syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); err != nil {
		_ = m.Close()
		return nil, nil, fmt.Errorf("unlock pty: %w", err)
	}
	var n uint32
	if err := ioctl(m, syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); err != nil {
		_ = m.Close()
		return nil, nil, fmt.Errorf("pty number: %w", err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		_ = m.Close()
		return nil, nil, fmt.Errorf("open pty: %w", err)
	}
	return m, s, nil
}

func setWinsize(f *os.File, sz kruntime.TerminalSize) error {
	ws := struct{ rows, cols, x, y uint16 }{sz.Height, sz.Width, 0, 0}
	return ioctl(f, syscall.TIOCSWINSZ, uintptr(unsafe.Pointer(&ws)))
}

func ioctl(f *os.File, req uint, arg uintptr) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var errno syscall.Errno
	if err := rc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, uintptr(req), arg)
	}); err != nil {
		return err
	}
	if errno != 0 {
		return errno
	}
	return nil
}

// forwardResizes hands every terminal size of resizes (nil: none) to
// apply until ctx ends, resizes closes or apply fails.
func forwardResizes(ctx context.Context, resizes <-chan kruntime.TerminalSize, apply func(kruntime.TerminalSize) error) {
	if resizes == nil {
		return
	}
	for {
		select {
		case <-ctx.Done():
			return
		case sz, ok := <-resizes:
			if !ok || apply(sz) != nil {
				return
			}
		}
	}
}
