package daemonset

import (
	"fmt"
	"slices"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/apis/core/helper"
)

// nodeNameField is the field of a node a matchFields requirement names:
// the daemon pods' node affinity pins them to one node by it.
const nodeNameField = "metadata.name"

// daemonTolerations are the tolerations every daemon pod gets, as
// Kubernetes gives them: daemons keep running on nodes that are not ready
// or unreachable (no tolerationSeconds: never evicted for it), under
// resource pressure and on cordoned nodes; host-network daemons (the
// network plugin itself) also on nodes whose network is not set up.
func daemonTolerations(hostNetwork bool) []corev1.Toleration {
	exists := func(key string, effect corev1.TaintEffect) corev1.Toleration {
		return corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: effect}
	}
	ts := []corev1.Toleration{
		exists(corev1.TaintNodeNotReady, corev1.TaintEffectNoExecute),
		exists(corev1.TaintNodeUnreachable, corev1.TaintEffectNoExecute),
		exists(corev1.TaintNodeDiskPressure, corev1.TaintEffectNoSchedule),
		exists(corev1.TaintNodeMemoryPressure, corev1.TaintEffectNoSchedule),
		exists(corev1.TaintNodePIDPressure, corev1.TaintEffectNoSchedule),
		exists(corev1.TaintNodeUnschedulable, corev1.TaintEffectNoSchedule),
	}
	if hostNetwork {
		ts = append(ts, exists(corev1.TaintNodeNetworkUnavailable, corev1.TaintEffectNoSchedule))
	}
	return ts
}

// addDaemonTolerations adds the daemonTolerations to spec; one of the
// template's with the same key, operator, value and effect is replaced
// (a not-ready toleration with tolerationSeconds loses them).
func addDaemonTolerations(spec *corev1.PodSpec) {
	for _, t := range daemonTolerations(spec.HostNetwork) {
		i := slices.IndexFunc(spec.Tolerations, func(o corev1.Toleration) bool { return o.MatchToleration(&t) })
		if i >= 0 {
			spec.Tolerations[i] = t
		} else {
			spec.Tolerations = append(spec.Tolerations, t)
		}
	}
}

// pinToNode returns affinity with its required node affinity replaced by
// one term selecting node by name, as Kubernetes' DaemonSet controller
// does: the controller has checked the template's own terms against the
// node, and the scheduler then binds the pod there (its nodeSelector,
// taints and resources still checked).
func pinToNode(affinity *corev1.Affinity, node string) *corev1.Affinity {
	term := corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{{
		Key: nodeNameField, Operator: corev1.NodeSelectorOpIn, Values: []string{node},
	}}}
	if affinity == nil {
		affinity = &corev1.Affinity{}
	}
	if affinity.NodeAffinity == nil {
		affinity.NodeAffinity = &corev1.NodeAffinity{}
	}
	affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{term}}
	return affinity
}

// targetNode is the node a daemon pod is for: the one it is bound to,
// or, before the scheduler binds it, the one its affinity pins it to.
func targetNode(pod *corev1.Pod) (string, bool) {
	if pod.Spec.NodeName != "" {
		return pod.Spec.NodeName, true
	}
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return "", false
	}
	for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, r := range term.MatchFields {
			if r.Key == nodeNameField && r.Operator == corev1.NodeSelectorOpIn && len(r.Values) == 1 {
				return r.Values[0], true
			}
		}
	}
	return "", false
}

// placement decides where a DaemonSet's pods run: the template's node
// name, nodeSelector and required node affinity, and the taints its pods
// (with the daemonTolerations) tolerate — the scheduler's own checks.
type placement struct {
	nodeName    string
	affinity    *helper.RequiredNodeAffinity
	tolerations []corev1.Toleration
}

// newPlacement parses ds's template; an error means an affinity
// validation should have refused.
func newPlacement(ds *appsv1.DaemonSet) (*placement, error) {
	spec := ds.Spec.Template.Spec.DeepCopy()
	addDaemonTolerations(spec)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ds.Namespace, Name: ds.Name}, Spec: *spec}
	affinity, err := helper.NewRequiredNodeAffinity(pod)
	if err != nil {
		return nil, fmt.Errorf("daemonset %s/%s: %w", ds.Namespace, ds.Name, err)
	}
	return &placement{nodeName: spec.NodeName, affinity: affinity, tolerations: spec.Tolerations}, nil
}

// decide reports whether a daemon pod should be created on node (run),
// and whether one already there may stay (keep): a node being deleted, of
// another name than the template's nodeName, or outside the nodeSelector
// or required affinity gets neither; a node with a NoSchedule or
// NoExecute taint the pods do not tolerate gets no new pod, and keeps
// its pod unless an untolerated taint is NoExecute.
func (p *placement) decide(node *corev1.Node) (run, keep bool) {
	if node.DeletionTimestamp != nil {
		return false, false
	}
	if p.nodeName != "" && p.nodeName != node.Name {
		return false, false
	}
	if !p.affinity.Match(node) {
		return false, false
	}
	if _, untolerated := helper.FindUntoleratedTaint(node.Spec.Taints, p.tolerations, helper.DoNotScheduleTaints); !untolerated {
		return true, true
	}
	_, evicting := helper.FindUntoleratedTaint(node.Spec.Taints, p.tolerations, func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoExecute
	})
	return false, !evicting
}
