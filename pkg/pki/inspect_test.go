package pki

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestRenewalAndRotation walks a pki through a year: valid, then within
// RenewBefore of expiry (Inspect flags it, a start renews every leaf
// including the components' client certificates), then a forced rotation.
func TestRenewalAndRotation(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pki")
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b, err := EnsureServing(dir, Options{Hosts: testHosts, Now: func() time.Time { return start }})
	if err != nil {
		t.Fatal(err)
	}
	sched, err := b.EnsureClientCert("scheduler", "system:kube-scheduler", nil)
	if err != nil {
		t.Fatal(err)
	}
	node, err := b.EnsureClientCert("kubelet-n1", "system:node:n1", []string{"system:nodes"})
	if err != nil {
		t.Fatal(err)
	}

	st, err := Inspect(dir, start.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	names := func(st []Status) []string {
		var out []string
		for _, s := range st {
			out = append(out, s.Name)
		}
		return out
	}
	if got := names(st); !slices.Equal(got, []string{"ca", "admin", "apiserver", "kubelet-n1", "scheduler"}) {
		t.Errorf("Inspect listed %v", got)
	}
	for _, s := range st {
		if s.Problem != "" {
			t.Errorf("%s: %s on day one", s.Name, s.Problem)
		}
	}
	table := FormatStatus(st, start.Add(24*time.Hour))
	if !strings.Contains(table, "kubelet-n1") || !strings.Contains(table, "CN=system:node:n1,O=system:nodes") || !strings.Contains(table, "363d") {
		t.Errorf("table:\n%s", table)
	}

	// 340 days on, the leaves are within 30 days of expiry.
	late := start.Add(340 * 24 * time.Hour)
	st, _ = Inspect(dir, late)
	for _, s := range st {
		want := "expires within 30 days"
		if s.Name == CAName {
			want = ""
		}
		if s.Problem != want {
			t.Errorf("%s at day 340: problem %q, want %q", s.Name, s.Problem, want)
		}
	}
	b, err = EnsureServing(dir, Options{Hosts: testHosts, Now: func() time.Time { return late }})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.RenewClientCerts(); err != nil {
		t.Fatal(err)
	}
	if got := issuedNames(b); !slices.Equal(got, []string{"apiserver", "admin", "kubelet-n1", "scheduler"}) {
		t.Errorf("renewed %v, want every leaf", got)
	}
	st, _ = Inspect(dir, late)
	for _, s := range st {
		if s.Problem != "" {
			t.Errorf("%s after renewal: %s", s.Name, s.Problem)
		}
		if s.Name == "kubelet-n1" && (s.CommonName != node.Cert.Subject.CommonName || !slices.Equal(s.Organization, []string{"system:nodes"})) {
			t.Errorf("kubelet-n1 renewed with subject %s %v", s.CommonName, s.Organization)
		}
	}

	// Nothing is due: a start issues nothing, a rotation issues all but the CA.
	b, _ = EnsureServing(dir, Options{Hosts: testHosts, Now: func() time.Time { return late }})
	if err := b.RenewClientCerts(); err != nil || len(b.Issued) != 0 {
		t.Errorf("a second start issued %v (err %v)", issuedNames(b), err)
	}
	before, _ := loadCert(filepath.Join(dir, "scheduler.crt"))
	b, err = EnsureServing(dir, Options{Hosts: testHosts, Now: func() time.Time { return late }, Rotate: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.RenewClientCerts(); err != nil {
		t.Fatal(err)
	}
	if got := issuedNames(b); !slices.Equal(got, []string{"apiserver", "admin", "kubelet-n1", "scheduler"}) {
		t.Errorf("rotation issued %v", got)
	}
	after, _ := loadCert(filepath.Join(dir, "scheduler.crt"))
	if before.SerialNumber.Cmp(after.SerialNumber) == 0 || after.Subject.CommonName != sched.Cert.Subject.CommonName {
		t.Errorf("scheduler certificate not rotated with its subject: %v -> %v", before.Subject, after.Subject)
	}
}

func TestInspectEmptyDir(t *testing.T) {
	if _, err := Inspect(t.TempDir(), time.Now()); err == nil || !strings.Contains(err.Error(), "no certificates") {
		t.Errorf("err = %v", err)
	}
}
