package framework

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/labels"
	kruntime "kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/client/tools/record"
)

// Parallelizer runs per-node work on a few goroutines.
type Parallelizer struct {
	// Parallelism is the most goroutines used; 0 means GOMAXPROCS.
	Parallelism int
}

// Until calls fn(i) for every i in [0, pieces), in chunks on up to
// Parallelism goroutines, and returns when all are done or ctx ends.
func (p Parallelizer) Until(ctx context.Context, pieces int, fn func(i int)) {
	if pieces <= 0 {
		return
	}
	workers := p.Parallelism
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	chunk := max(1, int(math.Sqrt(float64(pieces))))
	chunks := (pieces + chunk - 1) / chunk
	workers = min(workers, chunks)
	var next atomic.Int64
	work := func() {
		for ctx.Err() == nil {
			c := int(next.Add(1) - 1)
			if c >= chunks {
				return
			}
			for i := c * chunk; i < min(pieces, (c+1)*chunk); i++ {
				fn(i)
			}
		}
	}
	if workers <= 1 {
		work()
		return
	}
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
}

// PluginSpec names a plugin of a profile, its score weight (when it
// scores), and how to make it.
type PluginSpec struct {
	Name   string
	Weight int64
	New    func(h Handle) (Plugin, error)
}

// Config is what a Framework is made of.
type Config struct {
	// ProfileName is the scheduler name pods select the profile with.
	ProfileName string
	Plugins     []PluginSpec
	Snapshot    NodeInfoLister
	Client      Client
	// NamespaceLabels returns a namespace's labels; nil means none known.
	NamespaceLabels func(namespace string) labels.Set
	Nominator       PodNominator
	Parallelism     int
	// Recorder reports events; nil drops them.
	Recorder record.EventRecorder
}

// Framework runs a profile's plugins at each extension point.
type Framework struct {
	cfg      Config
	parallel Parallelizer

	preFilter  []PreFilterPlugin
	filter     []FilterPlugin
	postFilter []PostFilterPlugin
	preScore   []PreScorePlugin
	score      []ScorePlugin
	weights    []int64
	reserve    []ReservePlugin
	permit     []PermitPlugin
	preBind    []PreBindPlugin
	bind       []BindPlugin
	events     map[string][]ClusterEvent
}

var _ Handle = (*Framework)(nil)

// NewFramework builds every plugin of cfg and sorts them into extension
// points.
func NewFramework(cfg Config) (*Framework, error) {
	f := &Framework{cfg: cfg, parallel: Parallelizer{Parallelism: cfg.Parallelism}, events: map[string][]ClusterEvent{}}
	seen := map[string]bool{}
	for _, spec := range cfg.Plugins {
		if seen[spec.Name] {
			return nil, fmt.Errorf("profile %q: plugin %q listed twice", cfg.ProfileName, spec.Name)
		}
		seen[spec.Name] = true
		p, err := spec.New(f)
		if err != nil {
			return nil, fmt.Errorf("profile %q: plugin %q: %w", cfg.ProfileName, spec.Name, err)
		}
		if p.Name() != spec.Name {
			return nil, fmt.Errorf("profile %q: plugin %q calls itself %q", cfg.ProfileName, spec.Name, p.Name())
		}
		if x, ok := p.(PreFilterPlugin); ok {
			f.preFilter = append(f.preFilter, x)
		}
		if x, ok := p.(FilterPlugin); ok {
			f.filter = append(f.filter, x)
		}
		if x, ok := p.(PostFilterPlugin); ok {
			f.postFilter = append(f.postFilter, x)
		}
		if x, ok := p.(PreScorePlugin); ok {
			f.preScore = append(f.preScore, x)
		}
		if x, ok := p.(ScorePlugin); ok {
			w := spec.Weight
			if w == 0 {
				w = 1
			}
			if w < 0 {
				return nil, fmt.Errorf("profile %q: plugin %q: score weight %d must be positive", cfg.ProfileName, spec.Name, w)
			}
			f.score = append(f.score, x)
			f.weights = append(f.weights, w)
		}
		if x, ok := p.(ReservePlugin); ok {
			f.reserve = append(f.reserve, x)
		}
		if x, ok := p.(PermitPlugin); ok {
			f.permit = append(f.permit, x)
		}
		if x, ok := p.(PreBindPlugin); ok {
			f.preBind = append(f.preBind, x)
		}
		if x, ok := p.(BindPlugin); ok {
			f.bind = append(f.bind, x)
		}
		if x, ok := p.(EnqueueExtensions); ok {
			f.events[spec.Name] = x.EventsToRegister()
		}
	}
	if len(f.bind) == 0 {
		return nil, fmt.Errorf("profile %q: no bind plugin", cfg.ProfileName)
	}
	return f, nil
}

// ProfileName returns the scheduler name of the profile.
func (f *Framework) ProfileName() string { return f.cfg.ProfileName }

// SnapshotSharedLister implements Handle.
func (f *Framework) SnapshotSharedLister() NodeInfoLister { return f.cfg.Snapshot }

// ClientSet implements Handle.
func (f *Framework) ClientSet() Client { return f.cfg.Client }

// NamespaceLabels implements Handle.
func (f *Framework) NamespaceLabels(ns string) labels.Set {
	if f.cfg.NamespaceLabels == nil {
		return nil
	}
	return f.cfg.NamespaceLabels(ns)
}

// Nominator implements Handle.
func (f *Framework) Nominator() PodNominator { return f.cfg.Nominator }

// Parallelizer implements Handle.
func (f *Framework) Parallelizer() Parallelizer { return f.parallel }

// EventRecorder implements Handle.
func (f *Framework) EventRecorder() record.EventRecorder {
	if f.cfg.Recorder == nil {
		return nopRecorder{}
	}
	return f.cfg.Recorder
}

// nopRecorder drops events.
type nopRecorder struct{}

var _ record.EventRecorder = nopRecorder{}

func (nopRecorder) Event(kruntime.Object, string, string, string)          {}
func (nopRecorder) Eventf(kruntime.Object, string, string, string, ...any) {}
func (nopRecorder) AnnotatedEventf(kruntime.Object, map[string]string, string, string, string, ...any) {
}

// HasPostFilterPlugins reports whether preemption may run.
func (f *Framework) HasPostFilterPlugins() bool { return len(f.postFilter) > 0 }

// EventMatters reports whether ev may help a pod that plugins rejected; a
// pod rejected by no known plugin is moved on every event.
func (f *Framework) EventMatters(ev ClusterEvent, plugins map[string]struct{}) bool {
	if len(plugins) == 0 {
		return true
	}
	for name := range plugins {
		regs, ok := f.events[name]
		if !ok {
			// A plugin that registers nothing is woken by everything.
			return true
		}
		for _, reg := range regs {
			if reg.Match(ev) {
				return true
			}
		}
	}
	return false
}

// RunPreFilterPlugins runs every PreFilter; the result intersects their
// node sets. A rejection carries the plugin's name.
func (f *Framework) RunPreFilterPlugins(ctx context.Context, state *CycleState, pod *corev1.Pod) (*PreFilterResult, *Status) {
	var result *PreFilterResult
	for _, p := range f.preFilter {
		r, s := p.PreFilter(ctx, state, pod)
		if s.IsSkip() {
			if state.SkipFilterPlugins == nil {
				state.SkipFilterPlugins = map[string]struct{}{}
			}
			state.SkipFilterPlugins[p.Name()] = struct{}{}
			continue
		}
		if !s.IsSuccess() {
			if !s.IsRejected() {
				return nil, AsStatus(fmt.Errorf("running PreFilter plugin %q: %w", p.Name(), s.AsError())).WithPlugin(p.Name())
			}
			return nil, s.WithPlugin(p.Name())
		}
		if r == nil || r.NodeNames == nil {
			continue
		}
		if result == nil {
			result = &PreFilterResult{NodeNames: r.NodeNames}
			continue
		}
		both := map[string]struct{}{}
		for n := range r.NodeNames {
			if _, ok := result.NodeNames[n]; ok {
				both[n] = struct{}{}
			}
		}
		result.NodeNames = both
	}
	return result, nil
}

// RunPreFilterExtensionAddPod implements Handle.
func (f *Framework) RunPreFilterExtensionAddPod(ctx context.Context, state *CycleState, podToSchedule *corev1.Pod, podToAdd *PodInfo, nodeInfo *NodeInfo) *Status {
	for _, p := range f.preFilter {
		if _, skip := state.SkipFilterPlugins[p.Name()]; skip {
			continue
		}
		if ext := p.PreFilterExtensions(); ext != nil {
			if s := ext.AddPod(ctx, state, podToSchedule, podToAdd, nodeInfo); !s.IsSuccess() {
				return AsStatus(fmt.Errorf("running AddPod on PreFilter plugin %q: %w", p.Name(), s.AsError()))
			}
		}
	}
	return nil
}

// RunPreFilterExtensionRemovePod implements Handle.
func (f *Framework) RunPreFilterExtensionRemovePod(ctx context.Context, state *CycleState, podToSchedule *corev1.Pod, podToRemove *PodInfo, nodeInfo *NodeInfo) *Status {
	for _, p := range f.preFilter {
		if _, skip := state.SkipFilterPlugins[p.Name()]; skip {
			continue
		}
		if ext := p.PreFilterExtensions(); ext != nil {
			if s := ext.RemovePod(ctx, state, podToSchedule, podToRemove, nodeInfo); !s.IsSuccess() {
				return AsStatus(fmt.Errorf("running RemovePod on PreFilter plugin %q: %w", p.Name(), s.AsError()))
			}
		}
	}
	return nil
}

// RunFilterPlugins runs the filters on one node until one rejects.
func (f *Framework) RunFilterPlugins(ctx context.Context, state *CycleState, pod *corev1.Pod, nodeInfo *NodeInfo) *Status {
	for _, p := range f.filter {
		if _, skip := state.SkipFilterPlugins[p.Name()]; skip {
			continue
		}
		if s := p.Filter(ctx, state, pod, nodeInfo); !s.IsSuccess() {
			if !s.IsRejected() {
				s = AsStatus(fmt.Errorf("running %q filter plugin: %w", p.Name(), s.AsError()))
			}
			return s.WithPlugin(p.Name())
		}
	}
	return nil
}

// RunFilterPluginsWithNominatedPods runs the filters on nodeInfo twice
// when pods of at least pod's priority are nominated to it: once as if
// they ran there, once without them, and the pod must pass both.
func (f *Framework) RunFilterPluginsWithNominatedPods(ctx context.Context, state *CycleState, pod *corev1.Pod, nodeInfo *NodeInfo) *Status {
	if f.cfg.Nominator != nil && nodeInfo.Node() != nil {
		var added []*PodInfo
		for _, np := range f.cfg.Nominator.NominatedPodsForNode(nodeInfo.Name()) {
			if np.Pod.UID != pod.UID && PodPriority(np.Pod) >= PodPriority(pod) {
				added = append(added, np)
			}
		}
		if len(added) > 0 {
			ni, st := nodeInfo.Clone(), state.Clone()
			for _, np := range added {
				ni.AddPodInfo(np)
				if s := f.RunPreFilterExtensionAddPod(ctx, st, pod, np, ni); !s.IsSuccess() {
					return s
				}
			}
			if s := f.RunFilterPlugins(ctx, st, pod, ni); !s.IsSuccess() {
				return s
			}
		}
	}
	return f.RunFilterPlugins(ctx, state, pod, nodeInfo)
}

// RunPostFilterPlugins runs the PostFilters until one succeeds. The
// rejection messages of the others are joined.
func (f *Framework) RunPostFilterPlugins(ctx context.Context, state *CycleState, pod *corev1.Pod, statuses map[string]*Status) (*PostFilterResult, *Status) {
	var msgs []string
	for _, p := range f.postFilter {
		r, s := p.PostFilter(ctx, state, pod, statuses)
		if s.IsSuccess() {
			return r, s
		}
		if !s.IsRejected() {
			return nil, s.WithPlugin(p.Name())
		}
		msgs = append(msgs, s.Message())
	}
	return nil, NewStatus(Unschedulable, strings.Join(msgs, " "))
}

// RunPreScorePlugins runs the PreScores; Skip skips the plugin's Score.
func (f *Framework) RunPreScorePlugins(ctx context.Context, state *CycleState, pod *corev1.Pod, nodes []*NodeInfo) *Status {
	for _, p := range f.preScore {
		s := p.PreScore(ctx, state, pod, nodes)
		if s.IsSkip() {
			if state.SkipScorePlugins == nil {
				state.SkipScorePlugins = map[string]struct{}{}
			}
			state.SkipScorePlugins[p.Name()] = struct{}{}
			continue
		}
		if !s.IsSuccess() {
			return AsStatus(fmt.Errorf("running PreScore plugin %q: %w", p.Name(), s.AsError())).WithPlugin(p.Name())
		}
	}
	return nil
}

// RunScorePlugins scores nodes with every plugin, normalizes each, applies
// the weights, and returns the totals in the order of nodes.
func (f *Framework) RunScorePlugins(ctx context.Context, state *CycleState, pod *corev1.Pod, nodes []*NodeInfo) ([]NodeScore, *Status) {
	var plugins []int
	for i, p := range f.score {
		if _, skip := state.SkipScorePlugins[p.Name()]; !skip {
			plugins = append(plugins, i)
		}
	}
	scores := make([][]NodeScore, len(plugins))
	for j := range scores {
		scores[j] = make([]NodeScore, len(nodes))
	}
	var errOnce sync.Once
	var firstErr *Status
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	f.parallel.Until(ctx, len(nodes), func(n int) {
		for j, i := range plugins {
			p := f.score[i]
			s, st := p.Score(ctx, state, pod, nodes[n])
			if !st.IsSuccess() {
				errOnce.Do(func() {
					firstErr = AsStatus(fmt.Errorf("running Score plugin %q: %w", p.Name(), st.AsError())).WithPlugin(p.Name())
					cancel()
				})
				return
			}
			scores[j][n] = NodeScore{Name: nodes[n].Name(), Score: s}
		}
	})
	if firstErr != nil {
		return nil, firstErr
	}
	total := make([]NodeScore, len(nodes))
	for n := range nodes {
		total[n].Name = nodes[n].Name()
	}
	for j, i := range plugins {
		p := f.score[i]
		if ext := p.ScoreExtensions(); ext != nil {
			if st := ext.NormalizeScore(ctx, state, pod, scores[j]); !st.IsSuccess() {
				return nil, AsStatus(fmt.Errorf("running Normalize on Score plugin %q: %w", p.Name(), st.AsError())).WithPlugin(p.Name())
			}
		}
		for n := range nodes {
			s := scores[j][n].Score
			if s < MinNodeScore || s > MaxNodeScore {
				return nil, AsStatus(fmt.Errorf("plugin %q returns an invalid score %d for node %q, it should be in [%d, %d] after normalizing", p.Name(), s, nodes[n].Name(), MinNodeScore, MaxNodeScore))
			}
			total[n].Score += s * f.weights[i]
		}
	}
	return total, nil
}

// RunReservePluginsReserve runs every Reserve until one fails.
func (f *Framework) RunReservePluginsReserve(ctx context.Context, state *CycleState, pod *corev1.Pod, nodeName string) *Status {
	for _, p := range f.reserve {
		if s := p.Reserve(ctx, state, pod, nodeName); !s.IsSuccess() {
			if !s.IsRejected() {
				s = AsStatus(fmt.Errorf("running Reserve plugin %q: %w", p.Name(), s.AsError()))
			}
			return s.WithPlugin(p.Name())
		}
	}
	return nil
}

// RunReservePluginsUnreserve runs every Unreserve, in reverse order.
func (f *Framework) RunReservePluginsUnreserve(ctx context.Context, state *CycleState, pod *corev1.Pod, nodeName string) {
	for i := len(f.reserve) - 1; i >= 0; i-- {
		f.reserve[i].Unreserve(ctx, state, pod, nodeName)
	}
}

// RunPermitPlugins runs every Permit until one refuses.
func (f *Framework) RunPermitPlugins(ctx context.Context, state *CycleState, pod *corev1.Pod, nodeName string) *Status {
	for _, p := range f.permit {
		if s := p.Permit(ctx, state, pod, nodeName); !s.IsSuccess() {
			if !s.IsRejected() {
				s = AsStatus(fmt.Errorf("running Permit plugin %q: %w", p.Name(), s.AsError()))
			}
			return s.WithPlugin(p.Name())
		}
	}
	return nil
}

// RunPreBindPlugins runs every PreBind until one fails.
func (f *Framework) RunPreBindPlugins(ctx context.Context, state *CycleState, pod *corev1.Pod, nodeName string) *Status {
	for _, p := range f.preBind {
		if s := p.PreBind(ctx, state, pod, nodeName); !s.IsSuccess() {
			return AsStatus(fmt.Errorf("running PreBind plugin %q: %w", p.Name(), s.AsError())).WithPlugin(p.Name())
		}
	}
	return nil
}

// RunBindPlugins runs the Bind plugins until one does not Skip.
func (f *Framework) RunBindPlugins(ctx context.Context, state *CycleState, pod *corev1.Pod, nodeName string) *Status {
	for _, p := range f.bind {
		s := p.Bind(ctx, state, pod, nodeName)
		if s.IsSkip() {
			continue
		}
		if !s.IsSuccess() {
			return AsStatus(fmt.Errorf("running Bind plugin %q: %w", p.Name(), s.AsError())).WithPlugin(p.Name())
		}
		return nil
	}
	return NewStatus(Error, "no bind plugin bound the pod")
}

// DefaultNormalizeScore scales scores linearly so the highest is
// MaxNodeScore; reverse flips them (fewer is better).
func DefaultNormalizeScore(maxPriority int64, reverse bool, scores []NodeScore) {
	var highest int64
	for i := range scores {
		highest = max(highest, scores[i].Score)
	}
	if highest == 0 {
		if reverse {
			for i := range scores {
				scores[i].Score = maxPriority
			}
		}
		return
	}
	for i := range scores {
		s := maxPriority * scores[i].Score / highest
		if reverse {
			s = maxPriority - s
		}
		scores[i].Score = s
	}
}
