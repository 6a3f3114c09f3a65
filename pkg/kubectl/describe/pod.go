package describe

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/dynamic"
)

func describePod(ctx context.Context, d *Describer, w *prefixWriter, obj *dynamic.Unstructured) error {
	var pod corev1.Pod
	if err := convert(obj, &pod); err != nil {
		return err
	}
	w.write(level0, "Name:\t%s\n", pod.Name)
	w.write(level0, "Namespace:\t%s\n", pod.Namespace)
	if pod.Spec.Priority != nil {
		w.write(level0, "Priority:\t%d\n", *pod.Spec.Priority)
	}
	if pod.Spec.PriorityClassName != "" {
		w.write(level0, "Priority Class Name:\t%s\n", pod.Spec.PriorityClassName)
	}
	if pod.Spec.ServiceAccountName != "" {
		w.write(level0, "Service Account:\t%s\n", pod.Spec.ServiceAccountName)
	}
	if pod.Spec.NodeName == "" {
		w.write(level0, "Node:\t<none>\n")
	} else {
		w.write(level0, "Node:\t%s\n", pod.Spec.NodeName+"/"+pod.Status.HostIP)
	}
	if pod.Status.StartTime != nil {
		w.write(level0, "Start Time:\t%s\n", timestamp(pod.Status.StartTime.Time))
	}
	w.writeLabels(level0, "Labels", pod.Labels)
	w.writeAnnotations(level0, "Annotations", pod.Annotations)
	if pod.DeletionTimestamp != nil {
		w.write(level0, "Status:\tTerminating (lasts %s)\n", humanDuration(d.now().Sub(pod.DeletionTimestamp.Time)))
		if pod.DeletionGracePeriodSeconds != nil {
			w.write(level0, "Termination Grace Period:\t%ds\n", *pod.DeletionGracePeriodSeconds)
		}
	} else {
		w.write(level0, "Status:\t%s\n", string(pod.Status.Phase))
	}
	if pod.Status.Reason != "" {
		w.write(level0, "Reason:\t%s\n", pod.Status.Reason)
	}
	if pod.Status.Message != "" {
		w.write(level0, "Message:\t%s\n", pod.Status.Message)
	}
	w.write(level0, "IP:\t%s\n", pod.Status.PodIP)
	if len(pod.Status.PodIPs) == 0 {
		w.write(level0, "IPs:\t<none>\n")
	} else {
		w.write(level0, "IPs:\n")
		for _, ip := range pod.Status.PodIPs {
			w.write(level1, "IP:\t%s\n", ip.IP)
		}
	}
	if ref := metav1.GetControllerOf(&pod); ref != nil {
		w.write(level0, "Controlled By:\t%s/%s\n", ref.Kind, ref.Name)
	}
	if pod.Status.NominatedNodeName != "" {
		w.write(level0, "NominatedNodeName:\t%s\n", pod.Status.NominatedNodeName)
	}
	if len(pod.Spec.InitContainers) > 0 {
		describeContainers(w, "Init Containers", pod.Spec.InitContainers, pod.Status.InitContainerStatuses, "")
	}
	describeContainers(w, "Containers", pod.Spec.Containers, pod.Status.ContainerStatuses, "")
	if len(pod.Status.Conditions) > 0 {
		w.write(level0, "Conditions:\n  Type\tStatus\n")
		for _, c := range pod.Status.Conditions {
			w.write(level1, "%v \t%v \n", c.Type, c.Status)
		}
	}
	describeVolumes(w, pod.Spec.Volumes, "")
	qos := string(pod.Status.QOSClass)
	if qos == "" {
		qos = podQOS(&pod.Spec)
	}
	w.write(level0, "QoS Class:\t%s\n", qos)
	w.writeLabels(level0, "Node-Selectors", pod.Spec.NodeSelector)
	writeTolerations(w, level0, "Tolerations", pod.Spec.Tolerations)
	d.writeEvents(ctx, w, pod.ObjectMeta)
	return nil
}

// describeContainers prints containers with their status when known; space
// goes before each name (pod templates indent them one more).
func describeContainers(w *prefixWriter, title string, containers []corev1.Container, statuses []corev1.ContainerStatus, space string) {
	status := map[string]corev1.ContainerStatus{}
	for _, s := range statuses {
		status[s.Name] = s
	}
	w.write(level0, "%s%s:\n", space, title)
	for _, c := range containers {
		st, hasStatus := status[c.Name]
		w.write(level1, "%s%v:\n", nameIndent(space), c.Name)
		if hasStatus {
			w.write(level2, "Container ID:\t%s\n", st.ContainerID)
		}
		w.write(level2, "Image:\t%s\n", c.Image)
		if hasStatus {
			w.write(level2, "Image ID:\t%s\n", st.ImageID)
		}
		describePorts(w, c.Ports)
		writeLines(w, "Command", c.Command)
		writeLines(w, "Args", c.Args)
		if hasStatus {
			describeState(w, "State", st.State)
			if st.LastTerminationState.Terminated != nil {
				describeState(w, "Last State", st.LastTerminationState)
			}
			w.write(level2, "Ready:\t%s\n", boolText(st.Ready))
			w.write(level2, "Restart Count:\t%d\n", st.RestartCount)
		}
		writeResources(w, "Limits", c.Resources.Limits)
		writeResources(w, "Requests", c.Resources.Requests)
		describeEnv(w, c)
		if len(c.VolumeMounts) == 0 {
			w.write(level2, "Mounts:\t<none>\n")
		} else {
			w.write(level2, "Mounts:\n")
			for _, m := range c.VolumeMounts {
				flags := "rw"
				if m.ReadOnly {
					flags = "ro"
				}
				if m.SubPath != "" {
					flags += fmt.Sprintf(",path=%q", m.SubPath)
				}
				w.write(level3, "%s from %s (%s)\n", m.MountPath, m.Name, flags)
			}
		}
	}
}

// nameIndent is what goes before a container or volume name inside a pod
// template: one more space than in a pod.
func nameIndent(space string) string {
	if space == "" {
		return ""
	}
	return " "
}

func describePorts(w *prefixWriter, ports []corev1.ContainerPort) {
	if len(ports) == 0 {
		w.write(level2, "Port:\t<none>\n")
		w.write(level2, "Host Port:\t<none>\n")
		return
	}
	var ps, hs []string
	for _, p := range ports {
		proto := string(p.Protocol)
		if proto == "" {
			proto = "TCP"
		}
		ps = append(ps, fmt.Sprintf("%d/%s", p.ContainerPort, proto))
		hs = append(hs, fmt.Sprintf("%d/%s", p.HostPort, proto))
	}
	if len(ports) == 1 {
		w.write(level2, "Port:\t%s\n", ps[0])
		w.write(level2, "Host Port:\t%s\n", hs[0])
		return
	}
	w.write(level2, "Ports:\t%s\n", strings.Join(ps, ", "))
	w.write(level2, "Host Ports:\t%s\n", strings.Join(hs, ", "))
}

// writeLines prints a command or its arguments, one line each.
func writeLines(w *prefixWriter, title string, lines []string) {
	if len(lines) == 0 {
		return
	}
	w.write(level2, "%s:\n", title)
	for _, l := range lines {
		for _, part := range strings.Split(l, "\n") {
			w.write(level3, "%s\n", part)
		}
	}
}

func describeState(w *prefixWriter, title string, s corev1.ContainerState) {
	switch {
	case s.Running != nil:
		w.write(level2, "%s:\tRunning\n", title)
		w.write(level3, "Started:\t%s\n", timestamp(s.Running.StartedAt.Time))
	case s.Waiting != nil:
		w.write(level2, "%s:\tWaiting\n", title)
		if s.Waiting.Reason != "" {
			w.write(level3, "Reason:\t%s\n", s.Waiting.Reason)
		}
	case s.Terminated != nil:
		t := s.Terminated
		w.write(level2, "%s:\tTerminated\n", title)
		if t.Reason != "" {
			w.write(level3, "Reason:\t%s\n", t.Reason)
		}
		if t.Message != "" {
			w.write(level3, "Message:\t%s\n", t.Message)
		}
		w.write(level3, "Exit Code:\t%d\n", t.ExitCode)
		if t.Signal > 0 {
			w.write(level3, "Signal:\t%d\n", t.Signal)
		}
		w.write(level3, "Started:\t%s\n", timestamp(t.StartedAt.Time))
		w.write(level3, "Finished:\t%s\n", timestamp(t.FinishedAt.Time))
	default:
		w.write(level2, "%s:\tWaiting\n", title)
	}
}

func boolText(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

func writeResources(w *prefixWriter, title string, list corev1.ResourceList) {
	if len(list) == 0 {
		return
	}
	w.write(level2, "%s:\n", title)
	names := make([]string, 0, len(list))
	for n := range list {
		names = append(names, string(n))
	}
	slices.Sort(names)
	for _, n := range names {
		q := list[corev1.ResourceName(n)]
		w.write(level3, "%s:\t%s\n", n, q.String())
	}
}

func describeEnv(w *prefixWriter, c corev1.Container) {
	if len(c.EnvFrom) > 0 {
		w.write(level2, "Environment Variables from:\n")
		for _, from := range c.EnvFrom {
			kind, name, optional := "", "", false
			switch {
			case from.ConfigMapRef != nil:
				kind, name = "ConfigMap", from.ConfigMapRef.Name
				optional = from.ConfigMapRef.Optional != nil && *from.ConfigMapRef.Optional
			case from.SecretRef != nil:
				kind, name = "Secret", from.SecretRef.Name
				optional = from.SecretRef.Optional != nil && *from.SecretRef.Optional
			}
			if from.Prefix == "" {
				w.write(level3, "%s\t%s\tOptional: %t\n", name, kind, optional)
			} else {
				w.write(level3, "%s\t%s with prefix '%s'\tOptional: %t\n", name, kind, from.Prefix, optional)
			}
		}
	}
	if len(c.Env) == 0 {
		if len(c.EnvFrom) == 0 {
			w.write(level2, "Environment:\t<none>\n")
		}
		return
	}
	w.write(level2, "Environment:\n")
	for _, e := range c.Env {
		switch vf := e.ValueFrom; {
		case vf == nil:
			for i, l := range strings.Split(e.Value, "\n") {
				if i == 0 {
					w.write(level3, "%s:\t%s\n", e.Name, l)
				} else {
					w.write(level3, "\t%s\n", l)
				}
			}
		case vf.FieldRef != nil:
			w.write(level3, "%s:\t (%s:%s)\n", e.Name, vf.FieldRef.APIVersion, vf.FieldRef.FieldPath)
		case vf.ResourceFieldRef != nil:
			w.write(level3, "%s:\t%s (%s)\n", e.Name, "", vf.ResourceFieldRef.Resource)
		case vf.SecretKeyRef != nil:
			opt := vf.SecretKeyRef.Optional != nil && *vf.SecretKeyRef.Optional
			w.write(level3, "%s:\t<set to the key '%s' in secret '%s'>\tOptional: %t\n", e.Name, vf.SecretKeyRef.Key, vf.SecretKeyRef.Name, opt)
		case vf.ConfigMapKeyRef != nil:
			opt := vf.ConfigMapKeyRef.Optional != nil && *vf.ConfigMapKeyRef.Optional
			w.write(level3, "%s:\t<set to the key '%s' of config map '%s'>\tOptional: %t\n", e.Name, vf.ConfigMapKeyRef.Key, vf.ConfigMapKeyRef.Name, opt)
		}
	}
}

func describeVolumes(w *prefixWriter, volumes []corev1.Volume, space string) {
	if len(volumes) == 0 {
		w.write(level0, "%sVolumes:\t<none>\n", space)
		return
	}
	w.write(level0, "%sVolumes:\n", space)
	for _, v := range volumes {
		w.write(level1, "%s%v:\n", nameIndent(space), v.Name)
		s := v.VolumeSource
		switch {
		case s.EmptyDir != nil:
			w.write(level2, "Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)\n")
			w.write(level2, "Medium:\t%s\n", string(s.EmptyDir.Medium))
			limit := "<unset>"
			if s.EmptyDir.SizeLimit != nil {
				limit = s.EmptyDir.SizeLimit.String()
			}
			w.write(level2, "SizeLimit:\t%s\n", limit)
		case s.ConfigMap != nil:
			w.write(level2, "Type:\tConfigMap (a volume populated by a ConfigMap)\n")
			w.write(level2, "Name:\t%v\n", s.ConfigMap.Name)
			w.write(level2, "Optional:\t%v\n", s.ConfigMap.Optional != nil && *s.ConfigMap.Optional)
		case s.Secret != nil:
			w.write(level2, "Type:\tSecret (a volume populated by a Secret)\n")
			w.write(level2, "SecretName:\t%v\n", s.Secret.SecretName)
			w.write(level2, "Optional:\t%v\n", s.Secret.Optional != nil && *s.Secret.Optional)
		case s.HostPath != nil:
			w.write(level2, "Type:\tHostPath (bare host directory volume)\n")
			w.write(level2, "Path:\t%v\n", s.HostPath.Path)
			typ := ""
			if s.HostPath.Type != nil {
				typ = string(*s.HostPath.Type)
			}
			w.write(level2, "HostPathType:\t%v\n", typ)
		case s.PersistentVolumeClaim != nil:
			w.write(level2, "Type:\tPersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)\n")
			w.write(level2, "ClaimName:\t%v\n", s.PersistentVolumeClaim.ClaimName)
			w.write(level2, "ReadOnly:\t%v\n", s.PersistentVolumeClaim.ReadOnly)
		default:
			w.write(level2, "<unknown>\n")
		}
	}
}

func writeTolerations(w *prefixWriter, level int, title string, tolerations []corev1.Toleration) {
	w.write(level, "%s:\t", title)
	if len(tolerations) == 0 {
		w.write(level0, "<none>\n")
		return
	}
	// By key, as kubectl prints them.
	tolerations = slices.Clone(tolerations)
	slices.SortStableFunc(tolerations, func(a, b corev1.Toleration) int { return strings.Compare(a.Key, b.Key) })
	for i, t := range tolerations {
		if i > 0 {
			w.write(level, "\t")
		}
		var b strings.Builder
		b.WriteString(t.Key)
		if t.Value != "" {
			b.WriteString("=" + t.Value)
		}
		if t.Effect != "" {
			b.WriteString(":" + string(t.Effect))
		}
		if t.Operator == corev1.TolerationOpExists && t.Value == "" {
			if t.Key != "" || t.Effect != "" {
				b.WriteString(" op=Exists")
			} else {
				b.WriteString("op=Exists")
			}
		}
		if t.TolerationSeconds != nil {
			fmt.Fprintf(&b, " for %ds", *t.TolerationSeconds)
		}
		w.write(level0, "%s\n", b.String())
	}
}

// podQOS derives the QoS class from the containers' requests and limits.
func podQOS(spec *corev1.PodSpec) string {
	requests, limits := corev1.ResourceList{}, corev1.ResourceList{}
	zero := resource.Quantity{}
	guaranteed := true
	all := append(slices.Clone(spec.InitContainers), spec.Containers...)
	for _, c := range all {
		for n, q := range c.Resources.Requests {
			if (n == corev1.ResourceCPU || n == corev1.ResourceMemory) && q.Cmp(zero) > 0 {
				requests[n] = q
			}
		}
		seen := 0
		for n, q := range c.Resources.Limits {
			if (n == corev1.ResourceCPU || n == corev1.ResourceMemory) && q.Cmp(zero) > 0 {
				limits[n] = q
				seen++
			}
		}
		if seen < 2 {
			guaranteed = false
		}
	}
	if len(requests) == 0 && len(limits) == 0 {
		return "BestEffort"
	}
	if guaranteed {
		for _, c := range all {
			for n, q := range c.Resources.Requests {
				if l, ok := c.Resources.Limits[n]; ok && !l.Equal(q) {
					guaranteed = false
				}
			}
		}
	}
	if guaranteed && len(limits) == 2 {
		return "Guaranteed"
	}
	return "Burstable"
}
