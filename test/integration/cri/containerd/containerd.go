// Package containerd starts a containerd of its own for tests of the
// kubelet's CRI runtime, configured for these machines, with small local
// images (a pause binary and busybox-static) built without docker.
package containerd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Images of the tests, imported into containerd's k8s.io namespace.
const (
	PauseImage   = "kubecore.test/pause:1"
	BusyboxImage = "kubecore.test/busybox:1"
	HTTPDImage   = "kubecore.test/httpd:1"
)

// Containerd is a containerd the tests start, with its root, state,
// socket and config under a temp dir.
type Containerd struct {
	dir      string
	socket   string
	cmd      *exec.Cmd
	done     chan error
	logFile  *os.File
	runState []string // entries of /run/containerd before the start
	hadRun   bool
	// CgroupRoot is where the tests' pods get their cgroups (a kubelet's
	// --cgroup-root); removed from every controller by Stop.
	CgroupRoot string
}

// Start starts containerd with a config for these machines:
// cgroupfs, overlayfs, restrict_oom_score_adj (the VMs lack
// CAP_SYS_RESOURCE), host network only, the local pause image as the
// sandbox image; it then imports the test images.
func Start(dir, repoRoot string) (*Containerd, error) {
	if os.Geteuid() != 0 {
		return nil, errors.New("the CRI tests run containerd, which needs root")
	}
	for _, bin := range []string{"containerd", "ctr", "runc", "containerd-shim-runc-v2"} {
		if _, err := exec.LookPath(bin); err != nil {
			return nil, fmt.Errorf("%s is not installed; run hack/install-containerd.sh (as root): %w", bin, err)
		}
	}
	c := &Containerd{dir: dir, socket: filepath.Join(dir, "containerd.sock"), done: make(chan error, 1),
		CgroupRoot: fmt.Sprintf("/kubepods/kubecore-test-%d", os.Getpid())}
	if entries, err := os.ReadDir("/run/containerd"); err == nil {
		c.hadRun = true
		for _, e := range entries {
			c.runState = append(c.runState, e.Name())
		}
		if s, err := os.ReadDir("/run/containerd/s"); err == nil {
			for _, e := range s {
				c.runState = append(c.runState, "s/"+e.Name())
			}
		}
	}
	for _, d := range []string{"root", "state", "opt", "cni/bin", "cni/conf", "runc"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	config := fmt.Sprintf(`version = 2
root = %[1]q
state = %[2]q
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]

[grpc]
  address = %[3]q

[ttrpc]
  address = %[4]q

[plugins."io.containerd.internal.v1.opt"]
  path = %[5]q

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = %[6]q
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = %[7]q
    conf_dir = %[8]q
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        Root = %[9]q
`, filepath.Join(dir, "root"), filepath.Join(dir, "state"), c.socket, c.socket+".ttrpc", filepath.Join(dir, "opt"),
		PauseImage, filepath.Join(dir, "cni/bin"), filepath.Join(dir, "cni/conf"), filepath.Join(dir, "runc"))
	configPath := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(configPath, []byte(config), 0o644); err != nil {
		return nil, err
	}
	logFile, err := os.Create(filepath.Join(dir, "containerd.log"))
	if err != nil {
		return nil, err
	}
	c.logFile = logFile
	c.cmd = exec.Command("containerd", "--config", configPath)
	c.cmd.Stdout, c.cmd.Stderr = logFile, logFile
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start containerd: %w", err)
	}
	go func() { c.done <- c.cmd.Wait() }()
	if err := c.waitReady(20 * time.Second); err != nil {
		c.Stop()
		return nil, err
	}

	imagesDir := filepath.Join(dir, "images")
	if err := os.MkdirAll(imagesDir, 0o755); err != nil {
		c.Stop()
		return nil, err
	}
	images, err := TestImages(repoRoot, imagesDir)
	if err != nil {
		c.Stop()
		return nil, err
	}
	for i, img := range images {
		path := filepath.Join(imagesDir, fmt.Sprintf("image-%d.tar", i))
		if err := img.WriteOCIArchive(path); err != nil {
			c.Stop()
			return nil, err
		}
		if out, err := c.ctr("images", "import", path); err != nil {
			c.Stop()
			return nil, fmt.Errorf("import image %s: %w: %s", img.Name, err, out)
		}
	}
	return c, nil
}

func (c *Containerd) ctr(args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return exec.CommandContext(ctx, "ctr", append([]string{"-n", "k8s.io", "--address", c.socket}, args...)...).CombinedOutput()
}

// Endpoint is the CRI endpoint of this containerd.
func (c *Containerd) Endpoint() string { return "unix://" + c.socket }

func (c *Containerd) waitReady(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case err := <-c.done:
			return fmt.Errorf("containerd exited: %v; its log:\n%s", err, c.Log())
		default:
		}
		if _, err := c.ctr("version"); err == nil {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("containerd not ready after %s; its log:\n%s", timeout, c.Log())
}

// Log is the end of containerd's log.
func (c *Containerd) Log() string {
	b, _ := os.ReadFile(filepath.Join(c.dir, "containerd.log"))
	if len(b) > 8<<10 {
		b = b[len(b)-8<<10:]
	}
	return string(b)
}

// Stop removes every sandbox left, stops containerd and removes what it
// made outside its dir: cgroups, shim sockets and runc state under
// /run/containerd.
func (c *Containerd) Stop() {
	if out, err := c.ctr("tasks", "ls", "-q"); err == nil {
		for _, id := range strings.Fields(string(out)) {
			_, _ = c.ctr("tasks", "kill", "-s", "SIGKILL", id)
		}
		time.Sleep(200 * time.Millisecond)
		for _, id := range strings.Fields(string(out)) {
			_, _ = c.ctr("tasks", "delete", "-f", id)
		}
	}
	if c.cmd.Process != nil {
		_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-c.done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
			<-c.done
		}
	}
	_ = c.logFile.Close()
	c.cleanCgroups()
	c.cleanRunState()
	// Overlay mounts of containers left behind would keep the dir busy.
	if b, err := os.ReadFile("/proc/self/mountinfo"); err == nil {
		var mounts []string
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) > 4 && strings.HasPrefix(f[4], c.dir) {
				mounts = append(mounts, f[4])
			}
		}
		slices.Reverse(mounts)
		for _, m := range mounts {
			_ = syscall.Unmount(m, syscall.MNT_DETACH)
		}
	}
}

// cleanCgroups removes the tests' cgroups, deepest first, from every
// controller; and kubepods itself when it is left empty.
func (c *Containerd) cleanCgroups() {
	controllers, _ := filepath.Glob("/sys/fs/cgroup/*")
	for _, ctl := range controllers {
		root := filepath.Join(ctl, c.CgroupRoot)
		var dirs []string
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, p)
			}
			return nil
		})
		slices.Reverse(dirs)
		for _, d := range dirs {
			_ = os.Remove(d)
		}
		_ = os.Remove(filepath.Join(ctl, "kubepods")) // only if empty
	}
}

// cleanRunState removes what containerd made under /run/containerd
// during the tests.
func (c *Containerd) cleanRunState() {
	if !c.hadRun {
		_ = os.RemoveAll("/run/containerd")
		return
	}
	var names []string
	entries, _ := os.ReadDir("/run/containerd/s")
	for _, e := range entries {
		names = append(names, "s/"+e.Name())
	}
	top, _ := os.ReadDir("/run/containerd")
	for _, e := range top {
		names = append(names, e.Name())
	}
	for _, n := range names {
		if !slices.Contains(c.runState, n) {
			_ = os.RemoveAll(filepath.Join("/run/containerd", n))
		}
	}
}
