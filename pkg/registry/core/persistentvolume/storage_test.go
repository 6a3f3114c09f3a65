package persistentvolume

import (
	"context"
	"testing"

	corev1 "kubecore.io/api/core/v1"
)

func TestPrepareForCreateStartsPending(t *testing.T) {
	pv := &corev1.PersistentVolume{Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound, Reason: "x"}}
	NewStrategy().PrepareForCreate(context.Background(), pv)
	if pv.Status.Phase != corev1.VolumePending || pv.Status.Reason != "" {
		t.Errorf("status after PrepareForCreate = %+v, want only phase Pending", pv.Status)
	}
}
