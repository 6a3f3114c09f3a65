package kubelet

import (
	"os"
	"strings"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// TestRunAsUser: under the process runtime a container runs as its
// security context says: the container's runAsUser over the pod's, the
// pod's runAsGroup, its supplementalGroups and fsGroup as supplemental
// groups; a container that sets none runs as the kubelet's user (root).
// A non-root container can write to an emptyDir (mode 0777). The
// upstream Security Context and non-root EmptyDir specs check these with
// id and stat.
func TestRunAsUser(t *testing.T) {
	e := newEnv(t, "process")
	podUser, containerUser, group, supplemental, fsGroup := int64(1000), int64(1001), int64(2002), int64(3003), int64(4004)
	e.pod("ids", `[ "$(id -u)" = 1001 ] && [ "$(id -g)" = 2002 ] && [ "$(id -G)" = "2002 3003 4004" ] || { id; exit 1; }`, func(p *corev1.Pod) {
		p.Spec.RestartPolicy = corev1.RestartPolicyNever
		p.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsUser: &podUser, RunAsGroup: &group, SupplementalGroups: []int64{supplemental}, FSGroup: &fsGroup}
		p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{RunAsUser: &containerUser}
	})
	e.pod("root", `[ "$(id -u)" = 0 ] || { id; exit 1; }`, func(p *corev1.Pod) { p.Spec.RestartPolicy = corev1.RestartPolicyNever })
	// An emptyDir is writable by any user: mode 0777.
	e.pod("emptydir", `[ "$(stat -c %a /scratch)" = 777 ] && echo hi > /scratch/f || { ls -ld /scratch; exit 1; }`, func(p *corev1.Pod) {
		p.Spec.RestartPolicy = corev1.RestartPolicyNever
		p.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsUser: &containerUser}
		p.Spec.Volumes = []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
		p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "scratch", MountPath: "/scratch"}}
	})
	for _, name := range []string{"ids", "root", "emptydir"} {
		p := e.waitFor(name, 60*time.Second, "finished", func(p *corev1.Pod) bool {
			return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
		})
		if p.Status.Phase != corev1.PodSucceeded {
			t.Errorf("pod %s failed (another user, or an unwritable emptyDir): %s", name, describe(p))
		}
	}
}

// TestMemoryEmptyDir: an emptyDir of medium Memory is a tmpfs of mode
// 0777 in the container, and is unmounted once the pod is gone.
func TestMemoryEmptyDir(t *testing.T) {
	e := newEnv(t, "process")
	e.pod("mem", `[ "$(stat -f -c %T /mem)" = tmpfs ] && [ "$(stat -c %a /mem)" = 777 ] || { stat -f /mem; ls -ld /mem; exit 1; }`, func(p *corev1.Pod) {
		p.Spec.RestartPolicy = corev1.RestartPolicyNever
		p.Spec.Volumes = []corev1.Volume{{Name: "mem", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}}}}
		p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "mem", MountPath: "/mem"}}
	})
	p := e.waitFor("mem", 60*time.Second, "finished", func(p *corev1.Pod) bool {
		return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
	})
	if p.Status.Phase != corev1.PodSucceeded {
		t.Fatalf("the emptyDir is no tmpfs of mode 0777: %s", describe(p))
	}
	if !tmpfsUnder(t, e.rootDir) {
		t.Errorf("no tmpfs under the kubelet's root dir while the pod exists")
	}
	zero := int64(0)
	if err := e.cs.CoreV1().Pods(e.ns).Delete(e.ctx, "mem", metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatal(err)
	}
	e.waitGone("mem", 30*time.Second)
	// The kubelet cleans up after the API object is gone.
	deadline := time.Now().Add(30 * time.Second)
	for tmpfsUnder(t, e.rootDir) {
		if time.Now().After(deadline) {
			t.Fatalf("the pod's tmpfs is still mounted 30s after the pod is gone")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// tmpfsUnder tells whether a tmpfs is mounted under dir.
func tmpfsUnder(t *testing.T, dir string) bool {
	t.Helper()
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) > 4 && strings.HasPrefix(f[4], dir+"/") && strings.Contains(line, " - tmpfs ") {
			return true
		}
	}
	return false
}
