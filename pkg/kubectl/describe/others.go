package describe

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"

	coordinationv1 "kubecore.io/api/coordination/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/client/dynamic"
)

var (
	leasesGVR    = schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}
	endpointsGVR = schema.GroupVersionResource{Version: "v1", Resource: "endpoints"}
)

func trimSpace(s string) string { return strings.TrimSpace(s) }

func describeNamespace(ctx context.Context, d *Describer, w *prefixWriter, obj *dynamic.Unstructured) error {
	var ns corev1.Namespace
	if err := convert(obj, &ns); err != nil {
		return err
	}
	w.write(level0, "Name:\t%s\n", ns.Name)
	w.writeLabels(level0, "Labels", ns.Labels)
	w.writeAnnotations(level0, "Annotations", ns.Annotations)
	w.write(level0, "Status:\t%s\n", string(ns.Status.Phase))
	// Quotas and limit ranges only where the server serves them.
	if _, err := d.mapper.ResourceFor(ctx, "resourcequotas"); err == nil {
		w.write(level0, "\nNo resource quota.\n")
	}
	if _, err := d.mapper.ResourceFor(ctx, "limitranges"); err == nil {
		w.write(level0, "\nNo LimitRange resource.\n")
	}
	return nil
}

func describeConfigMap(ctx context.Context, d *Describer, w *prefixWriter, obj *dynamic.Unstructured) error {
	var cm corev1.ConfigMap
	if err := convert(obj, &cm); err != nil {
		return err
	}
	w.write(level0, "Name:\t%s\n", cm.Name)
	w.write(level0, "Namespace:\t%s\n", cm.Namespace)
	w.writeLabels(level0, "Labels", cm.Labels)
	w.writeAnnotations(level0, "Annotations", cm.Annotations)
	w.write(level0, "\nData\n====\n")
	for _, k := range slices.Sorted(mapKeys(cm.Data)) {
		w.write(level0, "%s:\n----\n", k)
		w.write(level0, "%s\n", cm.Data[k])
		w.write(level0, "\n")
	}
	w.write(level0, "\nBinaryData\n====\n")
	for _, k := range slices.Sorted(mapKeys(cm.BinaryData)) {
		w.write(level0, "%s: %d bytes\n", k, len(cm.BinaryData[k]))
	}
	w.write(level0, "\n")
	d.writeEvents(ctx, w, cm.ObjectMeta)
	return nil
}

func describeSecret(_ context.Context, _ *Describer, w *prefixWriter, obj *dynamic.Unstructured) error {
	var s corev1.Secret
	if err := convert(obj, &s); err != nil {
		return err
	}
	w.write(level0, "Name:\t%s\n", s.Name)
	w.write(level0, "Namespace:\t%s\n", s.Namespace)
	w.writeLabels(level0, "Labels", s.Labels)
	w.writeAnnotations(level0, "Annotations", s.Annotations)
	w.write(level0, "\nType:\t%s\n", s.Type)
	w.write(level0, "\nData\n====\n")
	for _, k := range slices.Sorted(mapKeys(s.Data)) {
		w.write(level0, "%s:\t%d bytes\n", k, len(s.Data[k]))
	}
	return nil
}

func describeService(ctx context.Context, d *Describer, w *prefixWriter, obj *dynamic.Unstructured) error {
	var svc corev1.Service
	if err := convert(obj, &svc); err != nil {
		return err
	}
	w.write(level0, "Name:\t%s\n", svc.Name)
	w.write(level0, "Namespace:\t%s\n", svc.Namespace)
	w.writeLabels(level0, "Labels", svc.Labels)
	w.writeAnnotations(level0, "Annotations", svc.Annotations)
	w.write(level0, "Selector:\t%s\n", formatLabels(svc.Spec.Selector))
	w.write(level0, "Type:\t%s\n", svc.Spec.Type)
	if svc.Spec.IPFamilyPolicy != nil {
		w.write(level0, "IP Family Policy:\t%s\n", *svc.Spec.IPFamilyPolicy)
	}
	if len(svc.Spec.IPFamilies) > 0 {
		var fams []string
		for _, f := range svc.Spec.IPFamilies {
			fams = append(fams, string(f))
		}
		w.write(level0, "IP Families:\t%s\n", strings.Join(fams, ","))
	}
	w.write(level0, "IP:\t%s\n", svc.Spec.ClusterIP)
	if len(svc.Spec.ClusterIPs) > 0 {
		w.write(level0, "IPs:\t%s\n", strings.Join(svc.Spec.ClusterIPs, ","))
	}
	if len(svc.Spec.ExternalIPs) > 0 {
		w.write(level0, "External IPs:\t%v\n", strings.Join(svc.Spec.ExternalIPs, ","))
	}
	if svc.Spec.ExternalName != "" {
		w.write(level0, "External Name:\t%s\n", svc.Spec.ExternalName)
	}
	eps := d.endpoints(ctx, svc.Namespace, svc.Name)
	for _, p := range svc.Spec.Ports {
		name := p.Name
		if name == "" {
			name = "<unset>"
		}
		w.write(level0, "Port:\t%s\t%d/%s\n", name, p.Port, p.Protocol)
		if p.TargetPort.String() != "" && p.TargetPort.String() != "0" {
			w.write(level0, "TargetPort:\t%s/%s\n", p.TargetPort.String(), p.Protocol)
		}
		if p.NodePort != 0 {
			w.write(level0, "NodePort:\t%s\t%d/%s\n", name, p.NodePort, p.Protocol)
		}
		w.write(level0, "Endpoints:\t%s\n", eps)
	}
	w.write(level0, "Session Affinity:\t%s\n", svc.Spec.SessionAffinity)
	if svc.Spec.ExternalTrafficPolicy != "" {
		w.write(level0, "External Traffic Policy:\t%s\n", svc.Spec.ExternalTrafficPolicy)
	}
	if svc.Spec.InternalTrafficPolicy != nil {
		w.write(level0, "Internal Traffic Policy:\t%s\n", *svc.Spec.InternalTrafficPolicy)
	}
	d.writeEvents(ctx, w, svc.ObjectMeta)
	return nil
}

// endpoints returns the addresses of a service's Endpoints, or "<none>".
func (d *Describer) endpoints(ctx context.Context, ns, name string) string {
	obj, err := d.dyn.Resource(endpointsGVR).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "<none>"
	}
	var ep corev1.Endpoints
	if err := convert(obj, &ep); err != nil {
		return "<none>"
	}
	var list []string
	for _, s := range ep.Subsets {
		for _, a := range s.Addresses {
			for _, p := range s.Ports {
				list = append(list, fmt.Sprintf("%s:%d", a.IP, p.Port))
			}
		}
	}
	if len(list) == 0 {
		return "<none>"
	}
	return strings.Join(list, ",")
}

func formatLabels(m map[string]string) string {
	if len(m) == 0 {
		return "<none>"
	}
	return labels.Set(m).String()
}

// nodeRoles returns the roles named by node-role.kubernetes.io/ labels.
func nodeRoles(l map[string]string) string {
	var roles []string
	for k, v := range l {
		switch {
		case strings.HasPrefix(k, "node-role.kubernetes.io/"):
			if r := strings.TrimPrefix(k, "node-role.kubernetes.io/"); r != "" {
				roles = append(roles, r)
			}
		case k == "kubernetes.io/role" && v != "":
			roles = append(roles, v)
		}
	}
	if len(roles) == 0 {
		return "<none>"
	}
	slices.Sort(roles)
	return strings.Join(roles, ",")
}

func describeNode(ctx context.Context, d *Describer, w *prefixWriter, obj *dynamic.Unstructured) error {
	var node corev1.Node
	if err := convert(obj, &node); err != nil {
		return err
	}
	w.write(level0, "Name:\t%s\n", node.Name)
	w.write(level0, "Roles:\t%s\n", nodeRoles(node.Labels))
	w.writeLabels(level0, "Labels", node.Labels)
	w.writeAnnotations(level0, "Annotations", node.Annotations)
	w.write(level0, "CreationTimestamp:\t%s\n", timestamp(node.CreationTimestamp.Time))
	w.write(level0, "Taints:\t")
	if len(node.Spec.Taints) == 0 {
		w.write(level0, "<none>\n")
	}
	// By effect, the strongest first, as kubectl lists them.
	taints := slices.Clone(node.Spec.Taints)
	effectOrder := map[corev1.TaintEffect]int{corev1.TaintEffectNoExecute: 0, corev1.TaintEffectNoSchedule: 1, corev1.TaintEffectPreferNoSchedule: 2}
	slices.SortStableFunc(taints, func(a, b corev1.Taint) int { return effectOrder[a.Effect] - effectOrder[b.Effect] })
	for i, t := range taints {
		if i > 0 {
			w.write(level0, "\t")
		}
		s := t.Key
		if t.Value != "" {
			s += "=" + t.Value
		}
		w.write(level0, "%s:%s\n", s, t.Effect)
	}
	w.write(level0, "Unschedulable:\t%v\n", node.Spec.Unschedulable)
	d.writeLease(ctx, w, node.Name)
	if len(node.Status.Conditions) > 0 {
		w.write(level0, "Conditions:\n  Type\tStatus\tLastHeartbeatTime\tLastTransitionTime\tReason\tMessage\n")
		w.write(level1, "----\t------\t-----------------\t------------------\t------\t-------\n")
		for _, c := range node.Status.Conditions {
			w.write(level1, "%v \t%v \t%s \t%s \t%v \t%v\n", c.Type, c.Status,
				timestamp(c.LastHeartbeatTime.Time), timestamp(c.LastTransitionTime.Time), c.Reason, c.Message)
		}
	}
	w.write(level0, "Addresses:\n")
	for _, a := range node.Status.Addresses {
		w.write(level1, "%s:\t%s\n", a.Type, a.Address)
	}
	writeResourceList(w, "Capacity", node.Status.Capacity)
	writeResourceList(w, "Allocatable", node.Status.Allocatable)
	si := node.Status.NodeInfo
	w.write(level0, "System Info:\n")
	for _, f := range [][2]string{
		{"Machine ID", si.MachineID}, {"System UUID", si.SystemUUID}, {"Boot ID", si.BootID},
		{"Kernel Version", si.KernelVersion}, {"OS Image", si.OSImage}, {"Operating System", si.OperatingSystem},
		{"Architecture", si.Architecture}, {"Container Runtime Version", si.ContainerRuntimeVersion},
		{"Kubelet Version", si.KubeletVersion}, {"Kube-Proxy Version", si.KubeProxyVersion},
	} {
		w.write(level1, "%s:\t%s\n", f[0], f[1])
	}
	if node.Spec.PodCIDR != "" {
		w.write(level0, "PodCIDR:\t%s\n", node.Spec.PodCIDR)
	}
	if len(node.Spec.PodCIDRs) > 0 {
		w.write(level0, "PodCIDRs:\t%s\n", strings.Join(node.Spec.PodCIDRs, ","))
	}
	if node.Spec.ProviderID != "" {
		w.write(level0, "ProviderID:\t%s\n", node.Spec.ProviderID)
	}
	d.writeNodePods(ctx, w, &node)
	d.writeEvents(ctx, w, node.ObjectMeta)
	return nil
}

func writeResourceList(w *prefixWriter, title string, list corev1.ResourceList) {
	if len(list) == 0 {
		return
	}
	w.write(level0, "%s:\n", title)
	names := make([]string, 0, len(list))
	for n := range list {
		names = append(names, string(n))
	}
	slices.Sort(names)
	for _, n := range names {
		q := list[corev1.ResourceName(n)]
		w.write(level1, "%s:\t%s\n", n, q.String())
	}
}

func (d *Describer) writeLease(ctx context.Context, w *prefixWriter, node string) {
	obj, err := d.dyn.Resource(leasesGVR).Namespace("kube-node-lease").Get(ctx, node, metav1.GetOptions{})
	if err != nil {
		if apierrors.IsNotFound(err) {
			err = fmt.Errorf("leases.coordination.k8s.io %q not found", node)
		}
		w.write(level0, "Lease:\tFailed to get lease: %s\n", err)
		return
	}
	var lease coordinationv1.Lease
	if err := convert(obj, &lease); err != nil {
		w.write(level0, "Lease:\tFailed to get lease: %s\n", err)
		return
	}
	holder, acquire, renew := "<unset>", "<unset>", "<unset>"
	if lease.Spec.HolderIdentity != nil {
		holder = *lease.Spec.HolderIdentity
	}
	if lease.Spec.AcquireTime != nil {
		acquire = timestamp(lease.Spec.AcquireTime.Time)
	}
	if lease.Spec.RenewTime != nil {
		renew = timestamp(lease.Spec.RenewTime.Time)
	}
	w.write(level0, "Lease:\n")
	w.write(level1, "HolderIdentity:\t%s\n", holder)
	w.write(level1, "AcquireTime:\t%s\n", acquire)
	w.write(level1, "RenewTime:\t%s\n", renew)
}

// podResources sums the requests and limits of a pod's containers.
func podResources(p *corev1.Pod) (req, lim corev1.ResourceList) {
	req, lim = corev1.ResourceList{}, corev1.ResourceList{}
	for _, c := range p.Spec.Containers {
		addList(req, c.Resources.Requests)
		addList(lim, c.Resources.Limits)
	}
	return req, lim
}

func addList(into, from corev1.ResourceList) {
	for n, q := range from {
		sum := into[n]
		sum.Add(q)
		into[n] = sum
	}
}

// fraction prints a quantity and its share of the allocatable amount.
func fraction(list corev1.ResourceList, name corev1.ResourceName, alloc corev1.ResourceList) string {
	q := list[name]
	pct := int64(0)
	if a, ok := alloc[name]; ok && a.MilliValue() > 0 {
		pct = int64(float64(q.MilliValue()) / float64(a.MilliValue()) * 100)
	}
	return fmt.Sprintf("%s (%d%%)", quantityText(q), pct)
}

func quantityText(q resource.Quantity) string {
	if q.IsZero() {
		return "0"
	}
	return q.String()
}

func (d *Describer) writeNodePods(ctx context.Context, w *prefixWriter, node *corev1.Node) {
	var pods corev1.PodList
	_ = d.list(ctx, podsGVR, "", metav1.ListOptions{FieldSelector: "spec.nodeName=" + node.Name}, &pods)
	var running []corev1.Pod
	for _, p := range pods.Items {
		if p.Spec.NodeName == node.Name && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			running = append(running, p)
		}
	}
	alloc := node.Status.Allocatable
	if len(alloc) == 0 {
		alloc = node.Status.Capacity
	}
	w.write(level0, "Non-terminated Pods:\t(%d in total)\n", len(running))
	w.write(level1, "Namespace\tName\t\tCPU Requests\tCPU Limits\tMemory Requests\tMemory Limits\tAge\n")
	w.write(level1, "---------\t----\t\t------------\t----------\t---------------\t-------------\t---\n")
	totalReq, totalLim := corev1.ResourceList{}, corev1.ResourceList{}
	now := d.now()
	for i := range running {
		p := &running[i]
		req, lim := podResources(p)
		addList(totalReq, req)
		addList(totalLim, lim)
		w.write(level1, "%s\t%s\t\t%s\t%s\t%s\t%s\t%s\n", p.Namespace, p.Name,
			fraction(req, corev1.ResourceCPU, alloc), fraction(lim, corev1.ResourceCPU, alloc),
			fraction(req, corev1.ResourceMemory, alloc), fraction(lim, corev1.ResourceMemory, alloc),
			humanDuration(now.Sub(p.CreationTimestamp.Time)))
	}
	w.write(level0, "Allocated resources:\n  (Total limits may be over 100 percent, i.e., overcommitted.)\n")
	w.write(level1, "Resource\tRequests\tLimits\n")
	w.write(level1, "--------\t--------\t------\n")
	for _, n := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, "ephemeral-storage"} {
		w.write(level1, "%s\t%s\t%s\n", n, fraction(totalReq, n, alloc), fraction(totalLim, n, alloc))
	}
}

// describeGeneric prints any object: its metadata, then its fields with
// their names spelled out.
func describeGeneric(ctx context.Context, d *Describer, w *prefixWriter, obj *dynamic.Unstructured) error {
	w.write(level0, "Name:\t%s\n", obj.GetName())
	if obj.GetNamespace() != "" {
		w.write(level0, "Namespace:\t%s\n", obj.GetNamespace())
	}
	w.writeLabels(level0, "Labels", obj.GetLabels())
	w.writeAnnotations(level0, "Annotations", obj.GetAnnotations())
	skip := map[string]bool{"name": true, "namespace": true, "labels": true, "annotations": true, "managedFields": true}
	for _, k := range slices.Sorted(mapKeys(obj.Object)) {
		v := obj.Object[k]
		if k == "metadata" {
			md, _ := v.(map[string]any)
			rest := map[string]any{}
			for mk, mv := range md {
				if !skip[mk] {
					rest[mk] = mv
				}
			}
			v = rest
		}
		writeField(w, 0, k, v)
	}
	var meta metav1.ObjectMeta
	_ = convert(&dynamic.Unstructured{Object: map[string]any{"metadata": obj.Object["metadata"]}}, &struct {
		Metadata *metav1.ObjectMeta `json:"metadata"`
	}{&meta})
	d.writeEvents(ctx, w, meta)
	return nil
}

func writeField(w *prefixWriter, level int, key string, v any) {
	label := fieldLabel(key)
	switch t := v.(type) {
	case map[string]any:
		if len(t) == 0 {
			return
		}
		w.write(level, "%s:\n", label)
		for _, k := range slices.Sorted(mapKeys(t)) {
			writeField(w, level+1, k, t[k])
		}
	case []any:
		w.write(level, "%s:\n", label)
		for _, e := range t {
			if m, ok := e.(map[string]any); ok {
				for i, k := range slices.Sorted(mapKeys(m)) {
					prefix := "  "
					if i == 0 {
						prefix = "- "
					}
					w.write(level+1, "%s%s:\t%v\n", prefix, fieldLabel(k), m[k])
				}
				continue
			}
			w.write(level+1, "%v\n", e)
		}
	default:
		w.write(level, "%s:\t%v\n", label, t)
	}
}

// fieldLabel spells a JSON field name as words: apiVersion -> API Version.
func fieldLabel(key string) string {
	var words []string
	start := 0
	runes := []rune(key)
	for i := 1; i < len(runes); i++ {
		if unicode.IsUpper(runes[i]) && (unicode.IsLower(runes[i-1]) || (i+1 < len(runes) && unicode.IsLower(runes[i+1]))) {
			words = append(words, string(runes[start:i]))
			start = i
		}
	}
	words = append(words, string(runes[start:]))
	for i, word := range words {
		switch strings.ToLower(word) {
		case "api", "uid", "ip", "url", "id":
			words[i] = strings.ToUpper(word)
		default:
			r := []rune(word)
			r[0] = unicode.ToUpper(r[0])
			words[i] = string(r)
		}
	}
	return strings.Join(words, " ")
}
