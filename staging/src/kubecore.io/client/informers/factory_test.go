package informers

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/watch"
	"kubecore.io/client/tools/cache"
)

// fakeSource serves empty lists and silent watches, recording what it was
// asked.
type fakeSource struct {
	mu        sync.Mutex
	made      int
	selectors []string
}

func (s *fakeSource) ListWatch(gvr schema.GroupVersionResource, namespace string) (cache.ListerWatcher, error) {
	if gvr.Resource == "broken" {
		return nil, errors.New("no such resource")
	}
	s.mu.Lock()
	s.made++
	s.mu.Unlock()
	return cache.ListWatch{
		ListFunc: func(_ context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			s.mu.Lock()
			s.selectors = append(s.selectors, opts.LabelSelector)
			s.mu.Unlock()
			return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}, nil
		},
		WatchFunc: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
			return watch.NewFake(), nil
		},
	}, nil
}

func withLabels(sel string) Option {
	return WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = sel })
}

func TestFactorySharesInformers(t *testing.T) {
	src := &fakeSource{}
	f := NewSharedInformerFactory(src)
	p1, err := Pods(f)
	if err != nil {
		t.Fatal(err)
	}
	p2, _ := For[*corev1.Pod](f, corev1.SchemeGroupVersion.WithResource("pods"))
	if p1 != p2 {
		t.Error("two pod informers from one factory")
	}
	web := f.Restricted(withLabels("app=web"))
	w1, _ := Pods(web)
	w2, _ := Pods(f.Restricted(withLabels("app=web")))
	if w1 == p1 || w1 != w2 {
		t.Error("a restriction must get its own informer, shared by every factory with it")
	}
	inNS, _ := Pods(f.Restricted(WithNamespace("kube-system")))
	if inNS == p1 {
		t.Error("a namespace must get its own informer")
	}
	if src.made != 3 {
		t.Errorf("made %d ListerWatchers, want 3", src.made)
	}
	if _, err := For[*corev1.Node](f, corev1.SchemeGroupVersion.WithResource("pods")); err == nil {
		t.Error("asking for pods as nodes gave no error")
	}
	if _, err := For[*corev1.Pod](f, schema.GroupVersionResource{Version: "v1", Resource: "broken"}); err == nil {
		t.Error("a source error was not returned")
	}

	ctx, cancel := context.WithCancel(context.Background())
	f.Start(ctx)
	syncCtx, syncCancel := context.WithTimeout(ctx, 10*time.Second)
	defer syncCancel()
	got := f.WaitForCacheSync(syncCtx)
	if len(got) != 1 || !got[corev1.SchemeGroupVersion.WithResource("pods")] {
		t.Errorf("WaitForCacheSync = %v, want pods synced", got)
	}
	if !p1.HasSynced() || !w1.HasSynced() || !inNS.HasSynced() {
		t.Error("an informer did not sync")
	}
	src.mu.Lock()
	if len(src.selectors) != 3 {
		t.Errorf("LIST calls = %q, want 3", src.selectors)
	}
	src.mu.Unlock()

	// An informer made after Start runs at the next Start.
	nodes, _ := For[*corev1.Pod](f, corev1.SchemeGroupVersion.WithResource("nodes"))
	time.Sleep(20 * time.Millisecond)
	if nodes.HasSynced() {
		t.Error("informer made after Start ran before the next Start")
	}
	f.Start(ctx)
	if !cache.WaitForCacheSync(syncCtx, nodes.HasSynced) {
		t.Error("informer did not run at the second Start")
	}
	cancel()
	f.Shutdown()
}
