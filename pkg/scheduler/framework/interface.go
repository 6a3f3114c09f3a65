package framework

import (
	"context"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/client/tools/record"
)

// Plugin is a named scheduling plugin; it implements one or more of the
// extension point interfaces below.
type Plugin interface {
	Name() string
}

// PreFilterResult narrows the nodes worth filtering; nil NodeNames means
// every node.
type PreFilterResult struct {
	NodeNames map[string]struct{}
}

// PreFilterPlugin computes per-pod state before the per-node filters. A
// rejection applies to every node; Skip skips the plugin's Filter.
type PreFilterPlugin interface {
	Plugin
	PreFilter(ctx context.Context, state *CycleState, pod *corev1.Pod) (*PreFilterResult, *Status)
	// PreFilterExtensions is nil, or updates the state when preemption
	// adds or removes pods on a node.
	PreFilterExtensions() PreFilterExtensions
}

// PreFilterExtensions keep a PreFilter's state true while preemption tries
// removing (and adding back) pods.
type PreFilterExtensions interface {
	AddPod(ctx context.Context, state *CycleState, podToSchedule *corev1.Pod, podToAdd *PodInfo, nodeInfo *NodeInfo) *Status
	RemovePod(ctx context.Context, state *CycleState, podToSchedule *corev1.Pod, podToRemove *PodInfo, nodeInfo *NodeInfo) *Status
}

// FilterPlugin decides whether pod may run on a node. It runs for many
// nodes at once and must only read state.
type FilterPlugin interface {
	Plugin
	Filter(ctx context.Context, state *CycleState, pod *corev1.Pod, nodeInfo *NodeInfo) *Status
}

// PostFilterResult is the outcome of a PostFilter: the node the pod is
// nominated to, if any.
type PostFilterResult struct {
	NominatedNodeName string
}

// PostFilterPlugin runs when pod fits nowhere (preemption).
type PostFilterPlugin interface {
	Plugin
	PostFilter(ctx context.Context, state *CycleState, pod *corev1.Pod, statuses map[string]*Status) (*PostFilterResult, *Status)
}

// PreScorePlugin computes per-pod state for Score from the feasible nodes.
type PreScorePlugin interface {
	Plugin
	PreScore(ctx context.Context, state *CycleState, pod *corev1.Pod, nodes []*NodeInfo) *Status
}

// ScorePlugin ranks feasible nodes.
type ScorePlugin interface {
	Plugin
	Score(ctx context.Context, state *CycleState, pod *corev1.Pod, nodeInfo *NodeInfo) (int64, *Status)
	// ScoreExtensions is nil, or normalizes the scores to [0, 100].
	ScoreExtensions() ScoreExtensions
}

// NodeScore is a node's score.
type NodeScore struct {
	Name  string
	Score int64
}

// ScoreExtensions normalizes a plugin's raw scores in place.
type ScoreExtensions interface {
	NormalizeScore(ctx context.Context, state *CycleState, pod *corev1.Pod, scores []NodeScore) *Status
}

// ReservePlugin is told when a pod is assumed on a node (Reserve) and when
// that is undone (Unreserve, which must be idempotent).
type ReservePlugin interface {
	Plugin
	Reserve(ctx context.Context, state *CycleState, pod *corev1.Pod, nodeName string) *Status
	Unreserve(ctx context.Context, state *CycleState, pod *corev1.Pod, nodeName string)
}

// PermitPlugin may veto a pod's binding after Reserve.
type PermitPlugin interface {
	Plugin
	Permit(ctx context.Context, state *CycleState, pod *corev1.Pod, nodeName string) *Status
}

// PreBindPlugin runs before binding, in the binding goroutine.
type PreBindPlugin interface {
	Plugin
	PreBind(ctx context.Context, state *CycleState, pod *corev1.Pod, nodeName string) *Status
}

// BindPlugin binds the pod; Skip passes to the next bind plugin.
type BindPlugin interface {
	Plugin
	Bind(ctx context.Context, state *CycleState, pod *corev1.Pod, nodeName string) *Status
}

// EnqueueExtensions names the cluster events that may make a pod the
// plugin rejected schedulable; the queue moves such pods back on them.
type EnqueueExtensions interface {
	EventsToRegister() []ClusterEvent
}

// NodeInfoLister reads the snapshot of the cycle.
type NodeInfoLister interface {
	// List returns every node with a Node object.
	List() []*NodeInfo
	// HavePodsWithAffinityList returns the nodes with pods that have
	// (anti-)affinity terms.
	HavePodsWithAffinityList() []*NodeInfo
	// HavePodsWithRequiredAntiAffinityList returns the nodes with pods that
	// have required anti-affinity terms.
	HavePodsWithRequiredAntiAffinityList() []*NodeInfo
	// Get returns the named node.
	Get(name string) (*NodeInfo, error)
}

// Client is what plugins write to the cluster through.
type Client interface {
	BindPod(ctx context.Context, binding *corev1.Binding) error
	DeletePod(ctx context.Context, pod *corev1.Pod, opts metav1.DeleteOptions) error
	// PatchPodStatus strategic-merge-patches the pod's status.
	PatchPodStatus(ctx context.Context, pod *corev1.Pod, patch []byte) error
}

// PodNominator records which pods preemption nominated to which nodes.
type PodNominator interface {
	// NominatedPodsForNode returns the pods nominated to run on node.
	NominatedPodsForNode(nodeName string) []*PodInfo
	// AddNominatedPod nominates pod to nodeName ("" clears it).
	AddNominatedPod(pod *PodInfo, nodeName string)
}

// Handle is what the framework gives plugins.
type Handle interface {
	// SnapshotSharedLister returns the snapshot of the current cycle.
	SnapshotSharedLister() NodeInfoLister
	// ClientSet writes to the cluster.
	ClientSet() Client
	// NamespaceLabels returns the labels of a namespace (nil if unknown).
	NamespaceLabels(namespace string) labels.Set
	// Nominator is the queue's nominated pods.
	Nominator() PodNominator
	// Parallelizer runs per-node work.
	Parallelizer() Parallelizer
	// EventRecorder reports events about objects (a preemption's victims).
	EventRecorder() record.EventRecorder
	// RunFilterPluginsWithNominatedPods runs the filters as the scheduler
	// does, counting pods nominated to the node (for preemption).
	RunFilterPluginsWithNominatedPods(ctx context.Context, state *CycleState, pod *corev1.Pod, nodeInfo *NodeInfo) *Status
	// RunPreFilterExtensionAddPod and RunPreFilterExtensionRemovePod call
	// every PreFilterExtensions.
	RunPreFilterExtensionAddPod(ctx context.Context, state *CycleState, podToSchedule *corev1.Pod, podToAdd *PodInfo, nodeInfo *NodeInfo) *Status
	RunPreFilterExtensionRemovePod(ctx context.Context, state *CycleState, podToSchedule *corev1.Pod, podToRemove *PodInfo, nodeInfo *NodeInfo) *Status
}

// EventResource is the kind of object a cluster event is about.
type EventResource string

// The resources the scheduler watches.
const (
	NodeResource      EventResource = "Node"
	PodResource       EventResource = "Pod"
	AssignedPod       EventResource = "AssignedPod"
	NamespaceResource EventResource = "Namespace"
	// PersistentVolumeClaimResource and PersistentVolumeResource are the
	// storage objects the VolumeBinding plugin waits for.
	PersistentVolumeClaimResource EventResource = "PersistentVolumeClaim"
	PersistentVolumeResource      EventResource = "PersistentVolume"
	// WildCard matches every resource.
	WildCard EventResource = "*"
)

// ActionType is what happened, as a bit set.
type ActionType uint32

// The actions; the Update* bits say what part of a node or pod changed.
const (
	Add ActionType = 1 << iota
	Delete
	UpdateNodeAllocatable
	UpdateNodeLabel
	UpdateNodeTaint
	UpdateNodeCondition
	UpdatePodLabel
	UpdatePodScaleDown
	UpdatePodOther

	// Update is any update.
	Update = UpdateNodeAllocatable | UpdateNodeLabel | UpdateNodeTaint | UpdateNodeCondition | UpdatePodLabel | UpdatePodScaleDown | UpdatePodOther
	// All is every action.
	All = Add | Delete | Update
)

// ClusterEvent is a change in the cluster that may make pods schedulable.
type ClusterEvent struct {
	Resource   EventResource
	ActionType ActionType
	Label      string
}

// Match reports whether the registered event reg covers e.
func (reg ClusterEvent) Match(e ClusterEvent) bool {
	return (reg.Resource == WildCard || reg.Resource == e.Resource) && reg.ActionType&e.ActionType != 0
}
