package scheduler

import (
	"errors"
	"strings"
	"testing"
	"time"
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
