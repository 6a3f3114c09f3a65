package framework

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/types"

	"kubecore.io/kubecore/pkg/apis/core/helper"
)

// Defaults the scoring plugins use for containers that request nothing, so
// that such pods still spread (100m CPU, 200 MiB memory per container).
const (
	DefaultMilliCPURequest int64 = 100
	DefaultMemoryRequest   int64 = 200 * 1024 * 1024
)

// MaxNodeScore and MinNodeScore bound the normalized score of a plugin.
const (
	MaxNodeScore int64 = 100
	MinNodeScore int64 = 0
)

// Resource is an amount of each schedulable resource.
type Resource struct {
	MilliCPU         int64
	Memory           int64
	EphemeralStorage int64
	AllowedPodNumber int64
	// Scalar holds extended resources (example.com/gpu) and hugepages.
	Scalar map[corev1.ResourceName]int64
}

// NewResource converts a resource list.
func NewResource(rl corev1.ResourceList) *Resource {
	r := &Resource{}
	r.Add(rl)
	return r
}

// Add adds rl to r.
func (r *Resource) Add(rl corev1.ResourceList) {
	for name, q := range rl {
		switch name {
		case corev1.ResourceCPU:
			r.MilliCPU += q.MilliValue()
		case corev1.ResourceMemory:
			r.Memory += q.Value()
		case corev1.ResourceEphemeralStorage:
			r.EphemeralStorage += q.Value()
		case corev1.ResourcePods:
			r.AllowedPodNumber += q.Value()
		default:
			if IsScalarResource(name) {
				if r.Scalar == nil {
					r.Scalar = map[corev1.ResourceName]int64{}
				}
				r.Scalar[name] += q.Value()
			}
		}
	}
}

// IsScalarResource reports whether name is an extended resource or
// hugepages: anything but the standard cpu, memory, storage and pods.
func IsScalarResource(name corev1.ResourceName) bool {
	switch name {
	case corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage, corev1.ResourcePods, corev1.ResourceStorage:
		return false
	}
	return strings.Contains(string(name), "/") || strings.HasPrefix(string(name), "hugepages-")
}

// AddResource adds o to r, scaled by sign (1 or -1).
func (r *Resource) AddResource(o *Resource, sign int64) {
	r.MilliCPU += sign * o.MilliCPU
	r.Memory += sign * o.Memory
	r.EphemeralStorage += sign * o.EphemeralStorage
	r.AllowedPodNumber += sign * o.AllowedPodNumber
	for k, v := range o.Scalar {
		if r.Scalar == nil {
			r.Scalar = map[corev1.ResourceName]int64{}
		}
		r.Scalar[k] += sign * v
	}
}

// Max sets each amount of r to the larger of r's and o's.
func (r *Resource) Max(o *Resource) {
	r.MilliCPU = max(r.MilliCPU, o.MilliCPU)
	r.Memory = max(r.Memory, o.Memory)
	r.EphemeralStorage = max(r.EphemeralStorage, o.EphemeralStorage)
	r.AllowedPodNumber = max(r.AllowedPodNumber, o.AllowedPodNumber)
	for k, v := range o.Scalar {
		if r.Scalar == nil {
			r.Scalar = map[corev1.ResourceName]int64{}
		}
		r.Scalar[k] = max(r.Scalar[k], v)
	}
}

// Clone returns a deep copy.
func (r *Resource) Clone() *Resource {
	c := *r
	c.Scalar = maps.Clone(r.Scalar)
	return &c
}

// PodRequests returns what a pod asks of a node, the Kubernetes way: the
// larger of the app containers' sum (plus restartable init containers, the
// sidecars) and the largest init container step, plus the pod overhead. A
// pod-level resources stanza overrides cpu and memory. nonZero is the same
// with the scoring defaults for containers that request no cpu or memory.
func PodRequests(pod *corev1.Pod) (reqs, nonZero *Resource) {
	reqs, nonZero = &Resource{}, &Resource{}
	var sidecars, sidecarsNZ Resource
	initMax, initMaxNZ := &Resource{}, &Resource{}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		r, nz := containerRequests(c)
		step, stepNZ := sidecars.Clone(), sidecarsNZ.Clone()
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			sidecars.AddResource(r, 1)
			sidecarsNZ.AddResource(nz, 1)
			step, stepNZ = sidecars.Clone(), sidecarsNZ.Clone()
		} else {
			step.AddResource(r, 1)
			stepNZ.AddResource(nz, 1)
		}
		initMax.Max(step)
		initMaxNZ.Max(stepNZ)
	}
	for i := range pod.Spec.Containers {
		r, nz := containerRequests(&pod.Spec.Containers[i])
		reqs.AddResource(r, 1)
		nonZero.AddResource(nz, 1)
	}
	reqs.AddResource(&sidecars, 1)
	nonZero.AddResource(&sidecarsNZ, 1)
	reqs.Max(initMax)
	nonZero.Max(initMaxNZ)
	if pr := pod.Spec.Resources; pr != nil {
		if q, ok := pr.Requests[corev1.ResourceCPU]; ok {
			reqs.MilliCPU, nonZero.MilliCPU = q.MilliValue(), q.MilliValue()
		}
		if q, ok := pr.Requests[corev1.ResourceMemory]; ok {
			reqs.Memory, nonZero.Memory = q.Value(), q.Value()
		}
	}
	if pod.Spec.Overhead != nil {
		oh := NewResource(pod.Spec.Overhead)
		reqs.AddResource(oh, 1)
		nonZero.AddResource(oh, 1)
	}
	return reqs, nonZero
}

func containerRequests(c *corev1.Container) (r, nonZero *Resource) {
	r = NewResource(c.Resources.Requests)
	nonZero = r.Clone()
	if _, ok := c.Resources.Requests[corev1.ResourceCPU]; !ok {
		nonZero.MilliCPU = DefaultMilliCPURequest
	}
	if _, ok := c.Resources.Requests[corev1.ResourceMemory]; !ok {
		nonZero.Memory = DefaultMemoryRequest
	}
	return r, nonZero
}

// AffinityTerm is a parsed pod (anti-)affinity term.
type AffinityTerm struct {
	// Namespaces the term selects pods in; with NamespaceSelector, either
	// may match.
	Namespaces        map[string]struct{}
	Selector          labels.Selector
	TopologyKey       string
	NamespaceSelector labels.Selector
}

// Matches reports whether pod, whose namespace has nsLabels, is selected
// by the term.
func (t *AffinityTerm) Matches(pod *corev1.Pod, nsLabels labels.Set) bool {
	if _, ok := t.Namespaces[pod.Namespace]; ok || t.NamespaceSelector.Matches(nsLabels) {
		return t.Selector.Matches(labels.Set(pod.Labels))
	}
	return false
}

// WeightedAffinityTerm is a parsed preferred term.
type WeightedAffinityTerm struct {
	AffinityTerm
	Weight int32
}

// PodInfo is a pod with what the plugins derive from it once: requests and
// parsed affinity terms.
type PodInfo struct {
	Pod                        *corev1.Pod
	Requests, NonZeroRequests  *Resource
	RequiredAffinityTerms      []AffinityTerm
	RequiredAntiAffinityTerms  []AffinityTerm
	PreferredAffinityTerms     []WeightedAffinityTerm
	PreferredAntiAffinityTerms []WeightedAffinityTerm
}

// NewPodInfo parses pod; an affinity term with an invalid selector is an
// error naming its field path.
func NewPodInfo(pod *corev1.Pod) (*PodInfo, error) {
	pi := &PodInfo{Pod: pod}
	pi.Requests, pi.NonZeroRequests = PodRequests(pod)
	aff := pod.Spec.Affinity
	if aff == nil {
		return pi, nil
	}
	var err error
	if pa := aff.PodAffinity; pa != nil {
		if pi.RequiredAffinityTerms, err = parseTerms(pod, pa.RequiredDuringSchedulingIgnoredDuringExecution, "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution"); err != nil {
			return nil, err
		}
		if pi.PreferredAffinityTerms, err = parseWeighted(pod, pa.PreferredDuringSchedulingIgnoredDuringExecution, "spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution"); err != nil {
			return nil, err
		}
	}
	if pa := aff.PodAntiAffinity; pa != nil {
		if pi.RequiredAntiAffinityTerms, err = parseTerms(pod, pa.RequiredDuringSchedulingIgnoredDuringExecution, "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution"); err != nil {
			return nil, err
		}
		if pi.PreferredAntiAffinityTerms, err = parseWeighted(pod, pa.PreferredDuringSchedulingIgnoredDuringExecution, "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution"); err != nil {
			return nil, err
		}
	}
	return pi, nil
}

func parseTerms(pod *corev1.Pod, terms []corev1.PodAffinityTerm, path string) ([]AffinityTerm, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	out := make([]AffinityTerm, 0, len(terms))
	for i := range terms {
		t, err := NewAffinityTerm(pod, &terms[i])
		if err != nil {
			return nil, fmt.Errorf("%s[%d]: %w", path, i, err)
		}
		out = append(out, t)
	}
	return out, nil
}

func parseWeighted(pod *corev1.Pod, terms []corev1.WeightedPodAffinityTerm, path string) ([]WeightedAffinityTerm, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	out := make([]WeightedAffinityTerm, 0, len(terms))
	for i := range terms {
		t, err := NewAffinityTerm(pod, &terms[i].PodAffinityTerm)
		if err != nil {
			return nil, fmt.Errorf("%s[%d].podAffinityTerm: %w", path, i, err)
		}
		out = append(out, WeightedAffinityTerm{AffinityTerm: t, Weight: terms[i].Weight})
	}
	return out, nil
}

// NewAffinityTerm parses term of pod: no namespaces and no namespace
// selector mean the pod's own namespace; matchLabelKeys and
// mismatchLabelKeys add requirements on the pod's own label values.
func NewAffinityTerm(pod *corev1.Pod, term *corev1.PodAffinityTerm) (AffinityTerm, error) {
	sel, err := metav1.LabelSelectorAsSelector(term.LabelSelector)
	if err != nil {
		return AffinityTerm{}, fmt.Errorf("labelSelector: %w", err)
	}
	if term.LabelSelector != nil {
		for _, k := range term.MatchLabelKeys {
			if v, ok := pod.Labels[k]; ok {
				r, err := labels.NewRequirement(k, "=", []string{v})
				if err != nil {
					return AffinityTerm{}, fmt.Errorf("matchLabelKeys: %w", err)
				}
				sel = sel.Add(*r)
			}
		}
		for _, k := range term.MismatchLabelKeys {
			if v, ok := pod.Labels[k]; ok {
				r, err := labels.NewRequirement(k, "!=", []string{v})
				if err != nil {
					return AffinityTerm{}, fmt.Errorf("mismatchLabelKeys: %w", err)
				}
				sel = sel.Add(*r)
			}
		}
	}
	t := AffinityTerm{Selector: sel, TopologyKey: term.TopologyKey, Namespaces: map[string]struct{}{}, NamespaceSelector: labels.Nothing()}
	for _, ns := range term.Namespaces {
		t.Namespaces[ns] = struct{}{}
	}
	if term.NamespaceSelector != nil {
		if t.NamespaceSelector, err = metav1.LabelSelectorAsSelector(term.NamespaceSelector); err != nil {
			return AffinityTerm{}, fmt.Errorf("namespaceSelector: %w", err)
		}
	} else if len(term.Namespaces) == 0 {
		t.Namespaces[pod.Namespace] = struct{}{}
	}
	return t, nil
}

// PodPriority returns spec.priority, 0 when unset.
func PodPriority(pod *corev1.Pod) int32 {
	if pod.Spec.Priority != nil {
		return *pod.Spec.Priority
	}
	return 0
}

// HostPort is one host port a pod uses (shared with the kubelet's
// admission).
type HostPort = helper.HostPort

// PodHostPorts returns the host ports pod's containers ask for.
func PodHostPorts(pod *corev1.Pod) []HostPort { return helper.PodHostPorts(pod) }

// NodeInfo is a node with the pods on it (bound or assumed) and their
// totals. The scheduler hands plugins read-only snapshots of NodeInfos.
type NodeInfo struct {
	node *corev1.Node

	Pods                         []*PodInfo
	PodsWithAffinity             []*PodInfo
	PodsWithRequiredAntiAffinity []*PodInfo
	UsedPorts                    []HostPort
	// Requested sums the pods' requests; NonZeroRequested the same with
	// the scoring defaults.
	Requested, NonZeroRequested *Resource
	Allocatable                 *Resource
	// Generation changes whenever the NodeInfo does.
	Generation int64
}

// NewNodeInfo returns the NodeInfo of pods with no node set.
func NewNodeInfo(pods ...*PodInfo) *NodeInfo {
	n := &NodeInfo{Requested: &Resource{}, NonZeroRequested: &Resource{}, Allocatable: &Resource{}}
	for _, p := range pods {
		n.AddPodInfo(p)
	}
	return n
}

// Node returns the node, nil while only its pods are known.
func (n *NodeInfo) Node() *corev1.Node { return n.node }

// SetNode sets the node and its allocatable resources.
func (n *NodeInfo) SetNode(node *corev1.Node) {
	n.node = node
	n.Allocatable = NewResource(node.Status.Allocatable)
}

// Name returns the node's name, or "" without a node.
func (n *NodeInfo) Name() string {
	if n.node == nil {
		return ""
	}
	return n.node.Name
}

// AddPodInfo adds a pod to the node.
func (n *NodeInfo) AddPodInfo(p *PodInfo) {
	n.Pods = append(n.Pods, p)
	if hasAffinity(p) {
		n.PodsWithAffinity = append(n.PodsWithAffinity, p)
	}
	if len(p.RequiredAntiAffinityTerms) > 0 {
		n.PodsWithRequiredAntiAffinity = append(n.PodsWithRequiredAntiAffinity, p)
	}
	n.UsedPorts = append(n.UsedPorts, PodHostPorts(p.Pod)...)
	n.Requested.AddResource(p.Requests, 1)
	n.NonZeroRequested.AddResource(p.NonZeroRequests, 1)
}

func hasAffinity(p *PodInfo) bool {
	return len(p.RequiredAffinityTerms)+len(p.RequiredAntiAffinityTerms)+len(p.PreferredAffinityTerms)+len(p.PreferredAntiAffinityTerms) > 0
}

// RemovePod removes the pod with pod's UID; it reports whether it was there.
func (n *NodeInfo) RemovePod(pod *corev1.Pod) bool {
	uid := pod.UID
	i := slices.IndexFunc(n.Pods, func(p *PodInfo) bool { return p.Pod.UID == uid })
	if i < 0 {
		return false
	}
	p := n.Pods[i]
	n.Pods = slices.Delete(slices.Clone(n.Pods), i, i+1)
	byUID := func(q *PodInfo) bool { return q.Pod.UID == uid }
	if j := slices.IndexFunc(n.PodsWithAffinity, byUID); j >= 0 {
		n.PodsWithAffinity = slices.Delete(slices.Clone(n.PodsWithAffinity), j, j+1)
	}
	if j := slices.IndexFunc(n.PodsWithRequiredAntiAffinity, byUID); j >= 0 {
		n.PodsWithRequiredAntiAffinity = slices.Delete(slices.Clone(n.PodsWithRequiredAntiAffinity), j, j+1)
	}
	n.UsedPorts = n.UsedPorts[:0:0]
	for _, q := range n.Pods {
		n.UsedPorts = append(n.UsedPorts, PodHostPorts(q.Pod)...)
	}
	n.Requested.AddResource(p.Requests, -1)
	n.NonZeroRequested.AddResource(p.NonZeroRequests, -1)
	return true
}

// Clone returns a copy that can be changed without changing n; the pods
// themselves are shared.
func (n *NodeInfo) Clone() *NodeInfo {
	return &NodeInfo{
		node:                         n.node,
		Pods:                         slices.Clip(n.Pods),
		PodsWithAffinity:             slices.Clip(n.PodsWithAffinity),
		PodsWithRequiredAntiAffinity: slices.Clip(n.PodsWithRequiredAntiAffinity),
		UsedPorts:                    slices.Clip(n.UsedPorts),
		Requested:                    n.Requested.Clone(),
		NonZeroRequested:             n.NonZeroRequested.Clone(),
		Allocatable:                  n.Allocatable.Clone(),
		Generation:                   n.Generation,
	}
}

// StateKey names a value plugins keep in the CycleState.
type StateKey string

// StateData is a value in the CycleState; Clone lets preemption try
// changes on a copy.
type StateData interface {
	Clone() StateData
}

// CycleState is what plugins share during one pod's scheduling cycle.
// Writes happen in PreFilter and PreScore; Filter and Score only read.
type CycleState struct {
	mu   sync.RWMutex
	data map[StateKey]StateData
	// SkipFilterPlugins and SkipScorePlugins name plugins whose PreFilter
	// or PreScore returned Skip.
	SkipFilterPlugins, SkipScorePlugins map[string]struct{}
}

// NewCycleState returns an empty state.
func NewCycleState() *CycleState {
	return &CycleState{data: map[StateKey]StateData{}}
}

// Read returns the value of key.
func (c *CycleState) Read(key StateKey) (StateData, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if v, ok := c.data[key]; ok {
		return v, nil
	}
	return nil, fmt.Errorf("cycle state: no value for %q", key)
}

// Write sets the value of key.
func (c *CycleState) Write(key StateKey, v StateData) {
	c.mu.Lock()
	c.data[key] = v
	c.mu.Unlock()
}

// Clone copies the state and clones each value.
func (c *CycleState) Clone() *CycleState {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := &CycleState{data: make(map[StateKey]StateData, len(c.data)),
		SkipFilterPlugins: c.SkipFilterPlugins, SkipScorePlugins: c.SkipScorePlugins}
	for k, v := range c.data {
		out.data[k] = v.Clone()
	}
	return out
}

// ReadState returns the value of key as a T.
func ReadState[T StateData](c *CycleState, key StateKey) (T, error) {
	var zero T
	v, err := c.Read(key)
	if err != nil {
		return zero, err
	}
	t, ok := v.(T)
	if !ok {
		return zero, fmt.Errorf("cycle state: %q holds %T, not %T", key, v, zero)
	}
	return t, nil
}

// Diagnosis records why a pod fit on no node.
type Diagnosis struct {
	// NodeToStatus holds each rejecting node's status.
	NodeToStatus map[string]*Status
	// UnschedulablePlugins are the plugins that rejected the pod; the
	// queue wakes it on their events.
	UnschedulablePlugins map[string]struct{}
	// PreFilterMsg is set when a PreFilter rejected the pod on every node.
	PreFilterMsg string
	// PostFilterMsg is what PostFilter (preemption) said.
	PostFilterMsg string
}

// AddPluginStatus records the plugin of a rejection.
func (d *Diagnosis) AddPluginStatus(s *Status) {
	if s.Plugin() == "" || !s.IsRejected() {
		return
	}
	if d.UnschedulablePlugins == nil {
		d.UnschedulablePlugins = map[string]struct{}{}
	}
	d.UnschedulablePlugins[s.Plugin()] = struct{}{}
}

// FitError is the error of a pod that fits on no node; its message is
// the Kubernetes summary ("0/3 nodes are available: 1 Insufficient cpu,
// 2 node(s) didn't match Pod's node affinity/selector.").
type FitError struct {
	Pod         *corev1.Pod
	NumAllNodes int
	Diagnosis   Diagnosis
}

func (f *FitError) Error() string {
	msg := fmt.Sprintf("0/%d nodes are available:", f.NumAllNodes)
	if f.Diagnosis.PreFilterMsg != "" {
		msg += " " + f.Diagnosis.PreFilterMsg + "."
	} else if h := ReasonHistogram(f.Diagnosis.NodeToStatus); h != "" {
		msg += " " + h + "."
	}
	if f.Diagnosis.PostFilterMsg != "" {
		msg += " " + f.Diagnosis.PostFilterMsg
	}
	return msg
}

// ReasonHistogram counts the reasons of statuses: "1 Insufficient cpu,
// 2 node(s) were unschedulable", sorted as strings.
func ReasonHistogram(statuses map[string]*Status) string {
	counts := map[string]int{}
	for _, s := range statuses {
		for _, r := range s.Reasons() {
			counts[r]++
		}
	}
	parts := make([]string, 0, len(counts))
	for r, n := range counts {
		parts = append(parts, fmt.Sprintf("%d %s", n, r))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// PodKey returns "namespace/name".
func PodKey(pod *corev1.Pod) string { return pod.Namespace + "/" + pod.Name }

// PodUID returns the pod's UID.
func PodUID(pod *corev1.Pod) types.UID { return pod.UID }
