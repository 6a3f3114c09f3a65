package cri

import (
	"context"
	"fmt"
	"time"

	criapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

var _ kruntime.StatsProvider = (*Runtime)(nil)

// ListContainerStats asks the runtime (CRI ListContainerStats) for the
// figures of every running container; containerd reads them from the
// containers' cgroups.
func (r *Runtime) ListContainerStats(ctx context.Context) ([]kruntime.ContainerStats, error) {
	resp, err := r.rs.ListContainerStats(ctx, &criapi.ListContainerStatsRequest{
		Filter: &criapi.ContainerStatsFilter{},
	})
	if err != nil {
		return nil, fmt.Errorf("list container stats: %w", err)
	}
	out := make([]kruntime.ContainerStats, 0, len(resp.GetStats()))
	for _, s := range resp.GetStats() {
		out = append(out, containerStats(s))
	}
	return out, nil
}

// containerStats converts one CRI measurement; a figure the runtime does
// not give is 0.
func containerStats(s *criapi.ContainerStats) kruntime.ContainerStats {
	st := kruntime.ContainerStats{ID: s.GetAttributes().GetId()}
	ts := s.GetCpu().GetTimestamp()
	if ts == 0 {
		ts = s.GetMemory().GetTimestamp()
	}
	if ts != 0 {
		st.Timestamp = time.Unix(0, ts)
	} else {
		st.Timestamp = time.Now()
	}
	st.CPUUsageCoreNanoSeconds = s.GetCpu().GetUsageCoreNanoSeconds().GetValue()
	st.MemoryWorkingSetBytes = s.GetMemory().GetWorkingSetBytes().GetValue()
	st.MemoryUsageBytes = s.GetMemory().GetUsageBytes().GetValue()
	st.MemoryRSSBytes = s.GetMemory().GetRssBytes().GetValue()
	return st
}
