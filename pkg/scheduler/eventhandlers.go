package scheduler

import (
	"maps"
	"reflect"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/client/tools/cache"

	"kubecore.io/kubecore/pkg/scheduler/framework"
)

// addEventHandlers feeds the cache and the queue from the informers.
func (s *Scheduler) addEventHandlers() error {
	podReg, err := s.podInformer.AddEventHandler(cache.ResourceEventHandlerFuncs[*corev1.Pod]{
		AddFunc:    func(pod *corev1.Pod, _ bool) { s.onPodAdd(pod) },
		UpdateFunc: s.onPodUpdate,
		DeleteFunc: s.onPodDelete,
	})
	if err != nil {
		return err
	}
	nodeReg, err := s.nodeInformer.AddEventHandler(cache.ResourceEventHandlerFuncs[*corev1.Node]{
		AddFunc: func(node *corev1.Node, _ bool) {
			s.cache.AddNode(node)
			s.queue.MoveAllToActiveOrBackoffQueue(framework.ClusterEvent{Resource: framework.NodeResource, ActionType: framework.Add, Label: "NodeAdd"}, nil)
		},
		UpdateFunc: func(old, node *corev1.Node) {
			s.cache.UpdateNode(old, node)
			if action := nodeChange(old, node); action != 0 {
				s.queue.MoveAllToActiveOrBackoffQueue(framework.ClusterEvent{Resource: framework.NodeResource, ActionType: action, Label: "NodeUpdate"}, nil)
			}
		},
		DeleteFunc: s.cache.RemoveNode,
	})
	if err != nil {
		return err
	}
	nsReg, err := s.namespaceInformer.AddEventHandler(cache.ResourceEventHandlerFuncs[*corev1.Namespace]{
		AddFunc: func(*corev1.Namespace, bool) {
			s.queue.MoveAllToActiveOrBackoffQueue(framework.ClusterEvent{Resource: framework.NamespaceResource, ActionType: framework.Add, Label: "NamespaceAdd"}, nil)
		},
		UpdateFunc: func(old, ns *corev1.Namespace) {
			if !maps.Equal(old.Labels, ns.Labels) {
				s.queue.MoveAllToActiveOrBackoffQueue(framework.ClusterEvent{Resource: framework.NamespaceResource, ActionType: framework.UpdatePodLabel, Label: "NamespaceUpdate"}, nil)
			}
		},
	})
	if err != nil {
		return err
	}
	s.synced = []cache.InformerSynced{podReg.HasSynced, nodeReg.HasSynced, nsReg.HasSynced}
	return nil
}

// responsibleFor reports whether the pod is ours to schedule.
func (s *Scheduler) responsibleFor(pod *corev1.Pod) bool {
	name := pod.Spec.SchedulerName
	if name == "" {
		name = corev1.DefaultSchedulerName
	}
	return name == s.name
}

func terminal(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
}

// pending reports whether the pod waits for a scheduler: not bound, not
// finished, not being deleted and not gated.
func pending(pod *corev1.Pod) bool {
	return pod.Spec.NodeName == "" && !terminal(pod) && pod.DeletionTimestamp == nil && len(pod.Spec.SchedulingGates) == 0
}

func (s *Scheduler) onPodAdd(pod *corev1.Pod) {
	switch {
	case pod.Spec.NodeName != "":
		if terminal(pod) {
			return
		}
		s.cache.AddPod(pod)
		s.queue.MoveAllToActiveOrBackoffQueue(framework.ClusterEvent{Resource: framework.AssignedPod, ActionType: framework.Add, Label: "AssignedPodAdd"}, nil)
	case s.responsibleFor(pod) && pending(pod):
		s.queue.Add(pod)
	}
}

func (s *Scheduler) onPodUpdate(old, pod *corev1.Pod) {
	if pod.Spec.NodeName == "" {
		if !s.responsibleFor(pod) {
			return
		}
		if pending(pod) {
			s.queue.Update(old, pod)
		} else {
			s.queue.Delete(pod)
		}
		return
	}
	if old.Spec.NodeName == "" {
		// Bound: confirm the assumed pod, or learn of another scheduler's.
		s.queue.Delete(pod)
		s.onPodAdd(pod)
		return
	}
	if terminal(pod) {
		s.onPodDelete(pod)
		return
	}
	s.cache.UpdatePod(old, pod)
	if action := podChange(old, pod); action != 0 {
		s.queue.MoveAllToActiveOrBackoffQueue(framework.ClusterEvent{Resource: framework.AssignedPod, ActionType: action, Label: "AssignedPodUpdate"}, nil)
	}
}

func (s *Scheduler) onPodDelete(pod *corev1.Pod) {
	// An assumed pod deleted before its binding shows is dropped too.
	s.cache.RemovePod(pod)
	if pod.Spec.NodeName == "" {
		s.queue.Delete(pod)
		return
	}
	s.queue.DeleteNominatedPodIfExists(pod)
	s.queue.MoveAllToActiveOrBackoffQueue(framework.ClusterEvent{Resource: framework.AssignedPod, ActionType: framework.Delete, Label: "AssignedPodDelete"}, nil)
}

// nodeChange returns what changed in a node that may let pods fit.
func nodeChange(old, node *corev1.Node) framework.ActionType {
	var a framework.ActionType
	if !reflect.DeepEqual(old.Status.Allocatable, node.Status.Allocatable) {
		a |= framework.UpdateNodeAllocatable
	}
	if !maps.Equal(old.Labels, node.Labels) {
		a |= framework.UpdateNodeLabel
	}
	if old.Spec.Unschedulable != node.Spec.Unschedulable || !reflect.DeepEqual(old.Spec.Taints, node.Spec.Taints) {
		a |= framework.UpdateNodeTaint
	}
	if !conditionsEqual(old.Status.Conditions, node.Status.Conditions) {
		a |= framework.UpdateNodeCondition
	}
	return a
}

func conditionsEqual(a, b []corev1.NodeCondition) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Type != b[i].Type || a[i].Status != b[i].Status {
			return false
		}
	}
	return true
}

// podChange returns what changed in a bound pod that may let other pods
// fit: its labels (affinity, spread) or smaller requests.
func podChange(old, pod *corev1.Pod) framework.ActionType {
	var a framework.ActionType
	if !maps.Equal(old.Labels, pod.Labels) {
		a |= framework.UpdatePodLabel
	}
	or, _ := framework.PodRequests(old)
	nr, _ := framework.PodRequests(pod)
	if nr.MilliCPU < or.MilliCPU || nr.Memory < or.Memory || nr.EphemeralStorage < or.EphemeralStorage {
		a |= framework.UpdatePodScaleDown
	}
	return a
}
