package process

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The shim.
//
// A container's process is not a child of the kubelet but of a shim: a
// small re-exec of the kubelet's own binary (Options.ShimCommand, which is
// `kubecore kubelet process-shim SPEC` in the real binary) that starts the
// command and waits for it. The kubelet could wait for its own children
// itself, but only while it lives: a process's exit status goes to its
// parent and nobody else, so after a kubelet restart the exit code of a
// container it did not start would be lost. The shim is that parent for
// the container's whole life, and it writes the exit status to a file the
// runtime reads, whoever and whenever that is.
//
// The protocol, all files in the container's state directory:
//
//  1. The runtime writes spec.json (argv, env, working dir, log path) and
//     starts the shim in a new session (setsid), so that no signal for the
//     kubelet's process group or terminal reaches it, with a pipe as fd 3.
//  2. The shim starts the command in its own process group (the container's
//     pgid is its PID), its stdout and stderr piped through the shim into
//     the log file as CRI log lines (timestamp, stream, tag), which it
//     rotates by size (logrotate.go), then
//     writes "ok PID STARTTIME\n" to fd 3 and closes it, or "error MSG\n"
//     when the command cannot be started. STARTTIME is field 22 of
//     /proc/PID/stat: with the boot ID it tells a process from a later one
//     that reuses its PID.
//  3. The shim waits for the command, kills what is left of its process
//     group, writes exit.json atomically (a rename) and exits.
//
// The runtime, while it is the shim's parent, learns of the exit by
// waiting for the shim; a runtime that re-adopted the container after a
// restart polls for exit.json and for the shim's death. A shim that died
// without writing exit.json (killed with SIGKILL) leaves the exit status
// unknown: the container is reported exited with 255 once its process is
// gone.
//
// The shim catches SIGTERM, SIGINT and SIGHUP (and drops them) rather than
// ignoring them, since an ignored signal would stay ignored in the command
// it execs.

// ShimSubcommand is the argument that selects the shim: a binary whose
// Options.ShimCommand is [binary, ..., ShimSubcommand] calls RunShim with
// the arguments after it.
const ShimSubcommand = "process-shim"

// shimSpec is what the shim runs, from spec.json.
type shimSpec struct {
	Argv    []string `json:"argv"`
	Env     []string `json:"env"`
	Dir     string   `json:"dir"`
	LogPath string   `json:"logPath,omitempty"`
	// LogMaxSize, when positive, rotates the log file at that many bytes,
	// keeping LogMaxFiles files (see rotatingLog).
	LogMaxSize  int64 `json:"logMaxSize,omitempty"`
	LogMaxFiles int   `json:"logMaxFiles,omitempty"`
	// ExitPath is where the shim writes the exit status.
	ExitPath string `json:"exitPath"`
	// AttachSocket, when set, is where the shim serves attach (see
	// attach.go); Stdin, StdinOnce and TTY are the container's.
	AttachSocket string `json:"attachSocket,omitempty"`
	Stdin        bool   `json:"stdin,omitempty"`
	StdinOnce    bool   `json:"stdinOnce,omitempty"`
	TTY          bool   `json:"tty,omitempty"`
}

// exitStatus is exit.json.
type exitStatus struct {
	ExitCode   int32     `json:"exitCode"`
	Signal     int32     `json:"signal,omitempty"`
	FinishedAt time.Time `json:"finishedAt"`
}

// RunShim is the shim's main: args is the path of its spec.json. It returns
// the shim's exit code, 0 once the command ran and its status is written.
func RunShim(args []string) int {
	if len(args) != 1 {
		fmt.Fprintf(os.Stderr, "usage: %s SPEC\n", ShimSubcommand)
		return 2
	}
	// Not passed on to the command, which would hold the pipe open.
	syscall.CloseOnExec(3)
	status := os.NewFile(3, "status")
	report := func(format string, a ...any) {
		if status != nil {
			_, _ = fmt.Fprintf(status, format, a...)
			_ = status.Close()
			status = nil
		}
	}
	defer report("error the shim ended without starting the command\n")
	if err := runShim(args[0], report); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", ShimSubcommand, err)
		return 1
	}
	return 0
}

func runShim(specPath string, report func(string, ...any)) error {
	b, err := os.ReadFile(specPath)
	if err != nil {
		report("error read shim spec: %s\n", oneLine(err))
		return err
	}
	var spec shimSpec
	if err := json.Unmarshal(b, &spec); err != nil || len(spec.Argv) == 0 {
		report("error bad shim spec %s: %v\n", specPath, err)
		return fmt.Errorf("shim spec %s: %w", specPath, err)
	}
	// Caught, not ignored: see the comment at the top.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)

	// The command is looked up in the container's PATH.
	for _, kv := range spec.Env {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			_ = os.Setenv("PATH", p)
		}
	}
	cmd := exec.Command(spec.Argv[0], spec.Argv[1:]...)
	cmd.Env, cmd.Dir = spec.Env, spec.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var attach *attachServer
	if spec.AttachSocket != "" {
		if attach, err = listenAttach(spec.AttachSocket, spec.StdinOnce); err != nil {
			report("error %s\n", oneLine(err))
			return err
		}
		defer attach.close()
	}
	var log *criLog
	if spec.LogPath != "" {
		f, err := openRotatingLog(spec.LogPath, spec.LogMaxSize, spec.LogMaxFiles)
		if err != nil {
			report("error log file: %s\n", oneLine(err))
			return err
		}
		defer func() { _ = f.Close() }()
		log = &criLog{w: f}
	}
	var copies sync.WaitGroup
	// copyOutput copies one output stream to the log and attached clients.
	copyOutput := func(r io.Reader, stream string, kind byte) {
		copies.Go(func() {
			if attach != nil {
				r := io.TeeReader(r, attach.writer(kind))
				if log == nil {
					_, _ = io.Copy(io.Discard, r)
					return
				}
				log.copyLines(r, stream)
				return
			}
			log.copyLines(r, stream)
		})
	}
	// The child's ends, closed here once it has them.
	var childEnds []*os.File
	fail := func(what string, err error) error {
		for _, f := range childEnds {
			_ = f.Close()
		}
		report("error %s: %s\n", what, oneLine(err))
		return err
	}
	switch {
	case spec.TTY && attach != nil:
		master, slave, err := openPTY()
		if err != nil {
			return fail("terminal", err)
		}
		defer func() { _ = master.Close() }()
		childEnds = append(childEnds, slave)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
		// The terminal becomes the controlling one of a new session.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
		attach.tty = master
		if spec.Stdin {
			attach.stdin = master
		}
		// Reading the master fails (EIO) once every holder of the
		// terminal has closed it.
		copyOutput(master, "stdout", frameStdout)
	case log != nil || attach != nil:
		for _, stream := range []string{"stdout", "stderr"} {
			pr, pw, err := os.Pipe()
			if err != nil {
				return fail("output pipe", err)
			}
			kind := frameStdout
			if stream == "stdout" {
				cmd.Stdout = pw
			} else {
				cmd.Stderr, kind = pw, frameStderr
			}
			childEnds = append(childEnds, pw)
			defer func() { _ = pr.Close() }()
			copyOutput(pr, stream, kind)
		}
		if spec.Stdin && attach != nil {
			pr, pw, err := os.Pipe()
			if err != nil {
				return fail("input pipe", err)
			}
			cmd.Stdin, attach.stdin = pr, pw
			childEnds = append(childEnds, pr)
		}
	}
	err = cmd.Start()
	for _, f := range childEnds {
		_ = f.Close()
	}
	if err != nil {
		report("error %s\n", oneLine(err))
		return err
	}
	if attach != nil {
		go attach.serve()
	}
	pid := cmd.Process.Pid
	start, _ := procStartTime(pid)
	report("ok %d %d\n", pid, start)

	err = cmd.Wait()
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	// The output ends when the last process holding it exits; one that
	// left the process group could hold it for ever.
	copied := make(chan struct{})
	go func() { copies.Wait(); close(copied) }()
	select {
	case <-copied:
	case <-time.After(2 * time.Second):
	}
	st := exitStatus{FinishedAt: time.Now()}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok {
		if ws.Signaled() {
			st.Signal = int32(ws.Signal())
			st.ExitCode = 128 + st.Signal
		} else {
			st.ExitCode = int32(ws.ExitStatus())
		}
	} else if err != nil {
		st.ExitCode = 1
	}
	out, _ := json.Marshal(st)
	return writeFileAtomic(spec.ExitPath, out)
}

func oneLine(err error) string { return strings.ReplaceAll(err.Error(), "\n", " ") }

// writeFileAtomic writes b to path through a temporary file and a rename,
// so that a reader sees all of it or nothing.
func writeFileAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// procStartTime is when a process started, in clock ticks after boot
// (field 22 of /proc/PID/stat); a zombie counts as gone.
func procStartTime(pid int) (uint64, error) {
	if pid <= 0 {
		return 0, errors.New("no process")
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	return parseStat(string(b))
}

// parseStat reads the state and start time of a /proc/PID/stat line. The
// command name (field 2) is in parentheses and may hold anything, so the
// fields are counted from the last ')'.
func parseStat(s string) (uint64, error) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, errors.New("malformed stat")
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state); field 22 is f[19].
	if len(f) < 20 {
		return 0, errors.New("malformed stat")
	}
	if f[0] == "Z" || f[0] == "X" {
		return 0, errors.New("process has exited")
	}
	return strconv.ParseUint(f[19], 10, 64)
}

// alive says whether pid is still the process that started at start.
func alive(pid int, start uint64) bool {
	got, err := procStartTime(pid)
	return err == nil && got == start
}

// bootID names the current boot: start times count from it.
func bootID() string {
	b, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	return strings.TrimSpace(string(b))
}

// criLog writes a container's output in the CRI log format that the
// kubelet's log reader (and Kubernetes') parses, one entry a line:
//
//	2016-10-06T00:17:09.669794202Z stdout F the line
//
// with tag P for the parts of a line longer than maxLogLine.
type criLog struct {
	mu sync.Mutex
	w  io.Writer
}

const maxLogLine = 16 << 10

func (l *criLog) copyLines(r io.Reader, stream string) {
	br := bufio.NewReaderSize(r, maxLogLine)
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			tag := "P"
			if line[len(line)-1] == '\n' {
				tag, line = "F", line[:len(line)-1]
			}
			l.mu.Lock()
			_, _ = fmt.Fprintf(l.w, "%s %s %s %s\n", time.Now().UTC().Format(time.RFC3339Nano), stream, tag, line)
			l.mu.Unlock()
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return
		}
	}
}
