package kubelet

import (
	"strings"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

func TestPodHostname(t *testing.T) {
	long := strings.Repeat("a", 60) + "-b.c-d"
	for _, tc := range []struct {
		name     string
		pod      corev1.Pod
		hostname string
	}{
		{"the pod's name", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-7f9c"}}, "web-7f9c"},
		{"spec.hostname first", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-7f9c"}, Spec: corev1.PodSpec{Hostname: "web", Subdomain: "svc"}}, "web"},
		{"cut to 63 without a trailing dash or dot", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: long}}, strings.Repeat("a", 60) + "-b"},
		{"the node's on the host network", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: corev1.PodSpec{HostNetwork: true}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := podHostname(&tc.pod); got != tc.hostname {
				t.Errorf("podHostname = %q, want %q", got, tc.hostname)
			}
		})
	}
}
