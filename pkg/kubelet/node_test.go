package kubelet

import (
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

func TestParseMeminfo(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     meminfo
		wantErr  bool
	}{
		{"kB", "MemTotal:       16384 kB\nMemFree: 1 kB\nMemAvailable:    8192 kB\n", meminfo{16384 << 10, 8192 << 10}, false},
		{"no available", "MemTotal: 1 kB\n", meminfo{}, true},
		{"garbage number", "MemTotal: x kB\nMemAvailable: 1 kB\n", meminfo{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseMeminfo(strings.NewReader(tc.in))
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Errorf("parseMeminfo = %+v, %v; want %+v, error %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestParseLoadavgTasks(t *testing.T) {
	if n, err := parseLoadavgTasks("0.10 0.20 0.30 2/345 6789"); err != nil || n != 345 {
		t.Errorf("parseLoadavgTasks = %d, %v; want 345", n, err)
	}
	if _, err := parseLoadavgTasks("0.1 0.2"); err == nil {
		t.Error("parseLoadavgTasks accepted a short line")
	}
}

func TestAllocatable(t *testing.T) {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:              resource.MustParse("4"),
		corev1.ResourceMemory:           resource.MustParse("1Gi"),
		corev1.ResourceEphemeralStorage: resource.MustParse("100Gi"),
		corev1.ResourcePods:             resource.MustParse("110"),
	}
	got := allocatable(capacity)
	for name, want := range map[corev1.ResourceName]int64{
		corev1.ResourceCPU: 4, corev1.ResourceMemory: 1<<30 - 100<<20,
		corev1.ResourceEphemeralStorage: 90 << 30, corev1.ResourcePods: 110,
	} {
		if q := got[name]; q.Value() != want {
			t.Errorf("allocatable %s = %d, want %d", name, q.Value(), want)
		}
	}
	if q := capacity[corev1.ResourceMemory]; q.Value() != 1<<30 {
		t.Error("allocatable changed the capacity")
	}
}

func TestDesiredNodeConditions(t *testing.T) {
	healthy := nodeSignals{memAvailable: 1 << 30, fsCapacity: 100, fsAvailable: 50, pidsUsed: 100, pidMax: 1000}
	for _, tc := range []struct {
		name       string
		sig        nodeSignals
		sigErr     error
		runtimeErr error
		want       map[corev1.NodeConditionType]corev1.ConditionStatus
	}{
		{"healthy", healthy, nil, nil, map[corev1.NodeConditionType]corev1.ConditionStatus{
			corev1.NodeReady: "True", corev1.NodeMemoryPressure: "False", corev1.NodeDiskPressure: "False", corev1.NodePIDPressure: "False"}},
		{"low memory", nodeSignals{memAvailable: 50 << 20, fsCapacity: 100, fsAvailable: 50, pidMax: 1000}, nil, nil, map[corev1.NodeConditionType]corev1.ConditionStatus{
			corev1.NodeReady: "True", corev1.NodeMemoryPressure: "True", corev1.NodeDiskPressure: "False"}},
		{"full disk", nodeSignals{memAvailable: 1 << 30, fsCapacity: 100, fsAvailable: 9, pidMax: 1000}, nil, nil, map[corev1.NodeConditionType]corev1.ConditionStatus{
			corev1.NodeDiskPressure: "True"}},
		{"pids running out", nodeSignals{memAvailable: 1 << 30, fsCapacity: 100, fsAvailable: 50, pidsUsed: 950, pidMax: 1000}, nil, nil, map[corev1.NodeConditionType]corev1.ConditionStatus{
			corev1.NodePIDPressure: "True"}},
		{"runtime down", healthy, nil, errors.New("no shell"), map[corev1.NodeConditionType]corev1.ConditionStatus{
			corev1.NodeReady: "False"}},
		{"cannot measure", nodeSignals{}, errors.New("no /proc"), nil, map[corev1.NodeConditionType]corev1.ConditionStatus{
			corev1.NodeReady: "True", corev1.NodeMemoryPressure: "Unknown", corev1.NodeDiskPressure: "Unknown", corev1.NodePIDPressure: "Unknown"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := map[corev1.NodeConditionType]conditionSpec{}
			for _, c := range desiredNodeConditions(tc.sig, tc.sigErr, tc.runtimeErr) {
				got[c.typ] = c
			}
			if len(got) != 4 {
				t.Fatalf("conditions = %v, want four", got)
			}
			for typ, want := range tc.want {
				if got[typ].status != want || got[typ].reason == "" {
					t.Errorf("%s = %+v, want status %s with a reason", typ, got[typ], want)
				}
			}
		})
	}
}

func TestNodeConditionsKeepTransitionTime(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0.Add(time.Minute)
	old := []corev1.NodeCondition{
		{Type: corev1.NodeReady, Status: "True", LastTransitionTime: metav1.NewTime(t0), LastHeartbeatTime: metav1.NewTime(t0)},
		{Type: corev1.NodeMemoryPressure, Status: "True", LastTransitionTime: metav1.NewTime(t0)},
		{Type: corev1.NodeNetworkUnavailable, Status: "False", LastTransitionTime: metav1.NewTime(t0)},
	}
	want := desiredNodeConditions(nodeSignals{memAvailable: 1 << 30}, nil, nil)
	got := nodeConditions(want, old, now)
	byType := map[corev1.NodeConditionType]corev1.NodeCondition{}
	for _, c := range got {
		byType[c.Type] = c
	}
	if c := byType[corev1.NodeReady]; !c.LastTransitionTime.Time.Equal(t0) || !c.LastHeartbeatTime.Time.Equal(now) {
		t.Errorf("unchanged Ready: transition %v heartbeat %v; want %v and %v", c.LastTransitionTime, c.LastHeartbeatTime, t0, now)
	}
	if c := byType[corev1.NodeMemoryPressure]; c.Status != "False" || !c.LastTransitionTime.Time.Equal(now) {
		t.Errorf("MemoryPressure that cleared: %+v, want False since %v", c, now)
	}
	if _, ok := byType[corev1.NodeNetworkUnavailable]; !ok {
		t.Error("a condition the kubelet does not own was dropped")
	}
}

func TestNodeStatusNeedsReport(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	ready := desiredNodeConditions(nodeSignals{memAvailable: 1 << 30}, nil, nil)
	notReady := desiredNodeConditions(nodeSignals{memAvailable: 1 << 30}, nil, errors.New("down"))
	for _, tc := range []struct {
		name  string
		state nodeStatusState
		want  []conditionSpec
		now   time.Time
		due   bool
	}{
		{"never reported", nodeStatusState{}, ready, t0, true},
		{"unchanged and recent", nodeStatusState{reported: ready, reportedAt: t0}, ready, t0.Add(30 * time.Second), false},
		{"unchanged but a minute old", nodeStatusState{reported: ready, reportedAt: t0}, ready, t0.Add(time.Minute), true},
		{"changed", nodeStatusState{reported: ready, reportedAt: t0}, notReady, t0.Add(time.Second), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.state.needsReport(tc.want, tc.now, time.Minute); got != tc.due {
				t.Errorf("needsReport = %v, want %v", got, tc.due)
			}
		})
	}
}

func TestReadMachineInfo(t *testing.T) {
	m, err := ReadMachineInfo(t.TempDir(), 42)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage} {
		if q := m.Capacity[r]; q.Sign() <= 0 {
			t.Errorf("capacity %s = %s, want positive", r, q.String())
		}
	}
	if q := m.Allocatable[corev1.ResourcePods]; q.Value() != 42 {
		t.Errorf("pods = %s, want 42", q.String())
	}
	if m.SystemInfo.OperatingSystem == "" || m.SystemInfo.Architecture == "" || m.SystemInfo.KubeletVersion == "" || m.SystemInfo.KernelVersion == "" {
		t.Errorf("system info = %+v", m.SystemInfo)
	}
}

func mustQ(s string) resource.Quantity { return resource.MustParse(s) }
