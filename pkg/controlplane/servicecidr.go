package controlplane

import (
	"context"
	"fmt"
	"slices"
	"time"

	networkingv1 "kubecore.io/api/networking/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// DefaultServiceCIDRName names the ServiceCIDR the API server makes from
// its service-cluster-ip-range.
const DefaultServiceCIDRName = "kubernetes"

// builtNetworking hands the IPAddress and ServiceCIDR storage to the
// ClusterIP allocator and keeps the ServiceCIDR storage for the default
// range.
func (in *Instance) builtNetworking(rs strategy.Resources) {
	in.serviceCIDRs = storeOf(rs, "servicecidrs")
	in.services.SetNetworkingStores(storeOf(rs, "ipaddresses"), in.serviceCIDRs)
	in.serviceCIDRStatus, _ = rs["servicecidrs/status"].(*strategy.StatusREST)
}

// ReconcileServiceCIDR creates the ServiceCIDR "kubernetes" holding the
// services' range, when missing, and keeps its Ready condition true.
func (in *Instance) ReconcileServiceCIDR(ctx context.Context) error {
	if in.serviceCIDRs == nil || in.serviceCIDRStatus == nil || in.services == nil {
		return nil
	}
	want := &networkingv1.ServiceCIDR{
		ObjectMeta: metav1.ObjectMeta{Name: DefaultServiceCIDRName},
		Spec:       networkingv1.ServiceCIDRSpec{CIDRs: []string{in.services.ServiceCIDR()}},
	}
	obj, err := in.serviceCIDRs.Get(ctx, want.Name, &metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		obj, err = in.serviceCIDRs.Create(ctx, want, nil, &metav1.CreateOptions{})
	}
	if err != nil {
		return fmt.Errorf("reconcile ServiceCIDR %s: %w", want.Name, err)
	}
	cur, ok := obj.(*networkingv1.ServiceCIDR)
	if !ok {
		return fmt.Errorf("reconcile ServiceCIDR %s: storage returned %T", want.Name, obj)
	}
	if i := slices.IndexFunc(cur.Status.Conditions, func(c metav1.Condition) bool { return c.Type == networkingv1.ServiceCIDRConditionReady }); i >= 0 && cur.Status.Conditions[i].Status == metav1.ConditionTrue {
		return nil
	}
	cur = cur.DeepCopy()
	ready := metav1.Condition{
		Type: networkingv1.ServiceCIDRConditionReady, Status: metav1.ConditionTrue,
		Reason: "Ready", Message: "Kubernetes Service CIDR is ready", LastTransitionTime: metav1.NewTime(time.Now().Truncate(time.Second)),
	}
	cur.Status.Conditions = slices.DeleteFunc(cur.Status.Conditions, func(c metav1.Condition) bool { return c.Type == ready.Type })
	cur.Status.Conditions = append(cur.Status.Conditions, ready)
	if _, _, err := in.serviceCIDRStatus.Update(ctx, cur.Name, replaceWith{cur}, nil, nil, false, &metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("mark ServiceCIDR %s ready: %w", cur.Name, err)
	}
	return nil
}

// RepairServiceAllocations runs the repair of the ClusterIP and node
// port allocations.
func (in *Instance) RepairServiceAllocations(ctx context.Context) error {
	if in.services == nil {
		return nil
	}
	return in.services.Repair(ctx, time.Now())
}
