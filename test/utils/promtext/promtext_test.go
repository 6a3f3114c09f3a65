package promtext

import (
	"math"
	"strings"
	"testing"
)

const text = `# HELP apiserver_request_total Counter of requests.
# TYPE apiserver_request_total counter
apiserver_request_total{code="200",verb="GET"} 10
apiserver_request_total{code="500",verb="GET"} 2
apiserver_request_total{code="503",verb="PUT"} 1
# HELP go_goroutines Goroutines.
# TYPE go_goroutines gauge
go_goroutines 693
# HELP apiserver_request_duration_seconds Latency.
# TYPE apiserver_request_duration_seconds histogram
apiserver_request_duration_seconds_bucket{verb="PUT",le="0.1"} 90
apiserver_request_duration_seconds_bucket{verb="PUT",le="1"} 99
apiserver_request_duration_seconds_bucket{verb="PUT",le="+Inf"} 100
apiserver_request_duration_seconds_sum{verb="PUT"} 12.5
apiserver_request_duration_seconds_count{verb="PUT"} 100
apiserver_request_duration_seconds_bucket{verb="GET",le="0.1"} 5
apiserver_request_duration_seconds_bucket{verb="GET",le="1"} 5
apiserver_request_duration_seconds_bucket{verb="GET",le="+Inf"} 5
apiserver_request_duration_seconds_sum{verb="GET"} 0.1
apiserver_request_duration_seconds_count{verb="GET"} 5
`

func TestParse(t *testing.T) {
	s, err := Parse(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := s.Value("go_goroutines", nil); !ok || v != 693 {
		t.Errorf("go_goroutines = %v, %v", v, ok)
	}
	if v, ok := s.Value("apiserver_request_total", map[string]string{"code": "500", "verb": "GET"}); !ok || v != 2 {
		t.Errorf("500 GET = %v, %v", v, ok)
	}
	if _, ok := s.Value("apiserver_request_total", map[string]string{"code": "500"}); ok {
		t.Error("Value matched a subset of the labels")
	}
	if _, ok := s.Value("absent", nil); ok {
		t.Error("Value found an absent series")
	}
	if got := s.Sum("apiserver_request_total", func(l map[string]string) bool { return strings.HasPrefix(l["code"], "5") }); got != 3 {
		t.Errorf("5xx sum = %v, want 3", got)
	}
	if got := s.Sum("apiserver_request_duration_seconds_count", nil); got != 105 {
		t.Errorf("count sum = %v, want 105", got)
	}
	put := s.Buckets("apiserver_request_duration_seconds", func(l map[string]string) bool { return l["verb"] == "PUT" })
	if len(put) != 3 || put[0.1] != 90 || put[1] != 99 || put[math.Inf(1)] != 100 {
		t.Errorf("PUT buckets = %v", put)
	}
	if got := Quantile(0.99, nil, put); got != 1 {
		t.Errorf("p99 since start = %v, want 1", got)
	}
	if got := Quantile(0.5, nil, put); got != 0.1 {
		t.Errorf("p50 since start = %v, want 0.1", got)
	}
	later := map[float64]float64{0.1: 90, 1: 99, math.Inf(1): 110}
	if got := Quantile(0.99, put, later); !math.IsInf(got, 1) {
		t.Errorf("p99 of 10 requests all above 1s = %v, want +Inf", got)
	}
	if got := Quantile(0.99, put, put); got != 0 {
		t.Errorf("p99 of no requests = %v, want 0", got)
	}
}

func TestParseError(t *testing.T) {
	if _, err := Parse(strings.NewReader("metric{ 1\n")); err == nil {
		t.Error("Parse accepted a broken line")
	}
}
