package framework

import (
	"context"
	"sync"
	"sync/atomic"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/watch"
	"kubecore.io/client/tools/cache"
)

// GatedListWatch wraps a ListerWatcher so that a test can cut an
// informer's watch and hold back the next one (its resourceVersion then
// grows old), and count the LIST calls.
type GatedListWatch struct {
	lw cache.ListerWatcher

	mu      sync.Mutex
	open    chan struct{} // closed while watches may start
	current []watch.Interface
	lists   atomic.Int32
}

var _ cache.ListerWatcher = (*GatedListWatch)(nil)

// NewGatedListWatch returns lw gated, open.
func NewGatedListWatch(lw cache.ListerWatcher) *GatedListWatch {
	open := make(chan struct{})
	close(open)
	return &GatedListWatch{lw: lw, open: open}
}

// Lists is how many LIST calls went through.
func (g *GatedListWatch) Lists() int32 { return g.lists.Load() }

// List implements cache.ListerWatcher.
func (g *GatedListWatch) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	g.lists.Add(1)
	return g.lw.List(ctx, opts)
}

// Watch implements cache.ListerWatcher; it waits while the gate is shut.
func (g *GatedListWatch) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	g.mu.Lock()
	open := g.open
	g.mu.Unlock()
	select {
	case <-open:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	w, err := g.lw.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	g.mu.Lock()
	g.current = append(g.current, w)
	g.mu.Unlock()
	return w, nil
}

// Pause stops the running watches and holds back new ones until Resume.
func (g *GatedListWatch) Pause() {
	g.mu.Lock()
	g.open = make(chan struct{})
	current := g.current
	g.current = nil
	g.mu.Unlock()
	for _, w := range current {
		w.Stop()
	}
}

// Resume lets watches start again.
func (g *GatedListWatch) Resume() {
	g.mu.Lock()
	close(g.open)
	g.mu.Unlock()
}
