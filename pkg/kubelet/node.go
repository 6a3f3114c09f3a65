package kubelet

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/klog/v2"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/apimachinery/pkg/version"

	"kubecore.io/kubecore/pkg/kubelet/stats"
)

// The hard eviction thresholds of Kubernetes' defaults: below them the node
// reports pressure, and allocatable holds them back from capacity.
const (
	evictionMemoryAvailable = 100 << 20 // memory.available<100Mi
	evictionNodefsPercent   = 10        // nodefs.available<10%
	evictionPIDPercent      = 10        // fewer than 10% of pid_max left
)

// MachineInfo is what the Node reports about its machine.
type MachineInfo struct {
	// Capacity and Allocatable of cpu, memory, ephemeral-storage and pods.
	Capacity    corev1.ResourceList
	Allocatable corev1.ResourceList
	// SystemInfo is nodeInfo; ContainerRuntimeVersion is filled in from
	// the runtime when the node registers.
	SystemInfo corev1.NodeSystemInfo
}

// ReadMachineInfo reads the capacity of this machine: its CPUs, the memory
// of /proc/meminfo and the size of the file system holding rootDir; pods
// is maxPods. Allocatable holds back the hard eviction thresholds.
func ReadMachineInfo(rootDir string, maxPods int32) (MachineInfo, error) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return MachineInfo{}, fmt.Errorf("read memory size: %w", err)
	}
	mem, err := parseMeminfo(f)
	_ = f.Close()
	if err != nil {
		return MachineInfo{}, fmt.Errorf("read memory size: %w", err)
	}
	fsCap, _, err := statfs(rootDir)
	if err != nil {
		return MachineInfo{}, err
	}
	m := MachineInfo{
		Capacity: corev1.ResourceList{
			corev1.ResourceCPU:              *resource.NewQuantity(int64(goruntime.NumCPU()), resource.DecimalSI),
			corev1.ResourceMemory:           *resource.NewQuantity(int64(mem.total), resource.BinarySI),
			corev1.ResourceEphemeralStorage: *resource.NewQuantity(int64(fsCap), resource.BinarySI),
			corev1.ResourcePods:             *resource.NewQuantity(int64(maxPods), resource.DecimalSI),
		},
		SystemInfo: corev1.NodeSystemInfo{
			MachineID:       readTrimmed("/etc/machine-id"),
			SystemUUID:      strings.ToLower(readTrimmed("/sys/class/dmi/id/product_uuid")),
			BootID:          readTrimmed("/proc/sys/kernel/random/boot_id"),
			KernelVersion:   readTrimmed("/proc/sys/kernel/osrelease"),
			OSImage:         osImage("/etc/os-release"),
			KubeletVersion:  version.Get().GitVersion,
			OperatingSystem: goruntime.GOOS,
			Architecture:    goruntime.GOARCH,
		},
	}
	m.Allocatable = allocatable(m.Capacity)
	return m, nil
}

// allocatable is capacity minus the hard eviction thresholds of memory
// and ephemeral storage.
func allocatable(capacity corev1.ResourceList) corev1.ResourceList {
	out := maps.Clone(capacity)
	if q, ok := capacity[corev1.ResourceMemory]; ok {
		out[corev1.ResourceMemory] = *resource.NewQuantity(max(q.Value()-evictionMemoryAvailable, 0), resource.BinarySI)
	}
	if q, ok := capacity[corev1.ResourceEphemeralStorage]; ok {
		out[corev1.ResourceEphemeralStorage] = *resource.NewQuantity(q.Value()-q.Value()*evictionNodefsPercent/100, resource.BinarySI)
	}
	return out
}

// meminfo is the part of /proc/meminfo the kubelet uses, in bytes.
type meminfo struct{ total, available uint64 }

// parseMeminfo reads MemTotal and MemAvailable from /proc/meminfo.
func parseMeminfo(r io.Reader) (meminfo, error) {
	fields, err := stats.ParseMeminfo(r)
	if err != nil {
		return meminfo{}, fmt.Errorf("meminfo: %w", err)
	}
	return meminfo{total: fields["MemTotal"], available: fields["MemAvailable"]}, nil
}

// statfs returns the size and the space available to users of the file
// system holding dir.
func statfs(dir string) (capacity, available uint64, err error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, 0, fmt.Errorf("statfs %s: %w", dir, err)
	}
	return st.Blocks * uint64(st.Bsize), st.Bavail * uint64(st.Bsize), nil
}

func readTrimmed(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return string(bytes.TrimSpace(b))
}

// osImage is PRETTY_NAME of an os-release file, or "Unknown".
func osImage(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "Unknown"
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "PRETTY_NAME="); ok {
			return strings.Trim(v, `"'`)
		}
	}
	return "Unknown"
}

// nodeSignals are the measurements node pressure is decided from.
type nodeSignals struct {
	memAvailable            uint64
	fsCapacity, fsAvailable uint64
	pidsUsed, pidMax        uint64
}

// readNodeSignals measures memory, the root dir's file system and process
// IDs of this machine.
func readNodeSignals(rootDir string) (nodeSignals, error) {
	var s nodeSignals
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return s, fmt.Errorf("read memory: %w", err)
	}
	mem, err := parseMeminfo(f)
	_ = f.Close()
	if err != nil {
		return s, fmt.Errorf("read memory: %w", err)
	}
	s.memAvailable = mem.available
	if s.fsCapacity, s.fsAvailable, err = statfs(rootDir); err != nil {
		return s, err
	}
	s.pidMax, _ = strconv.ParseUint(readTrimmed("/proc/sys/kernel/pid_max"), 10, 64)
	s.pidsUsed, _ = parseLoadavgTasks(readTrimmed("/proc/loadavg"))
	return s, nil
}

// parseLoadavgTasks reads the number of tasks (threads) from the fourth
// field of /proc/loadavg, "running/total".
func parseLoadavgTasks(loadavg string) (uint64, error) {
	f := strings.Fields(loadavg)
	if len(f) < 4 {
		return 0, fmt.Errorf("loadavg %q: too few fields", loadavg)
	}
	_, total, ok := strings.Cut(f[3], "/")
	if !ok {
		return 0, fmt.Errorf("loadavg %q: no task count", loadavg)
	}
	return strconv.ParseUint(total, 10, 64)
}

// Node condition reasons and messages, as the kubelet reports them.
const (
	reasonKubeletReady    = "KubeletReady"
	reasonKubeletNotReady = "KubeletNotReady"
)

// conditionSpec is one node condition without its times.
type conditionSpec struct {
	typ             corev1.NodeConditionType
	status          corev1.ConditionStatus
	reason, message string
}

// desiredNodeConditions decides Ready and the pressure conditions from the
// measurements and the runtime's health.
func desiredNodeConditions(sig nodeSignals, sigErr, runtimeErr error) []conditionSpec {
	pressure := func(typ corev1.NodeConditionType, under bool, noReason, noMsg, yesReason, yesMsg string) conditionSpec {
		switch {
		case sigErr != nil:
			return conditionSpec{typ, corev1.ConditionUnknown, "NodeStatusUnknown", "kubelet cannot measure the node: " + sigErr.Error()}
		case under:
			return conditionSpec{typ, corev1.ConditionTrue, yesReason, yesMsg}
		}
		return conditionSpec{typ, corev1.ConditionFalse, noReason, noMsg}
	}
	memLow := sig.memAvailable < evictionMemoryAvailable
	diskLow := sig.fsCapacity > 0 && sig.fsAvailable*100 < sig.fsCapacity*evictionNodefsPercent
	pidsLow := sig.pidMax > 0 && (sig.pidMax-min(sig.pidsUsed, sig.pidMax))*100 < sig.pidMax*evictionPIDPercent
	ready := conditionSpec{corev1.NodeReady, corev1.ConditionTrue, reasonKubeletReady, "kubelet is posting ready status"}
	if runtimeErr != nil {
		ready = conditionSpec{corev1.NodeReady, corev1.ConditionFalse, reasonKubeletNotReady, "container runtime is down: " + runtimeErr.Error()}
	}
	return []conditionSpec{
		pressure(corev1.NodeMemoryPressure, memLow, "KubeletHasSufficientMemory", "kubelet has sufficient memory available",
			"KubeletHasInsufficientMemory", "kubelet has insufficient memory available"),
		pressure(corev1.NodeDiskPressure, diskLow, "KubeletHasNoDiskPressure", "kubelet has no disk pressure",
			"KubeletHasDiskPressure", "kubelet has disk pressure"),
		pressure(corev1.NodePIDPressure, pidsLow, "KubeletHasSufficientPID", "kubelet has sufficient PID available",
			"KubeletHasInsufficientPID", "kubelet has insufficient PID available"),
		ready,
	}
}

// nodeConditions turns the desired conditions into the Node's: heartbeat
// now, transition time kept from old while the status stays the same.
func nodeConditions(want []conditionSpec, old []corev1.NodeCondition, now time.Time) []corev1.NodeCondition {
	t := metav1.NewTime(now)
	out := make([]corev1.NodeCondition, 0, len(want))
	for _, w := range want {
		c := corev1.NodeCondition{Type: w.typ, Status: w.status, Reason: w.reason, Message: w.message, LastHeartbeatTime: t, LastTransitionTime: t}
		for _, o := range old {
			if o.Type == w.typ && o.Status == w.status && !o.LastTransitionTime.IsZero() {
				c.LastTransitionTime = o.LastTransitionTime
			}
		}
		out = append(out, c)
	}
	// Conditions others set (NetworkUnavailable, custom ones) stay.
	for _, o := range old {
		if !hasConditionSpec(want, o.Type) {
			out = append(out, o)
		}
	}
	return out
}

func hasConditionSpec(want []conditionSpec, t corev1.NodeConditionType) bool {
	for _, w := range want {
		if w.typ == t {
			return true
		}
	}
	return false
}

// sameConditions says whether the conditions agree in everything but
// their times.
func sameConditions(a []conditionSpec, b []conditionSpec) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// conditionEvents are the reasons of the Events of conditions in want whose
// status differs from old's (all of them for a node being registered), as
// Kubernetes' kubelet names them.
func conditionEvents(want []conditionSpec, old []corev1.NodeCondition) []string {
	var out []string
	for _, w := range want {
		if slices.ContainsFunc(old, func(o corev1.NodeCondition) bool { return o.Type == w.typ && o.Status == w.status }) {
			continue
		}
		if r := conditionEvent(w.typ, w.status); r != "" {
			out = append(out, r)
		}
	}
	return out
}

// conditionEvent is the Event reason of a node condition's status.
func conditionEvent(typ corev1.NodeConditionType, status corev1.ConditionStatus) string {
	reasons := map[corev1.NodeConditionType][2]string{ // when True, when False
		corev1.NodeMemoryPressure: {"NodeHasInsufficientMemory", "NodeHasSufficientMemory"},
		corev1.NodeDiskPressure:   {"NodeHasDiskPressure", "NodeHasNoDiskPressure"},
		corev1.NodePIDPressure:    {"NodeHasInsufficientPID", "NodeHasSufficientPID"},
		corev1.NodeReady:          {"NodeReady", "NodeNotReady"},
	}
	r, ok := reasons[typ]
	switch {
	case !ok:
		return ""
	case status == corev1.ConditionTrue:
		return r[0]
	case status == corev1.ConditionFalse || typ == corev1.NodeReady:
		return r[1]
	}
	return ""
}

// recordConditionEvents reports the node's condition changes.
func (kl *Kubelet) recordConditionEvents(ctx context.Context, reasons []string) {
	for _, r := range reasons {
		kl.events.node(ctx, corev1.EventTypeNormal, r, "Node %s status is now: %s", kl.cfg.NodeName, r)
	}
}

// nodeStatusState is what the kubelet last wrote of its node's status.
type nodeStatusState struct {
	reported   []conditionSpec
	reportedAt time.Time
	// node is the Node as the API returned it after the last write: the
	// next status patch is computed against it. Its UID owns the Lease.
	node *corev1.Node
}

// needsReport says whether conditions computed at now must be written:
// they changed, or the last report is older than every.
func (s *nodeStatusState) needsReport(want []conditionSpec, now time.Time, every time.Duration) bool {
	return s.reportedAt.IsZero() || !sameConditions(s.reported, want) || now.Sub(s.reportedAt) >= every
}

// signals measures the node, or reports no pressure for a simulated
// machine.
func (kl *Kubelet) signals() (nodeSignals, error) {
	if kl.cfg.Machine != nil {
		return nodeSignals{memAvailable: 1 << 40}, nil
	}
	return readNodeSignals(kl.cfg.RootDir)
}

// currentConditions measures the node and asks the runtime for its health.
func (kl *Kubelet) currentConditions(ctx context.Context) []conditionSpec {
	sig, sigErr := kl.signals()
	return desiredNodeConditions(sig, sigErr, kl.runtime.Status(ctx))
}

// setNodeStatus writes the kubelet-owned fields of a Node's status.
func (kl *Kubelet) setNodeStatus(ctx context.Context, node *corev1.Node, want []conditionSpec, now time.Time) {
	st := &node.Status
	st.Capacity = maps.Clone(kl.machine.Capacity)
	st.Allocatable = maps.Clone(kl.machine.Allocatable)
	st.NodeInfo = kl.machine.SystemInfo
	if v, err := kl.runtime.Version(ctx); err == nil {
		st.NodeInfo.ContainerRuntimeVersion = kl.runtime.Type() + "://" + v
	}
	st.Addresses = []corev1.NodeAddress{
		{Type: corev1.NodeInternalIP, Address: kl.cfg.NodeIP},
		{Type: corev1.NodeHostName, Address: kl.cfg.Hostname},
	}
	st.DaemonEndpoints.KubeletEndpoint.Port = kl.cfg.KubeletPort
	st.Conditions = nodeConditions(want, st.Conditions, now)
}

// nodeLabels are the well-known labels plus Config.NodeLabels.
func (kl *Kubelet) nodeLabels() map[string]string {
	l := map[string]string{
		corev1.LabelHostname:   kl.cfg.Hostname,
		corev1.LabelOSStable:   goruntime.GOOS,
		corev1.LabelArchStable: goruntime.GOARCH,
	}
	maps.Copy(l, kl.cfg.NodeLabels)
	return l
}

// AnnotationPodNetwork on a Node says how its pods are networked:
// PodNetworkBridge (a network namespace and address per pod) or
// PodNetworkHost (pods share the node's network and address).
const AnnotationPodNetwork = "kubecore.io/pod-network"

// The values of AnnotationPodNetwork (Config.PodNetwork).
const (
	PodNetworkBridge = "bridge"
	PodNetworkHost   = "host"
)

// nodeAnnotations are the annotations the kubelet keeps on its Node.
func (kl *Kubelet) nodeAnnotations() map[string]string {
	if kl.cfg.PodNetwork == "" {
		return nil
	}
	return map[string]string{AnnotationPodNetwork: kl.cfg.PodNetwork}
}

// networkEvent tells a pod that asked for its own network it shares the
// node's, when the kubelet gives pods no network of their own.
func (kl *Kubelet) networkEvent(ctx context.Context, pod *corev1.Pod) {
	if kl.cfg.PodNetwork != PodNetworkHost || pod.Spec.HostNetwork {
		return
	}
	kl.events.pod(ctx, pod, corev1.EventTypeNormal, eventHostNetwork,
		"Pod runs on the node's network (node IP %s, ports shared with other pods): the kubelet's pod network is off (--pod-network=host, or not root)", kl.cfg.NodeIP)
}

// registerNode creates the kubelet's Node, or, when it exists already
// (a restart), brings its labels and status up to date. It retries with
// back-off until it succeeds or ctx ends.
func (kl *Kubelet) registerNode(ctx context.Context) (*corev1.Node, error) {
	logger := klog.FromContext(ctx)
	delay := 100 * time.Millisecond
	for {
		node, err := kl.tryRegisterNode(ctx)
		if err == nil {
			return node, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("register node %s: %w", kl.cfg.NodeName, err)
		}
		logger.Error(err, "Failed to register node; retrying", "after", delay)
		if !sleep(ctx, kl.clock, delay) {
			return nil, fmt.Errorf("register node %s: %w", kl.cfg.NodeName, ctx.Err())
		}
		delay = min(delay*2, 7*time.Second)
	}
}

func (kl *Kubelet) tryRegisterNode(ctx context.Context) (*corev1.Node, error) {
	nodes := kl.cfg.Client.CoreV1().Nodes()
	want := kl.currentConditions(ctx)
	now := kl.clock.Now()
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: kl.cfg.NodeName, Labels: kl.nodeLabels(), Annotations: kl.nodeAnnotations()},
		Spec:       corev1.NodeSpec{Taints: kl.cfg.RegisterWithTaints},
	}
	kl.setNodeStatus(ctx, node, want, now)
	created, err := nodes.Create(ctx, node, metav1.CreateOptions{})
	if err == nil {
		kl.reported(want, now, created)
		kl.recordConditionEvents(ctx, conditionEvents(want, nil))
		return created, nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("create node: %w", err)
	}
	existing, err := nodes.Get(ctx, kl.cfg.NodeName, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("get existing node: %w", err)
	}
	if existing.Labels == nil {
		existing.Labels = map[string]string{}
	}
	changed := false
	for k, v := range kl.nodeLabels() {
		if existing.Labels[k] != v {
			existing.Labels[k], changed = v, true
		}
	}
	for k, v := range kl.nodeAnnotations() {
		if existing.Annotations[k] != v {
			if existing.Annotations == nil {
				existing.Annotations = map[string]string{}
			}
			existing.Annotations[k], changed = v, true
		}
	}
	if changed {
		if existing, err = nodes.Update(ctx, existing, metav1.UpdateOptions{}); err != nil {
			return nil, fmt.Errorf("update labels of existing node: %w", err)
		}
	}
	kl.setNodeStatus(ctx, existing, want, now)
	updated, err := nodes.UpdateStatus(ctx, existing, metav1.UpdateOptions{})
	if err != nil {
		return nil, fmt.Errorf("update status of existing node: %w", err)
	}
	kl.reported(want, now, updated)
	kl.recordConditionEvents(ctx, conditionEvents(want, nil))
	return updated, nil
}

func (kl *Kubelet) reported(want []conditionSpec, at time.Time, node *corev1.Node) {
	kl.mu.Lock()
	defer kl.mu.Unlock()
	kl.nodeStatus = nodeStatusState{reported: want, reportedAt: at, node: node}
}

// forceNodeStatusReport makes the next status sync write the status even
// when nothing changed.
func (kl *Kubelet) forceNodeStatusReport() {
	kl.mu.Lock()
	defer kl.mu.Unlock()
	kl.nodeStatus.reported = nil
}

// nodeUID is the UID of the Node as last registered or written.
func (kl *Kubelet) nodeUID() types.UID {
	kl.mu.Lock()
	defer kl.mu.Unlock()
	if kl.nodeStatus.node == nil {
		return ""
	}
	return kl.nodeStatus.node.UID
}

// nodeStatusLoop computes the node's conditions every
// NodeStatusUpdateFrequency and writes them through nodes/status when they
// changed or NodeStatusReportFrequency has passed since the last write.
func (kl *Kubelet) nodeStatusLoop(ctx context.Context) {
	for sleep(ctx, kl.clock, kl.cfg.NodeStatusUpdateFrequency) {
		if err := kl.syncNodeStatus(ctx); err != nil && ctx.Err() == nil {
			klog.FromContext(ctx).Error(err, "Failed to update node status; retrying")
		}
	}
}

// syncNodeStatus writes the node's status if it is due, as a strategic
// merge patch of nodes/status computed against the Node the kubelet last
// wrote or registered: no read before it, and conditions others set stay.
func (kl *Kubelet) syncNodeStatus(ctx context.Context) error {
	want := kl.currentConditions(ctx)
	now := kl.clock.Now()
	kl.mu.Lock()
	due := kl.nodeStatus.needsReport(want, now, kl.cfg.NodeStatusReportFrequency)
	last := kl.nodeStatus.node
	kl.mu.Unlock()
	if !due {
		return nil
	}
	if last == nil {
		_, err := kl.tryRegisterNode(ctx)
		return err
	}
	node := last.DeepCopy()
	kl.setNodeStatus(ctx, node, want, now)
	patch, err := nodeStatusPatch(last, node, want)
	if err != nil {
		return err
	}
	patched, err := kl.cfg.Client.CoreV1().Nodes().Patch(ctx, kl.cfg.NodeName, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
	if apierrors.IsNotFound(err) {
		// Someone deleted the Node: register it again.
		_, err = kl.tryRegisterNode(ctx)
		return err
	}
	if err != nil {
		return fmt.Errorf("patch node status: %w", err)
	}
	kl.reported(want, now, patched)
	kl.recordConditionEvents(ctx, conditionEvents(want, last.Status.Conditions))
	klog.FromContext(ctx).V(4).Info("Node status updated")
	return nil
}

// nodeStatusPatch is the strategic merge patch of nodes/status that turns
// old's status into updated's: the kubelet's conditions (merged by type,
// so that conditions others set stay) and whatever else of its fields
// changed.
func nodeStatusPatch(old, updated *corev1.Node, want []conditionSpec) ([]byte, error) {
	status := map[string]any{}
	var conds []corev1.NodeCondition
	for _, c := range updated.Status.Conditions {
		if hasConditionSpec(want, c.Type) {
			conds = append(conds, c)
		}
	}
	status["conditions"] = conds
	o, u := &old.Status, &updated.Status
	if !equality(o.Capacity, u.Capacity) {
		status["capacity"] = u.Capacity
	}
	if !equality(o.Allocatable, u.Allocatable) {
		status["allocatable"] = u.Allocatable
	}
	if o.NodeInfo != u.NodeInfo {
		status["nodeInfo"] = u.NodeInfo
	}
	if !slices.Equal(o.Addresses, u.Addresses) {
		// Replace the list: an address of a type no longer reported goes.
		status["addresses"] = append([]any{map[string]string{"$patch": "replace"}}, anySlice(u.Addresses)...)
	}
	if o.DaemonEndpoints != u.DaemonEndpoints {
		status["daemonEndpoints"] = u.DaemonEndpoints
	}
	b, err := json.Marshal(map[string]any{"status": status})
	if err != nil {
		return nil, fmt.Errorf("node status patch: %w", err)
	}
	return b, nil
}

func anySlice[T any](s []T) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// equality says whether two resource lists hold the same quantities.
func equality(a, b corev1.ResourceList) bool {
	return maps.EqualFunc(a, b, func(x, y resource.Quantity) bool { return x.Cmp(y) == 0 })
}
