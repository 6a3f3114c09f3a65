package validation

import (
	"strings"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

func validPod() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default", ResourceVersion: "1"},
		Spec: corev1.PodSpec{
			Containers:    []corev1.Container{{Name: "c", Image: "nginx"}},
			RestartPolicy: corev1.RestartPolicyAlways,
			DNSPolicy:     corev1.DNSClusterFirst,
		},
	}
}

func TestValidatePod(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*corev1.Pod)
		want   []string
	}{
		{"valid", func(*corev1.Pod) {}, nil},
		{"no containers", func(p *corev1.Pod) { p.Spec.Containers = nil }, []string{"spec.containers: Required value"}},
		{"no image", func(p *corev1.Pod) { p.Spec.Containers[0].Image = "" }, []string{"spec.containers[0].image: Required value"}},
		{"duplicate name", func(p *corev1.Pod) { p.Spec.Containers = append(p.Spec.Containers, p.Spec.Containers[0]) }, []string{`spec.containers[1].name: Duplicate value: "c"`}},
		{"bad restart", func(p *corev1.Pod) { p.Spec.RestartPolicy = "Sometimes" }, []string{`spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"`}},
		{"bad port", func(p *corev1.Pod) {
			p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 70000, Protocol: "TCP"}}
		}, []string{"spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive"}},
		{"request over limit", func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources = corev1.ResourceRequirements{
				Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")},
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")},
			}
		}, []string{`spec.containers[0].resources.requests[cpu]: Invalid value: "2": must be less than or equal to cpu limit of 1`}},
		// The e2e "Sysctls should reject invalid sysctls": malformed names
		// only; whether a sysctl is allowed is the kubelet's decision.
		{"sysctls", func(p *corev1.Pod) {
			p.Spec.SecurityContext = &corev1.PodSecurityContext{Sysctls: []corev1.Sysctl{
				{Name: "foo-", Value: "bar"}, {Name: "kernel.shmmax", Value: "100000000"}, {Name: "safe-and-unsafe", Value: "1"},
				{Name: "bar..", Value: "42"}, {Name: "net/ipv4/conf/eth0.100/forwarding", Value: "1"}, {Name: "kernel.shmmax", Value: "1"},
			}}
		}, []string{
			`spec.securityContext.sysctls[0].name: Invalid value: "foo-": must have at most 253 characters and match regex ^` + sysctlNameFmt + `$`,
			`spec.securityContext.sysctls[3].name: Invalid value: "bar..": must have at most 253 characters and match regex ^` + sysctlNameFmt + `$`,
			`spec.securityContext.sysctls[5].name: Duplicate value: "kernel.shmmax"`,
		}},
		{"subPath and subPathExpr", func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
			p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{
				{Name: "v", MountPath: "/a", SubPath: "x", SubPathExpr: "$(POD_NAME)"},
				{Name: "v", MountPath: "/b", SubPath: "/etc"},
				{Name: "v", MountPath: "/c", SubPathExpr: "a/../$(X)"},
				{Name: "v", MountPath: "/d", SubPath: "a..b/c", SubPathExpr: ""},
			}
		}, []string{
			`spec.containers[0].volumeMounts[0].subPathExpr: Invalid value: "$(POD_NAME)": subPathExpr and subPath are mutually exclusive`,
			`spec.containers[0].volumeMounts[1].subPath: Invalid value: "/etc": must be a relative path`,
			`spec.containers[0].volumeMounts[2].subPathExpr: Invalid value: "a/../$(X)": must not contain '..'`,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := validPod()
			tc.mutate(p)
			errs := ValidatePod(p)
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestValidatePodUpdate(t *testing.T) {
	old := validPod()
	img := validPod()
	img.Spec.Containers[0].Image = "nginx:2"
	if errs := ValidatePodUpdate(img, old); len(errs) != 0 {
		t.Errorf("image update refused: %v", errs)
	}
	node := validPod()
	node.Spec.RestartPolicy = corev1.RestartPolicyNever
	errs := ValidatePodUpdate(node, old)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "spec: Forbidden: pod updates may not change fields other than") {
		t.Errorf("restartPolicy update: %v", errs)
	}
}
