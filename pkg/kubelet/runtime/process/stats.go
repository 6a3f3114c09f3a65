package process

import (
	"context"
	"os"
	"strconv"
	"strings"
	"time"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

var _ kruntime.StatsProvider = (*Runtime)(nil)

// clockTicks is USER_HZ, the unit of the CPU times in /proc/PID/stat: 100
// on every Linux architecture Go supports.
const clockTicks = 100

// ListContainerStats measures each running container's process group from
// /proc: a container is every process whose group is the container's (its
// shim makes it a group leader). The process runtime puts its containers
// in no cgroup of their own, so the figures are those of the processes
// alive now: CPU time is their user and system time plus that of the
// children they have reaped (so that `sh -c 'while ...; done'` counts its
// commands), and the working set is their resident memory (a page shared
// by two processes counts twice).
func (r *Runtime) ListContainerStats(context.Context) ([]kruntime.ContainerStats, error) {
	r.mu.Lock()
	groups := map[int]string{}
	for id, c := range r.containers {
		if c.status.State == kruntime.ContainerRunning && c.status.PID > 0 {
			groups[c.status.PID] = id
		}
	}
	r.mu.Unlock()
	if len(groups) == 0 {
		return nil, nil
	}
	now := time.Now()
	usage, err := readProcessGroups(groups)
	if err != nil {
		return nil, err
	}
	out := make([]kruntime.ContainerStats, 0, len(groups))
	for pgid, id := range groups {
		u := usage[pgid]
		out = append(out, kruntime.ContainerStats{ID: id, Timestamp: now,
			CPUUsageCoreNanoSeconds: u.cpuTicks * (uint64(time.Second) / clockTicks),
			MemoryWorkingSetBytes:   u.rssBytes, MemoryUsageBytes: u.rssBytes, MemoryRSSBytes: u.rssBytes})
	}
	return out, nil
}

// groupUsage sums the processes of one process group.
type groupUsage struct {
	cpuTicks uint64
	rssBytes uint64
}

// readProcessGroups scans /proc once and sums the processes of the
// wanted groups.
func readProcessGroups(wanted map[int]string) (map[int]groupUsage, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	page := uint64(os.Getpagesize())
	out := make(map[int]groupUsage, len(wanted))
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // exited meanwhile
		}
		pgid, ticks, rssPages, ok := parseUsage(string(b))
		if !ok {
			continue
		}
		if _, want := wanted[pgid]; !want {
			continue
		}
		u := out[pgid]
		u.cpuTicks += ticks
		u.rssBytes += rssPages * page
		out[pgid] = u
	}
	return out, nil
}

// parseUsage reads the process group (field 5), the CPU times (fields 14
// to 17: utime, stime, cutime, cstime) and the resident pages (field 24)
// of a /proc/PID/stat line.
func parseUsage(s string) (pgid int, ticks, rssPages uint64, ok bool) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, 0, false
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3.
	if len(f) < 22 {
		return 0, 0, 0, false
	}
	pgid, err := strconv.Atoi(f[2])
	if err != nil {
		return 0, 0, 0, false
	}
	for _, field := range f[11:15] {
		n, err := strconv.ParseInt(field, 10, 64)
		if err != nil {
			return 0, 0, 0, false
		}
		ticks += uint64(max(n, 0))
	}
	rss, err := strconv.ParseInt(f[21], 10, 64)
	if err != nil {
		return 0, 0, 0, false
	}
	return pgid, ticks, uint64(max(rss, 0)), true
}
