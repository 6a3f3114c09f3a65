package controlplane

import (
	"context"
	"fmt"
	"time"

	corev1 "kubecore.io/api/core/v1"
	policyv1 "kubecore.io/api/policy/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/registry/core/pod"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
	"kubecore.io/kubecore/pkg/storage"
)

// msgManyBudgets is Kubernetes' message for a pod under two budgets.
const msgManyBudgets = "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."

// budgetChecker allows an eviction when the pod's disruption budget has a
// disruption left, and takes it.
type budgetChecker struct {
	store *generic.Store
}

var _ pod.DisruptionChecker = (*budgetChecker)(nil)

// CheckEviction implements pod.DisruptionChecker.
func (c *budgetChecker) CheckEviction(ctx context.Context, p *corev1.Pod, dryRun bool) error {
	prefix := c.store.KeyPrefix() + "/" + p.Namespace
	list, err := c.store.Storage.GetList(ctx, prefix, storage.ListOptions{Recursive: true})
	if err != nil {
		return strategy.StorageError(err, c.store.DefaultQualifiedResource, "")
	}
	var matching []*policyv1.PodDisruptionBudget
	for _, obj := range list.Items {
		if e, ok := obj.(*storage.EncodedObject); ok {
			obj = e.DeepCopyObject()
		}
		pdb, ok := obj.(*policyv1.PodDisruptionBudget)
		if !ok || pdb.Spec.Selector == nil {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil || sel.Empty() || !sel.Matches(labels.Set(p.Labels)) {
			continue
		}
		matching = append(matching, pdb)
	}
	switch len(matching) {
	case 0:
		return nil
	case 1:
	default:
		return apierrors.NewInternalError(fmt.Errorf("%s", msgManyBudgets))
	}
	pdb := matching[0]
	tooMany := func(pdb *policyv1.PodDisruptionBudget) error {
		return apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0)
	}
	if pdb.Status.ObservedGeneration < pdb.Generation || pdb.Status.DisruptionsAllowed <= 0 {
		return tooMany(pdb)
	}
	if dryRun {
		return nil
	}
	key := prefix + "/" + pdb.Name
	_, err = c.store.Storage.GuaranteedUpdate(ctx, key, nil, false, func(current runtime.Object) (runtime.Object, error) {
		cur := current.(*policyv1.PodDisruptionBudget)
		if cur.Status.DisruptionsAllowed <= 0 {
			return nil, tooMany(cur)
		}
		cur.Status.DisruptionsAllowed--
		if cur.Status.DisruptedPods == nil {
			cur.Status.DisruptedPods = map[string]metav1.Time{}
		}
		cur.Status.DisruptedPods[p.Name] = metav1.NewTime(time.Now().Truncate(time.Second))
		return cur, nil
	}, nil)
	return strategy.StorageError(err, c.store.DefaultQualifiedResource, pdb.Name)
}
