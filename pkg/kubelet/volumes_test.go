package kubelet

import (
	"testing"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// TestDownwardAPIResourceFiles: a downwardAPI volume item may name a
// container's limit or request (resourceFieldRef) as well as a pod field;
// a limit the container does not set is the node's allocatable, values
// are rounded up to the divisor.
func TestDownwardAPIResourceFiles(t *testing.T) {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "c",
			Resources: corev1.ResourceRequirements{
				Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1250m")},
				Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("32Mi")},
			},
		}}},
	}
	allocatable := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("1Gi")}
	ref := func(path, res, divisor string) corev1.DownwardAPIVolumeFile {
		f := corev1.DownwardAPIVolumeFile{Path: path, ResourceFieldRef: &corev1.ResourceFieldSelector{ContainerName: "c", Resource: res}}
		if divisor != "" {
			f.ResourceFieldRef.Divisor = resource.MustParse(divisor)
		}
		return f
	}
	items := []corev1.DownwardAPIVolumeFile{
		{Path: "name", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}},
		ref("cpu_limit", "limits.cpu", ""),
		ref("cpu_limit_milli", "limits.cpu", "1m"),
		ref("memory_limit", "limits.memory", ""),
		ref("memory_request", "requests.memory", "1Mi"),
	}
	files, err := downwardAPIFiles(pod, items, podIPs{}, allocatable)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"name": "p", "cpu_limit": "2", "cpu_limit_milli": "1250", "memory_limit": "1073741824", "memory_request": "32"}
	for path, v := range want {
		if got := string(files[path].data); got != v {
			t.Errorf("%s = %q, want %q", path, got, v)
		}
	}
	bad := ref("x", "limits.cpu", "")
	bad.ResourceFieldRef.ContainerName = "nope"
	if _, err := downwardAPIFiles(pod, []corev1.DownwardAPIVolumeFile{bad}, podIPs{}, allocatable); err == nil {
		t.Error("an item naming no container of the pod was accepted")
	}
}
