package generic

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	v1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/etcd"
)

// etcdClient is the in-process client of the package's embedded member.
var etcdClient *clientv3.Client

func TestMain(m *testing.M) { os.Exit(runTests(m)) }

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "generic-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	srv, err := etcd.Start(context.Background(), etcd.Config{DataDir: dir, UnsafeNoFsync: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer srv.Close()
	etcdClient = srv.Client()
	return m.Run()
}

// TestEtcdStore runs the main verbs through the etcd3 storage.
func TestEtcdStore(t *testing.T) {
	s, _ := newStore(podStrategy{})
	s.Storage = nil
	if err := s.CompleteWithOptions(StoreOptions{Client: etcdClient, Prefix: "/" + t.Name()}); err != nil {
		t.Fatal(err)
	}
	ctx := nsCtx("default")
	cur := mustCreate(t, s, "default", newPod("a"))
	_, err := s.Create(ctx, newPod("a"), nil, nil)
	statusOf(t, err, http.StatusConflict)

	stale := cur.DeepCopy()
	cur = updateLabels(t, s, cur, map[string]string{"v": "2"})
	stale.Labels = map[string]string{"v": "stale"}
	_, _, err = s.Update(ctx, "a", putInfo{obj: stale}, nil, nil, false, nil)
	statusOf(t, err, http.StatusConflict)

	// An update that changes nothing keeps the resourceVersion.
	same, _, err := s.Update(ctx, "a", putInfo{obj: cur}, nil, nil, false, nil)
	if err != nil || same.(*v1.Pod).ResourceVersion != cur.ResourceVersion {
		t.Fatalf("no-op update: %v", err)
	}
	list, err := s.List(ctx, nil)
	if err != nil || len(list.(*v1.PodList).Items) != 1 || list.(*v1.PodList).ResourceVersion == "" {
		t.Fatalf("list: %v %v", list, err)
	}
	mustCreate(t, s, "default", newPod("f", func(p *v1.Pod) { p.Finalizers = []string{"example.com/x"} }))
	if _, done, err := s.Delete(ctx, "f", nil, &metav1.DeleteOptions{}); err != nil || done {
		t.Fatalf("finalized delete: %v %v", done, err)
	}
	got, _ := s.Get(ctx, "f", nil)
	rm := got.(*v1.Pod).DeepCopy()
	rm.Finalizers = nil
	if _, _, err := s.Update(ctx, "f", putInfo{obj: rm}, nil, nil, false, nil); err != nil {
		t.Fatal(err)
	}
	_, err = s.Get(ctx, "f", nil)
	statusOf(t, err, http.StatusNotFound)
	if _, done, err := s.Delete(ctx, "a", nil, metav1.NewRVDeletionPrecondition(cur.ResourceVersion)); err != nil || !done {
		t.Fatalf("delete: %v %v", done, err)
	}
}
