package options

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func TestLeaderElectionValidate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*LeaderElection)
		want   string
	}{
		{"defaults", func(*LeaderElection) {}, ""},
		{"off ignores timing", func(o *LeaderElection) { o.LeaderElect, o.RetryPeriod = false, -1 }, ""},
		{"no lease name", func(o *LeaderElection) { o.LeaseName = "" }, "--leader-elect-resource-name"},
		{"negative", func(o *LeaderElection) { o.RetryPeriod = -time.Second }, "must be positive"},
		{"renew past lease", func(o *LeaderElection) { o.LeaseDuration = 5 * time.Second }, "--leader-elect-lease-duration 5s must be greater than --leader-elect-renew-deadline 10s"},
		{"retry past renew", func(o *LeaderElection) { o.RetryPeriod = 20 * time.Second }, "--leader-elect-renew-deadline 10s must be greater than --leader-elect-retry-period 20s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := NewLeaderElection(true, "kube-scheduler")
			tc.change(&o)
			err := errors.Join(o.Validate()...)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("Validate = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestLeaderElectionFlagsAndIdentity(t *testing.T) {
	for _, resourceFlags := range []bool{false, true} {
		o := NewLeaderElection(false, "kube-controller-manager")
		fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
		o.AddFlags(fs, "lead", resourceFlags)
		if got := fs.Lookup("leader-elect-resource-name") != nil; got != resourceFlags {
			t.Errorf("resourceFlags=%v: --leader-elect-resource-name defined %v", resourceFlags, got)
		}
		if err := fs.Parse([]string{"--leader-elect", "--leader-elect-lease-duration=20s"}); err != nil {
			t.Fatal(err)
		}
		if !o.LeaderElect || o.LeaseDuration != 20*time.Second || o.RenewDeadline != 10*time.Second || o.RetryPeriod != 2*time.Second {
			t.Errorf("parsed %+v", o)
		}
		if err := o.Complete(); err != nil || o.Identity == "" {
			t.Errorf("Complete: identity %q, %v", o.Identity, err)
		}
	}
}
