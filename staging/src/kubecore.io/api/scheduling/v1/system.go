package v1

import (
	"fmt"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// Priority values and the names of the priority classes the API server
// creates at start-up.
const (
	// DefaultPriorityWhenNoDefaultClassExists is the priority of pods that
	// name no class when no class is a global default.
	DefaultPriorityWhenNoDefaultClassExists = 0
	// HighestUserDefinablePriority is the largest value a user-defined
	// PriorityClass may have.
	HighestUserDefinablePriority = int32(1000000000)
	// SystemCriticalPriority is the lowest value of the system classes.
	SystemCriticalPriority = 2 * HighestUserDefinablePriority

	// SystemPriorityClassPrefix starts the names reserved for system classes.
	SystemPriorityClassPrefix = "system-"
	// SystemClusterCritical is the class of pods the cluster needs, which
	// may still move to another node.
	SystemClusterCritical = SystemPriorityClassPrefix + "cluster-critical"
	// SystemNodeCritical is the class of pods a node needs, which must not
	// move off it.
	SystemNodeCritical = SystemPriorityClassPrefix + "node-critical"
)

// SystemPriorityClasses returns fresh copies of the priority classes the API
// server creates at start-up, system-node-critical first.
func SystemPriorityClasses() []*PriorityClass {
	return []*PriorityClass{
		{
			ObjectMeta:  metav1.ObjectMeta{Name: SystemNodeCritical},
			Value:       SystemCriticalPriority + 1000,
			Description: "Used for system critical pods that must not be moved from their current node.",
		},
		{
			ObjectMeta:  metav1.ObjectMeta{Name: SystemClusterCritical},
			Value:       SystemCriticalPriority,
			Description: "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
		},
	}
}

// IsKnownSystemPriorityClass reports whether name, value and globalDefault
// are those of a system priority class; the error says which one differs.
// Descriptions, labels and annotations are not compared.
func IsKnownSystemPriorityClass(name string, value int32, globalDefault bool) (bool, error) {
	for _, pc := range SystemPriorityClasses() {
		if pc.Name != name {
			continue
		}
		if pc.Value != value {
			return false, fmt.Errorf("value of %v PriorityClass must be %v", pc.Name, pc.Value)
		}
		if pc.GlobalDefault != globalDefault {
			return false, fmt.Errorf("globalDefault of %v PriorityClass must be %v", pc.Name, pc.GlobalDefault)
		}
		return true, nil
	}
	return false, fmt.Errorf("%v is not a known system priority class", name)
}
