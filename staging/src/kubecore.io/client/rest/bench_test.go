package rest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/runtime"
)

const benchPod = `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-%d","namespace":"default","uid":"6c1f3f6e-1b0b-4b8e-9a51-1f0f7b1c2d3e","resourceVersion":"%d","creationTimestamp":"2026-01-01T00:00:00Z","labels":{"app":"web","tier":"frontend"}},"spec":{"nodeName":"node-1","containers":[{"name":"web","image":"nginx:1.27","ports":[{"containerPort":80,"protocol":"TCP"}],"resources":{"requests":{"cpu":"100m","memory":"64Mi"}}}]},"status":{"phase":"Running","podIP":"10.0.0.7"}}`

// BenchmarkGet measures GETs of a small object over HTTP/2 + TLS against an
// in-process server, from parallel goroutines sharing one client.
func BenchmarkGet(b *testing.B) {
	body := fmt.Sprintf(benchPod, 1, 1)
	_, config := newTestServer(b, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, body)
	})
	c := newTestClient(b, config, "v1")
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			var pod corev1.Pod
			if err := c.Get().Namespace("default").Resource("pods").Name("web-1").Do(context.Background()).Into(&pod); err != nil {
				b.Error(err)
				return
			}
		}
	})
	perSec := float64(b.N) / time.Since(start).Seconds()
	b.ReportMetric(perSec, "req/s")
	b.Logf("figure: %.0f GET req/s (target: >= 5000 req/s)", perSec)
}

// BenchmarkWatchDecode measures decoding a watch stream of pods into typed
// objects.
func BenchmarkWatchDecode(b *testing.B) {
	var buf bytes.Buffer
	const events = 1000
	for i := range events {
		fmt.Fprintf(&buf, `{"type":"MODIFIED","object":`+benchPod+"}\n", i, i+10)
	}
	stream := buf.Bytes()
	decode := NewFuncDecoder(func() runtime.Object { return &corev1.Pod{} })
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		w := NewStreamWatcher(io.NopCloser(bytes.NewReader(stream)), decode)
		n := 0
		for range w.ResultChan() {
			n++
		}
		if n != events || w.Err() != nil {
			b.Fatalf("%d events, err %v", n, w.Err())
		}
	}
	perSec := float64(b.N*events) / time.Since(start).Seconds()
	b.ReportMetric(perSec, "events/s")
	b.Logf("figure: %.0f watch events/s decoded (target: >= 40000 events/s)", perSec)
}
