package controller

import (
	"time"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/tools/cache"
)

// ObservedExpectations are told of the creations and deletions an informer
// sees, for the key of the owner that expected them.
// *UIDTrackingExpectations satisfies it.
type ObservedExpectations interface {
	CreationObserved(key string)
	DeletionObservedUID(key string, uid types.UID)
}

var _ ObservedExpectations = (*UIDTrackingExpectations)(nil)

// Owned maps the objects of kind T that owners of kind O control (the pods
// of a ReplicaSet) to their owner's key, observing the owner's
// expectations on the way:
//
//   - an add is a creation observed; an add or update of an object being
//     deleted (deletionTimestamp set) is a deletion observed, as is a
//     delete;
//   - an update that changes the controller reference also enqueues the
//     old owner;
//   - an object without a controller reference is offered for adoption:
//     Adopters maps it to the keys of the owners that may claim it, on add
//     and when an update changes its labels or releases it.
//
// The owner is found with Owners in the object's namespace and must be of
// Kind with the reference's uid (ResolveControllerRef); references to
// other kinds or unknown owners map to nothing.
type Owned[O, T cache.Object] struct {
	// Kind is the owners' group and kind.
	Kind schema.GroupKind
	// Owners lists the owners.
	Owners cache.Lister[O]
	// Expectations, when set, are told of creations and deletions.
	Expectations ObservedExpectations
	// Adopters, when set, maps an object without a controller reference
	// to the keys of the owners that may adopt it.
	Adopters func(obj T) []string
	// RequeueAfter, when set, is asked on an update of a live owned
	// object how long after which to look at the owner again (for
	// example when a pod becomes available minReadySeconds after it
	// became ready); zero or less means not at all.
	RequeueAfter func(owner O, oldObj, newObj T) time.Duration
}

// Handler returns the Handler for Watch; requeues after a delay go to t's
// queue, which must be the one Watch is given.
func (o Owned[O, T]) Handler(t Target) Handler[T] {
	q := t.target()
	return Handler[T]{
		Add: func(obj T) []string {
			if obj.GetDeletionTimestamp() != nil {
				// A restarted controller sees an object being deleted as an add.
				return o.deleted(obj)
			}
			if metav1.GetControllerOf(obj) == nil {
				return o.adopters(obj)
			}
			key, ok := o.ownerKey(obj)
			if !ok {
				return nil
			}
			if o.Expectations != nil {
				o.Expectations.CreationObserved(key)
			}
			return []string{key}
		},
		Update: func(oldObj, newObj T) []string {
			if oldObj.GetResourceVersion() == newObj.GetResourceVersion() {
				return nil // a resync: nothing changed
			}
			var keys []string
			oldRef, newRef := metav1.GetControllerOf(oldObj), metav1.GetControllerOf(newObj)
			if oldRef != nil && (newRef == nil || newRef.UID != oldRef.UID) {
				if newObj.GetDeletionTimestamp() != nil {
					keys = append(keys, o.deleted(oldObj)...)
				} else if key, ok := o.ownerKey(oldObj); ok {
					keys = append(keys, key)
				}
			}
			if newObj.GetDeletionTimestamp() != nil {
				// A graceful deletion counts as soon as it starts, so that
				// a replacement is made without waiting for the kubelet.
				return append(keys, o.deleted(newObj)...)
			}
			if newRef == nil {
				if oldRef != nil || !labels.Equals(oldObj.GetLabels(), newObj.GetLabels()) {
					keys = append(keys, o.adopters(newObj)...)
				}
				return keys
			}
			owner, ok := o.owner(newObj)
			if !ok {
				return keys
			}
			key := cache.ObjectKey(owner.GetNamespace(), owner.GetName())
			if o.RequeueAfter != nil {
				if d := o.RequeueAfter(owner, oldObj, newObj); d > 0 {
					q.AddAfter(key, d)
				}
			}
			return append(keys, key)
		},
		Delete: o.deleted,
	}
}

func (o Owned[O, T]) owner(obj T) (O, bool) {
	return ResolveControllerRef(metav1.GetControllerOf(obj), o.Kind, o.Owners.Namespaced(obj.GetNamespace()).Get)
}

func (o Owned[O, T]) ownerKey(obj T) (string, bool) {
	owner, ok := o.owner(obj)
	if !ok {
		return "", false
	}
	return cache.ObjectKey(owner.GetNamespace(), owner.GetName()), true
}

func (o Owned[O, T]) deleted(obj T) []string {
	key, ok := o.ownerKey(obj)
	if !ok {
		return nil
	}
	if o.Expectations != nil {
		o.Expectations.DeletionObservedUID(key, obj.GetUID())
	}
	return []string{key}
}

func (o Owned[O, T]) adopters(obj T) []string {
	if o.Adopters == nil {
		return nil
	}
	return o.Adopters(obj)
}

// SelectorKeys returns the keys of the objects among candidates whose
// non-empty label selector, read by selector, matches obj's labels: the
// owners that may adopt an orphan.
func SelectorKeys[O cache.Object](candidates []O, selector func(O) *metav1.LabelSelector, obj metav1.Object) []string {
	var keys []string
	for _, c := range candidates {
		sel, err := metav1.LabelSelectorAsSelector(selector(c))
		if err != nil || sel.Empty() || !sel.Matches(labels.Set(obj.GetLabels())) {
			continue
		}
		keys = append(keys, cache.ObjectKey(c.GetNamespace(), c.GetName()))
	}
	return keys
}
