package etcd

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"kubecore.io/kubecore/pkg/etcd"
)

// fillAndFree writes 32 MiB to the member, deletes it and compacts, so
// that most of its database file is free pages.
func fillAndFree(t *testing.T, client *clientv3.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	value := strings.Repeat("x", 1<<20)
	for i := range 32 {
		if _, err := client.Put(ctx, fmt.Sprintf("/fill/%02d", i), value); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := client.Delete(ctx, "/fill/", clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Compact(ctx, resp.Header.Revision, clientv3.WithCompactPhysical()); err != nil {
		t.Fatal(err)
	}
}

func dbFileSize(t *testing.T, dir string) int64 {
	t.Helper()
	fi, err := os.Stat(filepath.Join(dir, "member", "snap", "db"))
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

func runDefrag(t *testing.T, args ...string) string {
	t.Helper()
	cmd := newDefragCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("defrag %v: %v\n%s", args, err, out.String())
	}
	return out.String()
}

// TestDefragDataDir: `kubecore etcd defrag --data-dir` shrinks the file of
// a stopped member, and a member started on a mostly free file
// defragments it on its own.
func TestDefragDataDir(t *testing.T) {
	dir := t.TempDir()
	start := func(cfg etcd.Config) *etcd.Server {
		t.Helper()
		cfg.DataDir, cfg.UnsafeNoFsync = dir, true
		m, err := etcd.Start(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	m := start(etcd.Config{NoStartDefrag: true})
	fillAndFree(t, m.Client())
	m.Close()
	before := dbFileSize(t, dir)
	out := runDefrag(t, "--data-dir", dir)
	after := dbFileSize(t, dir)
	t.Logf("%s: file %d -> %d bytes", strings.TrimSpace(out), before, after)
	if after > before/2 {
		t.Errorf("database file %d -> %d bytes after defrag: want it less than half", before, after)
	}

	m = start(etcd.Config{NoStartDefrag: true})
	fillAndFree(t, m.Client())
	m.Close()
	before = dbFileSize(t, dir)
	m = start(etcd.Config{})
	size, inUse := m.Sizes()
	m.Close()
	after = dbFileSize(t, dir)
	t.Logf("start on a sparse file: %d -> %d bytes (%d in use)", before, after, inUse)
	if after > before/2 || size > before/2 {
		t.Errorf("database file %d -> %d bytes (member says %d) after a start: want it defragmented", before, after, size)
	}
}

// TestDefragServers: `kubecore etcd defrag --etcd-servers` shrinks a
// running member's file, which goes on serving.
func TestDefragServers(t *testing.T) {
	dir := t.TempDir()
	m, err := etcd.Start(context.Background(), etcd.Config{DataDir: dir, UnsafeNoFsync: true, NoStartDefrag: true})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	fillAndFree(t, m.Client())
	before, _ := m.Sizes()
	out := runDefrag(t, "--etcd-servers", strings.Join(m.ClientURLs(), ","))
	after, inUse := m.Sizes()
	t.Logf("%s", strings.TrimSpace(out))
	if after > before/2 || !strings.Contains(out, "Defragmented "+m.ClientURLs()[0]) {
		t.Errorf("database %d -> %d bytes (%d in use), output %q: want it less than half", before, after, inUse, out)
	}
	if _, err := m.Client().Put(context.Background(), "/after", "defrag"); err != nil {
		t.Errorf("put after defrag: %v", err)
	}
	if got := dbFileSize(t, dir); got > before/2 {
		t.Errorf("file %d bytes after defrag, %d before", got, before)
	}
}

// TestDefragValidates: defrag needs somewhere to work and TLS flags only
// make sense with servers.
func TestDefragValidates(t *testing.T) {
	for _, o := range []DefragOptions{
		{},
		{DataDir: "x", CAFile: "ca.crt"},
		{EtcdServers: []string{"::bad"}},
		{EtcdServers: []string{"https://e:2379"}, CertFile: "c.crt"},
	} {
		if errs := o.Validate(); len(errs) == 0 {
			t.Errorf("%+v: no error", o)
		}
	}
}
