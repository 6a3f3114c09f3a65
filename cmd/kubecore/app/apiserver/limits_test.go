package apiserver

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"kubecore.io/kubecore/pkg/apiserver"
)

func TestLimitFlags(t *testing.T) {
	audit := filepath.Join(t.TempDir(), "logs", "audit.log")
	o := NewOptions()
	fs := pflag.NewFlagSet("apiserver", pflag.ContinueOnError)
	o.Limits.AddFlags(fs)
	if err := fs.Parse([]string{"--max-requests-inflight=10", "--max-mutating-requests-inflight=5",
		"--max-requests-per-user-per-second=2.5", "--max-requests-per-user-burst=7",
		"--audit-log-path=" + audit, "--audit-log-maxsize=3", "--audit-log-maxbackup=4"}); err != nil {
		t.Fatal(err)
	}
	if want := (LimitOptions{MaxRequestsInFlight: 10, MaxMutatingRequestsInFlight: 5, MaxRequestsPerUserPerSecond: 2.5,
		MaxRequestsPerUserBurst: 7, AuditLogPath: audit, AuditLogMaxSize: 3, AuditLogMaxBackup: 4}); o.Limits != want {
		t.Errorf("flags gave %+v, want %+v", o.Limits, want)
	}
	if errs := o.Limits.Validate(); len(errs) > 0 {
		t.Errorf("valid flags: %v", errs)
	}
	var cfg apiserver.Config
	log, err := o.Limits.apply(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.MaxRequestsInFlight != 10 || cfg.MaxMutatingRequestsInFlight != 5 || cfg.MaxRequestsPerUserPerSecond != 2.5 || cfg.MaxRequestsPerUserBurst != 7 || cfg.Audit == nil {
		t.Errorf("config %+v", cfg)
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(audit); err != nil {
		t.Errorf("the audit log was not created: %v", err)
	}
	// Without --audit-log-path there is no audit log.
	o.Limits = NewLimitOptions()
	cfg = apiserver.Config{}
	if log, err := o.Limits.apply(&cfg); err != nil || log != nil || cfg.Audit != nil {
		t.Errorf("default options: log %v, err %v, config audit %v", log, err, cfg.Audit)
	}
}

func TestValidateLimits(t *testing.T) {
	for _, c := range []struct {
		mutate func(*LimitOptions)
		err    string
	}{
		{func(o *LimitOptions) { o.MaxRequestsInFlight = 0 }, "--max-requests-inflight 0"},
		{func(o *LimitOptions) { o.MaxMutatingRequestsInFlight = -1 }, "--max-mutating-requests-inflight -1"},
		{func(o *LimitOptions) { o.MaxRequestsPerUserPerSecond = -1 }, "--max-requests-per-user-per-second -1"},
		{func(o *LimitOptions) { o.MaxRequestsPerUserBurst = 3 }, "--max-requests-per-user-burst needs --max-requests-per-user-per-second"},
		{func(o *LimitOptions) { o.AuditLogMaxSize = 10 }, "need --audit-log-path"},
		{func(o *LimitOptions) { o.AuditLogPath, o.AuditLogMaxBackup = "-", -1 }, "must not be negative"},
	} {
		o := NewOptions()
		o.DataDir = t.TempDir()
		c.mutate(&o.Limits)
		if err := errors.Join(o.Validate()...); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("error %v, want %q", err, c.err)
		}
	}
	o := NewLimitOptions()
	o.AuditLogPath = filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(o.AuditLogPath, nil, 0o400); err != nil {
		t.Fatal(err)
	}
	o.AuditLogPath = filepath.Join(o.AuditLogPath, "audit.log") // under a file
	if _, err := o.apply(&apiserver.Config{}); err == nil || !strings.Contains(err.Error(), "--audit-log-path") {
		t.Errorf("an audit log under a file: %v", err)
	}
}
