package validation

import (
	"strings"
	"testing"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

func statefulSet(mutate func(*appsv1.StatefulSet)) *appsv1.StatefulSet {
	labels := map[string]string{"app": "db"}
	ss := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "default"},
		Spec: appsv1.StatefulSetSpec{
			ServiceName: "db",
			Selector:    &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyAlways,
					DNSPolicy:     corev1.DNSClusterFirst,
					Containers: []corev1.Container{{
						Name: "db", Image: "db:1", ImagePullPolicy: corev1.PullIfNotPresent,
						TerminationMessagePolicy: corev1.TerminationMessageReadFile,
						VolumeMounts:             []corev1.VolumeMount{{Name: "data", MountPath: "/data"}},
					}},
				},
			},
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{
				ObjectMeta: metav1.ObjectMeta{Name: "data"},
				Spec: corev1.PersistentVolumeClaimSpec{
					AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
				},
			}},
		},
	}
	if mutate != nil {
		mutate(ss)
	}
	return ss
}

func TestValidateStatefulSet(t *testing.T) {
	for name, tc := range map[string]struct {
		mutate func(*appsv1.StatefulSet)
		want   string // a substring of the aggregated errors; "" for valid
	}{
		"a mount may name a claim template": {nil, ""},
		"a mount of nothing is rejected": {func(ss *appsv1.StatefulSet) {
			ss.Spec.Template.Spec.Containers[0].VolumeMounts[0].Name = "nothing"
		}, `spec.template.spec.containers[0].volumeMounts[0].name: Not found: "nothing"`},
		"serviceName is required": {func(ss *appsv1.StatefulSet) { ss.Spec.ServiceName = "" }, "spec.serviceName: Required value"},
		"selector must match the template": {func(ss *appsv1.StatefulSet) {
			ss.Spec.Template.Labels = map[string]string{"app": "other"}
		}, "spec.template.metadata.labels: Invalid value"},
		"a mismatched selector is reported beside other errors": {func(ss *appsv1.StatefulSet) {
			ss.Spec.Template.Labels = map[string]string{"app": "other"}
			ss.Spec.Replicas = new(int32(-1))
		}, "spec.template.metadata.labels: Invalid value"},
	} {
		t.Run(name, func(t *testing.T) {
			err := ValidateStatefulSet(statefulSet(tc.mutate)).ToAggregate()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("want valid, got %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
