package framework

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBinary(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "kubecore")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ env, err string }{
		{"", "hack/test-e2e.sh"},
		{filepath.Join(dir, "missing"), "no such file"},
		{dir, "not an executable file"},
		{plain, "not an executable file"},
		{exe, ""},
	} {
		t.Setenv(BinaryEnv, c.env)
		got, err := Binary()
		switch {
		case c.err == "" && (err != nil || got != exe):
			t.Errorf("$%s=%q: %q, %v", BinaryEnv, c.env, got, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("$%s=%q: error %v, want one saying %q", BinaryEnv, c.env, err, c.err)
		}
	}
}

func TestFindReadyLine(t *testing.T) {
	dir := t.TempDir()
	s := &APIServer{LogPath: filepath.Join(dir, "log")}
	early := "=== starting\nI1124 14:24:38.687464   29744 apiserver.go:215] \"kubecore apiserver is ready\" url=\"https://127.0.0.1:1111\" kubeconfig=\"/x\"\n"
	late := "=== starting\nI1124 14:25:19.555897   32286 apiserver.go:215] \"kubecore apiserver is ready\" url=\"https://127.0.0.1:2222\" kubeconfig=\"/x\"\n"
	if err := os.WriteFile(s.LogPath, []byte(early+late), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := s.findReadyLine(0); got != "https://127.0.0.1:1111" {
		t.Errorf("from the start: %q", got)
	}
	// A restart reads only what the new process wrote.
	if got := s.findReadyLine(int64(len(early))); got != "https://127.0.0.1:2222" {
		t.Errorf("after a restart: %q", got)
	}
	if got := s.findReadyLine(int64(len(early + late))); got != "" {
		t.Errorf("past every line: %q", got)
	}
}

func TestKubectlArgs(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "kubecore")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\necho \"$KUBECONFIG $HOME $FOO $*\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := &APIServer{Kubeconfig: "/kc", home: "/home"}
	k := s.CLI(exe, "kubectl")
	if got := k.With("FOO=bar").MustRun(t, "get", "ns"); got != "/kc /home bar kubectl get ns\n" {
		t.Errorf("CLI(exe, kubectl) ran %q", got)
	}
	if got := k.MustRun(t, "version"); got != "/kc /home  kubectl version\n" {
		t.Errorf("a second run ran %q", got)
	}
}
