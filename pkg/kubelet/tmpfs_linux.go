package kubelet

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	corev1 "kubecore.io/api/core/v1"
)

// mountMemoryEmptyDir makes dir, an emptyDir of medium Memory, a tmpfs of
// mode 0777 (its sizeLimit, when set, as the size), unless it is one
// already. It needs root, as Kubernetes' kubelet does.
func mountMemoryEmptyDir(dir string, src *corev1.EmptyDirVolumeSource) error {
	mounts, err := mountPoints()
	if err != nil {
		return err
	}
	if slices.Contains(mounts, dir) {
		return nil
	}
	if os.Geteuid() != 0 {
		return fmt.Errorf("an emptyDir of medium Memory is a tmpfs mount, which needs the kubelet to run as root")
	}
	opts := "mode=0777"
	if src.SizeLimit != nil && src.SizeLimit.Value() > 0 {
		opts += ",size=" + strconv.FormatInt(src.SizeLimit.Value(), 10)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, opts); err != nil {
		return fmt.Errorf("mount tmpfs on %s: %w", dir, err)
	}
	return nil
}

// unmountUnder unmounts every mount under dir (a pod's directory: its
// tmpfs emptyDirs), deepest first, before the directory is removed.
func unmountUnder(dir string) error {
	mounts, err := mountPoints()
	if err != nil {
		return err
	}
	prefix := filepath.Clean(dir) + string(filepath.Separator)
	var under []string
	for _, m := range mounts {
		if strings.HasPrefix(m, prefix) {
			under = append(under, m)
		}
	}
	slices.SortFunc(under, func(a, b string) int { return len(b) - len(a) })
	for _, m := range under {
		if err := syscall.Unmount(m, syscall.MNT_DETACH); err != nil && err != syscall.EINVAL && err != syscall.ENOENT {
			return fmt.Errorf("unmount %s: %w", m, err)
		}
	}
	return nil
}

// mountPoints lists the mount points of the kubelet's mount namespace.
func mountPoints() ([]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("read mounts: %w", err)
	}
	defer func() { _ = f.Close() }()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		// The mount point, with space, tab, newline and backslash in octal.
		p, err := strconv.Unquote(`"` + strings.ReplaceAll(fields[4], `"`, `\"`) + `"`)
		if err != nil {
			p = fields[4]
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read mounts: %w", err)
	}
	return out, nil
}
