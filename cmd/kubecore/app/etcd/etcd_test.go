package etcd

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

func TestValidate(t *testing.T) {
	for name, tc := range map[string]struct {
		mutate func(*Options)
		want   string
	}{
		"defaults":       {func(*Options) {}, ""},
		"no data dir":    {func(o *Options) { o.DataDir = "" }, "--data-dir is required"},
		"bad url":        {func(o *Options) { o.ListenClientURLs = []string{"127.0.0.1:2379"} }, "--listen-client-urls"},
		"bad state":      {func(o *Options) { o.InitialClusterState = "maybe" }, "--initial-cluster-state"},
		"bad membership": {func(o *Options) { o.InitialCluster = "a=http://x:1,b" }, `"b" is not name=peerURL`},
	} {
		t.Run(name, func(t *testing.T) {
			o := NewOptions()
			tc.mutate(o)
			err := o.Validate()
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("Validate() = %v, want %q", err, tc.want)
			}
		})
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestThreeMemberCluster forms a cluster of three members on loopback and
// writes through one, reads through another.
func TestThreeMemberCluster(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base := t.TempDir()
	type member struct{ name, client, peer string }
	var members []member
	var initial []string
	for i := range 3 {
		m := member{fmt.Sprintf("m%d", i), fmt.Sprintf("http://127.0.0.1:%d", freePort(t)), fmt.Sprintf("http://127.0.0.1:%d", freePort(t))}
		members = append(members, m)
		initial = append(initial, m.name+"="+m.peer)
	}
	errs := make(chan error, len(members))
	for _, m := range members {
		o := NewOptions()
		o.DataDir, o.Name = filepath.Join(base, m.name), m.name
		o.ListenClientURLs, o.ListenPeerURLs = []string{m.client}, []string{m.peer}
		o.InitialCluster = strings.Join(initial, ",")
		cfg, err := o.Complete()
		if err != nil {
			t.Fatal(err)
		}
		go func() { errs <- cfg.Run(ctx) }()
	}
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{members[0].client}, DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		pctx, pcancel := context.WithTimeout(ctx, 2*time.Second)
		_, err = client.Put(pctx, "/k", "v")
		pcancel()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("cluster did not accept a write within 30s: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	other, err := clientv3.New(clientv3.Config{Endpoints: []string{members[2].client}, DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	resp, err := other.Get(ctx, "/k")
	if err != nil || len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != "v" {
		t.Fatalf("read through another member: %v %v", resp, err)
	}
	members2, err := other.MemberList(ctx)
	if err != nil || len(members2.Members) != 3 {
		t.Fatalf("member list: %v %v", members2, err)
	}
	cancel()
	for range members {
		if err := <-errs; err != nil {
			t.Errorf("member stopped with %v", err)
		}
	}
}
