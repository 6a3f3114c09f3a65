package helper

import (
	"testing"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

func TestDefaultServiceAccount(t *testing.T) {
	tests := []struct {
		name         string
		pod          corev1.Pod
		wantSA       string
		wantLegacySA string
	}{
		{"none named", corev1.Pod{}, "default", "default"},
		{"named", corev1.Pod{Spec: corev1.PodSpec{ServiceAccountName: "robot"}}, "robot", "robot"},
		{"only the deprecated field", corev1.Pod{Spec: corev1.PodSpec{DeprecatedServiceAccount: "old"}}, "old", "old"},
		{"mirror pod", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"kubernetes.io/config.mirror": "x"}}}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.pod.DeepCopy()
			DefaultServiceAccount(p)
			if p.Spec.ServiceAccountName != tt.wantSA || p.Spec.DeprecatedServiceAccount != tt.wantLegacySA {
				t.Errorf("serviceAccountName %q serviceAccount %q, want %q %q", p.Spec.ServiceAccountName, p.Spec.DeprecatedServiceAccount, tt.wantSA, tt.wantLegacySA)
			}
		})
	}
}
