package kubelet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
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

// TestSubPathExpr: a volume mount's subPathExpr is expanded with the
// container's environment; a reference to an unset or empty variable,
// or an expansion leaving the volume, is a configuration error.
func TestSubPathExpr(t *testing.T) {
	vol := t.TempDir()
	dirs := volumeDirs{"work": {path: vol}}
	env := []kruntime.KeyValue{{Key: "POD_NAME", Value: "p-1"}, {Key: "ANNOTATION", Value: "mypath"}, {Key: "UP", Value: ".."}, {Key: "ABS", Value: "/tmp"}, {Key: "EMPTY"}}
	for _, tc := range []struct {
		expr, want, wantErr string
	}{
		{expr: "$(ANNOTATION)/$(POD_NAME)", want: "mypath/p-1"},
		{expr: "logs-$(POD_NAME)", want: "logs-p-1"},
		{expr: "$(MISSING)/$(EMPTY)/$(POD_NAME)", wantErr: "missing value for EMPTY, MISSING"},
		{expr: "$(UP)", wantErr: "must be a relative path within the volume"},
		{expr: "$(ABS)", wantErr: "must be a relative path within the volume"},
	} {
		c := &corev1.Container{Name: "c", VolumeMounts: []corev1.VolumeMount{{Name: "work", MountPath: "/m", SubPathExpr: tc.expr}}}
		got, err := dirs.mounts(c, env)
		switch {
		case tc.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: mounts = %+v, %v; want an error with %q", tc.expr, got, err, tc.wantErr)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.expr, err)
		default:
			want := filepath.Join(vol, tc.want)
			if len(got) != 1 || got[0].HostPath != want {
				t.Errorf("%s: mounts = %+v, want %s", tc.expr, got, want)
			}
			if fi, err := os.Stat(want); err != nil || !fi.IsDir() {
				t.Errorf("%s: the subpath directory was not made: %v", tc.expr, err)
			}
		}
	}
}
