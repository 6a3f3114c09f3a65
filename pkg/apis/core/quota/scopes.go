package quota

import (
	"slices"
	"strings"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/runtime"
)

// Selectors returns the scope requirements of a quota: its scopes (each
// an Exists requirement) and its scope selector's expressions.
func Selectors(q *corev1.ResourceQuota) []corev1.ScopedResourceSelectorRequirement {
	var out []corev1.ScopedResourceSelectorRequirement
	for _, s := range q.Spec.Scopes {
		out = append(out, corev1.ScopedResourceSelectorRequirement{ScopeName: s, Operator: corev1.ScopeSelectorOpExists})
	}
	if q.Spec.ScopeSelector != nil {
		out = append(out, q.Spec.ScopeSelector.MatchExpressions...)
	}
	return out
}

// Matches says whether quota q tracks obj: a quota without scopes tracks
// every object; scopes select pods only, all of them having to match.
func Matches(q *corev1.ResourceQuota, obj runtime.Object) bool {
	reqs := Selectors(q)
	if len(reqs) == 0 {
		return true
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return false
	}
	for _, r := range reqs {
		if !podMatchesScope(pod, r) {
			return false
		}
	}
	return true
}

func podMatchesScope(pod *corev1.Pod, r corev1.ScopedResourceSelectorRequirement) bool {
	switch r.ScopeName {
	case corev1.ResourceQuotaScopeTerminating:
		return pod.Spec.ActiveDeadlineSeconds != nil && *pod.Spec.ActiveDeadlineSeconds >= 0
	case corev1.ResourceQuotaScopeNotTerminating:
		return pod.Spec.ActiveDeadlineSeconds == nil
	case corev1.ResourceQuotaScopeBestEffort:
		return isBestEffort(pod)
	case corev1.ResourceQuotaScopeNotBestEffort:
		return !isBestEffort(pod)
	case corev1.ResourceQuotaScopePriorityClass:
		class := pod.Spec.PriorityClassName
		switch r.Operator {
		case corev1.ScopeSelectorOpExists:
			return class != ""
		case corev1.ScopeSelectorOpDoesNotExist:
			return class == ""
		case corev1.ScopeSelectorOpIn:
			return slices.Contains(r.Values, class)
		case corev1.ScopeSelectorOpNotIn:
			return !slices.Contains(r.Values, class)
		}
	case corev1.ResourceQuotaScopeCrossNamespacePodAffinity:
		return usesCrossNamespaceAffinity(pod)
	}
	return false
}

// isBestEffort says whether no container of pod requests or limits cpu
// or memory.
func isBestEffort(pod *corev1.Pod) bool {
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, c := range cs {
			for _, l := range []corev1.ResourceList{c.Resources.Requests, c.Resources.Limits} {
				for name, q := range l {
					if (name == corev1.ResourceCPU || name == corev1.ResourceMemory) && !q.IsZero() {
						return false
					}
				}
			}
		}
	}
	return true
}

func usesCrossNamespaceAffinity(pod *corev1.Pod) bool {
	a := pod.Spec.Affinity
	if a == nil {
		return false
	}
	var terms []corev1.PodAffinityTerm
	if a.PodAffinity != nil {
		terms = append(terms, a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution...)
		for _, w := range a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, w.PodAffinityTerm)
		}
	}
	if a.PodAntiAffinity != nil {
		terms = append(terms, a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution...)
		for _, w := range a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, w.PodAffinityTerm)
		}
	}
	for _, t := range terms {
		if len(t.Namespaces) > 0 || t.NamespaceSelector != nil {
			return true
		}
	}
	return false
}

// MissingRequirements lists, for the compute resources a quota limits
// (requests.cpu, limits.memory...), those some container of pod leaves
// unset: such a pod cannot be charged and is refused. Each entry is
// "<resource> for: <container>[,<container>]".
func MissingRequirements(pod *corev1.Pod, hard []corev1.ResourceName) []string {
	var out []string
	for _, name := range hard {
		var kind string
		var res corev1.ResourceName
		switch name {
		case corev1.ResourceCPU, corev1.ResourceMemory:
			kind, res = "requests", name
		case corev1.ResourceRequestsCPU, corev1.ResourceRequestsMemory:
			kind, res = "requests", name[len("requests."):]
		case corev1.ResourceLimitsCPU, corev1.ResourceLimitsMemory:
			kind, res = "limits", name[len("limits."):]
		default:
			continue
		}
		var missing []string
		for _, c := range pod.Spec.Containers {
			l := c.Resources.Requests
			if kind == "limits" {
				l = c.Resources.Limits
			}
			if _, ok := l[res]; !ok {
				missing = append(missing, c.Name)
			}
		}
		if len(missing) > 0 {
			out = append(out, string(name)+" for: "+strings.Join(missing, ","))
		}
	}
	return out
}
