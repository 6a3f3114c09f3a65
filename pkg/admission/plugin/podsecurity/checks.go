package podsecurity

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// Violation is one failed check: a short reason ("privileged") and the
// detail naming what fails it.
type Violation struct {
	Reason, Detail string
}

// check is one control of the Pod Security Standards, with Kubernetes' ID
// (the results are reported in the order of the IDs).
type check struct {
	id    string
	level Level
	// since is the first minor version the check applies to.
	since int
	// overrides are the checks of a lower level this one replaces.
	overrides []string
	run       func(p *podView, v Version) *Violation
}

// checks are every control; Evaluate picks those of a level and version.
var checks = sortedChecks([]check{
	{id: "allowPrivilegeEscalation", level: LevelRestricted, since: 8, run: checkAllowPrivilegeEscalation},
	{id: "appArmorProfile", level: LevelBaseline, run: checkAppArmor},
	{id: "capabilities_baseline", level: LevelBaseline, run: checkCapabilitiesBaseline},
	{id: "capabilities_restricted", level: LevelRestricted, since: 22, overrides: []string{"capabilities_baseline"}, run: checkCapabilitiesRestricted},
	{id: "hostNamespaces", level: LevelBaseline, run: checkHostNamespaces},
	{id: "hostPathVolumes", level: LevelBaseline, run: checkHostPathVolumes},
	{id: "hostPorts", level: LevelBaseline, run: checkHostPorts},
	{id: "hostProbesAndHostLifecycle", level: LevelBaseline, since: 34, run: checkProbeHosts},
	{id: "privileged", level: LevelBaseline, run: checkPrivileged},
	{id: "procMount", level: LevelBaseline, run: checkProcMount},
	{id: "restrictedVolumes", level: LevelRestricted, overrides: []string{"hostPathVolumes"}, run: checkRestrictedVolumes},
	{id: "runAsNonRoot", level: LevelRestricted, run: checkRunAsNonRoot},
	{id: "runAsUser", level: LevelRestricted, since: 23, run: checkRunAsUser},
	{id: "seLinuxOptions", level: LevelBaseline, run: checkSELinux},
	{id: "seccompProfile_baseline", level: LevelBaseline, run: checkSeccompBaseline},
	{id: "seccompProfile_restricted", level: LevelRestricted, since: 19, overrides: []string{"seccompProfile_baseline"}, run: checkSeccompRestricted},
	{id: "sysctls", level: LevelBaseline, run: checkSysctls},
	{id: "windowsHostProcess", level: LevelBaseline, run: checkHostProcess},
})

// sortedChecks orders checks by ID, byte-wise as Go sorts strings.
func sortedChecks(cs []check) []check {
	sort.Slice(cs, func(i, j int) bool { return cs[i].id < cs[j].id })
	return cs
}

// Evaluate runs the checks of lv on a pod (or a pod template) and returns
// the violations in the order of the checks; none for privileged.
func Evaluate(lv LevelVersion, meta *metav1.ObjectMeta, spec *corev1.PodSpec) []Violation {
	if lv.Level == LevelPrivileged {
		return nil
	}
	applies := func(c *check) bool {
		return c.level.rank() <= lv.Level.rank() && lv.Version.atLeast(c.since)
	}
	// The checks a higher level replaces (at most two); they are few, a
	// slice is cheaper than a map.
	var overridden []string
	for i := range checks {
		if applies(&checks[i]) {
			overridden = append(overridden, checks[i].overrides...)
		}
	}
	p := newPodView(meta, spec)
	var out []Violation
	for i := range checks {
		c := &checks[i]
		if !applies(c) || slices.Contains(overridden, c.id) {
			continue
		}
		if v := c.run(p, lv.Version); v != nil {
			out = append(out, *v)
		}
	}
	return out
}

// ForbiddenDetail joins violations as Kubernetes words them: "reason
// (detail), reason (detail)".
func ForbiddenDetail(vs []Violation) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.Reason
		if v.Detail != "" {
			parts[i] += " (" + v.Detail + ")"
		}
	}
	return strings.Join(parts, ", ")
}

// ForbiddenReason joins the reasons of violations only.
func ForbiddenReason(vs []Violation) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.Reason
	}
	return strings.Join(parts, ", ")
}

// container is the part of a container, init container or ephemeral
// container the checks read.
type container struct {
	name     string
	sc       *corev1.SecurityContext
	ports    []corev1.ContainerPort
	probes   [3]*corev1.Probe
	handlers [2]*corev1.LifecycleHandler
}

// podView is a pod's metadata and spec with its containers flattened.
type podView struct {
	meta       *metav1.ObjectMeta
	spec       *corev1.PodSpec
	psc        *corev1.PodSecurityContext
	containers []container
}

func newPodView(meta *metav1.ObjectMeta, spec *corev1.PodSpec) *podView {
	if meta == nil {
		meta = &metav1.ObjectMeta{}
	}
	p := &podView{meta: meta, spec: spec, psc: spec.SecurityContext,
		containers: make([]container, 0, len(spec.InitContainers)+len(spec.Containers)+len(spec.EphemeralContainers))}
	if p.psc == nil {
		p.psc = &corev1.PodSecurityContext{}
	}
	add := func(c *corev1.Container) {
		v := container{name: c.Name, sc: c.SecurityContext, ports: c.Ports, probes: [3]*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe}}
		if c.Lifecycle != nil {
			v.handlers = [2]*corev1.LifecycleHandler{c.Lifecycle.PostStart, c.Lifecycle.PreStop}
		}
		if v.sc == nil {
			v.sc = &corev1.SecurityContext{}
		}
		p.containers = append(p.containers, v)
	}
	for i := range spec.InitContainers {
		add(&spec.InitContainers[i])
	}
	for i := range spec.Containers {
		add(&spec.Containers[i])
	}
	for i := range spec.EphemeralContainers {
		add((*corev1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon))
	}
	return p
}

// windows reports a pod that declares the Windows OS, which the Linux-only
// restricted checks skip from 1.25.
func (p *podView) windows(v Version) bool {
	return v.atLeast(25) && p.spec.OS != nil && p.spec.OS.Name == corev1.Windows
}

// pluralize picks the singular or plural form for n.
func pluralize(one, many string, n int) string {
	if n == 1 {
		return one
	}
	return many
}

// joinQuote quotes and joins: `"a", "b"`.
func joinQuote(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

// containersPhrase is `container "a"` or `containers "a", "b"`.
func containersPhrase(names []string) string {
	return pluralize("container", "containers", len(names)) + " " + joinQuote(names)
}

// sortedSet returns the distinct items, sorted.
func sortedSet(items []string) []string {
	out := slices.Clone(items)
	slices.Sort(out)
	return slices.Compact(out)
}

func isTrue(b *bool) bool  { return b != nil && *b }
func isFalse(b *bool) bool { return b != nil && !*b }

func checkAllowPrivilegeEscalation(p *podView, v Version) *Violation {
	if p.windows(v) {
		return nil
	}
	var bad []string
	for _, c := range p.containers {
		if !isFalse(c.sc.AllowPrivilegeEscalation) {
			bad = append(bad, c.name)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return &Violation{"allowPrivilegeEscalation != false", containersPhrase(bad) + " must set securityContext.allowPrivilegeEscalation=false"}
}

// appArmorAnnotationPrefix is the deprecated per-container AppArmor
// annotation, still checked.
const appArmorAnnotationPrefix = "container.apparmor.security.beta.kubernetes.io/"

func checkAppArmor(p *podView, _ Version) *Violation {
	allowedType := func(t corev1.AppArmorProfileType) bool {
		return t == corev1.AppArmorProfileTypeRuntimeDefault || t == corev1.AppArmorProfileTypeLocalhost
	}
	var setters, values, bad []string
	if ap := p.psc.AppArmorProfile; ap != nil && !allowedType(ap.Type) {
		setters = append(setters, "pod")
		values = append(values, string(ap.Type))
	}
	for _, c := range p.containers {
		if ap := c.sc.AppArmorProfile; ap != nil && !allowedType(ap.Type) {
			bad = append(bad, c.name)
			values = append(values, string(ap.Type))
		}
	}
	if len(bad) > 0 {
		setters = append(setters, containersPhrase(bad))
	}
	values = sortedSet(values)
	var annotations []string
	for k, val := range p.meta.Annotations {
		if strings.HasPrefix(k, appArmorAnnotationPrefix) && val != "" && val != "runtime/default" && !strings.HasPrefix(val, "localhost/") {
			annotations = append(annotations, fmt.Sprintf("%s=%q", k, val))
		}
	}
	if len(annotations) > 0 {
		slices.Sort(annotations)
		values = append(values, annotations...)
		setters = append(setters, pluralize("annotation", "annotations", len(annotations)))
	}
	if len(setters) == 0 {
		return nil
	}
	return &Violation{
		pluralize("forbidden AppArmor profile", "forbidden AppArmor profiles", len(values)),
		strings.Join(setters, " and ") + " must not set AppArmor profile type to " + joinQuote(values),
	}
}

// baselineCapabilities are the capabilities a baseline container may add:
// the container runtimes' default set.
var baselineCapabilities = []string{
	"AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD",
	"NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT",
}

func checkCapabilitiesBaseline(p *podView, _ Version) *Violation {
	var bad, caps []string
	for _, c := range p.containers {
		if c.sc.Capabilities == nil {
			continue
		}
		found := false
		for _, cp := range c.sc.Capabilities.Add {
			if !slices.Contains(baselineCapabilities, string(cp)) {
				caps = append(caps, string(cp))
				found = true
			}
		}
		if found {
			bad = append(bad, c.name)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return &Violation{"non-default capabilities", containersPhrase(bad) + " must not include " + joinQuote(sortedSet(caps)) + " in securityContext.capabilities.add"}
}

func checkCapabilitiesRestricted(p *podView, v Version) *Violation {
	if p.windows(v) {
		return nil
	}
	var noDrop, badAdd, caps []string
	for _, c := range p.containers {
		var cs *corev1.Capabilities = c.sc.Capabilities
		if cs == nil || !slices.Contains(cs.Drop, "ALL") {
			noDrop = append(noDrop, c.name)
		}
		if cs == nil {
			continue
		}
		found := false
		for _, cp := range cs.Add {
			if cp != "NET_BIND_SERVICE" {
				caps = append(caps, string(cp))
				found = true
			}
		}
		if found {
			badAdd = append(badAdd, c.name)
		}
	}
	var details []string
	if len(noDrop) > 0 {
		details = append(details, containersPhrase(noDrop)+` must set securityContext.capabilities.drop=["ALL"]`)
	}
	if len(badAdd) > 0 {
		details = append(details, containersPhrase(badAdd)+" must not include "+joinQuote(sortedSet(caps))+" in securityContext.capabilities.add")
	}
	if len(details) == 0 {
		return nil
	}
	return &Violation{"unrestricted capabilities", strings.Join(details, "; ")}
}

func checkHostNamespaces(p *podView, _ Version) *Violation {
	var set []string
	if p.spec.HostNetwork {
		set = append(set, "hostNetwork=true")
	}
	if p.spec.HostPID {
		set = append(set, "hostPID=true")
	}
	if p.spec.HostIPC {
		set = append(set, "hostIPC=true")
	}
	if len(set) == 0 {
		return nil
	}
	return &Violation{"host namespaces", strings.Join(set, ", ")}
}

func checkHostPathVolumes(p *podView, _ Version) *Violation {
	var bad []string
	for _, vol := range p.spec.Volumes {
		if vol.HostPath != nil {
			bad = append(bad, vol.Name)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return &Violation{"hostPath volumes", pluralize("volume", "volumes", len(bad)) + " " + joinQuote(bad)}
}

func checkHostPorts(p *podView, _ Version) *Violation {
	var bad, ports []string
	for _, c := range p.containers {
		found := false
		for _, port := range c.ports {
			if port.HostPort != 0 {
				found = true
				ports = append(ports, strconv.Itoa(int(port.HostPort)))
			}
		}
		if found {
			bad = append(bad, c.name)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return &Violation{"hostPort", fmt.Sprintf("%s %s %s %s",
		containersPhrase(bad), pluralize("uses", "use", len(bad)), pluralize("hostPort", "hostPorts", len(ports)), strings.Join(ports, ", "))}
}

func checkProbeHosts(p *podView, _ Version) *Violation {
	var bad, hosts []string
	for _, c := range p.containers {
		found := false
		note := func(http *corev1.HTTPGetAction, tcp *corev1.TCPSocketAction) {
			if http != nil && http.Host != "" {
				hosts, found = append(hosts, http.Host), true
			}
			if tcp != nil && tcp.Host != "" {
				hosts, found = append(hosts, tcp.Host), true
			}
		}
		for _, pr := range c.probes {
			if pr != nil {
				note(pr.HTTPGet, pr.TCPSocket)
			}
		}
		for _, h := range c.handlers {
			if h != nil {
				note(h.HTTPGet, h.TCPSocket)
			}
		}
		if found {
			bad = append(bad, c.name)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	hosts = sortedSet(hosts)
	return &Violation{"probe or lifecycle host", fmt.Sprintf("%s %s %s %s", containersPhrase(sortedSet(bad)), pluralize("uses", "use", len(bad)),
		pluralize("probe or lifecycle host", "probe or lifecycle hosts", len(hosts)), joinQuote(hosts))}
}

func checkPrivileged(p *podView, _ Version) *Violation {
	var bad []string
	for _, c := range p.containers {
		if isTrue(c.sc.Privileged) {
			bad = append(bad, c.name)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return &Violation{"privileged", containersPhrase(bad) + " must not set securityContext.privileged=true"}
}

func checkProcMount(p *podView, _ Version) *Violation {
	// A pod in its own user namespace may unmask /proc.
	if isFalse(p.spec.HostUsers) {
		return nil
	}
	var bad, types []string
	for _, c := range p.containers {
		if pm := c.sc.ProcMount; pm != nil && *pm != corev1.DefaultProcMount {
			bad = append(bad, c.name)
			types = append(types, string(*pm))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return &Violation{"procMount", containersPhrase(bad) + " must not set securityContext.procMount to " + joinQuote(sortedSet(types))}
}

func checkRestrictedVolumes(p *podView, _ Version) *Violation {
	var bad, types []string
	for _, vol := range p.spec.Volumes {
		s := vol.VolumeSource
		switch {
		case s.ConfigMap != nil, s.CSI != nil, s.DownwardAPI != nil, s.EmptyDir != nil, s.Ephemeral != nil,
			s.PersistentVolumeClaim != nil, s.Projected != nil, s.Secret != nil:
			continue
		case s.HostPath != nil:
			types = append(types, "hostPath")
		case s.NFS != nil:
			types = append(types, "nfs")
		case s.Image != nil:
			types = append(types, "image")
		default:
			types = append(types, "unknown")
		}
		bad = append(bad, vol.Name)
	}
	if len(bad) == 0 {
		return nil
	}
	types = sortedSet(types)
	return &Violation{"restricted volume types", fmt.Sprintf("%s %s %s %s %s",
		pluralize("volume", "volumes", len(bad)), joinQuote(bad), pluralize("uses", "use", len(bad)),
		pluralize("restricted volume type", "restricted volume types", len(types)), joinQuote(types))}
}

func checkRunAsNonRoot(p *podView, v Version) *Violation {
	// A pod in its own user namespace runs as root only inside it.
	if v.atLeast(25) && isFalse(p.spec.HostUsers) {
		return nil
	}
	var setters, explicit, implicit []string
	podNonRoot := isTrue(p.psc.RunAsNonRoot)
	if isFalse(p.psc.RunAsNonRoot) {
		setters = append(setters, "pod")
	}
	nonZero := func(u *int64) bool { return u != nil && *u != 0 }
	for _, c := range p.containers {
		switch {
		case isFalse(c.sc.RunAsNonRoot):
			explicit = append(explicit, c.name)
		case isTrue(c.sc.RunAsNonRoot), podNonRoot && c.sc.RunAsNonRoot == nil:
		case v.atLeast(23) && (nonZero(c.sc.RunAsUser) || c.sc.RunAsUser == nil && nonZero(p.psc.RunAsUser)):
			// A container that runs as a non-zero user satisfies the
			// check from 1.23.
		default:
			implicit = append(implicit, c.name)
		}
	}
	var details []string
	if len(setters) > 0 {
		details = append(details, "pod must not set securityContext.runAsNonRoot=false")
	}
	if len(explicit) > 0 {
		details = append(details, containersPhrase(explicit)+" must not set securityContext.runAsNonRoot=false")
	}
	if len(implicit) > 0 {
		details = append(details, "pod or "+containersPhrase(implicit)+" must set securityContext.runAsNonRoot=true")
	}
	if len(details) == 0 {
		return nil
	}
	return &Violation{"runAsNonRoot != true", strings.Join(details, "; ")}
}

func checkRunAsUser(p *podView, v Version) *Violation {
	if v.atLeast(25) && isFalse(p.spec.HostUsers) {
		return nil
	}
	var setters, bad []string
	if u := p.psc.RunAsUser; u != nil && *u == 0 {
		setters = append(setters, "pod")
	}
	for _, c := range p.containers {
		if u := c.sc.RunAsUser; u != nil && *u == 0 {
			bad = append(bad, c.name)
		}
	}
	if len(bad) > 0 {
		setters = append(setters, containersPhrase(bad))
	}
	if len(setters) == 0 {
		return nil
	}
	return &Violation{"runAsUser=0", strings.Join(setters, " and ") + " must not set runAsUser=0"}
}

func checkSELinux(p *podView, v Version) *Violation {
	allowed := []string{"", "container_t", "container_init_t", "container_kvm_t"}
	if v.atLeast(31) {
		allowed = append(allowed, "container_engine_t")
	}
	var setters, bad, types []string
	user, role := false, false
	valid := func(o *corev1.SELinuxOptions) bool {
		ok := true
		if !slices.Contains(allowed, o.Type) {
			types, ok = append(types, o.Type), false
		}
		if o.User != "" {
			user, ok = true, false
		}
		if o.Role != "" {
			role, ok = true, false
		}
		return ok
	}
	if o := p.psc.SELinuxOptions; o != nil && !valid(o) {
		setters = append(setters, "pod")
	}
	for _, c := range p.containers {
		if o := c.sc.SELinuxOptions; o != nil && !valid(o) {
			bad = append(bad, c.name)
		}
	}
	if len(bad) > 0 {
		setters = append(setters, containersPhrase(bad))
	}
	if len(setters) == 0 {
		return nil
	}
	var data []string
	if types = sortedSet(types); len(types) > 0 {
		data = append(data, pluralize("type", "types", len(types))+" "+joinQuote(types))
	}
	if user {
		data = append(data, "user may not be set")
	}
	if role {
		data = append(data, "role may not be set")
	}
	return &Violation{"seLinuxOptions", strings.Join(setters, " and ") + " set forbidden securityContext.seLinuxOptions: " + strings.Join(data, "; ")}
}

func checkSeccompBaseline(p *podView, _ Version) *Violation {
	var setters, bad []string
	if sp := p.psc.SeccompProfile; sp != nil && sp.Type == corev1.SeccompProfileTypeUnconfined {
		setters = append(setters, "pod")
	}
	for _, c := range p.containers {
		if sp := c.sc.SeccompProfile; sp != nil && sp.Type == corev1.SeccompProfileTypeUnconfined {
			bad = append(bad, c.name)
		}
	}
	if len(bad) > 0 {
		setters = append(setters, containersPhrase(bad))
	}
	if len(setters) == 0 {
		return nil
	}
	return &Violation{"seccompProfile", strings.Join(setters, " and ") + ` must not set securityContext.seccompProfile.type to "Unconfined"`}
}

func checkSeccompRestricted(p *podView, v Version) *Violation {
	if p.windows(v) {
		return nil
	}
	validType := func(sp *corev1.SeccompProfile) bool {
		return sp.Type == corev1.SeccompProfileTypeRuntimeDefault || sp.Type == corev1.SeccompProfileTypeLocalhost
	}
	var setters, explicit, implicit, values []string
	podValid := false
	if sp := p.psc.SeccompProfile; sp != nil {
		if validType(sp) {
			podValid = true
		} else {
			setters = append(setters, "pod")
			values = append(values, string(sp.Type))
		}
	}
	for _, c := range p.containers {
		sp := c.sc.SeccompProfile
		switch {
		case sp == nil && podValid:
		case sp == nil:
			implicit = append(implicit, c.name)
		case !validType(sp):
			explicit = append(explicit, c.name)
			values = append(values, string(sp.Type))
		}
	}
	if len(explicit) > 0 {
		setters = append(setters, containersPhrase(explicit))
	}
	var details []string
	if len(setters) > 0 {
		details = append(details, strings.Join(setters, " and ")+" must not set securityContext.seccompProfile.type to "+joinQuote(sortedSet(values)))
	}
	if len(implicit) > 0 {
		details = append(details, "pod or "+containersPhrase(implicit)+` must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`)
	}
	if len(details) == 0 {
		return nil
	}
	return &Violation{"seccompProfile", strings.Join(details, "; ")}
}

// safeSysctls are the namespaced sysctls a baseline pod may set, with the
// minor version that allowed each.
var safeSysctls = map[string]int{
	"kernel.shm_rmid_forced":              0,
	"net.ipv4.ip_local_port_range":        0,
	"net.ipv4.tcp_syncookies":             0,
	"net.ipv4.ping_group_range":           0,
	"net.ipv4.ip_unprivileged_port_start": 0,
	"net.ipv4.ip_local_reserved_ports":    27,
	"net.ipv4.tcp_keepalive_time":         29,
	"net.ipv4.tcp_fin_timeout":            29,
	"net.ipv4.tcp_keepalive_intvl":        29,
	"net.ipv4.tcp_keepalive_probes":       29,
	"net.ipv4.tcp_rmem":                   32,
	"net.ipv4.tcp_wmem":                   32,
}

func checkSysctls(p *podView, v Version) *Violation {
	var bad []string
	for _, s := range p.psc.Sysctls {
		if since, ok := safeSysctls[s.Name]; !ok || !v.atLeast(since) {
			bad = append(bad, s.Name)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return &Violation{"forbidden sysctls", strings.Join(bad, ", ")}
}

func checkHostProcess(p *podView, _ Version) *Violation {
	var setters, bad []string
	if w := p.psc.WindowsOptions; w != nil && isTrue(w.HostProcess) {
		setters = append(setters, "pod")
	}
	for _, c := range p.containers {
		if w := c.sc.WindowsOptions; w != nil && isTrue(w.HostProcess) {
			bad = append(bad, c.name)
		}
	}
	if len(bad) > 0 {
		setters = append(setters, containersPhrase(bad))
	}
	if len(setters) == 0 {
		return nil
	}
	return &Violation{"hostProcess", strings.Join(setters, " and ") + " must not set securityContext.windowsOptions.hostProcess=true"}
}
