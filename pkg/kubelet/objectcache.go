package kubelet

import (
	"context"
	"sync"
	"time"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
)

// objectCacheTTL is how long a config map or secret read from the API
// serves the pods that refer to it: well under the sync period, so an
// edit reaches volumes and new containers about as soon as before.
const objectCacheTTL = 2 * time.Second

// cachedObjects is an ObjectGetter that keeps what it read for
// objectCacheTTL and shares one request among the syncs asking for the
// same object at once: a hundred pods of a namespace starting together
// read its kube-root-ca.crt once, within the kubelet's request budget,
// not a hundred times. Callers share the objects and must not modify them.
type cachedObjects struct {
	next  ObjectGetter
	clock Clock

	mu      sync.Mutex
	entries map[objectKey]*cachedObject
}

type objectKey struct{ kind, namespace, name string }

// cachedObject is one read: done closes when obj and err are set.
type cachedObject struct {
	done chan struct{}
	at   time.Time
	obj  any
	err  error
}

var _ ObjectGetter = (*cachedObjects)(nil)

func newCachedObjects(next ObjectGetter, clock Clock) *cachedObjects {
	return &cachedObjects{next: next, clock: clock, entries: map[objectKey]*cachedObject{}}
}

// ConfigMap implements ObjectGetter.
func (c *cachedObjects) ConfigMap(ctx context.Context, namespace, name string) (*corev1.ConfigMap, error) {
	obj, err := c.get(ctx, objectKey{"configmap", namespace, name}, func(ctx context.Context) (any, error) {
		return c.next.ConfigMap(ctx, namespace, name)
	})
	cm, _ := obj.(*corev1.ConfigMap)
	return cm, err
}

// Secret implements ObjectGetter.
func (c *cachedObjects) Secret(ctx context.Context, namespace, name string) (*corev1.Secret, error) {
	obj, err := c.get(ctx, objectKey{"secret", namespace, name}, func(ctx context.Context) (any, error) {
		return c.next.Secret(ctx, namespace, name)
	})
	s, _ := obj.(*corev1.Secret)
	return s, err
}

// get returns the fresh entry of key, waits for a read in flight, or reads
// with fetch. Only objects and NotFound are kept: other errors are for
// the callers waiting on that read alone.
func (c *cachedObjects) get(ctx context.Context, key objectKey, fetch func(context.Context) (any, error)) (any, error) {
	c.mu.Lock()
	e := c.entries[key]
	if e != nil {
		select {
		case <-e.done:
			if c.clock.Now().Sub(e.at) < objectCacheTTL {
				c.mu.Unlock()
				return e.obj, e.err
			}
			e = nil
		default:
		}
	}
	if e != nil {
		c.mu.Unlock()
		select {
		case <-e.done:
			return e.obj, e.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	c.sweepLocked()
	e = &cachedObject{done: make(chan struct{})}
	c.entries[key] = e
	c.mu.Unlock()

	obj, err := fetch(ctx)
	c.mu.Lock()
	e.obj, e.err, e.at = obj, err, c.clock.Now()
	if err != nil && !apierrors.IsNotFound(err) && c.entries[key] == e {
		delete(c.entries, key)
	}
	c.mu.Unlock()
	close(e.done)
	return obj, err
}

// sweepLocked drops the expired entries once the map has grown, so that
// objects no pod uses any more are not kept.
func (c *cachedObjects) sweepLocked() {
	if len(c.entries) < 256 {
		return
	}
	now := c.clock.Now()
	for k, e := range c.entries {
		select {
		case <-e.done:
			if now.Sub(e.at) >= objectCacheTTL {
				delete(c.entries, k)
			}
		default:
		}
	}
}
