// Package quota says what objects charge against a ResourceQuota: the
// usage of one object (counts, compute and storage requests and limits)
// and whether a quota's scopes select it. The quota controller sums it
// over a namespace; quota admission charges it on each create.
package quota

import (
	"fmt"
	"slices"
	"strings"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/api/resource"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
)

// CountName is the object-count resource of gr: count/<resource> in the
// core group, count/<resource>.<group> otherwise.
func CountName(gr schema.GroupResource) corev1.ResourceName {
	if gr.Group == "" {
		return corev1.ResourceName("count/" + gr.Resource)
	}
	return corev1.ResourceName("count/" + gr.Resource + "." + gr.Group)
}

// legacyCounts are the count names quota knew before count/<resource>.
var legacyCounts = map[schema.GroupResource]corev1.ResourceName{
	{Resource: "pods"}:                   corev1.ResourcePods,
	{Resource: "services"}:               corev1.ResourceServices,
	{Resource: "secrets"}:                corev1.ResourceSecrets,
	{Resource: "configmaps"}:             corev1.ResourceConfigMaps,
	{Resource: "persistentvolumeclaims"}: corev1.ResourcePersistentVolumeClaims,
	{Resource: "replicationcontrollers"}: corev1.ResourceReplicationControllers,
	{Resource: "resourcequotas"}:         corev1.ResourceQuotas,
}

// Usage is what obj, an object of gr, charges against a quota. A pod in a
// terminal phase charges nothing.
func Usage(gr schema.GroupResource, obj runtime.Object) corev1.ResourceList {
	one := resource.MustParse("1")
	if pod, ok := obj.(*corev1.Pod); ok && IsTerminal(pod) {
		return corev1.ResourceList{}
	}
	u := corev1.ResourceList{CountName(gr): one}
	if name, ok := legacyCounts[gr]; ok {
		u[name] = one
	}
	switch o := obj.(type) {
	case *corev1.Pod:
		podUsage(o, u)
	case *corev1.Service:
		serviceUsage(o, u)
	case *corev1.PersistentVolumeClaim:
		claimUsage(o, u)
	}
	return u
}

// IsTerminal says whether a pod has finished and no longer counts.
func IsTerminal(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
}

// PodRequirements are a pod's effective requests and limits: the sum over
// its containers, at least the largest of its init containers, plus its
// overhead.
func PodRequirements(pod *corev1.Pod) (requests, limits corev1.ResourceList) {
	requests, limits = corev1.ResourceList{}, corev1.ResourceList{}
	for _, c := range pod.Spec.Containers {
		addTo(requests, c.Resources.Requests)
		addTo(limits, c.Resources.Limits)
	}
	for _, c := range pod.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			// A sidecar runs beside the containers.
			addTo(requests, c.Resources.Requests)
			addTo(limits, c.Resources.Limits)
			continue
		}
		maxInto(requests, c.Resources.Requests)
		maxInto(limits, c.Resources.Limits)
	}
	addTo(requests, pod.Spec.Overhead)
	if len(limits) > 0 {
		addTo(limits, pod.Spec.Overhead)
	}
	return requests, limits
}

func podUsage(pod *corev1.Pod, u corev1.ResourceList) {
	requests, limits := PodRequirements(pod)
	for name, q := range requests {
		switch {
		case name == corev1.ResourceCPU || name == corev1.ResourceMemory || name == corev1.ResourceEphemeralStorage:
			u[name] = q
			u["requests."+name] = q
		case strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix):
			u["requests."+name] = q
		case strings.Contains(string(name), "/"):
			u["requests."+name] = q
		}
	}
	for name, q := range limits {
		if name == corev1.ResourceCPU || name == corev1.ResourceMemory || name == corev1.ResourceEphemeralStorage {
			u["limits."+name] = q
		}
	}
}

func serviceUsage(svc *corev1.Service, u corev1.ResourceList) {
	switch svc.Spec.Type {
	case corev1.ServiceTypeNodePort:
		u[corev1.ResourceServicesNodePorts] = *resource.NewQuantity(int64(len(svc.Spec.Ports)), resource.DecimalSI)
	case corev1.ServiceTypeLoadBalancer:
		u[corev1.ResourceServicesLoadBalancers] = resource.MustParse("1")
		nodePorts := int64(len(svc.Spec.Ports))
		if svc.Spec.AllocateLoadBalancerNodePorts != nil && !*svc.Spec.AllocateLoadBalancerNodePorts {
			nodePorts = 0
			for _, p := range svc.Spec.Ports {
				if p.NodePort != 0 {
					nodePorts++
				}
			}
		}
		u[corev1.ResourceServicesNodePorts] = *resource.NewQuantity(nodePorts, resource.DecimalSI)
	}
}

func claimUsage(pvc *corev1.PersistentVolumeClaim, u corev1.ResourceList) {
	storage, ok := pvc.Spec.Resources.Requests[corev1.ResourceStorage]
	if ok {
		u[corev1.ResourceRequestsStorage] = storage
	}
	class := ""
	if pvc.Spec.StorageClassName != nil {
		class = *pvc.Spec.StorageClassName
	}
	if c, ok := pvc.Annotations["volume.beta.kubernetes.io/storage-class"]; ok {
		class = c
	}
	if class != "" {
		u[corev1.ResourceName(class+".storageclass.storage.k8s.io/persistentvolumeclaims")] = resource.MustParse("1")
		if ok {
			u[corev1.ResourceName(class+".storageclass.storage.k8s.io/requests.storage")] = storage
		}
	}
}

func addTo(dst, src corev1.ResourceList) {
	for k, v := range src {
		q := dst[k]
		q.Add(v)
		dst[k] = q
	}
}

func maxInto(dst, src corev1.ResourceList) {
	for k, v := range src {
		if q, ok := dst[k]; !ok || v.Cmp(q) > 0 {
			dst[k] = v
		}
	}
}

// Add returns a + b.
func Add(a, b corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	addTo(out, a)
	addTo(out, b)
	return out
}

// Subtract returns a - b.
func Subtract(a, b corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	addTo(out, a)
	for k, v := range b {
		q := out[k]
		q.Sub(v)
		out[k] = q
	}
	return out
}

// Mask returns the amounts of l that names lists, zero for those missing.
func Mask(l corev1.ResourceList, names []corev1.ResourceName) corev1.ResourceList {
	out := corev1.ResourceList{}
	for _, n := range names {
		q, ok := l[n]
		if !ok {
			q = *resource.NewQuantity(0, resource.DecimalSI)
		}
		out[n] = q
	}
	return out
}

// Names returns the resource names of l, sorted.
func Names(l corev1.ResourceList) []corev1.ResourceName {
	names := make([]corev1.ResourceName, 0, len(l))
	for k := range l {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// Format renders l as Kubernetes' quota messages do: name=amount pairs,
// sorted, joined by commas.
func Format(l corev1.ResourceList) string {
	parts := make([]string, 0, len(l))
	for _, n := range Names(l) {
		q := l[n]
		parts = append(parts, fmt.Sprintf("%s=%s", n, q.String()))
	}
	return strings.Join(parts, ",")
}

// Equal compares two lists by amount, a missing entry differing from zero.
func Equal(a, b corev1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || v.Cmp(w) != 0 {
			return false
		}
	}
	return true
}
