package kubelet

import (
	"context"
	"fmt"
	"time"

	"k8s.io/klog/v2"

	coordinationv1 "kubecore.io/api/coordination/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
)

// leaseLoop keeps the node's heartbeat: the Lease named after the node in
// kube-node-lease, owned by the Node, renewed every LeaseRenewInterval.
// A failed renewal is retried sooner, with back-off up to the interval.
func (kl *Kubelet) leaseLoop(ctx context.Context) {
	logger := klog.FromContext(ctx)
	var lease *coordinationv1.Lease
	retry := 200 * time.Millisecond
	for {
		next, err := kl.renewLease(ctx, lease)
		wait := kl.cfg.LeaseRenewInterval
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			logger.Error(err, "Failed to renew node lease; retrying", "after", retry)
			wait, retry = retry, min(retry*2, kl.cfg.LeaseRenewInterval)
		} else {
			if retry > 200*time.Millisecond {
				// The API was out of reach: the node lifecycle controller
				// may have marked the Node Unknown meanwhile, which the
				// kubelet would not see until its next report.
				kl.forceNodeStatusReport()
			}
			retry = 200 * time.Millisecond
		}
		lease = next
		if !sleep(ctx, kl.clock, wait) {
			return
		}
	}
}

// renewLease renews the lease last seen (nil: read or create it) with a
// PUT and returns the server's copy; after a conflict (someone else wrote
// it) or NotFound it returns nil so that the next attempt reads the
// server's state first, after another failure the copy it had.
func (kl *Kubelet) renewLease(ctx context.Context, lease *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	leases := kl.cfg.Client.CoordinationV1().Leases(corev1.NamespaceNodeLease)
	now := metav1.NewMicroTime(kl.clock.Now())
	if lease == nil {
		got, err := leases.Get(ctx, kl.cfg.NodeName, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			created, err := leases.Create(ctx, kl.newLease(now), metav1.CreateOptions{})
			if err != nil {
				return nil, fmt.Errorf("create lease %s/%s: %w", corev1.NamespaceNodeLease, kl.cfg.NodeName, err)
			}
			return created, nil
		case err != nil:
			return nil, fmt.Errorf("get lease %s/%s: %w", corev1.NamespaceNodeLease, kl.cfg.NodeName, err)
		}
		lease = got
	}
	l := lease.DeepCopy()
	l.Spec.HolderIdentity = &kl.cfg.NodeName
	l.Spec.LeaseDurationSeconds = &kl.cfg.LeaseDurationSeconds
	l.Spec.RenewTime = &now
	if owners := kl.newLease(now).OwnerReferences; owners != nil && !ownedBy(l.OwnerReferences, owners[0].UID) {
		// New, or the Node was registered again with another UID.
		l.OwnerReferences = owners
	}
	updated, err := leases.Update(ctx, l, metav1.UpdateOptions{})
	if err != nil {
		err = fmt.Errorf("update lease %s/%s: %w", corev1.NamespaceNodeLease, kl.cfg.NodeName, err)
		if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
			return nil, err
		}
		// A timeout or an overloaded server: the copy is still the
		// newest the kubelet knows, try it again without a read.
		return lease, err
	}
	klog.FromContext(ctx).V(4).Info("Node lease renewed")
	return updated, nil
}

// newLease is the node's Lease as first created; the Node owns it, so
// that deleting the Node deletes its Lease.
func (kl *Kubelet) newLease(now metav1.MicroTime) *coordinationv1.Lease {
	l := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: kl.cfg.NodeName, Namespace: corev1.NamespaceNodeLease},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity:       &kl.cfg.NodeName,
			LeaseDurationSeconds: &kl.cfg.LeaseDurationSeconds,
			RenewTime:            &now,
		},
	}
	if uid := kl.nodeUID(); uid != "" {
		l.OwnerReferences = []metav1.OwnerReference{{
			APIVersion: "v1", Kind: "Node", Name: kl.cfg.NodeName, UID: uid,
		}}
	}
	return l
}

func ownedBy(refs []metav1.OwnerReference, uid types.UID) bool {
	for _, r := range refs {
		if r.UID == uid {
			return true
		}
	}
	return false
}
