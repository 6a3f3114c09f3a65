package stats

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// Source is the kubelet as the Provider sees it.
type Source interface {
	// Pods are the pods the kubelet runs.
	Pods() []*corev1.Pod
	// Runtime is its container runtime.
	Runtime() kruntime.Runtime
}

// Config configures a Provider.
type Config struct {
	NodeName string
	Source   Source
	// Node measures the node when the runtime is no
	// kruntime.NodeStatsProvider; HostStats{} when nil.
	Node kruntime.NodeStatsProvider
	// NodeStartTime is the node's startTime; the host's boot time when
	// zero.
	NodeStartTime time.Time
}

// Provider makes Summaries. It remembers the previous CPU figure of each
// container and of the node, for usageNanoCores.
type Provider struct {
	cfg Config

	mu   sync.Mutex
	prev map[string]cpuSample
}

type cpuSample struct {
	at    time.Time
	usage uint64
}

// nodeKey is the node's entry in Provider.prev.
const nodeKey = "\x00node"

// NewProvider returns a Provider of cfg.
func NewProvider(cfg Config) (*Provider, error) {
	if cfg.Source == nil {
		return nil, errors.New("stats provider: a source is required")
	}
	if cfg.Node == nil {
		cfg.Node = HostStats{}
	}
	if cfg.NodeStartTime.IsZero() {
		if t, err := (HostStats{}).BootTime(); err == nil {
			cfg.NodeStartTime = t
		} else {
			cfg.NodeStartTime = time.Now()
		}
	}
	return &Provider{cfg: cfg, prev: map[string]cpuSample{}}, nil
}

// Summary measures the node and every running container. It returns what
// it could measure with an error for what it could not (the containers'
// figures, the node's): the caller reports the error (scrape_error) and
// still serves the rest.
func (p *Provider) Summary(ctx context.Context) (*Summary, error) {
	rt := p.cfg.Source.Runtime()
	var errs []error
	s := &Summary{Node: NodeStats{NodeName: p.cfg.NodeName, StartTime: metav1.NewTime(p.cfg.NodeStartTime)}, Pods: []PodStats{}}

	nodeSrc := p.cfg.Node
	if n, ok := rt.(kruntime.NodeStatsProvider); ok {
		nodeSrc = n
	}
	if ns, err := nodeSrc.NodeStats(ctx); err != nil {
		errs = append(errs, err)
	} else {
		s.Node.CPU = p.cpu(nodeKey, ns.Timestamp, ns.CPUUsageCoreNanoSeconds)
		s.Node.Memory = &MemoryStats{Time: metav1.NewTime(ns.Timestamp), WorkingSetBytes: ptr(ns.MemoryWorkingSetBytes),
			UsageBytes: ptr(ns.MemoryUsageBytes), RSSBytes: ptr(ns.MemoryRSSBytes)}
		if ns.MemoryAvailableBytes > 0 {
			s.Node.Memory.AvailableBytes = ptr(ns.MemoryAvailableBytes)
		}
	}

	sp, ok := rt.(kruntime.StatsProvider)
	if !ok {
		return s, errors.Join(errs...)
	}
	pods, err := p.podStats(ctx, rt, sp)
	if err != nil {
		errs = append(errs, err)
	}
	s.Pods = pods
	return s, errors.Join(errs...)
}

func (p *Provider) podStats(ctx context.Context, rt kruntime.Runtime, sp kruntime.StatsProvider) ([]PodStats, error) {
	measured, err := sp.ListContainerStats(ctx)
	if err != nil {
		return []PodStats{}, fmt.Errorf("container stats: %w", err)
	}
	sandboxes, err := rt.ListPodSandbox(ctx)
	if err != nil {
		return []PodStats{}, fmt.Errorf("container stats: list sandboxes: %w", err)
	}
	containers, err := rt.ListContainers(ctx, "")
	if err != nil {
		return []PodStats{}, fmt.Errorf("container stats: list containers: %w", err)
	}
	byID := make(map[string]kruntime.ContainerStats, len(measured))
	for _, m := range measured {
		byID[m.ID] = m
	}
	sandboxByID := make(map[string]kruntime.PodSandboxStatus, len(sandboxes))
	for _, sb := range sandboxes {
		if sb.State == kruntime.SandboxReady {
			sandboxByID[sb.ID] = sb
		}
	}
	startTimes := map[string]time.Time{}
	for _, pod := range p.cfg.Source.Pods() {
		if pod.Status.StartTime != nil {
			startTimes[string(pod.UID)] = pod.Status.StartTime.Time
		}
	}

	pods := map[string]*PodStats{} // by sandbox ID
	seen := map[string]bool{}
	for _, c := range containers {
		m, ok := byID[c.ID]
		sb, ready := sandboxByID[c.SandboxID]
		if !ok || !ready || c.State != kruntime.ContainerRunning {
			continue
		}
		seen[c.ID] = true
		ps := pods[sb.ID]
		if ps == nil {
			start := startTimes[sb.Config.UID]
			if start.IsZero() {
				start = sb.CreatedAt
			}
			ps = &PodStats{PodRef: PodReference{Name: sb.Config.Name, Namespace: sb.Config.Namespace, UID: sb.Config.UID},
				StartTime: metav1.NewTime(start), Containers: []ContainerStats{}}
			pods[sb.ID] = ps
		}
		ps.Containers = append(ps.Containers, ContainerStats{Name: c.Name, StartTime: metav1.NewTime(c.StartedAt),
			CPU: p.cpu(c.ID, m.Timestamp, m.CPUUsageCoreNanoSeconds),
			Memory: &MemoryStats{Time: metav1.NewTime(m.Timestamp), WorkingSetBytes: ptr(m.MemoryWorkingSetBytes),
				UsageBytes: ptr(m.MemoryUsageBytes), RSSBytes: ptr(m.MemoryRSSBytes)}})
	}
	p.forgetExcept(seen)

	out := make([]PodStats, 0, len(pods))
	for _, ps := range pods {
		sort.Slice(ps.Containers, func(i, j int) bool { return ps.Containers[i].Name < ps.Containers[j].Name })
		ps.CPU, ps.Memory = sumContainers(ps.Containers)
		out = append(out, *ps)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].PodRef.Namespace != out[j].PodRef.Namespace {
			return out[i].PodRef.Namespace < out[j].PodRef.Namespace
		}
		return out[i].PodRef.Name < out[j].PodRef.Name
	})
	return out, nil
}

// cpu makes the CPU figures of key and remembers them for the next rate.
func (p *Provider) cpu(key string, at time.Time, usage uint64) *CPUStats {
	st := &CPUStats{Time: metav1.NewTime(at), UsageCoreNanoSeconds: ptr(usage)}
	p.mu.Lock()
	defer p.mu.Unlock()
	if prev, ok := p.prev[key]; ok && at.After(prev.at) && usage >= prev.usage {
		elapsed := uint64(at.Sub(prev.at).Nanoseconds())
		st.UsageNanoCores = ptr((usage - prev.usage) * uint64(time.Second) / elapsed)
	}
	if prev, ok := p.prev[key]; !ok || at.After(prev.at) {
		p.prev[key] = cpuSample{at: at, usage: usage}
	}
	return st
}

// forgetExcept drops the samples of containers that are gone.
func (p *Provider) forgetExcept(seen map[string]bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k := range p.prev {
		if k != nodeKey && !seen[k] {
			delete(p.prev, k)
		}
	}
}

// sumContainers adds up a pod's containers, at the newest of their times.
func sumContainers(cs []ContainerStats) (*CPUStats, *MemoryStats) {
	cpu := &CPUStats{UsageCoreNanoSeconds: ptr[uint64](0)}
	mem := &MemoryStats{WorkingSetBytes: ptr[uint64](0), UsageBytes: ptr[uint64](0), RSSBytes: ptr[uint64](0)}
	rates := true
	for _, c := range cs {
		if c.CPU != nil {
			if c.CPU.Time.After(cpu.Time.Time) {
				cpu.Time = c.CPU.Time
			}
			*cpu.UsageCoreNanoSeconds += deref(c.CPU.UsageCoreNanoSeconds)
			if c.CPU.UsageNanoCores == nil {
				rates = false
			} else {
				cpu.UsageNanoCores = ptr(deref(cpu.UsageNanoCores) + *c.CPU.UsageNanoCores)
			}
		}
		if c.Memory != nil {
			if c.Memory.Time.After(mem.Time.Time) {
				mem.Time = c.Memory.Time
			}
			*mem.WorkingSetBytes += deref(c.Memory.WorkingSetBytes)
			*mem.UsageBytes += deref(c.Memory.UsageBytes)
			*mem.RSSBytes += deref(c.Memory.RSSBytes)
		}
	}
	if !rates {
		cpu.UsageNanoCores = nil
	}
	return cpu, mem
}

func ptr[T any](v T) *T { return &v }

func deref(p *uint64) uint64 {
	if p == nil {
		return 0
	}
	return *p
}
