package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"kubecore.io/kubecore/test/e2e/framework"
)

// TestEtcdDefrag: after 16 MiB of ConfigMaps are written, deleted and
// compacted away, `kubecore etcd defrag --etcd-servers` on the running
// server's embedded member shrinks its database file to less than half,
// and the server goes on serving.
func TestEtcdDefrag(t *testing.T) {
	t.Parallel()
	bin, err := framework.Binary()
	if err != nil {
		t.Fatal(err)
	}
	s := framework.StartAPIServer(t, "")
	k := s.Kubectl(t)
	ns := s.CreateNamespace(t, "defrag")
	value := strings.Repeat("x", 800<<10)
	for i := range 20 {
		manifest := fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big-%02d\n  namespace: %s\ndata:\n  v: %s\n", i, ns, value)
		k.MustRunStdin(t, manifest, "create", "-f", "-")
	}
	k.MustRun(t, "delete", "configmaps", "--all", "-n", ns)

	url, err := s.EmbeddedEtcdURL()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{url}, DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	rev, err := client.Get(ctx, "compact-probe")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Compact(ctx, rev.Header.Revision, clientv3.WithCompactPhysical()); err != nil {
		t.Fatal(err)
	}
	dbFile := filepath.Join(s.DataDir, "etcd", "member", "snap", "db")
	before := fileSize(t, dbFile)

	out, err := exec.CommandContext(ctx, bin, "etcd", "defrag", "--etcd-servers", url).CombinedOutput()
	if err != nil {
		t.Fatalf("kubecore etcd defrag: %v\n%s", err, out)
	}
	after := fileSize(t, dbFile)
	t.Logf("%s: file %d -> %d bytes", strings.TrimSpace(string(out)), before, after)
	if !strings.Contains(string(out), "Defragmented "+url) {
		t.Errorf("output %q does not name the member", out)
	}
	if after > before/2 {
		t.Errorf("database file %d -> %d bytes: want less than half", before, after)
	}
	k.MustRun(t, "create", "configmap", "after-defrag", "-n", ns)
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
