package validation

import (
	"strings"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/api/resource"
)

func debugger(name string) corev1.EphemeralContainer {
	return corev1.EphemeralContainer{EphemeralContainerCommon: corev1.EphemeralContainerCommon{
		Name: name, Image: "busybox", Command: []string{"sh"}, TerminationMessagePolicy: corev1.TerminationMessageReadFile,
	}}
}

func TestValidatePodEphemeralContainersUpdate(t *testing.T) {
	withOne := validPod()
	withOne.Spec.EphemeralContainers = []corev1.EphemeralContainer{debugger("d1")}
	for _, tc := range []struct {
		name   string
		old    *corev1.Pod
		mutate func(*corev1.Pod)
		want   []string
	}{
		{"add one", validPod(), func(p *corev1.Pod) { p.Spec.EphemeralContainers = append(p.Spec.EphemeralContainers, debugger("d1")) }, nil},
		{"add a second", withOne, func(p *corev1.Pod) { p.Spec.EphemeralContainers = append(p.Spec.EphemeralContainers, debugger("d2")) }, nil},
		{"remove", withOne, func(p *corev1.Pod) { p.Spec.EphemeralContainers = nil },
			[]string{`spec.ephemeralContainers: Forbidden: existing ephemeral containers "d1" may not be removed`}},
		{"change", withOne, func(p *corev1.Pod) { p.Spec.EphemeralContainers[0].Image = "alpine" },
			[]string{`spec.ephemeralContainers[0]: Forbidden: existing ephemeral containers "d1" may not be changed`}},
		{"name of a container", validPod(), func(p *corev1.Pod) { p.Spec.EphemeralContainers = append(p.Spec.EphemeralContainers, debugger("c")) },
			[]string{`spec.ephemeralContainers[0].name: Duplicate value: "c"`}},
		{"no image", validPod(), func(p *corev1.Pod) {
			d := debugger("d1")
			d.Image = ""
			p.Spec.EphemeralContainers = append(p.Spec.EphemeralContainers, d)
		}, []string{"spec.ephemeralContainers[0].image: Required value"}},
		{"ports and probes", validPod(), func(p *corev1.Pod) {
			d := debugger("d1")
			d.Ports = []corev1.ContainerPort{{ContainerPort: 80}}
			d.ReadinessProbe = &corev1.Probe{}
			d.Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}
			p.Spec.EphemeralContainers = append(p.Spec.EphemeralContainers, d)
		}, []string{
			"spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container",
			"spec.ephemeralContainers[0].readinessProbe: Forbidden: cannot be set for an Ephemeral Container",
			"spec.ephemeralContainers[0].resources: Forbidden: cannot be set for an Ephemeral Container",
		}},
		{"unknown target", validPod(), func(p *corev1.Pod) {
			d := debugger("d1")
			d.TargetContainerName = "nope"
			p.Spec.EphemeralContainers = append(p.Spec.EphemeralContainers, d)
		}, []string{`spec.ephemeralContainers[0].targetContainerName: Not found: "nope"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.old.DeepCopy()
			tc.mutate(p)
			errs := ValidatePodEphemeralContainersUpdate(p, tc.old)
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

func TestValidatePodRefusesEphemeralContainersOnCreate(t *testing.T) {
	p := validPod()
	p.Spec.EphemeralContainers = []corev1.EphemeralContainer{debugger("d1")}
	errs := ValidatePod(p)
	if len(errs) != 1 || errs[0].Error() != "spec.ephemeralContainers: Forbidden: cannot be set on create" {
		t.Errorf("got %v", errs)
	}
}
