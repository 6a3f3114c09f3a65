package compaction

import (
	"context"
	"fmt"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/watch"

	"kubecore.io/kubecore/test/integration/framework"
)

// TestEventTTL: with --event-ttl=3s, events written together share one
// etcd lease (not one each), other objects get none, and the events are
// deleted once it expires — watchers see them go. Its compaction is off
// (--etcd-compaction-interval=0): no compactor runs.
func TestEventTTL(t *testing.T) {
	ctx := context.Background()
	e := startEtcd(t)
	s := framework.StartAPIServer(t, framework.APIServerOptions{EtcdServers: e.URLs(), EventTTL: 3 * time.Second, CompactionInterval: -1})
	if v := compactions(t, s, "skipped"); v != -1 {
		t.Errorf("--etcd-compaction-interval=0 runs a compactor: apiserver_storage_compactions_total = %v", v)
	}
	cs := s.Clientset(t)
	ns := s.CreateNamespace(t, "eventttl")
	cm, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kept"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	events := cs.CoreV1().Events(ns)
	var rv string
	for i := range 5 {
		ev, err := events.Create(ctx, &corev1.Event{
			ObjectMeta:     metav1.ObjectMeta{Name: fmt.Sprintf("ev-%d", i)},
			InvolvedObject: corev1.ObjectReference{Kind: "ConfigMap", Namespace: ns, Name: cm.Name, UID: cm.UID},
			Reason:         "Tested", Message: "expires", Type: corev1.EventTypeNormal,
			Source: corev1.EventSource{Component: "test"},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			rv = ev.ResourceVersion
		}
	}
	w, err := events.Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	resp, err := e.Client().Get(ctx, "/registry/events/"+ns+"/", clientv3.WithPrefix())
	if err != nil || len(resp.Kvs) != 5 {
		t.Fatalf("events in etcd: %v %v", resp, err)
	}
	leases := map[int64]int{}
	for _, kv := range resp.Kvs {
		leases[kv.Lease]++
	}
	if len(leases) != 1 || leases[0] != 0 {
		t.Errorf("leases of 5 events written together: %v, want one shared lease", leases)
	}
	cmKV, err := e.Client().Get(ctx, "/registry/configmaps/"+ns+"/kept")
	if err != nil || len(cmKV.Kvs) != 1 || cmKV.Kvs[0].Lease != 0 {
		t.Errorf("configmap in etcd: %v %v, want it without a lease", cmKV, err)
	}

	deleted := map[string]bool{}
	timeout := time.After(time.Minute)
	for len(deleted) < 5 {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("watch closed after %d deletions", len(deleted))
			}
			if ev.Type == watch.Deleted {
				deleted[ev.Object.(*corev1.Event).Name] = true
			}
		case <-timeout:
			t.Fatalf("events deleted within a minute: %v, want all 5", deleted)
		}
	}
	list, err := events.List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 0 {
		t.Fatalf("events left: %v %v", list, err)
	}
	if _, err := events.Get(ctx, "ev-0", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get expired event: %v, want NotFound", err)
	}
	if _, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "kept", metav1.GetOptions{}); err != nil {
		t.Errorf("the configmap went too: %v", err)
	}
}
