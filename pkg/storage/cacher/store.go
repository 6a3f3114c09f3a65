package cacher

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/storage"
)

// errNotReady says the cache is (re)listing: the read goes to the
// underlying storage.
var errNotReady = errors.New("the watch cache is not ready")

// progressRequestPeriod is how often a consistent read that waits asks the
// underlying watch for a progress notification.
const progressRequestPeriod = 100 * time.Millisecond

// Create implements storage.Interface.
func (c *Cacher) Create(ctx context.Context, key string, obj runtime.Object) (runtime.Object, error) {
	return c.cfg.Storage.Create(ctx, key, obj)
}

// GuaranteedUpdate implements storage.Interface; without a cachedExisting
// it offers the cached object, which the underlying storage verifies with
// its compare-and-swap.
func (c *Cacher) GuaranteedUpdate(ctx context.Context, key string, preconditions *storage.Preconditions, ignoreNotFound bool, tryUpdate storage.UpdateFunc, cachedExisting runtime.Object) (runtime.Object, error) {
	if cachedExisting == nil {
		cachedExisting = c.cached(key)
	}
	return c.cfg.Storage.GuaranteedUpdate(ctx, key, preconditions, ignoreNotFound, tryUpdate, cachedExisting)
}

// Delete implements storage.Interface, offering the cached object like
// GuaranteedUpdate.
func (c *Cacher) Delete(ctx context.Context, key string, preconditions *storage.Preconditions, validate storage.ValidateObjectFunc, cachedExisting runtime.Object) (runtime.Object, error) {
	if cachedExisting == nil {
		cachedExisting = c.cached(key)
	}
	return c.cfg.Storage.Delete(ctx, key, preconditions, validate, cachedExisting)
}

// cached returns the shared cached object at key, nil when there is none.
func (c *Cacher) cached(key string) runtime.Object {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if e := c.objects[key]; c.ready && e != nil {
		return e.obj
	}
	return nil
}

// CurrentResourceVersion implements storage.Interface.
func (c *Cacher) CurrentResourceVersion(ctx context.Context) (uint64, error) {
	return c.cfg.Storage.CurrentResourceVersion(ctx)
}

// Get implements storage.Interface. "0" and "N" are served from memory
// (after waiting for N); a consistent read ("") goes to the storage.
func (c *Cacher) Get(ctx context.Context, key string, opts storage.GetOptions) (runtime.Object, error) {
	if opts.ResourceVersion == "" {
		return c.cfg.Storage.Get(ctx, key, opts)
	}
	rv, err := parseRV(key, opts.ResourceVersion)
	if err != nil {
		return nil, err
	}
	if err := c.waitForRV(ctx, key, rv, nil); err != nil {
		if errors.Is(err, errNotReady) {
			return c.cfg.Storage.Get(ctx, key, opts)
		}
		return nil, err
	}
	c.mu.RLock()
	e, ready := c.objects[key], c.ready
	c.mu.RUnlock()
	switch {
	case !ready:
		return c.cfg.Storage.Get(ctx, key, opts)
	case e != nil:
		return e.obj.DeepCopyObject(), nil
	case opts.IgnoreNotFound:
		return c.cfg.NewFunc(), nil
	}
	return nil, storage.NewError(storage.ErrCodeKeyNotFound, key, 0, "")
}

// GetList implements storage.Interface. Items are the cache's shared
// objects: callers must not modify them.
func (c *Cacher) GetList(ctx context.Context, key string, opts storage.ListOptions) (*storage.List, error) {
	if opts.Predicate.Continue != "" {
		// The next pages read the first page's revision in etcd, which
		// answers 410 once it is compacted; the cache cannot know that.
		return c.cfg.Storage.GetList(ctx, key, opts)
	}
	rv, err := parseRV(key, opts.ResourceVersion)
	if err != nil {
		return nil, err
	}
	if opts.ResourceVersion == "0" && opts.ResourceVersionMatch != metav1.ResourceVersionMatchExact {
		// "Any version" from memory ignores the limit, as Kubernetes'
		// watch cache does: the later pages could only come from etcd,
		// one round trip and decode each, and a reflector's first list
		// would pay for every one of them.
		opts.Predicate.Limit = 0
	}
	exact := rv > 0 && (opts.ResourceVersionMatch == metav1.ResourceVersionMatchExact ||
		(opts.ResourceVersionMatch == "" && opts.Predicate.Limit > 0))
	switch {
	case opts.ResourceVersionMatch == metav1.ResourceVersionMatchExact && rv == 0:
		// The storage answers the error.
		return c.cfg.Storage.GetList(ctx, key, opts)
	case exact:
		// A list at one revision: the cache has only its current one.
		c.mu.RLock()
		at := c.ready && c.rv == rv
		c.mu.RUnlock()
		if !at {
			return c.cfg.Storage.GetList(ctx, key, opts)
		}
	case opts.ResourceVersion == "":
		current, err := c.cfg.Storage.CurrentResourceVersion(ctx)
		if err != nil {
			return nil, err
		}
		if err := c.waitForRV(ctx, key, current, c.cfg.RequestProgress); err != nil {
			// Not ready, or not caught up in time: etcd answers.
			var se *storage.StorageError
			if errors.Is(err, errNotReady) || errors.As(err, &se) && se.Code == storage.ErrCodeTooLargeResourceVersion {
				return c.cfg.Storage.GetList(ctx, key, opts)
			}
			return nil, err
		}
	case rv > 0:
		if err := c.waitForRV(ctx, key, rv, nil); err != nil {
			if errors.Is(err, errNotReady) {
				return c.cfg.Storage.GetList(ctx, key, opts)
			}
			return nil, err
		}
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	if !c.ready || exact && c.rv != rv {
		return c.cfg.Storage.GetList(ctx, key, opts)
	}
	var encs *[]*storage.EncodedObject
	collector, collect := storage.EncodedItemsFrom(ctx)
	if collect {
		encs = &collector.Items
	}
	list, err := c.listLocked(key, opts.Recursive, opts.Predicate, c.rv, encs)
	if err == nil && collect {
		collector.Complete = true
	}
	return list, err
}

// listLocked reads the first page of a list from memory at revision rv;
// with encs, it also appends each item's shared encoding there.
func (c *Cacher) listLocked(key string, recursive bool, pred storage.SelectionPredicate, rv uint64, encs *[]*storage.EncodedObject) (*storage.List, error) {
	list := &storage.List{ResourceVersion: rv, Items: []runtime.Object{}}
	add := func(e *entry) {
		list.Items = append(list.Items, e.obj)
		if encs != nil {
			*encs = append(*encs, e.enc)
		}
	}
	key = strings.TrimSuffix(key, "/")
	if !recursive {
		if e := c.objects[key]; e != nil && c.matches(pred, e) {
			add(e)
		}
		return list, nil
	}
	cands := c.candidatesLocked(key, true, pred)
	limit := int(pred.Limit)
	if limit <= 0 || limit > len(cands) {
		limit = len(cands)
	}
	if pred.Empty() {
		list.Items = make([]runtime.Object, 0, limit)
		if encs != nil {
			*encs = make([]*storage.EncodedObject, 0, limit)
		}
	}
	i := 0
	for ; i < len(cands) && len(list.Items) < limit; i++ {
		if c.matches(pred, cands[i]) {
			add(cands[i])
		}
	}
	if pred.Limit > 0 && i < len(cands) {
		token, err := encodeContinue(cands[i-1].key+"\x00", key+"/", int64(rv))
		if err != nil {
			return nil, storage.NewError(storage.ErrCodeInvalidObj, key, int64(rv), err.Error())
		}
		list.Continue = token
		if pred.Empty() {
			remaining := int64(len(cands) - i)
			list.RemainingItemCount = &remaining
		}
	}
	return list, nil
}

// candidatesLocked returns, sorted by key, the entries a list or watch of
// key may select: the key alone, the prefix's range, or the entries of an
// indexed field value the predicate pins. A prefix's range is a window on
// c.sorted, which later events shift in place: it is valid only while the
// lock is held (see snapshotLocked).
func (c *Cacher) candidatesLocked(key string, recursive bool, pred storage.SelectionPredicate) []*entry {
	key = strings.TrimSuffix(key, "/")
	if !recursive {
		if e := c.objects[key]; e != nil {
			return []*entry{e}
		}
		return nil
	}
	prefix := key + "/"
	if pred.Field != nil {
		for _, f := range c.cfg.IndexFields {
			v, ok := pred.Field.RequiresExactMatch(f)
			if !ok {
				continue
			}
			var out []*entry
			for k, e := range c.index[f][v] {
				if strings.HasPrefix(k, prefix) {
					out = append(out, e)
				}
			}
			sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
			return out
		}
	}
	lo := c.search(prefix)
	// '0' follows '/': key+"0" is the first key after the prefix's range.
	hi := c.search(key + "0")
	if lo >= hi {
		return nil
	}
	return c.sorted[lo:hi:hi]
}

// snapshotLocked is candidatesLocked as a slice of its own, for a watcher
// that sends its initial events after the lock is released: inserts and
// deletes that come meanwhile shift c.sorted under a window of it, which
// would then skip some entries and repeat others.
func (c *Cacher) snapshotLocked(key string, recursive bool, pred storage.SelectionPredicate) []*entry {
	return slices.Clone(c.candidatesLocked(key, recursive, pred))
}

// matches applies pred to the entry's precomputed attributes.
func (c *Cacher) matches(pred storage.SelectionPredicate, e *entry) bool {
	if pred.Label != nil && !pred.Label.Empty() && !pred.Label.Matches(e.labels) {
		return false
	}
	return pred.Field == nil || pred.Field.Empty() || pred.Field.Matches(e.fields)
}

// waitForRV waits until the cache reflects rv, at most WaitTimeout. While
// it waits, nudge (when set) is called every progressRequestPeriod.
func (c *Cacher) waitForRV(ctx context.Context, key string, rv uint64, nudge func(context.Context) error) error {
	timeout := time.NewTimer(c.cfg.WaitTimeout)
	defer timeout.Stop()
	var tick <-chan time.Time
	if nudge != nil {
		t := time.NewTicker(progressRequestPeriod)
		defer t.Stop()
		tick = t.C
	}
	for first := true; ; first = false {
		c.mu.RLock()
		ready, cur, ch := c.ready, c.rv, c.rvCh
		c.mu.RUnlock()
		if !ready {
			return errNotReady
		}
		if cur >= rv {
			return nil
		}
		if first && nudge != nil {
			_ = nudge(ctx)
		}
		select {
		case <-ch:
		case <-tick:
			_ = nudge(ctx)
		case <-timeout.C:
			return storage.NewError(storage.ErrCodeTooLargeResourceVersion, key, int64(rv),
				fmt.Sprintf("Too large resource version: %d, current: %d", rv, cur))
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// parseRV parses "" and "0" as 0 and "N" as N.
func parseRV(key, rv string) (uint64, error) {
	if rv == "" {
		return 0, nil
	}
	n, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		return 0, storage.NewError(storage.ErrCodeInvalidObj, key, 0, fmt.Sprintf("invalid resource version %q", rv))
	}
	return n, nil
}

// continueToken is the continue parameter, in the etcd3 storage's format,
// which reads the next pages: base64url (no padding) of
// {"v":"meta.k8s.io/v1","rv":N,"start":"key relative to the listed
// prefix"}; rv -1 means the latest revision.
type continueToken struct {
	APIVersion      string `json:"v"`
	ResourceVersion int64  `json:"rv"`
	StartKey        string `json:"start"`
}

const continueAPIVersion = "meta.k8s.io/v1"

func encodeContinue(key, prefix string, rv int64) (string, error) {
	rel, ok := strings.CutPrefix(key, prefix)
	if !ok || rel == "" {
		return "", fmt.Errorf("encode continue: key %q is not under %q", key, prefix)
	}
	out, err := json.Marshal(continueToken{APIVersion: continueAPIVersion, ResourceVersion: rv, StartKey: rel})
	if err != nil {
		return "", fmt.Errorf("encode continue: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(out), nil
}
