package volumeprotection

import (
	"slices"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/tools/cache"
)

func pod(name, node string, phase corev1.PodPhase, volumes ...corev1.Volume) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name},
		Spec: corev1.PodSpec{NodeName: node, Volumes: volumes}, Status: corev1.PodStatus{Phase: phase}}
}

func claimVolume(claim string) corev1.Volume {
	return corev1.Volume{Name: "v", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}
}

func ephemeralVolume(name string) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{}}}
}

func TestPodUsing(t *testing.T) {
	for _, tc := range []struct {
		name string
		pods []*corev1.Pod
		want string
	}{
		{"running pod", []*corev1.Pod{pod("a", "n", corev1.PodRunning, claimVolume("data"))}, "a"},
		{"other claim", []*corev1.Pod{pod("a", "n", corev1.PodRunning, claimVolume("other"))}, ""},
		{"unscheduled pod", []*corev1.Pod{pod("a", "", corev1.PodPending, claimVolume("data"))}, ""},
		{"finished pods", []*corev1.Pod{pod("a", "n", corev1.PodSucceeded, claimVolume("data")), pod("b", "n", corev1.PodFailed, claimVolume("data"))}, ""},
		{"an ephemeral volume names another claim", []*corev1.Pod{pod("web", "n", corev1.PodRunning, ephemeralVolume("scratch"))}, ""},
	} {
		if got := podUsing(tc.pods, "data"); got != tc.want {
			t.Errorf("%s: podUsing = %q, want %q", tc.name, got, tc.want)
		}
	}
	// The claim of a generic ephemeral volume is named <pod>-<volume>.
	if got := podUsing([]*corev1.Pod{pod("web", "n", corev1.PodRunning, ephemeralVolume("scratch"))}, "web-scratch"); got != "web" {
		t.Errorf("ephemeral claim: podUsing = %q, want web", got)
	}
	keys := claimKeys(pod("web", "n", corev1.PodRunning, claimVolume("data"), ephemeralVolume("scratch"),
		corev1.Volume{Name: "e", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}))
	if !slices.Equal(keys, []string{"ns/data", "ns/web-scratch"}) {
		t.Errorf("claimKeys = %q", keys)
	}
}

func TestVolumesOfAClaim(t *testing.T) {
	idx := cache.NewIndexer[*corev1.PersistentVolume]()
	for _, pv := range []*corev1.PersistentVolume{
		{ObjectMeta: metav1.ObjectMeta{Name: "named"}, Spec: corev1.PersistentVolumeSpec{ClaimRef: &corev1.ObjectReference{Namespace: "ns", Name: "data"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "referring"}, Spec: corev1.PersistentVolumeSpec{ClaimRef: &corev1.ObjectReference{Namespace: "ns", Name: "data"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "elsewhere"}, Spec: corev1.PersistentVolumeSpec{ClaimRef: &corev1.ObjectReference{Namespace: "other", Name: "data"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "free"}},
	} {
		if err := idx.Add(pv); err != nil {
			t.Fatal(err)
		}
	}
	c := &VolumeController{volumes: cache.NewLister(idx, corev1.Resource("persistentvolumes"))}
	claim := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "data"}, Spec: corev1.PersistentVolumeClaimSpec{VolumeName: "named"}}
	got := c.volumesOf(claim)
	slices.Sort(got)
	if !slices.Equal(got, []string{"named", "referring"}) {
		t.Errorf("volumesOf = %q", got)
	}
}
