package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	goruntime "runtime"
	"time"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/protobuf"
	"kubecore.io/apimachinery/pkg/watch"

	"kubecore.io/kubecore/pkg/registry/rest"
	"kubecore.io/kubecore/pkg/storage"
)

// serveWatch streams the watch as chunked JSON, one event per line, each
// flushed as it is written. It ends when the watch does, at the timeout,
// when the client goes away, or when the server shuts down.
func (e *endpoint) serveWatch(ctx context.Context, w http.ResponseWriter, r *http.Request, wt rest.Watcher, opts *rest.ListOptions, out output) {
	timeout := e.s.cfg.MinWatchTimeout + rand.N(e.s.cfg.MinWatchTimeout)
	if opts.TimeoutSeconds != nil {
		timeout = time.Duration(*opts.TimeoutSeconds) * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	wi, err := wt.Watch(ctx, opts)
	if err != nil {
		writeError(w, err)
		return
	}
	defer wi.Stop()
	e.s.metrics.watchers.WithLabelValues(e.gv.Group, e.gv.Version, e.resource).Inc()
	defer e.s.metrics.watchers.WithLabelValues(e.gv.Group, e.gv.Version, e.resource).Dec()

	rc := http.NewResponseController(w)
	pb := e.s.servesProtobuf(out, e.storage.New())
	if !pb && out&outputProtobufOnly != 0 {
		writeError(w, protobufOnlyError())
		return
	}
	if pb {
		w.Header().Set("Content-Type", protobuf.WatchContentType)
	} else {
		// Protobuf asked for a kind without it (a custom resource's, a
		// definition's) falls back to JSON objects.
		out &^= outputProtobuf | outputProtobufOnly
		w.Header().Set("Content-Type", contentTypeJSON)
	}
	w.Header().Set("Transfer-Encoding", "chunked")
	w.WriteHeader(http.StatusOK)
	_ = rc.Flush()
	tableOpts := tableOptions(r)
	var line bytes.Buffer
	var frame []byte
	// Events written but not flushed: a burst (the initial events of a
	// streaming list) goes out in as few frames as the writer's buffer
	// allows, and is flushed as soon as no event is ready.
	unflushed := false
	for {
		ev, ok, ready := receiveReady(wi.ResultChan())
		if !ready && unflushed {
			// The watch's sender may be about to hand over the next
			// event of a burst: let it run once before flushing.
			goruntime.Gosched()
			ev, ok, ready = receiveReady(wi.ResultChan())
		}
		if !ready {
			if unflushed {
				if err := rc.Flush(); err != nil {
					return
				}
				unflushed = false
			}
			select {
			case <-ctx.Done():
				return
			case <-e.s.watchStop:
				return
			case ev, ok = <-wi.ResultChan():
			}
		}
		if !ok {
			return
		}
		if ev.Type == watch.Bookmark {
			var err error
			if ev.Object, err = e.bookmark(ev.Object); err != nil {
				ev = watch.Event{Type: watch.Error, Object: statusOf(err)}
			}
		}
		if pb {
			var err error
			if frame, err = e.s.appendProtobufEvent(frame[:0], ev); err != nil {
				return
			}
			if _, err := w.Write(frame); err != nil {
				return
			}
			unflushed = true
			continue
		}
		data, err := e.eventObject(ctx, ev, out, tableOpts)
		if err != nil {
			data, _ = json.Marshal(statusOf(err))
			ev.Type = watch.Error
		}
		if out == outputTable && ev.Type != watch.Error && ev.Type != watch.Bookmark {
			// Later events of a Table watch carry rows only.
			tableOpts = &metav1.TableOptions{NoHeaders: true, IncludeObject: tableOpts.IncludeObject}
		}
		line.Reset()
		line.WriteString(`{"type":`)
		tb, _ := json.Marshal(string(ev.Type))
		line.Write(tb)
		line.WriteString(`,"object":`)
		line.Write(data)
		line.WriteString("}\n")
		if _, err := w.Write(line.Bytes()); err != nil {
			return
		}
		unflushed = true
	}
}

// receiveReady takes an event from ch if one is ready; ready is false
// otherwise.
func receiveReady(ch <-chan watch.Event) (ev watch.Event, ok, ready bool) {
	select {
	case ev, ok = <-ch:
		return ev, ok, true
	default:
		return watch.Event{}, false, false
	}
}

// bookmark returns a BOOKMARK event's object as this endpoint serves it:
// an empty object of the served kind (apiVersion and kind set, as the
// client decodes it by them) carrying only the resourceVersion and the
// annotations of the storage's bookmark, such as the one that ends a
// watch's initial events. The storage's own object cannot be sent as it
// is: a custom resource's storage makes an Unstructured without kind, and
// a storage shared by several served versions knows only its own.
func (e *endpoint) bookmark(obj runtime.Object) (runtime.Object, error) {
	from, err := objectMeta(obj)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("bookmark of %s: %w", e.groupResource(), err))
	}
	out := e.storage.New()
	to, err := objectMeta(out)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("bookmark of %s: %w", e.groupResource(), err))
	}
	to.SetResourceVersion(from.GetResourceVersion())
	if a := from.GetAnnotations(); len(a) > 0 {
		to.SetAnnotations(maps.Clone(a))
	}
	out.GetObjectKind().SetGroupVersionKind(e.kind)
	return out, nil
}

// eventObject is the JSON of an event's object in the asked-for form.
func (e *endpoint) eventObject(ctx context.Context, ev watch.Event, out output, tableOpts *metav1.TableOptions) ([]byte, error) {
	if ev.Type == watch.Error || out == outputObject {
		return e.s.encode(ev.Object)
	}
	if out == outputPartialMetadata {
		return partialMetadata(storage.Unwrap(ev.Object))
	}
	if ev.Type == watch.Bookmark {
		// A Table bookmark has no rows: only its resourceVersion means
		// anything, and an empty object would print as a blank row.
		m, err := objectMeta(ev.Object)
		if err != nil {
			return nil, err
		}
		return json.Marshal(&metav1.Table{TypeMeta: tableTypeMeta, ListMeta: metav1.ListMeta{ResourceVersion: m.GetResourceVersion()}})
	}
	table, err := e.s.toTable(ctx, ev.Object, e.table, tableOpts)
	if err != nil {
		return nil, err
	}
	return json.Marshal(table)
}
