package certs

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kubecore.io/kubecore/pkg/pki"
)

func TestCheckAndRotate(t *testing.T) {
	dataDir := t.TempDir()
	start := time.Now()
	hosts, _ := pki.DefaultHosts("127.0.0.1")
	b, err := pki.EnsureServing(filepath.Join(dataDir, "pki"), pki.Options{Hosts: hosts, Now: func() time.Time { return start }})
	if err != nil {
		t.Fatal(err)
	}
	if err := pki.WriteAdminKubeconfig(filepath.Join(dataDir, "admin.kubeconfig"), "https://127.0.0.1:1234", b); err != nil {
		t.Fatal(err)
	}

	o := &Options{DataDir: dataDir, BindAddress: "127.0.0.1", Now: func() time.Time { return start }}
	var out bytes.Buffer
	if err := o.Check(&out); err != nil {
		t.Fatalf("check of a fresh pki: %v\n%s", err, out.String())
	}

	o.Now = func() time.Time { return start.Add(350 * 24 * time.Hour) }
	out.Reset()
	err = o.Check(&out)
	if err == nil || !strings.Contains(err.Error(), "2 certificate(s) need renewal") {
		t.Fatalf("check at day 350: err = %v\n%s", err, out.String())
	}
	out.Reset()
	if err := o.Rotate(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"certificate apiserver renewed", "certificate admin renewed", "admin.kubeconfig rewritten"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("rotate printed %q, want %q", out.String(), want)
		}
	}
	// The rewritten kubeconfig still names the server.
	if server, err := pki.KubeconfigServer(filepath.Join(dataDir, "admin.kubeconfig")); err != nil || server != "https://127.0.0.1:1234" {
		t.Errorf("kubeconfig server %q, %v", server, err)
	}
	// Rotation issued certificates valid for a year from day 350.
	out.Reset()
	if err := o.Check(&out); err != nil {
		t.Errorf("check after rotation: %v\n%s", err, out.String())
	}
}

func TestNoPKI(t *testing.T) {
	o := &Options{DataDir: t.TempDir(), Now: time.Now}
	err := o.Check(&bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "start kubecore apiserver or all-in-one") {
		t.Errorf("err = %v", err)
	}
}

func TestKubeconfig(t *testing.T) {
	dataDir := t.TempDir()
	hosts, _ := pki.DefaultHosts("127.0.0.1")
	if _, err := pki.EnsureServing(filepath.Join(dataDir, "pki"), pki.Options{Hosts: hosts}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "n1.kubeconfig")
	o := &Options{DataDir: dataDir, BindAddress: "127.0.0.1", Now: time.Now,
		User: "system:node:n1", Groups: []string{"system:nodes"}, Server: "https://10.0.0.1:6443", Out: out}
	var buf bytes.Buffer
	if err := o.Kubeconfig(&buf); err != nil {
		t.Fatal(err)
	}
	if server, err := pki.KubeconfigServer(out); err != nil || server != "https://10.0.0.1:6443" {
		t.Errorf("server %q %v", server, err)
	}
	st, err := pki.Inspect(filepath.Join(dataDir, "pki"), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range st {
		if s.Name == "user-system-node-n1" && s.CommonName == "system:node:n1" && len(s.Organization) == 1 && s.Organization[0] == "system:nodes" {
			found = true
		}
	}
	if !found {
		t.Errorf("no certificate for system:node:n1 in %+v", st)
	}
	for _, bad := range []Options{{Server: "http://x"}, {User: "u", Server: "https://x"}, {User: "u", Out: out}} {
		bad.DataDir, bad.Now = dataDir, time.Now
		if err := bad.Kubeconfig(&buf); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
