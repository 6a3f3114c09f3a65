package kubelet

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// countingObjects answers every read after a pause, counting them.
type countingObjects struct {
	reads atomic.Int32
	err   error
}

func (o *countingObjects) ConfigMap(_ context.Context, ns, name string) (*corev1.ConfigMap, error) {
	o.reads.Add(1)
	time.Sleep(20 * time.Millisecond)
	if o.err != nil {
		return nil, o.err
	}
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}, nil
}

func (o *countingObjects) Secret(context.Context, string, string) (*corev1.Secret, error) {
	o.reads.Add(1)
	return nil, apierrors.NewNotFound(corev1.Resource("secrets"), "s")
}

func TestCachedObjects(t *testing.T) {
	ctx := context.Background()
	next := &countingObjects{}
	clock := newFakeClock()
	c := newCachedObjects(next, clock)

	// A hundred syncs at once share one read.
	var wg sync.WaitGroup
	for range 100 {
		wg.Go(func() {
			if cm, err := c.ConfigMap(ctx, "ns", "kube-root-ca.crt"); err != nil || cm.Name != "kube-root-ca.crt" {
				t.Errorf("ConfigMap = %v, %v", cm, err)
			}
		})
	}
	wg.Wait()
	if n := next.reads.Load(); n != 1 {
		t.Errorf("%d reads for 100 concurrent syncs, want 1", n)
	}
	// Fresh for objectCacheTTL, read again after.
	clock.Step(objectCacheTTL / 2)
	_, _ = c.ConfigMap(ctx, "ns", "kube-root-ca.crt")
	clock.Step(objectCacheTTL)
	_, _ = c.ConfigMap(ctx, "ns", "kube-root-ca.crt")
	if n := next.reads.Load(); n != 2 {
		t.Errorf("reads = %d, want 2 (one within the TTL, one after)", n)
	}
	// NotFound is kept; other errors are not.
	for range 2 {
		if _, err := c.Secret(ctx, "ns", "s"); !apierrors.IsNotFound(err) {
			t.Errorf("Secret: %v", err)
		}
	}
	if n := next.reads.Load(); n != 3 {
		t.Errorf("reads = %d after two reads of a missing secret, want 3", n)
	}
	next.err = errors.New("connection refused")
	for range 2 {
		if _, err := c.ConfigMap(ctx, "ns", "other"); err == nil {
			t.Error("an error was lost")
		}
	}
	if n := next.reads.Load(); n != 5 {
		t.Errorf("reads = %d, want 5: a failed read is not kept", n)
	}
}
