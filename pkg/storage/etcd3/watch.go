package etcd3

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/watch"

	"kubecore.io/kubecore/pkg/storage"
)

// watchBuffer is the number of events a watcher buffers before it waits
// for its reader.
const watchBuffer = 100

// etcdWatcher is one running watch: a goroutine turns etcd watch responses
// into filtered watch events on result.
type etcdWatcher struct {
	s         *store
	key       string // the storage key, for messages
	etcdKey   string // the key or prefix watched
	recursive bool
	pred      storage.SelectionPredicate
	progress  bool
	// from is the revision the watch follows: events at or before it are
	// already known to the caller and dropped.
	from int64
	// atNext: the etcd watch starts at from+1 instead of from, because
	// from was compacted.
	atNext bool

	ctx    context.Context
	cancel context.CancelFunc
	result chan watch.Event
	once   sync.Once
}

var _ watch.Interface = (*etcdWatcher)(nil)

// Watch implements storage.Interface.
func (s *store) Watch(ctx context.Context, key string, opts storage.ListOptions) (watch.Interface, error) {
	k, err := s.etcdKey(key)
	if err != nil {
		return nil, err
	}
	rev, err := parseResourceVersion(key, opts.ResourceVersion)
	if err != nil {
		return nil, err
	}
	if opts.Recursive && !strings.HasSuffix(k, "/") {
		k += "/"
	}
	wctx, cancel := context.WithCancel(ctx)
	w := &etcdWatcher{
		s: s, key: key, etcdKey: k, recursive: opts.Recursive,
		pred: opts.Predicate, progress: opts.ProgressNotify,
		ctx: wctx, cancel: cancel,
		result: make(chan watch.Event, watchBuffer),
	}
	go w.run(rev)
	return w, nil
}

// Stop implements watch.Interface: it ends the watch and releases the etcd
// watcher; ResultChan is closed soon after.
func (w *etcdWatcher) Stop() { w.once.Do(w.cancel) }

// ResultChan implements watch.Interface.
func (w *etcdWatcher) ResultChan() <-chan watch.Event { return w.result }

func (w *etcdWatcher) run(rev int64) {
	defer close(w.result)
	defer w.cancel()

	if rev == 0 {
		// "" and "0": the current state first, then what follows it.
		listRev, ok := w.sendInitialState()
		if !ok {
			return
		}
		rev = listRev
	}

	// Watches share the client's gRPC watch stream, and etcd answers a
	// progress request on a stream only when no watch of it starts after
	// its current revision. A watch of the changes after rev therefore
	// starts at rev itself, which exists, and drops what happened at rev:
	// one that started at rev+1 on a quiet etcd would keep every cache of
	// the stream from catching up (a progress notification is their only
	// news of an idle resource) until something is written. Cancelling
	// w.ctx (Stop, the caller's ctx, or the end of run) cancels the watch
	// on the server.
	w.from = rev
	watcher := w.s.client.Watcher
	// Watch blocks while etcd cannot be reached, so it is opened aside and
	// the probe below can end a watch that never starts.
	opened := make(chan clientv3.WatchChan, 1)
	open := func() {
		opts := w.watchOptions()
		go func() { opened <- watcher.Watch(clientv3.WithRequireLeader(w.ctx), w.etcdKey, opts...) }()
	}
	open()
	var wch clientv3.WatchChan

	probe := time.NewTicker(w.s.probeInterval)
	defer probe.Stop()
	var bookmarks <-chan time.Time
	if w.progress {
		t := time.NewTicker(w.s.bookmarkPeriod)
		defer t.Stop()
		bookmarks = t.C
	}
	probeResult := make(chan error, 1)
	probing := false
	lastHeard := time.Now()

	for {
		select {
		case <-w.ctx.Done():
			return
		case wch = <-opened:
		case resp, ok := <-wch:
			if !ok {
				if w.ctx.Err() == nil {
					w.sendError(apierrors.NewInternalError(errors.New("the etcd watch channel closed unexpectedly")))
				}
				return
			}
			lastHeard = time.Now()
			if w.reopenAtNext(resp) {
				wch = nil
				open()
				continue
			}
			if !w.handle(resp) {
				return
			}
		case <-bookmarks:
			if wch == nil {
				continue
			}
			// The answer arrives on wch as a progress notification; a request
			// that cannot be sent within a period is dropped.
			rctx, cancel := context.WithTimeout(w.ctx, w.s.bookmarkPeriod)
			_ = watcher.RequestProgress(clientv3.WithRequireLeader(rctx))
			cancel()
		case <-probe.C:
			if probing || time.Since(lastHeard) < w.s.probeInterval {
				continue
			}
			probing = true
			go func() { probeResult <- w.probe() }()
		case err := <-probeResult:
			probing = false
			if err != nil {
				if w.ctx.Err() == nil {
					w.sendError(apierrors.NewInternalError(fmt.Errorf("etcd does not answer: %w", err)))
				}
				return
			}
			lastHeard = time.Now()
		}
	}
}

// watchOptions are the options of the etcd watch: from w.from (see run),
// or from the revision after it once w.from is compacted.
func (w *etcdWatcher) watchOptions() []clientv3.OpOption {
	start := w.from
	if w.atNext || start < 1 {
		start++
	}
	opts := []clientv3.OpOption{clientv3.WithRev(start), clientv3.WithPrevKV()}
	if w.recursive {
		opts = append(opts, clientv3.WithPrefix())
	}
	if w.progress {
		opts = append(opts, clientv3.WithProgressNotify())
	}
	return opts
}

// reopenAtNext reports whether resp says that w.from, the revision the
// watch started at, was compacted while the one after it, the first the
// caller needs, was kept: the watch is then opened again from there.
func (w *etcdWatcher) reopenAtNext(resp clientv3.WatchResponse) bool {
	if w.atNext || resp.CompactRevision == 0 || resp.CompactRevision > w.from+1 {
		return false
	}
	w.atNext = true
	return true
}

// probe checks that etcd still answers a quorum read.
func (w *etcdWatcher) probe() error {
	ctx, cancel := context.WithTimeout(w.ctx, w.s.timeout)
	defer cancel()
	_, err := w.s.client.Get(ctx, w.etcdKey, clientv3.WithCountOnly(), clientv3.WithLimit(1))
	return err
}

// sendInitialState lists the current objects as ADDED events and returns
// the revision of that list.
func (w *etcdWatcher) sendInitialState() (int64, bool) {
	ctx, cancel := context.WithTimeout(w.ctx, w.s.timeout)
	defer cancel()
	opts := []clientv3.OpOption{}
	if w.recursive {
		opts = append(opts, clientv3.WithPrefix())
	}
	resp, err := w.s.client.Get(ctx, w.etcdKey, opts...)
	if err != nil {
		if w.ctx.Err() == nil {
			w.sendError(apierrors.NewInternalError(fmt.Errorf("list the initial state: %w", err)))
		}
		return 0, false
	}
	for _, kv := range resp.Kvs {
		obj, err := w.s.decode(w.key, kv.Value, kv.ModRevision)
		if err != nil {
			w.sendError(apierrors.NewInternalError(err))
			return 0, false
		}
		if ok, err := w.pred.Matches(obj); err != nil {
			w.sendError(apierrors.NewInternalError(err))
			return 0, false
		} else if ok && !w.send(watch.Event{Type: watch.Added, Object: obj}) {
			return 0, false
		}
	}
	return resp.Header.Revision, true
}

// handle turns one etcd watch response into events; false ends the watch.
func (w *etcdWatcher) handle(resp clientv3.WatchResponse) bool {
	if resp.CompactRevision != 0 {
		w.sendError(apierrors.NewResourceExpired(expiredWatchMessage))
		return false
	}
	if err := resp.Err(); err != nil {
		if isCompacted(err) {
			w.sendError(apierrors.NewResourceExpired(expiredWatchMessage))
		} else if w.ctx.Err() == nil {
			w.sendError(apierrors.NewInternalError(fmt.Errorf("etcd watch: %w", err)))
		}
		return false
	}
	if resp.IsProgressNotify() {
		if !w.progress {
			return true
		}
		return w.sendBookmark(resp.Header.Revision)
	}
	for _, e := range resp.Events {
		if e.Kv.ModRevision <= w.from {
			continue
		}
		ev, ok, err := w.transform(e)
		if err != nil {
			w.sendError(apierrors.NewInternalError(err))
			return false
		}
		if ok && !w.send(ev) {
			return false
		}
	}
	return true
}

// transform applies the predicate to one etcd event with Kubernetes'
// transitions: an object that starts matching is ADDED for this watcher,
// one that stops matching is DELETED (its last matching state, at the
// revision of the change).
func (w *etcdWatcher) transform(e *clientv3.Event) (watch.Event, bool, error) {
	kv := e.Kv
	var prev runtime.Object
	if e.PrevKv != nil && (e.Type == clientv3.EventTypeDelete || !w.pred.Empty()) {
		var err error
		if prev, err = w.s.decode(w.key, e.PrevKv.Value, kv.ModRevision); err != nil {
			return watch.Event{}, false, err
		}
	}
	if e.Type == clientv3.EventTypeDelete {
		if prev == nil {
			return watch.Event{}, false, nil
		}
		ok, err := w.pred.Matches(prev)
		return watch.Event{Type: watch.Deleted, Object: prev}, ok, err
	}
	cur, err := w.s.decode(w.key, kv.Value, kv.ModRevision)
	if err != nil {
		return watch.Event{}, false, err
	}
	curOK, err := w.pred.Matches(cur)
	if err != nil {
		return watch.Event{}, false, err
	}
	if e.IsCreate() || e.PrevKv == nil {
		return watch.Event{Type: watch.Added, Object: cur}, curOK, nil
	}
	prevOK := true
	if prev != nil {
		if prevOK, err = w.pred.Matches(prev); err != nil {
			return watch.Event{}, false, err
		}
	}
	switch {
	case curOK && prevOK:
		return watch.Event{Type: watch.Modified, Object: cur}, true, nil
	case curOK:
		return watch.Event{Type: watch.Added, Object: cur}, true, nil
	case prevOK:
		return watch.Event{Type: watch.Deleted, Object: prev}, true, nil
	}
	return watch.Event{}, false, nil
}

func (w *etcdWatcher) sendBookmark(rev int64) bool {
	obj := w.s.newFunc()
	if err := setResourceVersion(obj, rev); err != nil {
		w.sendError(apierrors.NewInternalError(err))
		return false
	}
	return w.send(watch.Event{Type: watch.Bookmark, Object: obj})
}

// sendError sends an ERROR event carrying the Status of err.
func (w *etcdWatcher) sendError(err *apierrors.StatusError) {
	status := err.Status()
	w.send(watch.Event{Type: watch.Error, Object: &status})
}

// send delivers ev unless the watch was stopped.
func (w *etcdWatcher) send(ev watch.Event) bool {
	select {
	case w.result <- ev:
		return true
	case <-w.ctx.Done():
		return false
	}
}
