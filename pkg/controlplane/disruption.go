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

// maxDisruptedPods is how many evictions a budget may have pending (not
// yet seen done by the disruption controller) before more are refused.
const maxDisruptedPods = 2000

// budgetChecker allows an eviction when the pod's disruption budget has a
// disruption left, and takes it: it decrements status.disruptionsAllowed
// and records the pod in status.disruptedPods, from which the disruption
// controller stops counting it healthy until it is gone or its eviction
// timed out.
type budgetChecker struct {
	store *generic.Store
	now   func() time.Time
}

var _ pod.DisruptionChecker = (*budgetChecker)(nil)

// CheckEviction implements pod.DisruptionChecker. A pod that is not ready
// does not take a disruption: it is evicted when its budget's
// unhealthyPodEvictionPolicy is AlwaysAllow, or (IfHealthyBudget, the
// default) while the budget has its desired healthy pods; the deletion
// must then find the pod unchanged (unhealthy is true).
func (c *budgetChecker) CheckEviction(ctx context.Context, p *corev1.Pod, dryRun bool) (unhealthy bool, err error) {
	prefix := c.store.KeyPrefix() + "/" + p.Namespace
	list, err := c.store.Storage.GetList(ctx, prefix, storage.ListOptions{Recursive: true})
	if err != nil {
		return false, strategy.StorageError(err, c.store.DefaultQualifiedResource, "")
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
		// A budget with an empty selector protects no pod here.
		if err != nil || sel.Empty() || !sel.Matches(labels.Set(p.Labels)) {
			continue
		}
		matching = append(matching, pdb)
	}
	switch len(matching) {
	case 0:
		return false, nil
	case 1:
	default:
		return false, apierrors.NewInternalError(fmt.Errorf("%s", msgManyBudgets))
	}
	pdb := matching[0]
	if !podReady(p) {
		policy := pdb.Spec.UnhealthyPodEvictionPolicy
		if policy != nil && *policy == policyv1.AlwaysAllow {
			return true, nil
		}
		if pdb.Status.DesiredHealthy > 0 && pdb.Status.CurrentHealthy >= pdb.Status.DesiredHealthy {
			return true, nil
		}
	}
	if dryRun {
		return false, checkBudget(pdb)
	}
	key := prefix + "/" + pdb.Name
	now := time.Now
	if c.now != nil {
		now = c.now
	}
	_, err = c.store.Storage.GuaranteedUpdate(ctx, key, nil, false, func(current runtime.Object) (runtime.Object, error) {
		cur := current.(*policyv1.PodDisruptionBudget)
		if err := checkBudget(cur); err != nil {
			return nil, err
		}
		cur.Status.DisruptionsAllowed--
		if cur.Status.DisruptionsAllowed == 0 {
			metav1.SetStatusCondition(&cur.Status.Conditions, metav1.Condition{Type: policyv1.DisruptionAllowedCondition,
				Status: metav1.ConditionFalse, Reason: policyv1.InsufficientPodsReason, ObservedGeneration: cur.Status.ObservedGeneration})
		}
		if cur.Status.DisruptedPods == nil {
			cur.Status.DisruptedPods = map[string]metav1.Time{}
		}
		cur.Status.DisruptedPods[p.Name] = metav1.NewTime(now().Truncate(time.Second))
		return cur, nil
	}, nil)
	return false, strategy.StorageError(err, c.store.DefaultQualifiedResource, pdb.Name)
}

// checkBudget returns the error Kubernetes gives when pdb allows no
// eviction now: 429 TooManyRequests while its status is not computed for
// its generation or it allows no disruption, 403 Forbidden when its
// status is broken or too many evictions are pending.
func checkBudget(pdb *policyv1.PodDisruptionBudget) error {
	if pdb.Status.ObservedGeneration < pdb.Generation {
		return tooManyRequests(fmt.Sprintf("The disruption budget %s is still being processed by the server.", pdb.Name))
	}
	if pdb.Status.DisruptionsAllowed < 0 {
		return apierrors.NewForbidden(policyv1.Resource("poddisruptionbudget"), pdb.Name, fmt.Errorf("pdb disruptions allowed is negative"))
	}
	if len(pdb.Status.DisruptedPods) > maxDisruptedPods {
		return apierrors.NewForbidden(policyv1.Resource("poddisruptionbudget"), pdb.Name, fmt.Errorf("DisruptedPods map too big - too many evictions not confirmed by PDB controller"))
	}
	if pdb.Status.DisruptionsAllowed == 0 {
		return tooManyRequests(fmt.Sprintf("The disruption budget %s needs %d healthy pods and has %d currently", pdb.Name, pdb.Status.DesiredHealthy, pdb.Status.CurrentHealthy))
	}
	return nil
}

// tooManyRequests is the 429 of an eviction the budget refuses, with
// cause as its DisruptionBudget cause.
func tooManyRequests(cause string) error {
	err := apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0)
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{Type: policyv1.DisruptionBudgetCause, Message: cause})
	return err
}

// podReady reports whether p's Ready condition is True: whether it counts
// as healthy for its budget.
func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
