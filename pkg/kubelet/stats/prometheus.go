package stats

import (
	"bufio"
	"io"
	"strconv"
	"strings"
	"time"
)

// ResourceMetricsContentType is the Prometheus text format of
// /metrics/resource.
const ResourceMetricsContentType = "text/plain; version=0.0.4; charset=utf-8"

// family is one metric family of /metrics/resource.
type family struct {
	name, help, typ string
}

// The families of /metrics/resource, in the kubelet's (alphabetical)
// order, with its help texts.
var (
	containerCPU   = family{"container_cpu_usage_seconds_total", "[STABLE] Cumulative cpu time consumed by the container in core-seconds", "counter"}
	containerMem   = family{"container_memory_working_set_bytes", "[STABLE] Current working set of the container in bytes", "gauge"}
	containerStart = family{"container_start_time_seconds", "[STABLE] Start time of the container since unix epoch in seconds", "gauge"}
	nodeCPU        = family{"node_cpu_usage_seconds_total", "[STABLE] Cumulative cpu time consumed by the node in core-seconds", "counter"}
	nodeMem        = family{"node_memory_working_set_bytes", "[STABLE] Current working set of the node in bytes", "gauge"}
	podCPU         = family{"pod_cpu_usage_seconds_total", "[STABLE] Cumulative cpu time consumed by the pod in core-seconds", "counter"}
	podMem         = family{"pod_memory_working_set_bytes", "[STABLE] Current working set of the pod in bytes", "gauge"}
	resourceError  = family{"resource_scrape_error", "[STABLE] 1 if there was an error while getting container metrics, 0 otherwise", "gauge"}
	scrapeError    = family{"scrape_error", "[ALPHA] 1 if there was an error while getting container metrics, 0 otherwise", "gauge"}
)

// WriteResourceMetrics writes s as the kubelet's /metrics/resource:
// cumulative CPU seconds and working-set bytes of every container, pod
// and the node, each sample with the time it was measured (milliseconds),
// the containers' start times, and resource_scrape_error (with its
// deprecated twin scrape_error) 1 when scrapeFailed.
func WriteResourceMetrics(w io.Writer, s *Summary, scrapeFailed bool) error {
	bw := bufio.NewWriter(w)
	mw := metricWriter{w: bw}
	type sample struct {
		labels [][2]string
		value  float64
		at     time.Time
	}
	var cCPU, cMem, cStart, pCPU, pMem []sample
	for _, p := range s.Pods {
		podLabels := [][2]string{{"namespace", p.PodRef.Namespace}, {"pod", p.PodRef.Name}}
		for _, c := range p.Containers {
			labels := [][2]string{{"container", c.Name}, podLabels[0], podLabels[1]}
			if c.CPU != nil && c.CPU.UsageCoreNanoSeconds != nil {
				cCPU = append(cCPU, sample{labels, seconds(*c.CPU.UsageCoreNanoSeconds), c.CPU.Time.Time})
			}
			if c.Memory != nil && c.Memory.WorkingSetBytes != nil {
				cMem = append(cMem, sample{labels, float64(*c.Memory.WorkingSetBytes), c.Memory.Time.Time})
			}
			if !c.StartTime.IsZero() {
				cStart = append(cStart, sample{labels, float64(c.StartTime.UnixNano()) / 1e9, c.StartTime.Time})
			}
		}
		if p.CPU != nil && p.CPU.UsageCoreNanoSeconds != nil {
			pCPU = append(pCPU, sample{podLabels, seconds(*p.CPU.UsageCoreNanoSeconds), p.CPU.Time.Time})
		}
		if p.Memory != nil && p.Memory.WorkingSetBytes != nil {
			pMem = append(pMem, sample{podLabels, float64(*p.Memory.WorkingSetBytes), p.Memory.Time.Time})
		}
	}
	write := func(f family, samples []sample) {
		if len(samples) == 0 {
			return
		}
		mw.header(f)
		for _, s := range samples {
			mw.sample(f.name, s.labels, s.value, s.at)
		}
	}
	write(containerCPU, cCPU)
	write(containerMem, cMem)
	write(containerStart, cStart)
	if c := s.Node.CPU; c != nil && c.UsageCoreNanoSeconds != nil {
		write(nodeCPU, []sample{{nil, seconds(*c.UsageCoreNanoSeconds), c.Time.Time}})
	}
	if m := s.Node.Memory; m != nil && m.WorkingSetBytes != nil {
		write(nodeMem, []sample{{nil, float64(*m.WorkingSetBytes), m.Time.Time}})
	}
	write(podCPU, pCPU)
	write(podMem, pMem)
	failed := 0.0
	if scrapeFailed {
		failed = 1
	}
	write(resourceError, []sample{{value: failed}})
	write(scrapeError, []sample{{value: failed}})
	if mw.err != nil {
		return mw.err
	}
	return bw.Flush()
}

func seconds(nanos uint64) float64 { return float64(nanos) / 1e9 }

// metricWriter writes the text format, keeping the first error.
type metricWriter struct {
	w   *bufio.Writer
	err error
}

func (m *metricWriter) str(s string) {
	if m.err == nil {
		_, m.err = m.w.WriteString(s)
	}
}

func (m *metricWriter) header(f family) {
	m.str("# HELP " + f.name + " " + f.help + "\n# TYPE " + f.name + " " + f.typ + "\n")
}

// sample writes `name{labels} value [timestamp-ms]`; a zero at writes no
// timestamp.
func (m *metricWriter) sample(name string, labels [][2]string, value float64, at time.Time) {
	var b strings.Builder
	b.WriteString(name)
	if len(labels) > 0 {
		b.WriteByte('{')
		for i, l := range labels {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(l[0])
			b.WriteString(`="`)
			b.WriteString(escapeLabel(l[1]))
			b.WriteByte('"')
		}
		b.WriteByte('}')
	}
	b.WriteByte(' ')
	b.WriteString(strconv.FormatFloat(value, 'g', -1, 64))
	if !at.IsZero() {
		b.WriteByte(' ')
		b.WriteString(strconv.FormatInt(at.UnixMilli(), 10))
	}
	b.WriteByte('\n')
	m.str(b.String())
}

// escapeLabel escapes a label value: backslash, double quote and newline.
func escapeLabel(s string) string {
	if !strings.ContainsAny(s, "\\\"\n") {
		return s
	}
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}
