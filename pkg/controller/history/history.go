// Package history keeps the ControllerRevisions of the workload controllers
// that version a pod template (StatefulSet, DaemonSet): making, finding,
// renumbering and pruning them, in the format `kubectl rollout undo` applies.
package history

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strconv"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/controller"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/typed"
)

// Data is what a revision holds for template: the strategic merge patch
// that puts the template back whole ("$patch": "replace"), which kubectl
// rollout undo sends to the owner. The bytes are those a client of the
// Kubernetes 1.36 types computes from the owner it reads (its keys sorted,
// an unset creationTimestamp left out: those types mark it omitzero), since
// clients find an owner's current revision by comparing them byte for byte.
func Data(template *corev1.PodTemplateSpec) ([]byte, error) {
	raw, err := json.Marshal(template)
	if err != nil {
		return nil, fmt.Errorf("encode pod template: %w", err)
	}
	var tmpl map[string]any
	if err := json.Unmarshal(raw, &tmpl); err != nil {
		return nil, fmt.Errorf("encode pod template: %w", err)
	}
	dropUnsetCreationTimestamp(tmpl)
	tmpl["$patch"] = "replace"
	return json.Marshal(map[string]any{"spec": map[string]any{"template": tmpl}})
}

// dropUnsetCreationTimestamp removes a null metadata.creationTimestamp
// from a decoded template, which our ObjectMeta encodes and the 1.36
// types omit.
func dropUnsetCreationTimestamp(tmpl map[string]any) {
	meta, ok := tmpl["metadata"].(map[string]any)
	if !ok {
		return
	}
	if ts, found := meta["creationTimestamp"]; found && ts == nil {
		delete(meta, "creationTimestamp")
	}
}

// Template reads the pod template back from a revision's data.
func Template(rev *appsv1.ControllerRevision) (corev1.PodTemplateSpec, error) {
	var data struct {
		Spec struct {
			Template corev1.PodTemplateSpec `json:"template"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(rev.Data.Raw, &data); err != nil {
		return corev1.PodTemplateSpec{}, fmt.Errorf("decode revision %s/%s: %w", rev.Namespace, rev.Name, err)
	}
	return data.Spec.Template, nil
}

// safeAlphabet spells hashes without vowels (no words) and without
// characters easily confused (0, 1, 3).
const safeAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// Hash hashes revision data and the collision count into a short
// label-safe string.
func Hash(data []byte, collisionCount *int32) string {
	h := fnv.New32a()
	_, _ = h.Write(data)
	if collisionCount != nil {
		_, _ = h.Write([]byte(strconv.FormatInt(int64(*collisionCount), 10)))
	}
	digits := strconv.FormatUint(uint64(h.Sum32()), 10)
	out := make([]byte, len(digits))
	for i := range digits {
		out[i] = safeAlphabet[int(digits[i])%len(safeAlphabet)]
	}
	return string(out)
}

// New returns the revision number revision of owner's template, named
// <owner>-<hash>, labelled with the template's labels and the hash
// (appsv1.ControllerRevisionHashLabelKey), annotated with the owner's
// annotations (kubectl rollout history shows its change-cause) and
// controlled by owner, of kind ownerKind.
func New(owner metav1.Object, ownerKind schema.GroupVersionKind, template *corev1.PodTemplateSpec, revision int64, collisionCount *int32) (*appsv1.ControllerRevision, error) {
	data, err := Data(template)
	if err != nil {
		return nil, fmt.Errorf("revision of %s/%s: %w", owner.GetNamespace(), owner.GetName(), err)
	}
	hash := Hash(data, collisionCount)
	lbls := maps.Clone(template.Labels)
	if lbls == nil {
		lbls = map[string]string{}
	}
	lbls[appsv1.ControllerRevisionHashLabelKey] = hash
	return &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{
			Name:            owner.GetName() + "-" + hash,
			Namespace:       owner.GetNamespace(),
			Labels:          lbls,
			Annotations:     maps.Clone(owner.GetAnnotations()),
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(owner, ownerKind)},
		},
		Data:     runtime.RawExtension{Raw: data},
		Revision: revision,
	}, nil
}

// HashOf is the hash a revision was named with: its hash label, or its
// name for a revision without one.
func HashOf(rev *appsv1.ControllerRevision) string {
	if h, ok := rev.Labels[appsv1.ControllerRevisionHashLabelKey]; ok {
		return h
	}
	return rev.Name
}

// Equal reports whether two revisions hold the same template. A revision
// written before Data left out an unset creationTimestamp equals its
// template's revision of today, so that the owner's pods are not replaced
// for that alone.
func Equal(a, b *appsv1.ControllerRevision) bool {
	return bytes.Equal(compactJSON(a.Data.Raw), compactJSON(b.Data.Raw))
}

func compactJSON(raw []byte) []byte {
	var v map[string]any
	if json.Unmarshal(raw, &v) != nil {
		return raw
	}
	if spec, ok := v["spec"].(map[string]any); ok {
		if tmpl, ok := spec["template"].(map[string]any); ok {
			dropUnsetCreationTimestamp(tmpl)
		}
	}
	out, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return out
}

// Sort orders revisions by revision number, then name.
func Sort(revs []*appsv1.ControllerRevision) {
	slices.SortFunc(revs, func(a, b *appsv1.ControllerRevision) int {
		if a.Revision != b.Revision {
			if a.Revision < b.Revision {
				return -1
			}
			return 1
		}
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
}

// NextRevision is the revision number after the newest of revs, sorted.
func NextRevision(revs []*appsv1.ControllerRevision) int64 {
	if len(revs) == 0 {
		return 1
	}
	return revs[len(revs)-1].Revision + 1
}

// Client reads and writes the ControllerRevisions of one namespace; the
// typed client satisfies it.
type Client interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (*appsv1.ControllerRevision, error)
	Create(ctx context.Context, rev *appsv1.ControllerRevision, opts metav1.CreateOptions) (*appsv1.ControllerRevision, error)
	Update(ctx context.Context, rev *appsv1.ControllerRevision, opts metav1.UpdateOptions) (*appsv1.ControllerRevision, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// ErrCollision is returned (wrapped) by Ensure when the candidate's name
// is taken by another object: the owner then bumps its collision count,
// which changes the next candidate's name.
var ErrCollision = errors.New("revision name collides with another object")

// Ensure returns the revision of the candidate's template as the newest
// of revs (owner's revisions, sorted by Sort), candidate being numbered
// NextRevision(revs): an equal revision already newest, an earlier one
// renumbered (a rollback), or candidate created.
func Ensure(ctx context.Context, client Client, owner metav1.Object, revs []*appsv1.ControllerRevision, candidate *appsv1.ControllerRevision) (*appsv1.ControllerRevision, error) {
	var equal *appsv1.ControllerRevision
	for _, r := range revs {
		if Equal(r, candidate) {
			equal = r
		}
	}
	switch {
	case equal != nil && equal == revs[len(revs)-1]:
		return equal, nil
	case equal != nil:
		cp := equal.DeepCopy()
		cp.Revision = candidate.Revision
		out, err := client.Update(ctx, cp, metav1.UpdateOptions{})
		if err != nil {
			return nil, fmt.Errorf("renumber revision %s/%s: %w", cp.Namespace, cp.Name, err)
		}
		return out, nil
	}
	out, err := client.Create(ctx, candidate, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		existing, getErr := client.Get(ctx, candidate.Name, metav1.GetOptions{})
		if getErr != nil {
			return nil, fmt.Errorf("get revision %s/%s: %w", candidate.Namespace, candidate.Name, getErr)
		}
		if metav1.IsControlledBy(existing, owner) && Equal(existing, candidate) {
			return existing, nil
		}
		return nil, fmt.Errorf("create revision %s/%s: %w", candidate.Namespace, candidate.Name, ErrCollision)
	}
	if err != nil {
		return nil, fmt.Errorf("create revision %s/%s: %w", candidate.Namespace, candidate.Name, err)
	}
	return out, nil
}

// Truncate deletes the oldest revisions of revs that live does not keep
// (those pods still run, the current ones), beyond limit.
func Truncate(ctx context.Context, client Client, revs []*appsv1.ControllerRevision, limit int, live func(*appsv1.ControllerRevision) bool) error {
	var old []*appsv1.ControllerRevision
	for _, r := range revs {
		if !live(r) {
			old = append(old, r)
		}
	}
	Sort(old)
	var errs []error
	for i := 0; i < len(old)-limit; i++ {
		err := client.Delete(ctx, old[i].Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("delete revision %s/%s: %w", old[i].Namespace, old[i].Name, err))
		}
	}
	return errors.Join(errs...)
}

// Claim returns owner's revisions among those of lister in its namespace:
// the ones it controls that its selector still matches, and orphans it
// matches, adopted (canAdopt as for controller.NewRefManager).
func Claim(ctx context.Context, cs interface{ AppsV1() typed.AppsV1 }, lister cache.Lister[*appsv1.ControllerRevision], owner metav1.Object, ownerKind schema.GroupVersionKind,
	selector labels.Selector, canAdopt func(context.Context) error) ([]*appsv1.ControllerRevision, error) {
	patch := func(ctx context.Context, ns, name string, data []byte) error {
		_, err := cs.AppsV1().ControllerRevisions(ns).Patch(ctx, name, types.MergePatchType, data, metav1.PatchOptions{})
		return err
	}
	revs, err := controller.ClaimFrom(ctx, controller.NewRefManager[*appsv1.ControllerRevision](owner, ownerKind, selector, patch, canAdopt), lister)
	if err != nil {
		return nil, fmt.Errorf("claim revisions of %s/%s: %w", owner.GetNamespace(), owner.GetName(), err)
	}
	return revs, nil
}
