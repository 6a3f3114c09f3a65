package validation

import (
	"strings"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

func resizePod() *corev1.Pod {
	always := corev1.ContainerRestartPolicyAlways
	res := func(cpu, mem string) corev1.ResourceRequirements {
		return corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)},
			Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)},
		}
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", ResourceVersion: "1"},
		Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyAlways, DNSPolicy: corev1.DNSClusterFirst,
			InitContainers: []corev1.Container{
				{Name: "init", Image: "busybox", Resources: res("10m", "10Mi")},
				{Name: "sidecar", Image: "busybox", RestartPolicy: &always, Resources: res("10m", "10Mi")},
			},
			Containers: []corev1.Container{{Name: "main", Image: "busybox", Resources: res("20m", "20Mi")}},
		},
		Status: corev1.PodStatus{QOSClass: corev1.PodQOSGuaranteed},
	}
}

// TestValidatePodResize: the cpu and memory of app and sidecar
// containers change; anything else is refused with Kubernetes' message.
func TestValidatePodResize(t *testing.T) {
	setCPU := func(c *corev1.Container, v string) {
		c.Resources.Requests[corev1.ResourceCPU] = resource.MustParse(v)
		c.Resources.Limits[corev1.ResourceCPU] = resource.MustParse(v)
	}
	for _, tc := range []struct {
		name   string
		change func(p *corev1.Pod)
		want   string // "" for valid
	}{
		{"app container cpu", func(p *corev1.Pod) { setCPU(&p.Spec.Containers[0], "30m") }, ""},
		{"sidecar cpu", func(p *corev1.Pod) { setCPU(&p.Spec.InitContainers[1], "30m") }, ""},
		{"init container cpu", func(p *corev1.Pod) { setCPU(&p.Spec.InitContainers[0], "30m") }, "resources for non-sidecar init containers are immutable"},
		{"qos", func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("10m")
		}, "Pod QOS Class may not change as a result of resizing"},
		{"extended resource", func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources.Limits["example.com/gpu"] = resource.MustParse("1")
		}, "only cpu and memory resources are mutable"},
		{"renamed", func(p *corev1.Pod) { p.Spec.Containers[0].Name = "other" }, "containers may not be renamed or reordered on resize"},
		{"static pod", func(p *corev1.Pod) { p.Annotations = map[string]string{mirrorPodAnnotation: "x"} }, "static pods cannot be resized"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := resizePod()
			if tc.name == "static pod" {
				old.Annotations = map[string]string{mirrorPodAnnotation: "x"}
			}
			pod := old.DeepCopy()
			tc.change(pod)
			errs := ValidatePodResize(pod, old)
			switch {
			case tc.want == "" && len(errs) > 0:
				t.Errorf("refused: %v", errs)
			case tc.want != "" && !strings.Contains(errs.ToAggregate().Error(), tc.want):
				t.Errorf("errors %v, want %q", errs, tc.want)
			}
		})
	}
}
