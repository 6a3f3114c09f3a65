package pod

import (
	"testing"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// TestEphemeralContainersStrategy: an update of pods/ephemeralcontainers
// takes only the ephemeral containers (and the resourceVersion) from the
// request, bumps the generation when they changed, and validates that
// they were only added.
func TestEphemeralContainersStrategy(t *testing.T) {
	ctx := t.Context()
	old := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", ResourceVersion: "5", Generation: 1, Labels: map[string]string{"a": "b"}},
		Spec: corev1.PodSpec{
			Containers:    []corev1.Container{{Name: "c", Image: "busybox"}},
			RestartPolicy: corev1.RestartPolicyAlways, DNSPolicy: corev1.DNSClusterFirst,
		},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
	s := ephemeralContainersStrategy{}
	upd := old.DeepCopy()
	upd.Labels = map[string]string{"changed": "yes"}
	upd.Spec.Containers[0].Image = "alpine"
	upd.Status.Phase = corev1.PodFailed
	upd.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "d", Image: "busybox"}, TargetContainerName: "c"}}
	s.PrepareForUpdate(ctx, upd, old)
	if upd.Labels["a"] != "b" || upd.Spec.Containers[0].Image != "busybox" || upd.Status.Phase != corev1.PodRunning {
		t.Errorf("the update changed more than the ephemeral containers: %+v", upd)
	}
	if len(upd.Spec.EphemeralContainers) != 1 || upd.Generation != 2 || upd.ResourceVersion != "5" {
		t.Errorf("ephemeral containers %v, generation %d, resourceVersion %q", upd.Spec.EphemeralContainers, upd.Generation, upd.ResourceVersion)
	}
	if errs := s.ValidateUpdate(ctx, upd, old); len(errs) != 0 {
		t.Errorf("adding an ephemeral container: %v", errs)
	}

	same := upd.DeepCopy()
	s.PrepareForUpdate(ctx, same, upd)
	if same.Generation != 2 {
		t.Errorf("an update changing nothing bumped the generation to %d", same.Generation)
	}
	removed := upd.DeepCopy()
	removed.Spec.EphemeralContainers = nil
	s.PrepareForUpdate(ctx, removed, upd)
	errs := s.ValidateUpdate(ctx, removed, upd)
	if len(errs) != 1 || errs[0].Error() != `spec.ephemeralContainers: Forbidden: existing ephemeral containers "d" may not be removed` {
		t.Errorf("removing an ephemeral container: %v", errs)
	}
}
