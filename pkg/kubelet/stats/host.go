package stats

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// HostStats measures the host from /proc (procfs is the root of /proc
// files, "/proc" when empty): CPU time from the first line of /proc/stat
// (user, nice, system, irq, softirq and steal jiffies), memory from
// /proc/meminfo: the working set is MemTotal - MemAvailable (what the
// kernel could not give back without swapping), usage MemTotal - MemFree.
type HostStats struct {
	ProcFS string
}

var _ kruntime.NodeStatsProvider = HostStats{}

func (h HostStats) path(name string) string {
	root := h.ProcFS
	if root == "" {
		root = "/proc"
	}
	return root + "/" + name
}

// NodeStats reads the host's figures.
func (h HostStats) NodeStats(context.Context) (kruntime.NodeStats, error) {
	now := time.Now()
	stat, err := os.ReadFile(h.path("stat"))
	if err != nil {
		return kruntime.NodeStats{}, fmt.Errorf("node cpu: %w", err)
	}
	cpu, _, err := parseProcStat(stat)
	if err != nil {
		return kruntime.NodeStats{}, fmt.Errorf("node cpu: %s: %w", h.path("stat"), err)
	}
	meminfo, err := os.ReadFile(h.path("meminfo"))
	if err != nil {
		return kruntime.NodeStats{}, fmt.Errorf("node memory: %w", err)
	}
	mem, err := ParseMeminfo(bytes.NewReader(meminfo))
	if err != nil {
		return kruntime.NodeStats{}, fmt.Errorf("node memory: %s: %w", h.path("meminfo"), err)
	}
	st := kruntime.NodeStats{Timestamp: now, CPUUsageCoreNanoSeconds: cpu, MemoryAvailableBytes: mem["MemAvailable"]}
	total := mem["MemTotal"]
	st.MemoryWorkingSetBytes = total - min(total, mem["MemAvailable"])
	st.MemoryUsageBytes = total - min(total, mem["MemFree"])
	st.MemoryRSSBytes = mem["AnonPages"]
	return st, nil
}

// BootTime is the host's boot time (btime of /proc/stat), the node's
// startTime.
func (h HostStats) BootTime() (time.Time, error) {
	stat, err := os.ReadFile(h.path("stat"))
	if err != nil {
		return time.Time{}, err
	}
	_, btime, err := parseProcStat(stat)
	if err != nil {
		return time.Time{}, err
	}
	return time.Unix(btime, 0), nil
}

// jiffy is one USER_HZ tick, the unit of /proc/stat.
const jiffy = uint64(time.Second / 100)

// parseProcStat returns the busy CPU time of every CPU in core-nanoseconds
// and the boot time in Unix seconds.
func parseProcStat(b []byte) (cpuNanos uint64, btime int64, err error) {
	found := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "cpu":
			// user nice system idle iowait irq softirq steal ...
			if len(f) < 9 {
				return 0, 0, errors.New("short cpu line")
			}
			for _, i := range []int{1, 2, 3, 6, 7, 8} {
				n, err := strconv.ParseUint(f[i], 10, 64)
				if err != nil {
					return 0, 0, fmt.Errorf("cpu field %d: %w", i, err)
				}
				cpuNanos += n * jiffy
			}
			found = true
		case "btime":
			if len(f) > 1 {
				btime, _ = strconv.ParseInt(f[1], 10, 64)
			}
		}
	}
	if !found {
		return 0, 0, errors.New("no cpu line")
	}
	return cpuNanos, btime, nil
}

// ParseMeminfo returns the fields of /proc/meminfo in bytes (the node's
// status and its resource metrics both read it); MemTotal and MemAvailable
// must be there.
func ParseMeminfo(r io.Reader) (map[string]uint64, error) {
	out := map[string]uint64{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			continue
		}
		n, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			continue
		}
		if len(f) > 1 && f[1] == "kB" {
			n *= 1024
		}
		out[name] = n
	}
	if _, ok := out["MemTotal"]; !ok {
		return nil, errors.New("no MemTotal")
	}
	if _, ok := out["MemAvailable"]; !ok {
		return nil, errors.New("no MemAvailable")
	}
	return out, nil
}
