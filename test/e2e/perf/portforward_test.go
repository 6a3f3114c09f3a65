package perf

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/test/e2e/framework"

	"kubecore.io/kubecore/test/figure"
)

// BenchmarkPortForward measures `kubectl port-forward` (the stock kubectl)
// to a pod of all-in-one against the same server reached directly, in one
// run: the throughput of a 256 MiB download and the latency of 1 KiB
// requests on one kept-alive connection. The process runtime's pods share
// the host's network, so the pod's port is a server of the benchmark.
func BenchmarkPortForward(b *testing.B) {
	ctx := context.Background()
	work := b.TempDir()
	s, err := framework.NewAPIServer(work+"/data", work)
	if err != nil {
		b.Fatal(err)
	}
	s.Subcommand = framework.SubcommandAllInOne
	s.LogLevel = 0
	if err := s.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := s.Stop(); err != nil {
			b.Error(err)
		}
	}()

	const blob = 256 << 20
	chunk := []byte(strings.Repeat("x", 1<<20))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/blob" {
			for range blob / len(chunk) {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
			return
		}
		_, _ = w.Write(chunk[:1024])
	})}
	go func() { _ = srv.Serve(l) }()
	defer func() { _ = srv.Close() }()
	port := l.Addr().(*net.TCPAddr).Port

	cs := clientset(b, s)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "target", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "pause", Image: "registry.k8s.io/pause:3.10",
			Ports: []corev1.ContainerPort{{ContainerPort: int32(port)}},
		}}},
	}
	if _, err := cs.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = cs.CoreV1().Pods("default").Delete(ctx, "target", metav1.DeleteOptions{}) }()
	waitFor(b, time.Minute, "the pod to run", func() bool {
		p, err := cs.CoreV1().Pods("default").Get(ctx, "target", metav1.GetOptions{})
		return err == nil && p.Status.Phase == corev1.PodRunning
	})
	pf := s.Kubectl(b).Start(b, "port-forward", "pod/target", ":"+strconv.Itoa(port))
	defer pf.Stop()
	var local string
	waitFor(b, 30*time.Second, "port-forward to listen", func() bool {
		m := regexp.MustCompile(`Forwarding from 127\.0\.0\.1:([0-9]+)`).FindStringSubmatch(pf.Stdout())
		if m != nil {
			local = m[1]
		}
		return m != nil
	})

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}}
	get := func(url string) int64 {
		resp, err := client.Get(url)
		if err != nil {
			b.Fatal(err)
		}
		defer func() { _ = resp.Body.Close() }()
		n, err := io.Copy(io.Discard, resp.Body)
		if err != nil {
			b.Fatal(err)
		}
		return n
	}
	for _, path := range []struct{ name, base string }{
		{"direct", fmt.Sprintf("http://127.0.0.1:%d", port)},
		{"through kubectl port-forward", "http://127.0.0.1:" + local},
	} {
		t0 := time.Now()
		if n := get(path.base + "/blob"); n != blob {
			b.Fatalf("%s: read %d bytes, want %d", path.name, n, blob)
		}
		mbps := float64(blob) / 1e6 / time.Since(t0).Seconds()
		figure.Print("256 MiB download, "+path.name, fmt.Sprintf("%.0f", mbps), "MB/s", "none set", true)
		var lat []time.Duration
		for range 300 {
			t0 := time.Now()
			get(path.base + "/1k")
			lat = append(lat, time.Since(t0))
		}
		p50, p99 := percentiles(lat)
		figure.Print("1 KiB request, "+path.name+", p50 / p99", fmt.Sprintf("%v / %v", p50, p99), "", "none set", true)
	}
}
