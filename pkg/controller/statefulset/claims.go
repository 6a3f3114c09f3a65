package statefulset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
)

// ensureClaims creates the missing claims of the pod of set with ordinal,
// one per volumeClaimTemplate.
func (c *Controller) ensureClaims(ctx context.Context, set *appsv1.StatefulSet, ordinal int) error {
	var errs []error
	for _, t := range set.Spec.VolumeClaimTemplates {
		name := claimName(t.Name, set, ordinal)
		existing, err := c.claims.Lister().Namespaced(set.Namespace).Get(name)
		if err == nil {
			if existing.DeletionTimestamp != nil {
				errs = append(errs, fmt.Errorf("claim %s/%s is being deleted", set.Namespace, name))
			}
			continue
		}
		claim := newClaim(set, &t, name)
		claim.OwnerReferences = desiredClaimOwners(set, claim, nil, false)
		_, err = c.client.CoreV1().PersistentVolumeClaims(set.Namespace).Create(ctx, claim, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			c.recorder.Event(set, corev1.EventTypeWarning, "FailedCreate", fmt.Sprintf("create Claim %s for Pod %s in StatefulSet %s failed error: %v", name, podName(set, ordinal), set.Name, err))
			errs = append(errs, fmt.Errorf("create claim %s/%s: %w", set.Namespace, name, err))
			continue
		}
		if err == nil {
			c.recorder.Event(set, corev1.EventTypeNormal, "SuccessfulCreate", fmt.Sprintf("create Claim %s Pod %s in StatefulSet %s success", name, podName(set, ordinal), set.Name))
		}
	}
	return errors.Join(errs...)
}

// newClaim makes a claim from template: its labels plus the set's
// selector labels.
func newClaim(set *appsv1.StatefulSet, template *corev1.PersistentVolumeClaim, name string) *corev1.PersistentVolumeClaim {
	claim := template.DeepCopy()
	claim.ObjectMeta = metav1.ObjectMeta{
		Name:        name,
		Namespace:   set.Namespace,
		Labels:      maps.Clone(template.Labels),
		Annotations: maps.Clone(template.Annotations),
	}
	if claim.Labels == nil {
		claim.Labels = map[string]string{}
	}
	if set.Spec.Selector != nil {
		maps.Copy(claim.Labels, set.Spec.Selector.MatchLabels)
	}
	claim.Status = corev1.PersistentVolumeClaimStatus{}
	return claim
}

// desiredClaimOwners are the owner references a claim should have under
// the set's retention policy: the set when claims go with it, the pod
// when it is condemned (beyond the replicas) and claims go on scale-down.
// References to other owners are kept.
func desiredClaimOwners(set *appsv1.StatefulSet, claim *corev1.PersistentVolumeClaim, pod *corev1.Pod, condemned bool) []metav1.OwnerReference {
	var out []metav1.OwnerReference
	for _, r := range claim.OwnerReferences {
		if r.UID == set.UID || (pod != nil && r.UID == pod.UID) {
			continue
		}
		out = append(out, r)
	}
	policy := set.Spec.PersistentVolumeClaimRetentionPolicy
	if policy == nil {
		return out
	}
	if policy.WhenDeleted == appsv1.DeletePersistentVolumeClaimRetentionPolicyType {
		out = append(out, metav1.OwnerReference{APIVersion: controllerKind.GroupVersion().String(), Kind: controllerKind.Kind, Name: set.Name, UID: set.UID})
	}
	if condemned && pod != nil && policy.WhenScaled == appsv1.DeletePersistentVolumeClaimRetentionPolicyType {
		out = append(out, metav1.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID})
	}
	return out
}

// updateClaimOwners brings the owner references of the claims of set's
// pods in line with the retention policy, so that the garbage collector
// deletes the claims the policy says go.
func (c *Controller) updateClaimOwners(ctx context.Context, set *appsv1.StatefulSet, pods []*corev1.Pod) error {
	if len(set.Spec.VolumeClaimTemplates) == 0 {
		return nil
	}
	start, n := startOrdinal(set), replicasOf(set)
	var errs []error
	for _, pod := range pods {
		ord, ok := ordinalOf(set, pod.Name)
		if !ok {
			continue
		}
		condemned := ord < start || ord >= start+n
		for _, t := range set.Spec.VolumeClaimTemplates {
			claim, err := c.claims.Lister().Namespaced(set.Namespace).Get(claimName(t.Name, set, ord))
			if err != nil {
				continue
			}
			want := desiredClaimOwners(set, claim, pod, condemned)
			if sameOwners(claim.OwnerReferences, want) {
				continue
			}
			if want == nil {
				want = []metav1.OwnerReference{}
			}
			patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
				"uid": claim.UID, "resourceVersion": claim.ResourceVersion, "ownerReferences": want,
			}})
			if err != nil {
				return err
			}
			_, err = c.client.CoreV1().PersistentVolumeClaims(set.Namespace).Patch(ctx, claim.Name, types.MergePatchType, patch, metav1.PatchOptions{})
			if err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("update owners of claim %s/%s: %w", set.Namespace, claim.Name, err))
			}
		}
	}
	return errors.Join(errs...)
}

func sameOwners(a, b []metav1.OwnerReference) bool {
	if len(a) != len(b) {
		return false
	}
	for _, r := range a {
		if !slices.ContainsFunc(b, func(o metav1.OwnerReference) bool { return o.UID == r.UID }) {
			return false
		}
	}
	return true
}
