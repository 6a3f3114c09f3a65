package pod

import (
	"testing"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// TestUpdateReplacingTolerationsKeepsDefaults: an update whose
// tolerations replace the pod's (the e2e "Pod Generation" spec sets one
// of its own) gets the default not-ready and unreachable tolerations back,
// as from Kubernetes' DefaultTolerationSeconds admission on updates, so it
// only adds tolerations: accepted, and the generation goes up.
func TestUpdateReplacingTolerationsKeepsDefaults(t *testing.T) {
	ctx := t.Context()
	s := NewStrategy()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"},
		Spec: corev1.PodSpec{
			Containers:    []corev1.Container{{Name: "c", Image: "busybox"}},
			RestartPolicy: corev1.RestartPolicyAlways, DNSPolicy: corev1.DNSClusterFirst,
		},
	}
	s.PrepareForCreate(ctx, pod)
	pod.ResourceVersion, pod.Generation = "5", 1
	upd := pod.DeepCopy()
	upd.Spec.Tolerations = []corev1.Toleration{{Key: "foo", Operator: corev1.TolerationOpEqual, Value: "bar", Effect: corev1.TaintEffectNoSchedule}}
	s.PrepareForUpdate(ctx, upd, pod)
	if errs := s.ValidateUpdate(ctx, upd, pod); len(errs) != 0 {
		t.Fatalf("update replacing the tolerations: %v", errs)
	}
	if len(upd.Spec.Tolerations) != 3 || upd.Generation != 2 {
		t.Errorf("tolerations %+v, generation %d", upd.Spec.Tolerations, upd.Generation)
	}
}
