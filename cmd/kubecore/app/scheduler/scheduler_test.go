package scheduler

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name    string
		change  func(*Options)
		wantErr string
	}{
		{"defaults with a kubeconfig", func(o *Options) {}, ""},
		{"no kubeconfig", func(o *Options) { o.Kubeconfig = "" }, "--kubeconfig is required"},
		{"empty scheduler name", func(o *Options) { o.SchedulerName = "" }, "--scheduler-name"},
		{"lease shorter than renew deadline", func(o *Options) { o.LeaderElect, o.LeaseDuration = true, 5*time.Second }, "--leader-elect-lease-duration"},
		{"renew deadline shorter than retry", func(o *Options) { o.LeaderElect, o.RetryPeriod = true, 20*time.Second }, "--leader-elect-renew-deadline"},
		{"percentage out of range", func(o *Options) { o.PercentageOfNodesToScore = 101 }, "--percentage-of-nodes-to-score"},
		{"bad metrics address", func(o *Options) { o.MetricsBindAddress = "nope" }, "--metrics-bind-address"},
		{"unknown content type", func(o *Options) { o.ContentType = "text/plain" }, "--kube-api-content-type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := NewOptions()
			o.Kubeconfig = "/some/kubeconfig"
			tc.change(o)
			err := errors.Join(o.Validate()...)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Validate = %v, want an error about %s", err, tc.wantErr)
			}
		})
	}
}

func TestCompleteMissingKubeconfig(t *testing.T) {
	o := NewOptions()
	o.Kubeconfig = t.TempDir() + "/missing.kubeconfig"
	if _, err := o.Complete(); err == nil || !strings.Contains(err.Error(), "missing.kubeconfig") {
		t.Fatalf("Complete = %v, want an error naming the file", err)
	}
}

// The metrics server serves until its context ends, then returns nil.
func TestServeMetrics(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- serveMetrics(ctx, ln, prometheus.NewRegistry()) }()
	resp, err := http.Get("http://" + ln.Addr().String() + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if string(body) != "ok" {
		t.Errorf("/healthz = %q", body)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serveMetrics after cancel = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serveMetrics did not return after cancel")
	}
}
