package process

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// Container security, as the runtimes of Kubernetes apply it.
//
// The last wrapper before a container's command (and an exec's) is
// setpriv(1), which the runtime's other wrappers (nsenter, unshare, the
// mount script) run as root before it: it switches to the container's
// user and groups, limits the capabilities, and sets no_new_privs.
//
//   - Capabilities: a container gets the default set of container runtimes
//     (defaultCapabilities) with securityContext.capabilities.add (ALL:
//     every one) added and drop (ALL: every one) dropped, in containerd's
//     order (add ALL, drop ALL, then each add, then each drop); a
//     privileged one keeps every capability. The set bounds the process
//     (bounding set). A process of uid 0 gets it as its permitted,
//     effective and inheritable sets; one of another user starts with
//     none but the added capabilities, given to it as ambient (and
//     inheritable) ones, as containerd does for non-root users.
//   - no_new_privs (allowPrivilegeEscalation: false): setuid programs and
//     file capabilities no longer raise what a process may do.
//
// A kubelet that is not root cannot change capabilities (nor has any to
// drop); it still sets no_new_privs, which needs no privilege.

// capabilityNames are the Linux capabilities by number, as setpriv and
// capabilities(7) name them (without "cap_").
var capabilityNames = [...]string{
	"chown", "dac_override", "dac_read_search", "fowner", "fsetid", "kill", "setgid", "setuid",
	"setpcap", "linux_immutable", "net_bind_service", "net_broadcast", "net_admin", "net_raw",
	"ipc_lock", "ipc_owner", "sys_module", "sys_rawio", "sys_chroot", "sys_ptrace", "sys_pacct",
	"sys_admin", "sys_boot", "sys_nice", "sys_resource", "sys_time", "sys_tty_config", "mknod",
	"lease", "audit_write", "audit_control", "setfcap", "mac_override", "mac_admin", "syslog",
	"wake_alarm", "block_suspend", "audit_read", "perfmon", "bpf", "checkpoint_restore",
}

// defaultCapabilities are what containerd and CRI-O give a container
// that neither adds nor drops any.
var defaultCapabilities = []string{
	"chown", "dac_override", "fsetid", "fowner", "mknod", "net_raw", "setgid", "setuid",
	"setfcap", "setpcap", "net_bind_service", "sys_chroot", "kill", "audit_write",
}

// capSet is a set of capabilities, bit n for capability n.
type capSet uint64

const allCaps = capSet(1)<<len(capabilityNames) - 1

// capNumber is the number of a capability given as the API gives it
// (NET_ADMIN, CAP_NET_ADMIN, net_admin).
func capNumber(name string) (int, bool) {
	n := strings.TrimPrefix(strings.ToLower(name), "cap_")
	i := slices.Index(capabilityNames[:], n)
	return i, i >= 0
}

func capsOf(names []string) (capSet, error) {
	var s capSet
	for _, name := range names {
		if strings.EqualFold(name, "ALL") {
			continue
		}
		n, ok := capNumber(name)
		if !ok {
			return 0, fmt.Errorf("unknown capability %q", name)
		}
		s |= 1 << n
	}
	return s, nil
}

// setprivArg renders s for setpriv's --bounding-set, --inh-caps and
// --ambient-caps: "-all" then each capability of s.
func (s capSet) setprivArg() string {
	var b strings.Builder
	b.WriteString("-all")
	for n, name := range capabilityNames {
		if s&(1<<n) != 0 {
			b.WriteString(",+" + name)
		}
	}
	return b.String()
}

// containerCapabilities is the container's capability set (bounding),
// and the capabilities it added (ambient for a non-root user).
func containerCapabilities(sec *kruntime.ContainerSecurity) (set, added capSet, err error) {
	if sec == nil {
		sec = &kruntime.ContainerSecurity{}
	}
	if sec.Privileged {
		return allCaps, 0, nil
	}
	set, _ = capsOf(defaultCapabilities)
	add, err := capsOf(sec.CapAdd)
	if err != nil {
		return 0, 0, err
	}
	drop, err := capsOf(sec.CapDrop)
	if err != nil {
		return 0, 0, err
	}
	if slices.ContainsFunc(sec.CapAdd, isAll) {
		set, add = allCaps, allCaps
	}
	if slices.ContainsFunc(sec.CapDrop, isAll) {
		set = 0
	}
	set = (set | add) &^ drop
	return set, add &^ drop, nil
}

func isAll(name string) bool { return strings.EqualFold(name, "ALL") }

// credentials is the prefix of a command line that runs the rest with the
// container's user, capabilities and no_new_privs, after the runtime's
// wrappers (mounts, namespaces) did what needs root; none when there is
// nothing to change.
func (r *Runtime) credentials(cfg kruntime.ContainerConfig) ([]string, error) {
	sec := cfg.Security
	if sec == nil {
		sec = &kruntime.ContainerSecurity{}
	}
	var args []string
	if u := cfg.User; u != nil {
		groups := "--clear-groups"
		if len(u.SupplementalGroups) > 0 {
			ids := make([]string, len(u.SupplementalGroups))
			for i, g := range u.SupplementalGroups {
				ids[i] = strconv.FormatInt(g, 10)
			}
			groups = "--groups=" + strings.Join(ids, ",")
		}
		args = append(args, "--reuid="+strconv.FormatInt(u.UID, 10), "--regid="+strconv.FormatInt(u.GID, 10), groups)
	}
	if r.root && !sec.Privileged {
		set, added, err := containerCapabilities(sec)
		if err != nil {
			return nil, err
		}
		if u := cfg.User; u != nil && u.UID != 0 {
			args = append(args, "--inh-caps="+(added&set).setprivArg(), "--ambient-caps="+(added&set).setprivArg())
		} else {
			args = append(args, "--inh-caps="+set.setprivArg())
		}
		args = append(args, "--bounding-set="+set.setprivArg())
	}
	if sec.NoNewPrivs {
		args = append(args, "--no-new-privs")
	}
	if len(args) == 0 {
		return nil, nil
	}
	return append(append([]string{"setpriv"}, args...), "--"), nil
}

// Sysctls and the pod's IPC namespace.
//
// A sandbox of a root runtime that does not share the node's IPC
// namespace (hostIPC) gets one of its own, pinned at
// sandboxes/<id>.ipc (a bind mount of the namespace, as the pod network
// pins its network namespace), which all its containers and execs enter.
// The pod's sysctls are written, before any container starts, under
// /proc/sys by a process in the pod's IPC and network namespaces: the
// kubelet admitted only namespaced ones, in namespaces the pod does not
// share with the node.

func (r *Runtime) ipcNamespacePath(id string) string {
	return filepath.Join(r.stateDir, "sandboxes", id+".ipc")
}

// makeIPCNamespace makes and pins a new IPC namespace at path.
func makeIPCNamespace(ctx context.Context, path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDONLY, 0o600)
	if err != nil {
		return fmt.Errorf("IPC namespace file: %w", err)
	}
	_ = f.Close()
	if out, err := exec.CommandContext(ctx, "unshare", "--ipc="+path, "true").CombinedOutput(); err != nil {
		_ = os.Remove(path)
		return fmt.Errorf("make IPC namespace: %w: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// removeNamespace unpins a namespace made by makeIPCNamespace.
func removeNamespace(path string) error {
	if path == "" {
		return nil
	}
	if err := syscall.Unmount(path, syscall.MNT_DETACH); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOENT) {
		return fmt.Errorf("unmount %s: %w", path, err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove IPC namespace: %w", err)
	}
	return nil
}

// sysctlPath is where sysctl name is under /proc/sys: '.' separates its
// parts, or '/' when it comes first (the parts may then hold dots).
func sysctlPath(name string) string {
	if i := strings.IndexAny(name, "./"); i >= 0 && name[i] == '/' {
		return filepath.Join("/proc/sys", name)
	}
	return filepath.Join("/proc/sys", strings.ReplaceAll(name, ".", "/"))
}

// setSysctls writes the sysctls in the namespaces of the sandbox.
func setSysctls(ctx context.Context, s *kruntime.PodSandboxStatus) error {
	if len(s.Config.Sysctls) == 0 {
		return nil
	}
	var script strings.Builder
	script.WriteString("set -e\n")
	for _, kv := range s.Config.Sysctls {
		p := sysctlPath(kv.Key)
		if strings.Contains(kv.Key, "..") || !strings.HasPrefix(p, "/proc/sys/") {
			return fmt.Errorf("sysctl %q: not a sysctl name", kv.Key)
		}
		// Never the node's: only in a namespace of the pod's own.
		rel := strings.TrimPrefix(p, "/proc/sys/")
		switch {
		case strings.HasPrefix(rel, "net/"):
			if s.NetNS == "" {
				return fmt.Errorf("sysctl %q: the pod has no network namespace of its own", kv.Key)
			}
		case rel == "kernel/sem" || strings.HasPrefix(rel, "kernel/shm") || strings.HasPrefix(rel, "kernel/msg") || strings.HasPrefix(rel, "fs/mqueue/"):
			if s.IPCNS == "" {
				return fmt.Errorf("sysctl %q: the pod has no IPC namespace of its own", kv.Key)
			}
		default:
			return fmt.Errorf("sysctl %q: not namespaced", kv.Key)
		}
		fmt.Fprintf(&script, "printf '%%s\\n' %s >%s\n", quote(kv.Value), quote(p))
	}
	argv := []string{"sh", "-c", script.String()}
	var enter []string
	if s.NetNS != "" {
		enter = append(enter, "--net="+s.NetNS)
	}
	if s.IPCNS != "" {
		enter = append(enter, "--ipc="+s.IPCNS)
	}
	if len(enter) > 0 {
		argv = append(append(append([]string{"nsenter"}, enter...), "--"), argv...)
	}
	if out, err := exec.CommandContext(ctx, argv[0], argv[1:]...).CombinedOutput(); err != nil {
		return fmt.Errorf("set sysctls: %w: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// etcHostsPath is where a pod's processes look names up first.
const etcHostsPath = "/etc/hosts"

// setUpSandboxSecurity gives a new sandbox its IPC namespace and sets its
// sysctls.
func (r *Runtime) setUpSandboxSecurity(ctx context.Context, s *kruntime.PodSandboxStatus) error {
	if r.root && !s.Config.HostIPC {
		p := r.ipcNamespacePath(s.ID)
		if err := makeIPCNamespace(ctx, p); err != nil {
			return err
		}
		s.IPCNS = p
	}
	return setSysctls(ctx, s)
}

// readOnlyRootScript makes the container's root filesystem read-only:
// the process runtime has no root filesystem of the container's own, so
// in the container's private mount namespace every mount of the host (/
// first) becomes read-only but the container's volumes, the pod's files
// the runtime mounts (/etc/hosts, resolv.conf: rw in Kubernetes too) and
// the kernel's /proc, /sys and /dev. The host's mounts are untouched. A
// mount that cannot be remounted (one the host locked) fails the
// container only when it is /.
func readOnlyRootScript(mounts []kruntime.Mount) string {
	var b strings.Builder
	b.WriteString("awk '{print $5}' /proc/self/mountinfo | while read -r m; do\n")
	b.WriteString("  case \"$m\" in /proc|/proc/*|/sys|/sys/*|/dev|/dev/*) continue ;; esac\n")
	for _, m := range mounts {
		d := quote(m.ContainerPath)
		fmt.Fprintf(&b, "  case \"$m\" in %s|%s/*) continue ;; esac\n", d, d)
	}
	b.WriteString("  mount -o remount,bind,ro \"$m\" 2>/dev/null || [ \"$m\" != / ] || { echo 'kubecore: cannot make / read-only' >&2; exit 1; }\n")
	b.WriteString("done\n")
	return b.String()
}
