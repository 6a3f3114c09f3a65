package garbagecollector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/util/retry"

	"k8s.io/klog/v2"
)

// ownerState is what an owner reference points at now.
type ownerState int

const (
	// ownerSolid exists and is not waiting for its dependents.
	ownerSolid ownerState = iota
	// ownerDangling is gone, or another object now has its name.
	ownerDangling
	// ownerWaiting is being deleted in the foreground.
	ownerWaiting
)

// processAttemptToDelete looks at the object with uid key: a foreground
// deletion finishes once its blocking dependents are gone; a dependent
// whose owners are all gone (or deleting in the foreground) is deleted;
// references to owners that are gone are dropped while others remain.
func (gc *GarbageCollector) processAttemptToDelete(ctx context.Context, key string) error {
	n, ok := gc.graph.get(types.UID(key))
	if !ok || n.virtual {
		return nil
	}
	if n.deletingDependents {
		return gc.processDeletingDependents(ctx, n)
	}
	if n.deleting || len(n.owners) == 0 {
		return nil
	}
	// Decide on the object as it is now, not as the graph last saw it: its
	// owner references may have been removed (an orphaning owner) since.
	live, err := gc.md.Resource(n.id.gvr).Namespace(n.id.namespace).Get(ctx, n.id.name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("get %s %s/%s: %w", n.id.gvr.Resource, n.id.namespace, n.id.name, err)
	}
	if live.UID != n.id.uid || live.DeletionTimestamp != nil || len(live.OwnerReferences) == 0 {
		return nil
	}
	var solid, dangling, waiting []metav1.OwnerReference
	for _, ref := range live.OwnerReferences {
		st, err := gc.ownerState(ctx, n, ref)
		if err != nil {
			return err
		}
		switch st {
		case ownerSolid:
			solid = append(solid, ref)
		case ownerDangling:
			dangling = append(dangling, ref)
		case ownerWaiting:
			waiting = append(waiting, ref)
		}
	}
	logger := klog.FromContext(ctx).WithValues("object", klog.KRef(n.id.namespace, n.id.name), "resource", n.id.gvr.Resource)
	if len(solid) > 0 {
		if len(dangling) == 0 && len(waiting) == 0 {
			return nil
		}
		// Keep the object for its live owners: forget the dead ones and
		// stop blocking those deleting in the foreground.
		logger.V(2).Info("Removing references to owners that are gone", "dangling", len(dangling), "waiting", len(waiting))
		return gc.patchOwners(ctx, n.id, func(refs []metav1.OwnerReference) []metav1.OwnerReference {
			refs = slices.DeleteFunc(refs, func(r metav1.OwnerReference) bool { return hasUID(dangling, r.UID) })
			for i := range refs {
				if hasUID(waiting, refs[i].UID) {
					f := false
					refs[i].BlockOwnerDeletion = &f
				}
			}
			return refs
		})
	}
	if len(waiting) > 0 && slices.ContainsFunc(n.dependents, func(d dependent) bool { return d.deletingDependents }) {
		// An owner waits for this object while a dependent of it waits for
		// its own dependents: perhaps a cycle of references, in which each
		// foreground deletion would wait for the next forever. As
		// Kubernetes does, this object stops blocking the owners that wait,
		// so they can finish, and goes in the foreground after them.
		logger.V(2).Info("Owners and a dependent are deleting in the foreground; unblocking the owners to break a possible cycle", "waiting", len(waiting))
		if err := gc.patchOwners(ctx, n.id, func(refs []metav1.OwnerReference) []metav1.OwnerReference {
			for i := range refs {
				if hasUID(waiting, refs[i].UID) {
					f := false
					refs[i].BlockOwnerDeletion = &f
				}
			}
			return refs
		}); err != nil {
			return err
		}
		// The patch moved the resourceVersion the deletion is guarded by.
		if live, err = gc.md.Resource(n.id.gvr).Namespace(n.id.namespace).Get(ctx, n.id.name, metav1.GetOptions{}); err != nil {
			if apierrors.IsNotFound(err) {
				return nil
			}
			return fmt.Errorf("get %s %s/%s: %w", n.id.gvr.Resource, n.id.namespace, n.id.name, err)
		}
		if live.UID != n.id.uid || live.DeletionTimestamp != nil {
			return nil
		}
	}
	policy := metav1.DeletePropagationBackground
	switch {
	case len(waiting) > 0 && len(n.dependents) > 0:
		// An owner waits for this object: its own dependents go first.
		policy = metav1.DeletePropagationForeground
	case slices.Contains(n.finalizers, metav1.FinalizerOrphanDependents):
		policy = metav1.DeletePropagationOrphan
	case slices.Contains(n.finalizers, metav1.FinalizerDeleteDependents):
		policy = metav1.DeletePropagationForeground
	}
	logger.V(2).Info("Deleting object whose owners are gone", "propagationPolicy", policy)
	// The preconditions make sure nothing changed since the decision; a
	// conflict means something did (often only the status, which brings
	// no new work from the graph): the error makes the runner look again.
	uid, rv := n.id.uid, live.ResourceVersion
	err = gc.md.Resource(n.id.gvr).Namespace(n.id.namespace).Delete(ctx, n.id.name, metav1.DeleteOptions{
		Preconditions:     &metav1.Preconditions{UID: &uid, ResourceVersion: &rv},
		PropagationPolicy: &policy,
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete %s %s/%s: %w", n.id.gvr.Resource, n.id.namespace, n.id.name, err)
	}
	return nil
}

// processDeletingDependents finishes a foreground deletion whose blocking
// dependents are gone, or asks for those still there to be deleted.
func (gc *GarbageCollector) processDeletingDependents(ctx context.Context, n snapshot) error {
	var blocking int
	for _, d := range n.dependents {
		if !d.blocks(n.id.uid) {
			continue
		}
		blocking++
		if !d.deleting {
			gc.attemptToDelete.Add(string(d.id.uid))
		}
	}
	if blocking > 0 {
		return nil
	}
	klog.FromContext(ctx).V(2).Info("Dependents are gone, finishing foreground deletion", "object", klog.KRef(n.id.namespace, n.id.name), "resource", n.id.gvr.Resource)
	return gc.removeFinalizer(ctx, n.id, metav1.FinalizerDeleteDependents)
}

// processAttemptToOrphan removes the owner reference to the object with
// uid key from each of its dependents, then its "orphan" finalizer.
func (gc *GarbageCollector) processAttemptToOrphan(ctx context.Context, key string) error {
	n, ok := gc.graph.get(types.UID(key))
	if !ok || n.virtual || !n.orphaning {
		return nil
	}
	var errs []error
	for _, d := range n.dependents {
		err := gc.patchOwners(ctx, d.id, func(refs []metav1.OwnerReference) []metav1.OwnerReference {
			return slices.DeleteFunc(refs, func(r metav1.OwnerReference) bool { return r.UID == n.id.uid })
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("orphan the dependents of %s %s/%s: %w", n.id.gvr.Resource, n.id.namespace, n.id.name, err)
	}
	klog.FromContext(ctx).V(2).Info("Dependents orphaned", "object", klog.KRef(n.id.namespace, n.id.name), "resource", n.id.gvr.Resource, "dependents", len(n.dependents))
	return gc.removeFinalizer(ctx, n.id, metav1.FinalizerOrphanDependents)
}

// ownerState finds what ref of dependent n points at: from the graph
// when it shows a live owner, from the API server otherwise, so that
// nothing is deleted on a cache that lags.
func (gc *GarbageCollector) ownerState(ctx context.Context, n snapshot, ref metav1.OwnerReference) (ownerState, error) {
	if gc.absent.has(ref.UID) {
		return ownerDangling, nil
	}
	if o, ok := gc.graph.get(ref.UID); ok && !o.virtual {
		if o.deletingDependents {
			return ownerWaiting, nil
		}
		return ownerSolid, nil
	}
	mp, err := gc.resolve(ref.APIVersion, ref.Kind)
	if err != nil {
		return 0, fmt.Errorf("owner %s %q of %s/%s: %w", ref.Kind, ref.Name, n.id.namespace, n.id.name, err)
	}
	ns := ""
	if mp.namespaced {
		if n.id.namespace == "" {
			// A cluster-scoped object cannot have a namespaced owner.
			return ownerDangling, nil
		}
		ns = n.id.namespace
	}
	owner, err := gc.md.Resource(mp.gvr).Namespace(ns).Get(ctx, ref.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		gc.absent.add(ref.UID)
		return ownerDangling, nil
	case err != nil:
		return 0, fmt.Errorf("get owner %s %q of %s/%s: %w", ref.Kind, ref.Name, n.id.namespace, n.id.name, err)
	case owner.UID != ref.UID:
		gc.absent.add(ref.UID)
		return ownerDangling, nil
	case owner.DeletionTimestamp != nil && slices.Contains(owner.Finalizers, metav1.FinalizerDeleteDependents):
		return ownerWaiting, nil
	}
	return ownerSolid, nil
}

// patchOwners rewrites the ownerReferences of the object id names with
// change, on its current state, retrying on conflicts.
func (gc *GarbageCollector) patchOwners(ctx context.Context, id identity, change func([]metav1.OwnerReference) []metav1.OwnerReference) error {
	client := gc.md.Resource(id.gvr).Namespace(id.namespace)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := client.Get(ctx, id.name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if cur.UID != id.uid {
			return nil // replaced by another object of the same name
		}
		refs := change(slices.Clone(cur.OwnerReferences))
		if refs == nil {
			refs = []metav1.OwnerReference{}
		}
		patch, err := metadataPatch(cur, "ownerReferences", refs)
		if err != nil {
			return err
		}
		_, err = client.Patch(ctx, id.name, types.MergePatchType, patch, metav1.PatchOptions{})
		return err
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("update owner references of %s %s/%s: %w", id.gvr.Resource, id.namespace, id.name, err)
	}
	return nil
}

// removeFinalizer removes finalizer from the object id names, retrying on
// conflicts; the API server deletes the object when none is left.
func (gc *GarbageCollector) removeFinalizer(ctx context.Context, id identity, finalizer string) error {
	client := gc.md.Resource(id.gvr).Namespace(id.namespace)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := client.Get(ctx, id.name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if cur.UID != id.uid || !slices.Contains(cur.Finalizers, finalizer) {
			return nil
		}
		left := slices.DeleteFunc(slices.Clone(cur.Finalizers), func(f string) bool { return f == finalizer })
		if left == nil {
			left = []string{}
		}
		patch, err := metadataPatch(cur, "finalizers", left)
		if err != nil {
			return err
		}
		_, err = client.Patch(ctx, id.name, types.MergePatchType, patch, metav1.PatchOptions{})
		return err
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("remove finalizer %s from %s %s/%s: %w", finalizer, id.gvr.Resource, id.namespace, id.name, err)
	}
	return nil
}

// metadataPatch is a merge patch setting one metadata field, guarded by
// the object's uid and resourceVersion.
func metadataPatch(cur *metav1.PartialObjectMetadata, field string, value any) ([]byte, error) {
	return json.Marshal(map[string]any{"metadata": map[string]any{
		"uid":             cur.UID,
		"resourceVersion": cur.ResourceVersion,
		field:             value,
	}})
}

func hasUID(refs []metav1.OwnerReference, uid types.UID) bool {
	return slices.ContainsFunc(refs, func(r metav1.OwnerReference) bool { return r.UID == uid })
}
