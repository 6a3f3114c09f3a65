package testing

import (
	"context"
	"testing"
	"time"

	v1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/watch"

	"kubecore.io/kubecore/pkg/storage"
)

func TestMemoryStorage(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryStorage()
	pod := func(name string) *v1.Pod { return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}} }
	a, err := s.Create(ctx, "/pods/ns/a", pod("a"))
	if err != nil || a.(*v1.Pod).ResourceVersion != "1" {
		t.Fatalf("create: %v %v", a, err)
	}
	if _, err := s.Create(ctx, "/pods/ns/a", pod("a")); !storage.IsExist(err) {
		t.Fatalf("second create: %v", err)
	}
	same, err := s.GuaranteedUpdate(ctx, "/pods/ns/a", nil, false, func(cur runtime.Object) (runtime.Object, error) { return cur, nil }, nil)
	if err != nil || same.(*v1.Pod).ResourceVersion != "1" {
		t.Fatalf("unchanged update wrote: %v %v", same, err)
	}
	rv := "7"
	if _, err := s.Delete(ctx, "/pods/ns/a", &storage.Preconditions{ResourceVersion: &rv}, nil, nil); !storage.IsConflict(err) {
		t.Fatalf("precondition: %v", err)
	}
	w, err := s.Watch(ctx, "/pods/ns", storage.ListOptions{ResourceVersion: "1", Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if _, err := s.Create(ctx, "/pods/ns2/b", pod("b")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Delete(ctx, "/pods/ns/a", nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-w.ResultChan():
		if ev.Type != watch.Deleted || ev.Object.(*v1.Pod).Name != "a" {
			t.Fatalf("event %v", ev)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no event")
	}
	if _, err := s.Get(ctx, "/pods/ns/a", storage.GetOptions{}); !storage.IsNotFound(err) {
		t.Fatalf("get after delete: %v", err)
	}
}
