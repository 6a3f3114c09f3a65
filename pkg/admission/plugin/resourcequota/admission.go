// Package resourcequota is the ResourceQuota admission plugin: it refuses
// a create (or an update that grows usage) that would take a namespace
// past one of its quotas, and charges the quotas' status.used with a
// compare-and-swap so that concurrent writes cannot overshoot together.
package resourcequota

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"

	"kubecore.io/kubecore/pkg/admission"
	"kubecore.io/kubecore/pkg/apis/core/quota"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// Quotas is the quota storage the plugin reads and charges.
type Quotas interface {
	// ListQuotas returns the quotas of namespace, possibly a moment stale.
	ListQuotas(ctx context.Context, namespace string) ([]*corev1.ResourceQuota, error)
	// UpdateQuota changes the stored quota with update, which gets a copy
	// of the current one, in a compare-and-swap loop: update runs again on
	// the fresh quota when another write came first. An error of update
	// stops it and is returned as it is.
	UpdateQuota(ctx context.Context, namespace, name string, update func(*corev1.ResourceQuota) error) error
}

// Plugin is ResourceQuota admission, of the validating phase.
type Plugin struct {
	Quotas Quotas
}

var _ admission.ValidationInterface = (*Plugin)(nil)

// New returns ResourceQuota admission over quotas.
func New(quotas Quotas) *Plugin { return &Plugin{Quotas: quotas} }

// Handles implements admission.Interface: creates and updates of
// namespaced objects, not of subresources.
func (p *Plugin) Handles(a *rest.Attributes) bool {
	return (a.Operation == rest.OperationCreate || a.Operation == rest.OperationUpdate) &&
		a.Subresource == "" && a.Namespace != "" && a.Object != nil
}

// charge is what one quota was charged, to undo it.
type charge struct {
	name  string
	usage corev1.ResourceList
}

// Validate implements admission.ValidationInterface.
func (p *Plugin) Validate(ctx context.Context, a *rest.Attributes) error {
	gr := a.Resource.GroupResource()
	usage := quota.Usage(gr, a.Object)
	if a.Operation == rest.OperationUpdate {
		if a.OldObject == nil {
			return nil
		}
		usage = growth(quota.Usage(gr, a.OldObject), usage)
		if len(usage) == 0 {
			return nil
		}
	}
	quotas, err := p.Quotas.ListQuotas(ctx, a.Namespace)
	if err != nil {
		return apierrors.NewInternalError(fmt.Errorf("list resource quotas of %s: %w", a.Namespace, err))
	}
	slices.SortFunc(quotas, func(x, y *corev1.ResourceQuota) int { return strings.Compare(x.Name, y.Name) })
	forbidden := func(err error) error { return apierrors.NewForbidden(gr, a.Name, err) }
	var charged []charge
	undo := func() {
		for _, c := range charged {
			// A failed undo leaves usage too high until the quota
			// controller recounts, never too low.
			_ = p.Quotas.UpdateQuota(context.WithoutCancel(ctx), a.Namespace, c.name, func(q *corev1.ResourceQuota) error {
				q.Status.Used = merge(q.Status.Used, quota.Subtract(quota.Mask(q.Status.Used, quota.Names(c.usage)), c.usage))
				return nil
			})
		}
	}
	pod, podCreate := a.Object.(*corev1.Pod)
	podCreate = podCreate && a.Operation == rest.OperationCreate
	for _, q := range quotas {
		if !quota.Matches(q, a.Object) {
			continue
		}
		// The listed quota may be a moment stale: before the controller's
		// first status write its status.hard is empty, and spec.hard may
		// have changed since. Skip only a quota that cannot constrain the
		// object by either; decide on the fresh quota inside the
		// compare-and-swap.
		if !constrains(append(quota.Names(q.Spec.Hard), quota.Names(q.Status.Hard)...), usage, pod, podCreate) {
			continue
		}
		var requested corev1.ResourceList
		check := func(cur *corev1.ResourceQuota) error {
			requested = nil
			hard := quota.Names(cur.Status.Hard)
			if podCreate {
				if missing := quota.MissingRequirements(pod, hard); len(missing) > 0 {
					return forbidden(fmt.Errorf("failed quota: %s: must specify %s", cur.Name, strings.Join(missing, "; ")))
				}
			}
			relevant := relevantNames(hard, usage)
			if len(relevant) == 0 {
				return nil
			}
			for _, n := range relevant {
				if _, ok := cur.Status.Used[n]; !ok {
					return forbidden(fmt.Errorf("status unknown for quota: %s, resources: %s", cur.Name, joinNames(relevant, cur.Status.Used)))
				}
			}
			requested = quota.Mask(usage, relevant)
			used := quota.Mask(cur.Status.Used, relevant)
			next := quota.Add(used, requested)
			var exceeded []corev1.ResourceName
			for _, n := range relevant {
				if limit, ok := cur.Status.Hard[n]; ok && next[n].Cmp(limit) > 0 {
					exceeded = append(exceeded, n)
				}
			}
			if len(exceeded) > 0 {
				return forbidden(fmt.Errorf("exceeded quota: %s, requested: %s, used: %s, limited: %s", cur.Name,
					quota.Format(quota.Mask(requested, exceeded)), quota.Format(quota.Mask(used, exceeded)), quota.Format(quota.Mask(cur.Status.Hard, exceeded))))
			}
			cur.Status.Used = merge(cur.Status.Used, next)
			return nil
		}
		if a.DryRun {
			if err := check(q.DeepCopy()); err != nil {
				return err
			}
			continue
		}
		if err := p.Quotas.UpdateQuota(ctx, a.Namespace, q.Name, check); err != nil {
			undo()
			var status apierrors.APIStatus
			if errors.As(err, &status) {
				return err
			}
			return apierrors.NewInternalError(fmt.Errorf("charge resource quota %s/%s: %w", a.Namespace, q.Name, err))
		}
		if len(requested) == 0 {
			continue
		}
		charged = append(charged, charge{name: q.Name, usage: requested})
	}
	return nil
}

// constrains tells whether a quota limiting the resources names could
// refuse or be charged for an object of usage: it limits one of them, or
// the object is a pod to create that lacks a request or limit one of them
// requires.
func constrains(names []corev1.ResourceName, usage corev1.ResourceList, pod *corev1.Pod, podCreate bool) bool {
	return len(relevantNames(names, usage)) > 0 || podCreate && len(quota.MissingRequirements(pod, names)) > 0
}

// relevantNames are the names of hard that usage has, once each.
func relevantNames(hard []corev1.ResourceName, usage corev1.ResourceList) []corev1.ResourceName {
	var out []corev1.ResourceName
	for _, n := range hard {
		if _, ok := usage[n]; ok && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// joinNames lists the names that used lacks, comma-separated.
func joinNames(names []corev1.ResourceName, used corev1.ResourceList) string {
	var out []string
	for _, n := range names {
		if _, ok := used[n]; !ok {
			out = append(out, string(n))
		}
	}
	return strings.Join(out, ",")
}

// growth is the part of next's usage above prev's: what an update adds.
func growth(prev, next corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for n, q := range next {
		if p, ok := prev[n]; !ok || q.Cmp(p) > 0 {
			d := q.DeepCopy()
			if ok {
				d.Sub(p)
			}
			out[n] = d
		}
	}
	return out
}

// merge returns used with the amounts of update replacing its own.
func merge(used, update corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for k, v := range used {
		out[k] = v
	}
	for k, v := range update {
		out[k] = v
	}
	return out
}
