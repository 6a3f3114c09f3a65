// Package promtext reads a scrape in Prometheus' text exposition format
// (a server's /metrics) into series a test or benchmark can query by name
// and labels. It parses with github.com/prometheus/common/expfmt; the
// soak benchmark (hack/tools/soak) and the integration tests share it.
package promtext

import (
	"fmt"
	"io"
	"maps"
	"math"
	"sort"
	"strconv"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Series is one sample of a scrape. A histogram gives one Series per
// bucket (Name with the _bucket suffix, the bound in the "le" label) and
// its _sum and _count, as the text format prints them; a summary gives
// its quantiles, _sum and _count the same way.
type Series struct {
	Name   string
	Labels map[string]string
	Value  float64
}

// Scrape is every series of one scrape.
type Scrape []Series

// Parse reads the text format from r.
func Parse(r io.Reader) (Scrape, error) {
	parser := expfmt.NewTextParser(model.LegacyValidation)
	families, err := parser.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("parse metrics text: %w", err)
	}
	var out Scrape
	for name, f := range families {
		for _, m := range f.GetMetric() {
			labels := make(map[string]string, len(m.GetLabel()))
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			out = append(out, flatten(name, f.GetType(), m, labels)...)
		}
	}
	return out, nil
}

// flatten turns one metric of a family into the series the text format
// prints for it.
func flatten(name string, typ dto.MetricType, m *dto.Metric, labels map[string]string) []Series {
	with := func(k, v string) map[string]string {
		l := maps.Clone(labels)
		l[k] = v
		return l
	}
	switch typ {
	case dto.MetricType_COUNTER:
		return []Series{{name, labels, m.GetCounter().GetValue()}}
	case dto.MetricType_GAUGE:
		return []Series{{name, labels, m.GetGauge().GetValue()}}
	case dto.MetricType_HISTOGRAM:
		h := m.GetHistogram()
		var out []Series
		inf := false
		for _, b := range h.GetBucket() {
			inf = inf || math.IsInf(b.GetUpperBound(), 1)
			out = append(out, Series{name + "_bucket", with("le", formatBound(b.GetUpperBound())), float64(b.GetCumulativeCount())})
		}
		if !inf { // the +Inf bucket is the count, when the text leaves it out
			out = append(out, Series{name + "_bucket", with("le", "+Inf"), float64(h.GetSampleCount())})
		}
		return append(out, Series{name + "_sum", labels, h.GetSampleSum()}, Series{name + "_count", labels, float64(h.GetSampleCount())})
	case dto.MetricType_SUMMARY:
		s := m.GetSummary()
		var out []Series
		for _, q := range s.GetQuantile() {
			out = append(out, Series{name, with("quantile", strconv.FormatFloat(q.GetQuantile(), 'g', -1, 64)), q.GetValue()})
		}
		return append(out, Series{name + "_sum", labels, s.GetSampleSum()}, Series{name + "_count", labels, float64(s.GetSampleCount())})
	default:
		return []Series{{name, labels, m.GetUntyped().GetValue()}}
	}
}

func formatBound(b float64) string {
	if math.IsInf(b, 1) {
		return "+Inf"
	}
	return strconv.FormatFloat(b, 'g', -1, 64)
}

// Value is the series of that name whose labels are exactly labels (nil
// for none), and whether there is one.
func (s Scrape) Value(name string, labels map[string]string) (float64, bool) {
	for _, x := range s {
		if x.Name == name && maps.Equal(x.Labels, labels) {
			return x.Value, true
		}
	}
	return 0, false
}

// Sum adds the series of that name whose labels match accepts (nil:
// every series of the name).
func (s Scrape) Sum(name string, match func(labels map[string]string) bool) float64 {
	var n float64
	for _, x := range s {
		if x.Name == name && (match == nil || match(x.Labels)) {
			n += x.Value
		}
	}
	return n
}

// Buckets sums the cumulative buckets of the histogram name over the
// series match selects (nil: all), by upper bound (+Inf included).
func (s Scrape) Buckets(name string, match func(labels map[string]string) bool) map[float64]float64 {
	out := map[float64]float64{}
	for _, x := range s {
		if x.Name != name+"_bucket" || (match != nil && !match(x.Labels)) {
			continue
		}
		bound, err := strconv.ParseFloat(x.Labels["le"], 64)
		if err != nil {
			continue
		}
		out[bound] += x.Value
	}
	return out
}

// Quantile is the upper bound of the bucket in which the q-quantile of
// the observations between two readings of cumulative buckets falls
// (prev may be empty: since the start), 0 when there were none. It is
// coarse — a bucket bound, not an interpolation — and honest about it.
func Quantile(q float64, prev, cur map[float64]float64) float64 {
	bounds := make([]float64, 0, len(cur))
	for b := range cur {
		bounds = append(bounds, b)
	}
	if len(bounds) == 0 {
		return 0
	}
	sort.Float64s(bounds)
	last := bounds[len(bounds)-1]
	total := cur[last] - prev[last]
	if total <= 0 {
		return 0
	}
	for _, b := range bounds {
		if cur[b]-prev[b] >= q*total {
			return b
		}
	}
	return math.Inf(1)
}
