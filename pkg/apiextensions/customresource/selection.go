package customresource

import (
	"context"
	"strconv"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"kubecore.io/apimachinery/pkg/fields"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/watch"

	"kubecore.io/kubecore/pkg/storage"
)

// A field selector on a selectable field is evaluated, as in Kubernetes,
// on the object in the version the client asked for. The shared storage
// (and its watch cache) holds objects in the storage version: under the
// None strategy a version's fields are read from them as they are (the
// watch cache keeps every version's selectable fields), but a conversion
// webhook may move or compute them. With a webhook the versioned storage
// therefore hands the storage only the selection it can make on stored
// objects (labels, metadata.name and metadata.namespace) and applies the
// whole predicate to the converted objects itself.

// splitSelection returns the part of p the shared storage can evaluate
// and whether the rest (terms on selectable fields) must be evaluated
// after conversion.
func (s *versionedStorage) splitSelection(p storage.SelectionPredicate) (storage.SelectionPredicate, bool) {
	if !s.selectAfterConversion || p.Field == nil || p.Field.Empty() {
		return p, false
	}
	after := false
	for _, r := range p.Field.Requirements() {
		if !isMetadataField(r.Field) {
			after = true
		}
	}
	if !after {
		return p, false
	}
	stored, err := p.Field.Transform(func(field, value string) (string, string, error) {
		if isMetadataField(field) {
			return field, value, nil
		}
		return "", "", nil
	})
	if err != nil {
		// Dropping terms does not fail; keep nothing rather than a wrong
		// selection if it ever did.
		stored = fields.Everything()
	}
	p.Field = stored
	return p, true
}

// isMetadataField reports whether a field label is one every custom
// object offers in every version.
func isMetadataField(f string) bool { return f == "metadata.name" || f == "metadata.namespace" }

// selectConverted keeps the items of a converted list that p selects. The
// page may hold fewer than the limit; its continue token still resumes
// after the last object read.
func selectConverted(list *storage.List, p storage.SelectionPredicate) error {
	kept := list.Items[:0]
	for _, it := range list.Items {
		ok, err := p.Matches(it)
		if err != nil {
			return err
		}
		if ok {
			kept = append(kept, it)
		}
	}
	clear(list.Items[len(kept):])
	list.Items = kept
	// How many objects remain unread says nothing of how many match.
	list.RemainingItemCount = nil
	return nil
}

// objectKey names an object in a selectedWatch's state.
func objectKey(obj runtime.Object) string {
	u, ok := storage.Unwrap(obj).(*unstructured.Unstructured)
	if !ok {
		return ""
	}
	return u.GetNamespace() + "/" + u.GetName()
}

// selectedWatch turns the converted events of a watch on the storage's
// selection into those of the client's: an object that comes to match is
// ADDED, one that stops matching is DELETED (its last matching state,
// stamped with the event's resourceVersion), as the watch cache does for
// selections it evaluates itself. matching holds the objects that match
// now, in the served version.
type selectedWatch struct {
	pred     storage.SelectionPredicate
	matching map[string]runtime.Object
}

// event returns what the client sees of ev (converted to the served
// version), and false when it sees nothing.
func (w *selectedWatch) event(ev watch.Event) (watch.Event, bool, error) {
	if ev.Type != watch.Added && ev.Type != watch.Modified && ev.Type != watch.Deleted {
		return ev, true, nil
	}
	key := objectKey(ev.Object)
	prev, wasMatching := w.matching[key]
	if ev.Type == watch.Deleted {
		delete(w.matching, key)
		if wasMatching {
			return ev, true, nil
		}
		ok, err := w.pred.Matches(ev.Object)
		return ev, ok, err
	}
	ok, err := w.pred.Matches(ev.Object)
	if err != nil {
		return ev, false, err
	}
	switch {
	case ok:
		w.matching[key] = ev.Object
		if !wasMatching {
			ev.Type = watch.Added
		}
		return ev, true, nil
	case wasMatching:
		delete(w.matching, key)
		return watch.Event{Type: watch.Deleted, Object: atResourceVersion(prev, ev.Object)}, true, nil
	}
	return ev, false, nil
}

// atResourceVersion returns a copy of prev with the resourceVersion of cur.
func atResourceVersion(prev, cur runtime.Object) runtime.Object {
	p, ok := storage.Unwrap(prev).(*unstructured.Unstructured)
	c, ok2 := storage.Unwrap(cur).(*unstructured.Unstructured)
	if !ok || !ok2 {
		return cur
	}
	out := p.DeepCopy()
	out.SetResourceVersion(c.GetResourceVersion())
	return out
}

// startSelectedWatch prepares a watch whose selection is evaluated after
// conversion: unless the watch itself starts with the current state as
// ADDED events (sendInitialEvents), it lists the objects that match at the
// revision the watch starts from, which it then pins, so that a later
// change that makes one stop matching is seen as its DELETED.
func (s *versionedStorage) startSelectedWatch(ctx context.Context, key string, opts *storage.ListOptions, full storage.SelectionPredicate) (*selectedWatch, error) {
	w := &selectedWatch{pred: full, matching: map[string]runtime.Object{}}
	if opts.SendInitialEvents != nil && *opts.SendInitialEvents {
		return w, nil
	}
	lopts := storage.ListOptions{ResourceVersion: opts.ResourceVersion, Predicate: full, Recursive: opts.Recursive}
	lopts.Predicate.Limit, lopts.Predicate.Continue = 0, ""
	if opts.ResourceVersion != "" && opts.ResourceVersion != "0" {
		lopts.ResourceVersionMatch = metav1.ResourceVersionMatchExact
	}
	list, err := s.GetList(ctx, key, lopts)
	if err != nil {
		return nil, err
	}
	for _, it := range list.Items {
		w.matching[objectKey(it)] = it
	}
	if opts.ResourceVersion == "" || opts.ResourceVersion == "0" {
		opts.ResourceVersion = strconv.FormatUint(list.ResourceVersion, 10)
	}
	return w, nil
}
