package stats

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	corev1 "kubecore.io/api/core/v1"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
	"kubecore.io/kubecore/pkg/kubelet/runtime/fake"
)

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) step(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

type source struct {
	rt   kruntime.Runtime
	pods []*corev1.Pod
}

func (s source) Pods() []*corev1.Pod       { return s.pods }
func (s source) Runtime() kruntime.Runtime { return s.rt }

// runPod starts a pod of the named containers on the fake runtime.
func runPod(t *testing.T, rt kruntime.Runtime, ns, name string, containers ...string) {
	t.Helper()
	ctx := t.Context()
	sb, err := rt.RunPodSandbox(ctx, kruntime.PodSandboxConfig{UID: ns + "-" + name, Namespace: ns, Name: name})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range containers {
		id, err := rt.CreateContainer(ctx, sb, kruntime.ContainerConfig{Name: c, Command: []string{"sleep"}})
		if err != nil {
			t.Fatal(err)
		}
		if err := rt.StartContainer(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
}

func newFakeProvider(t *testing.T) (*Provider, *fake.Runtime, *clock) {
	t.Helper()
	clk := &clock{now: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)}
	rt := fake.New("10.0.0.1", clk)
	rt.SetUsage(fake.Usage{CPUMillicores: 250, MemoryBytes: 64 << 20, NodeBaseMemoryBytes: 100 << 20, NodeMemoryBytes: 1 << 30})
	p, err := NewProvider(Config{NodeName: "n1", Source: source{rt: rt}, NodeStartTime: clk.Now().Add(-time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	return p, rt, clk
}

func TestSummaryOfFakeRuntime(t *testing.T) {
	p, rt, clk := newFakeProvider(t)
	runPod(t, rt, "default", "web", "app", "sidecar")
	runPod(t, rt, "kube-system", "dns", "coredns")
	clk.step(10 * time.Second)
	if _, err := p.Summary(t.Context()); err != nil {
		t.Fatal(err)
	}
	clk.step(10 * time.Second)
	s, err := p.Summary(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if s.Node.NodeName != "n1" || len(s.Pods) != 2 {
		t.Fatalf("summary = %+v, want node n1 and 2 pods", s)
	}
	web := s.Pods[0]
	if web.PodRef != (PodReference{Name: "web", Namespace: "default", UID: "default-web"}) || len(web.Containers) != 2 {
		t.Fatalf("first pod = %+v, want default/web with 2 containers", web)
	}
	app := web.Containers[0]
	// 250m for 20 s is 5 core-seconds; the rate over the last 10 s 250m.
	if got := *app.CPU.UsageCoreNanoSeconds; got != 5e9 {
		t.Errorf("container usageCoreNanoSeconds = %d, want 5e9", got)
	}
	if app.CPU.UsageNanoCores == nil || *app.CPU.UsageNanoCores != 250e6 {
		t.Errorf("container usageNanoCores = %v, want 250e6", app.CPU.UsageNanoCores)
	}
	if got := *web.CPU.UsageCoreNanoSeconds; got != 10e9 {
		t.Errorf("pod usageCoreNanoSeconds = %d, want 10e9", got)
	}
	if got := *web.Memory.WorkingSetBytes; got != 128<<20 {
		t.Errorf("pod workingSetBytes = %d, want 128Mi", got)
	}
	if got := *s.Node.Memory.WorkingSetBytes; got != 100<<20+3*64<<20 {
		t.Errorf("node workingSetBytes = %d, want 292Mi", got)
	}
	if got := *s.Node.Memory.AvailableBytes; got != 1<<30-(100<<20+3*64<<20) {
		t.Errorf("node availableBytes = %d", got)
	}
	if got := *s.Node.CPU.UsageNanoCores; got != 750e6 {
		t.Errorf("node usageNanoCores = %d, want 750e6", got)
	}

	// The JSON has the kubelet's field names.
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"node":{"nodeName":"n1"`, `"podRef":{"name":"web","namespace":"default","uid":"default-web"}`, `"usageCoreNanoSeconds":5000000000`, `"workingSetBytes":67108864`, `"startTime":"2026-11-27T11:00:00Z"`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("summary JSON lacks %s:\n%s", want, b)
		}
	}
}

func TestResourceMetricsParse(t *testing.T) {
	p, rt, clk := newFakeProvider(t)
	runPod(t, rt, "default", `we"ird`, "app")
	clk.step(4 * time.Second)
	s, err := p.Summary(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteResourceMetrics(&buf, s, false); err != nil {
		t.Fatal(err)
	}
	parser := expfmt.NewTextParser(model.LegacyValidation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, buf.String())
	}
	for _, name := range []string{"container_cpu_usage_seconds_total", "container_memory_working_set_bytes", "container_start_time_seconds",
		"node_cpu_usage_seconds_total", "node_memory_working_set_bytes", "pod_cpu_usage_seconds_total", "pod_memory_working_set_bytes",
		"resource_scrape_error", "scrape_error"} {
		if families[name] == nil {
			t.Errorf("no %s in\n%s", name, buf.String())
		}
	}
	m := families["container_cpu_usage_seconds_total"].GetMetric()[0]
	labels := map[string]string{}
	for _, l := range m.GetLabel() {
		labels[l.GetName()] = l.GetValue()
	}
	if labels["container"] != "app" || labels["pod"] != `we"ird` || labels["namespace"] != "default" {
		t.Errorf("labels = %v", labels)
	}
	if m.GetCounter().GetValue() != 1 || m.GetTimestampMs() != clk.Now().UnixMilli() {
		t.Errorf("container cpu = %v at %d, want 1 at %d", m.GetCounter().GetValue(), m.GetTimestampMs(), clk.Now().UnixMilli())
	}
	if v := families["node_memory_working_set_bytes"].GetMetric()[0].GetGauge().GetValue(); v != float64(164<<20) {
		t.Errorf("node working set = %v, want 164Mi", v)
	}
	if v := families["resource_scrape_error"].GetMetric()[0].GetGauge().GetValue(); v != 0 {
		t.Errorf("resource_scrape_error = %v, want 0", v)
	}
	if !strings.Contains(buf.String(), "# TYPE container_cpu_usage_seconds_total counter\n") {
		t.Errorf("no counter type line:\n%s", buf.String())
	}
}

type failingStats struct{ kruntime.Runtime }

func (failingStats) ListContainerStats(context.Context) ([]kruntime.ContainerStats, error) {
	return nil, errors.New("runtime down")
}

func TestSummaryPartialOnRuntimeError(t *testing.T) {
	p, rt, _ := newFakeProvider(t)
	p.cfg.Source = source{rt: failingStats{rt}}
	p.cfg.Node = HostStats{ProcFS: t.TempDir()} // no files: the node fails too
	s, err := p.Summary(t.Context())
	if err == nil || !strings.Contains(err.Error(), "runtime down") || !strings.Contains(err.Error(), "node cpu") {
		t.Fatalf("Summary error = %v, want both failures", err)
	}
	if s == nil || s.Node.NodeName != "n1" || len(s.Pods) != 0 {
		t.Fatalf("partial summary = %+v", s)
	}
	var buf bytes.Buffer
	if err := WriteResourceMetrics(&buf, s, true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "\nresource_scrape_error 1\n") || !strings.Contains(buf.String(), "\nscrape_error 1\n") {
		t.Errorf("scrape errors not reported:\n%s", buf.String())
	}
}

func TestHostStats(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("stat", "cpu  100 20 30 5000 40 5 6 7 0 0\ncpu0 100 20 30 5000 40 5 6 7 0 0\nbtime 1700000000\n")
	write("meminfo", "MemTotal:       1000 kB\nMemFree:         200 kB\nMemAvailable:    600 kB\nAnonPages:       150 kB\n")
	h := HostStats{ProcFS: dir}
	st, err := h.NodeStats(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// Busy jiffies: user+nice+system+irq+softirq+steal = 168, 10 ms each.
	if st.CPUUsageCoreNanoSeconds != 168*10_000_000 {
		t.Errorf("cpu = %d, want %d", st.CPUUsageCoreNanoSeconds, 168*10_000_000)
	}
	if st.MemoryWorkingSetBytes != 400*1024 || st.MemoryUsageBytes != 800*1024 || st.MemoryAvailableBytes != 600*1024 || st.MemoryRSSBytes != 150*1024 {
		t.Errorf("memory = %+v", st)
	}
	if bt, err := h.BootTime(); err != nil || !bt.Equal(time.Unix(1700000000, 0)) {
		t.Errorf("BootTime = %v, %v", bt, err)
	}
	write("meminfo", "MemFree: 1 kB\n")
	if _, err := h.NodeStats(t.Context()); err == nil {
		t.Error("NodeStats accepted a meminfo without MemTotal")
	}
	// The real host.
	if _, err := os.Stat("/proc/stat"); err == nil {
		st, err := (HostStats{}).NodeStats(t.Context())
		if err != nil || st.CPUUsageCoreNanoSeconds == 0 || st.MemoryWorkingSetBytes == 0 {
			t.Errorf("host NodeStats = %+v, %v", st, err)
		}
	}
}

// BenchmarkResourceMetrics100Pods is the cost of one /metrics/resource
// scrape of a node with 100 pods of the fake runtime: the measurement and
// the text.
func BenchmarkResourceMetrics100Pods(b *testing.B) {
	clk := &clock{now: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)}
	rt := fake.New("10.0.0.1", clk)
	for i := range 100 {
		sb, err := rt.RunPodSandbox(b.Context(), kruntime.PodSandboxConfig{UID: fmt.Sprint(i), Namespace: "default", Name: fmt.Sprintf("pod-%d", i)})
		if err != nil {
			b.Fatal(err)
		}
		id, err := rt.CreateContainer(b.Context(), sb, kruntime.ContainerConfig{Name: "app", Command: []string{"sleep"}})
		if err != nil {
			b.Fatal(err)
		}
		if err := rt.StartContainer(b.Context(), id); err != nil {
			b.Fatal(err)
		}
	}
	p, err := NewProvider(Config{NodeName: "n1", Source: source{rt: rt}, NodeStartTime: clk.Now()})
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	for b.Loop() {
		clk.step(time.Second)
		s, err := p.Summary(b.Context())
		if err != nil {
			b.Fatal(err)
		}
		buf.Reset()
		if err := WriteResourceMetrics(&buf, s, false); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len()), "bytes/scrape")
}
