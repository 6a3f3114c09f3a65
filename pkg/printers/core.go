package printers

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
)

// Facts kubectl's pod STATUS column depends on.
const (
	// nodeLostReason is the pod status reason the node lifecycle controller
	// sets on pods of an unreachable node.
	nodeLostReason = "NodeLost"
	// betaStorageClassAnnotation names a claim's or volume's class before
	// storageClassName existed; it wins over the field.
	betaStorageClassAnnotation = "volume.beta.kubernetes.io/storage-class"
	// nodeRoleLabelPrefix marks roles: node-role.kubernetes.io/<role>.
	nodeRoleLabelPrefix = "node-role.kubernetes.io/"
	// nodeRoleLabel is the legacy kubernetes.io/role=<role> label.
	nodeRoleLabel = "kubernetes.io/role"
)

func podColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("Ready", "string", "Ready containers out of all containers of the pod."),
		column("Status", "string", "The aggregate status of the pod's containers."),
		column("Restarts", "string", "Container restarts, and how long ago the last one was."),
		ageColumn(),
		wideColumn("IP", "string", "The pod's primary IP address."),
		wideColumn("Node", "string", "The node the pod is bound to."),
		wideColumn("Nominated Node", "string", "The node a preempting pod expects to run on."),
		wideColumn("Readiness Gates", "string", "Readiness gates that are True out of all the pod's gates."),
	}
}

func printPod(c *printContext, pod *corev1.Pod) (row, error) {
	var r row
	switch pod.Status.Phase {
	case corev1.PodSucceeded:
		r.conditions = []metav1.TableRowCondition{{Type: metav1.RowCompleted, Status: metav1.ConditionTrue, Reason: string(corev1.PodSucceeded), Message: "The pod has completed successfully."}}
	case corev1.PodFailed:
		r.conditions = []metav1.TableRowCondition{{Type: metav1.RowCompleted, Status: metav1.ConditionTrue, Reason: string(corev1.PodFailed), Message: "The pod failed."}}
	}
	s := podStatus(pod)
	restarts := strconv.Itoa(s.restarts)
	if s.restarts != 0 && !s.lastRestart.IsZero() {
		restarts = fmt.Sprintf("%d (%s ago)", s.restarts, c.age(s.lastRestart))
	}
	podIP := ""
	if len(pod.Status.PodIPs) > 0 {
		podIP = pod.Status.PodIPs[0].IP
	}
	gates := "<none>"
	if n := len(pod.Spec.ReadinessGates); n > 0 {
		gates = fmt.Sprintf("%d/%d", readinessGatesTrue(pod), n)
	}
	r.cells = []any{
		pod.Name, fmt.Sprintf("%d/%d", s.ready, s.total), s.reason, restarts, c.age(pod.CreationTimestamp),
		orNone(podIP), orNone(pod.Spec.NodeName), orNone(pod.Status.NominatedNodeName), gates,
	}
	return r, nil
}

// podSummary is what the READY, STATUS and RESTARTS cells show.
type podSummary struct {
	ready, total int
	reason       string
	restarts     int
	lastRestart  metav1.Time
}

// podStatus computes a pod's summary as kubectl shows it: the phase or the
// status reason, overridden by the first unfinished init container
// ("Init:1/2", "Init:CrashLoopBackOff") or else by the app containers'
// waiting or terminated reasons, and by deletion ("Terminating").
func podStatus(pod *corev1.Pod) podSummary {
	s := podSummary{total: len(pod.Spec.Containers), reason: string(pod.Status.Phase)}
	if pod.Status.Reason != "" {
		s.reason = pod.Status.Reason
	}
	for _, cond := range pod.Status.Conditions {
		if cond.Type == corev1.PodScheduled && cond.Reason == corev1.PodReasonSchedulingGated {
			s.reason = corev1.PodReasonSchedulingGated
		}
	}
	sidecars := map[string]bool{}
	for _, ic := range pod.Spec.InitContainers {
		if ic.RestartPolicy != nil && *ic.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			sidecars[ic.Name] = true
			s.total++
		}
	}

	// Init containers: all restarts count while initializing; afterwards
	// only the sidecars' restarts do.
	var sidecarRestarts int
	var lastSidecarRestart metav1.Time
	initializing := false
	for i, st := range pod.Status.InitContainerStatuses {
		s.restarts += int(st.RestartCount)
		later(&s.lastRestart, st.LastTerminationState)
		if sidecars[st.Name] {
			sidecarRestarts += int(st.RestartCount)
			later(&lastSidecarRestart, st.LastTerminationState)
		}
		term := st.State.Terminated
		if term != nil && term.ExitCode == 0 {
			continue
		}
		if sidecars[st.Name] && st.Started != nil && *st.Started {
			if st.Ready {
				s.ready++
			}
			continue
		}
		initializing = true
		switch {
		case term != nil && term.Reason != "":
			s.reason = "Init:" + term.Reason
		case term != nil && term.Signal != 0:
			s.reason = fmt.Sprintf("Init:Signal:%d", term.Signal)
		case term != nil:
			s.reason = fmt.Sprintf("Init:ExitCode:%d", term.ExitCode)
		case st.State.Waiting != nil && st.State.Waiting.Reason != "" && st.State.Waiting.Reason != "PodInitializing":
			s.reason = "Init:" + st.State.Waiting.Reason
		default:
			s.reason = fmt.Sprintf("Init:%d/%d", i, len(pod.Spec.InitContainers))
		}
		break
	}

	if !initializing || podConditionTrue(pod, corev1.PodInitialized) {
		s.restarts, s.lastRestart = sidecarRestarts, lastSidecarRestart
		running := false
		for i := len(pod.Status.ContainerStatuses) - 1; i >= 0; i-- {
			st := pod.Status.ContainerStatuses[i]
			s.restarts += int(st.RestartCount)
			later(&s.lastRestart, st.LastTerminationState)
			w, term := st.State.Waiting, st.State.Terminated
			switch {
			case w != nil && w.Reason != "":
				s.reason = w.Reason
			case term != nil && term.Reason != "":
				s.reason = term.Reason
			case term != nil && term.Signal != 0:
				s.reason = fmt.Sprintf("Signal:%d", term.Signal)
			case term != nil:
				s.reason = fmt.Sprintf("ExitCode:%d", term.ExitCode)
			case st.Ready && st.State.Running != nil:
				running = true
				s.ready++
			}
		}
		// A container still running keeps a pod with a completed container
		// Running (or NotReady).
		if s.reason == "Completed" && running {
			s.reason = "NotReady"
			if podConditionTrue(pod, corev1.PodReady) {
				s.reason = "Running"
			}
		}
	}

	if pod.DeletionTimestamp != nil {
		switch {
		case pod.Status.Reason == nodeLostReason:
			s.reason = "Unknown"
		case pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed:
			s.reason = "Terminating"
		}
	}
	return s
}

// later moves *t to the finish of a terminated state when that is later.
func later(t *metav1.Time, st corev1.ContainerState) {
	if st.Terminated != nil && t.Before(&st.Terminated.FinishedAt) {
		*t = st.Terminated.FinishedAt
	}
}

func podConditionTrue(pod *corev1.Pod, typ corev1.PodConditionType) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == typ {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func readinessGatesTrue(pod *corev1.Pod) int {
	n := 0
	for _, g := range pod.Spec.ReadinessGates {
		if podConditionTrue(pod, g.ConditionType) {
			n++
		}
	}
	return n
}

func podTemplateColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("Containers", "string", "Names of the template's containers."),
		column("Images", "string", "Images of the template's containers."),
		column("Pod Labels", "string", "Labels of the template's pods."),
	}
}

func printPodTemplate(_ *printContext, t *corev1.PodTemplate) (row, error) {
	names, images := containerCells(t.Template.Spec.Containers)
	return row{cells: []any{t.Name, names, images, labels.FormatLabels(t.Template.Labels)}}, nil
}

// containerCells joins the containers' names and images with commas.
func containerCells(containers []corev1.Container) (names, images string) {
	n := make([]string, len(containers))
	im := make([]string, len(containers))
	for i, c := range containers {
		n[i], im[i] = c.Name, c.Image
	}
	return strings.Join(n, ","), strings.Join(im, ",")
}

func nodeColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("Status", "string", "The node's readiness and schedulability."),
		column("Roles", "string", "The node's roles, from node-role.kubernetes.io labels."),
		ageColumn(),
		column("Version", "string", "The kubelet version the node reports."),
		wideColumn("Internal-IP", "string", "The node's first internal address."),
		wideColumn("External-IP", "string", "The node's first external address."),
		wideColumn("OS-Image", "string", "The operating system image the node reports."),
		wideColumn("Kernel-Version", "string", "The kernel version the node reports."),
		wideColumn("Container-Runtime", "string", "The container runtime and version the node reports."),
	}
}

func printNode(c *printContext, node *corev1.Node) (row, error) {
	var status []string
	for _, cond := range node.Status.Conditions {
		if cond.Type == corev1.NodeReady {
			if cond.Status == corev1.ConditionTrue {
				status = append(status, "Ready")
			} else {
				status = append(status, "NotReady")
			}
			break
		}
	}
	if len(status) == 0 {
		status = append(status, "Unknown")
	}
	if node.Spec.Unschedulable {
		status = append(status, "SchedulingDisabled")
	}
	info := node.Status.NodeInfo
	return row{cells: []any{
		node.Name, strings.Join(status, ","), orNone(strings.Join(nodeRoles(node), ",")), c.age(node.CreationTimestamp), info.KubeletVersion,
		nodeAddress(node, corev1.NodeInternalIP), nodeAddress(node, corev1.NodeExternalIP),
		orUnknown(info.OSImage), orUnknown(info.KernelVersion), orUnknown(info.ContainerRuntimeVersion),
	}}, nil
}

// nodeRoles lists the roles the node's labels give, sorted.
func nodeRoles(node *corev1.Node) []string {
	var roles []string
	for k, v := range node.Labels {
		switch {
		case strings.HasPrefix(k, nodeRoleLabelPrefix):
			if role := strings.TrimPrefix(k, nodeRoleLabelPrefix); role != "" {
				roles = append(roles, role)
			}
		case k == nodeRoleLabel && v != "":
			roles = append(roles, v)
		}
	}
	slices.Sort(roles)
	return slices.Compact(roles)
}

func nodeAddress(node *corev1.Node, typ corev1.NodeAddressType) string {
	for _, a := range node.Status.Addresses {
		if a.Type == typ {
			return a.Address
		}
	}
	return "<none>"
}

func namespaceColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("Status", "string", "The namespace's phase: Active or Terminating."),
		ageColumn(),
	}
}

func printNamespace(c *printContext, ns *corev1.Namespace) (row, error) {
	return row{cells: []any{ns.Name, string(ns.Status.Phase), c.age(ns.CreationTimestamp)}}, nil
}

func serviceColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("Type", "string", "The service type."),
		column("Cluster-IP", "string", "The service's cluster IP."),
		column("External-IP", "string", "Addresses outside the cluster the service is reachable on."),
		column("Port(s)", "string", "The service's ports: port[:nodePort]/protocol."),
		ageColumn(),
		wideColumn("Selector", "string", "The label selector of the backing pods."),
	}
}

func printService(c *printContext, svc *corev1.Service) (row, error) {
	clusterIP := "<none>"
	if len(svc.Spec.ClusterIPs) > 0 {
		clusterIP = svc.Spec.ClusterIPs[0]
	}
	ports := make([]string, len(svc.Spec.Ports))
	for i, p := range svc.Spec.Ports {
		if p.NodePort > 0 {
			ports[i] = fmt.Sprintf("%d:%d/%s", p.Port, p.NodePort, p.Protocol)
		} else {
			ports[i] = fmt.Sprintf("%d/%s", p.Port, p.Protocol)
		}
	}
	return row{cells: []any{
		svc.Name, string(svc.Spec.Type), clusterIP, serviceExternalIP(svc), orNone(strings.Join(ports, ",")),
		c.age(svc.CreationTimestamp), labels.FormatLabels(svc.Spec.Selector),
	}}, nil
}

// serviceExternalIP is the EXTERNAL-IP cell: the external IPs, the load
// balancer's ingress points ("<pending>" before it has any) or the external
// name.
func serviceExternalIP(svc *corev1.Service) string {
	switch svc.Spec.Type {
	case corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort:
		return orNone(strings.Join(svc.Spec.ExternalIPs, ","))
	case corev1.ServiceTypeLoadBalancer:
		var addrs []string
		for _, in := range svc.Status.LoadBalancer.Ingress {
			switch {
			case in.IP != "":
				addrs = append(addrs, in.IP)
			case in.Hostname != "":
				addrs = append(addrs, in.Hostname)
			}
		}
		addrs = append(addrs, svc.Spec.ExternalIPs...)
		if len(addrs) == 0 {
			return "<pending>"
		}
		return strings.Join(addrs, ",")
	case corev1.ServiceTypeExternalName:
		return svc.Spec.ExternalName
	}
	return "<unknown>"
}

func endpointsColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("Endpoints", "string", "The ready endpoints, at most three shown."),
		ageColumn(),
	}
}

func printEndpoints(c *printContext, ep *corev1.Endpoints) (row, error) {
	return row{cells: []any{ep.Name, formatEndpoints(ep), c.age(ep.CreationTimestamp)}}, nil
}

// formatEndpoints lists up to three ready ip:port pairs (bare IPs for
// subsets without ports) and counts the rest: "a,b,c + 2 more...".
func formatEndpoints(ep *corev1.Endpoints) string {
	if len(ep.Subsets) == 0 {
		return "<none>"
	}
	var list shortList
	for _, ss := range ep.Subsets {
		if len(ss.Ports) == 0 {
			for _, a := range ss.Addresses {
				list.add(a.IP)
			}
			continue
		}
		for _, p := range ss.Ports {
			for _, a := range ss.Addresses {
				list.add(net.JoinHostPort(a.IP, strconv.Itoa(int(p.Port))))
			}
		}
	}
	return list.String()
}

func configMapColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("Data", "string", "Number of keys in data and binaryData."),
		ageColumn(),
	}
}

func printConfigMap(c *printContext, cm *corev1.ConfigMap) (row, error) {
	return row{cells: []any{cm.Name, int64(len(cm.Data) + len(cm.BinaryData)), c.age(cm.CreationTimestamp)}}, nil
}

func secretColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("Type", "string", "The secret type."),
		column("Data", "string", "Number of keys in data."),
		ageColumn(),
	}
}

func printSecret(c *printContext, s *corev1.Secret) (row, error) {
	return row{cells: []any{s.Name, string(s.Type), int64(len(s.Data)), c.age(s.CreationTimestamp)}}, nil
}

func serviceAccountColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("Secrets", "string", "Number of secrets the service account lists."),
		ageColumn(),
	}
}

func printServiceAccount(c *printContext, sa *corev1.ServiceAccount) (row, error) {
	return row{cells: []any{sa.Name, int64(len(sa.Secrets)), c.age(sa.CreationTimestamp)}}, nil
}

func eventColumns() []metav1.TableColumnDefinition {
	name := nameColumn()
	name.Priority = 1
	return []metav1.TableColumnDefinition{
		column("Last Seen", "string", "Time since the event was last seen."),
		column("Type", "string", "Normal or Warning."),
		column("Reason", "string", "Short CamelCase cause of the event."),
		column("Object", "string", "The object the event is about: kind/name."),
		wideColumn("Subobject", "string", "The field of the object the event is about."),
		wideColumn("Source", "string", "The component, and host, that reported the event."),
		column("Message", "string", "What happened, for a human."),
		wideColumn("First Seen", "string", "Time since the event was first seen."),
		wideColumn("Count", "string", "How many times the event happened."),
		name,
	}
}

func printEvent(c *printContext, ev *corev1.Event) (row, error) {
	first := c.age(ev.FirstTimestamp)
	if ev.FirstTimestamp.IsZero() {
		first = c.microAge(ev.EventTime)
	}
	last := c.age(ev.LastTimestamp)
	if ev.LastTimestamp.IsZero() {
		last = first
	}
	count := ev.Count
	switch {
	case ev.Series != nil:
		last = c.microAge(ev.Series.LastObservedTime)
		count = ev.Series.Count
	case count == 0:
		count = 1
	}
	target := strings.ToLower(ev.InvolvedObject.Kind)
	if ev.InvolvedObject.Name != "" {
		target += "/" + ev.InvolvedObject.Name
	}
	source := firstNonEmpty(ev.Source.Component, ev.ReportingController)
	if host := firstNonEmpty(ev.Source.Host, ev.ReportingInstance); host != "" {
		source += ", " + host
	}
	return row{cells: []any{
		last, ev.Type, ev.Reason, target, ev.InvolvedObject.FieldPath, source,
		strings.TrimSpace(ev.Message), first, int64(count), ev.Name,
	}}, nil
}

func pvcColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("Status", "string", "The claim's phase."),
		column("Volume", "string", "The volume bound to the claim."),
		column("Capacity", "string", "The bound volume's size."),
		column("Access Modes", "string", "The bound volume's access modes."),
		column("StorageClass", "string", "The claim's storage class."),
		column("VolumeAttributesClass", "string", "The claim's volume attributes class."),
		ageColumn(),
		wideColumn("VolumeMode", "string", "Filesystem or Block."),
	}
}

func printPVC(c *printContext, pvc *corev1.PersistentVolumeClaim) (row, error) {
	phase := string(pvc.Status.Phase)
	if pvc.DeletionTimestamp != nil {
		phase = "Terminating"
	}
	capacity, modes := "", ""
	if pvc.Spec.VolumeName != "" {
		modes = accessModes(pvc.Status.AccessModes)
		q := pvc.Status.Capacity[corev1.ResourceStorage]
		capacity = q.String()
	}
	class := ""
	if pvc.Spec.StorageClassName != nil {
		class = *pvc.Spec.StorageClassName
	}
	if v, ok := pvc.Annotations[betaStorageClassAnnotation]; ok {
		class = v
	}
	attrClass := "<unset>"
	if v := pvc.Spec.VolumeAttributesClassName; v != nil && *v != "" {
		attrClass = *v
	}
	return row{cells: []any{
		pvc.Name, phase, pvc.Spec.VolumeName, capacity, modes, class, attrClass,
		c.age(pvc.CreationTimestamp), volumeMode(pvc.Spec.VolumeMode),
	}}, nil
}

func pvColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("Capacity", "string", "The volume's size."),
		column("Access Modes", "string", "The volume's access modes."),
		column("Reclaim Policy", "string", "What happens to the volume when its claim goes."),
		column("Status", "string", "The volume's phase."),
		column("Claim", "string", "The claim bound to the volume: namespace/name."),
		column("StorageClass", "string", "The volume's storage class."),
		column("VolumeAttributesClass", "string", "The volume's volume attributes class."),
		column("Reason", "string", "Why the volume is in its phase."),
		ageColumn(),
		wideColumn("VolumeMode", "string", "Filesystem or Block."),
	}
}

func printPV(c *printContext, pv *corev1.PersistentVolume) (row, error) {
	claim := ""
	if ref := pv.Spec.ClaimRef; ref != nil {
		claim = ref.Namespace + "/" + ref.Name
	}
	q := pv.Spec.Capacity[corev1.ResourceStorage]
	phase := string(pv.Status.Phase)
	if pv.DeletionTimestamp != nil {
		phase = "Terminating"
	}
	class := pv.Spec.StorageClassName
	if v, ok := pv.Annotations[betaStorageClassAnnotation]; ok {
		class = v
	}
	attrClass := "<unset>"
	if v := pv.Spec.VolumeAttributesClassName; v != nil {
		attrClass = *v
	}
	return row{cells: []any{
		pv.Name, q.String(), accessModes(pv.Spec.AccessModes), string(pv.Spec.PersistentVolumeReclaimPolicy),
		phase, claim, class, attrClass, pv.Status.Reason, c.age(pv.CreationTimestamp), volumeMode(pv.Spec.VolumeMode),
	}}, nil
}

// accessModes abbreviates access modes in kubectl's fixed order:
// RWO,ROX,RWX,RWOP.
func accessModes(modes []corev1.PersistentVolumeAccessMode) string {
	var out []string
	for _, m := range []struct {
		mode  corev1.PersistentVolumeAccessMode
		short string
	}{
		{corev1.ReadWriteOnce, "RWO"}, {corev1.ReadOnlyMany, "ROX"},
		{corev1.ReadWriteMany, "RWX"}, {corev1.ReadWriteOncePod, "RWOP"},
	} {
		if slices.Contains(modes, m.mode) {
			out = append(out, m.short)
		}
	}
	return strings.Join(out, ",")
}

func volumeMode(m *corev1.PersistentVolumeMode) string {
	if m == nil {
		return "<unset>"
	}
	return string(*m)
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

func orUnknown(s string) string {
	if s == "" {
		return "<unknown>"
	}
	return s
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func replicationControllerColumns() []metav1.TableColumnDefinition {
	return append([]metav1.TableColumnDefinition{
		nameColumn(),
		column("Desired", "integer", "The desired number of pods."),
		column("Current", "integer", "The number of pods that exist."),
		column("Ready", "integer", "The number of ready pods."),
		ageColumn(),
	}, templateColumns(true)...)
}

func printReplicationController(c *printContext, rc *corev1.ReplicationController) (row, error) {
	var names, images string
	if rc.Spec.Template != nil {
		names, images = containerCells(rc.Spec.Template.Spec.Containers)
	}
	return row{cells: []any{
		rc.Name, int64(replicas(rc.Spec.Replicas)), int64(rc.Status.Replicas), int64(rc.Status.ReadyReplicas),
		c.age(rc.CreationTimestamp), names, images, labels.FormatLabels(rc.Spec.Selector),
	}}, nil
}

func limitRangeColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("Created At", "date", "The time the limit range was created."),
	}
}

// printLimitRange gives the creation time itself, which kubectl prints in
// RFC 3339, not an age.
func printLimitRange(_ *printContext, lr *corev1.LimitRange) (row, error) {
	return row{cells: []any{lr.Name, lr.CreationTimestamp}}, nil
}

func resourceQuotaColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("Age", "string", "How long ago the quota was created."),
		column("Request", "string", "Request represents a minimum amount of cpu/memory that a container may consume."),
		column("Limit", "string", "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node."),
	}
}

// printResourceQuota lists used/hard per resource of status.hard, sorted
// by name: the limits.* ones in Limit, the others in Request.
func printResourceQuota(c *printContext, q *corev1.ResourceQuota) (row, error) {
	names := make([]string, 0, len(q.Status.Hard))
	for name := range q.Status.Hard {
		names = append(names, string(name))
	}
	slices.Sort(names)
	var request, limit []string
	for _, name := range names {
		used, hard := q.Status.Used[corev1.ResourceName(name)], q.Status.Hard[corev1.ResourceName(name)]
		cell := fmt.Sprintf("%s: %s/%s", name, used.String(), hard.String())
		if first, _, ok := strings.Cut(name, "."); ok && first == "limits" {
			limit = append(limit, cell)
		} else {
			request = append(request, cell)
		}
	}
	return row{cells: []any{q.Name, c.age(q.CreationTimestamp), strings.Join(request, ", "), strings.Join(limit, ", ")}}, nil
}

func componentStatusColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("Status", "string", "Status of the component conditions"),
		column("Message", "string", "Message of the component conditions"),
		column("Error", "string", "Error of the component conditions"),
	}
}

// printComponentStatus shows the Healthy condition: Healthy, Unhealthy, or
// Unknown when the component reports none.
func printComponentStatus(_ *printContext, cs *corev1.ComponentStatus) (row, error) {
	status, message, errMsg := "Unknown", "", ""
	for _, cond := range cs.Conditions {
		if cond.Type != corev1.ComponentHealthy {
			continue
		}
		status = "Unhealthy"
		if cond.Status == corev1.ConditionTrue {
			status = "Healthy"
		}
		message, errMsg = cond.Message, cond.Error
		break
	}
	return row{cells: []any{cs.Name, status, message, errMsg}}, nil
}
