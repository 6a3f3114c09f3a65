package v1

import "kubecore.io/apimachinery/pkg/api/resource"

// ResourceName names a compute or storage resource: cpu, memory, or an
// extended resource such as "example.com/gpu".
type ResourceName string

// The resource names the scheduler, kubelet and quota know.
const (
	// ResourceCPU is CPU in cores ("500m" is half a core).
	ResourceCPU ResourceName = "cpu"
	// ResourceMemory is memory in bytes.
	ResourceMemory ResourceName = "memory"
	// ResourceStorage is persistent volume size in bytes.
	ResourceStorage ResourceName = "storage"
	// ResourceEphemeralStorage is node-local scratch space in bytes.
	ResourceEphemeralStorage ResourceName = "ephemeral-storage"
	// ResourcePods is the number of pods a node accepts.
	ResourcePods ResourceName = "pods"
)

// Prefixes of resource names with a special meaning.
const (
	// ResourceDefaultNamespacePrefix is the prefix of resource names
	// Kubernetes itself defines.
	ResourceDefaultNamespacePrefix = "kubernetes.io/"
	// ResourceHugePagesPrefix starts huge page resources ("hugepages-2Mi").
	ResourceHugePagesPrefix = "hugepages-"
)

// String returns the name.
func (n ResourceName) String() string { return string(n) }

// ResourceList maps resource names to amounts.
type ResourceList map[ResourceName]resource.Quantity

// Cpu returns a copy of the cpu amount, or zero when absent.
func (l ResourceList) Cpu() *resource.Quantity {
	return l.Name(ResourceCPU, resource.DecimalSI)
}

// Memory returns a copy of the memory amount, or zero when absent.
func (l ResourceList) Memory() *resource.Quantity {
	return l.Name(ResourceMemory, resource.BinarySI)
}

// Storage returns a copy of the storage amount, or zero when absent.
func (l ResourceList) Storage() *resource.Quantity {
	return l.Name(ResourceStorage, resource.BinarySI)
}

// Pods returns a copy of the pod count, or zero when absent.
func (l ResourceList) Pods() *resource.Quantity {
	return l.Name(ResourcePods, resource.DecimalSI)
}

// StorageEphemeral returns a copy of the ephemeral-storage amount, or zero
// when absent.
func (l ResourceList) StorageEphemeral() *resource.Quantity {
	return l.Name(ResourceEphemeralStorage, resource.BinarySI)
}

// Name returns a copy of the amount of the named resource, or a zero
// written in format when the list (possibly nil) lacks it. Changing the
// result leaves the list alone.
func (l ResourceList) Name(name ResourceName, format resource.Format) *resource.Quantity {
	q, ok := l[name]
	if !ok {
		return &resource.Quantity{Format: format}
	}
	return q.Copy()
}
