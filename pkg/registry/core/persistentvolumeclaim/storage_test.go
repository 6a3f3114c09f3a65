package persistentvolumeclaim

import (
	"context"
	"testing"

	corev1 "kubecore.io/api/core/v1"
)

func TestPrepareForCreateStartsPending(t *testing.T) {
	pvc := &corev1.PersistentVolumeClaim{Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, Capacity: corev1.ResourceList{}}}
	NewStrategy().PrepareForCreate(context.Background(), pvc)
	if pvc.Status.Phase != corev1.ClaimPending || pvc.Status.Capacity != nil {
		t.Errorf("status after PrepareForCreate = %+v, want only phase Pending", pvc.Status)
	}
}
