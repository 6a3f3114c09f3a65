package kubelet

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/rest"
	"kubecore.io/client/typed"
)

func refPod(uid string, cms ...string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: uid, UID: types.UID(uid)},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}}
	for _, cm := range cms {
		p.Spec.Containers[0].EnvFrom = append(p.Spec.Containers[0].EnvFrom, corev1.EnvFromSource{
			ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm}}})
	}
	return p
}

func TestPodObjects(t *testing.T) {
	ref := func(n string) corev1.LocalObjectReference { return corev1.LocalObjectReference{Name: n} }
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns"}, Spec: corev1.PodSpec{
		Volumes: []corev1.Volume{
			{Name: "a", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: ref("cm-vol")}}},
			{Name: "b", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s-vol"}}},
			{Name: "c", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
				{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: ref("kube-root-ca.crt")}},
				{Secret: &corev1.SecretProjection{LocalObjectReference: ref("s-proj")}},
				{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token"}},
			}}}},
			{Name: "d", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		},
		InitContainers: []corev1.Container{{Name: "i", Env: []corev1.EnvVar{{Name: "X", ValueFrom: &corev1.EnvVarSource{
			SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: ref("s-env"), Key: "k"}}}}}},
		Containers: []corev1.Container{{Name: "c",
			EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: ref("cm-vol")}}},
			Env: []corev1.EnvVar{{Name: "Y", ValueFrom: &corev1.EnvVarSource{
				ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: ref("cm-env"), Key: "k"}}}}}},
	}}
	got := podObjects(p)
	want := []objectKey{
		{kindConfigMap, "ns", "cm-vol"}, {kindSecret, "ns", "s-vol"}, {kindConfigMap, "ns", "kube-root-ca.crt"},
		{kindSecret, "ns", "s-proj"}, {kindSecret, "ns", "s-env"}, {kindConfigMap, "ns", "cm-env"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("podObjects = %v, want %v", got, want)
	}
}

// TestObjectWatcherReferences: an object is watched once however many pods
// refer to it, and no longer once none does.
func TestObjectWatcherReferences(t *testing.T) {
	cs, err := typed.NewForConfig(&rest.Config{Host: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	w := NewObjectWatcher(cs) // not Run: no watch starts
	w.RegisterPod(refPod("a", "shared", "only-a"))
	w.RegisterPod(refPod("b", "shared"))
	w.RegisterPod(refPod("b", "shared")) // the same version again
	if n := w.Watches(); n != 2 {
		t.Fatalf("watches = %d, want 2", n)
	}
	w.RegisterPod(refPod("a", "shared")) // a new version without only-a
	if n := w.Watches(); n != 1 {
		t.Fatalf("after pod a dropped a reference: watches = %d, want 1", n)
	}
	w.UnregisterPod("a")
	if n := w.Watches(); n != 1 {
		t.Fatalf("pod b still refers to shared: watches = %d, want 1", n)
	}
	w.UnregisterPod("b")
	w.UnregisterPod("b")
	if n := w.Watches(); n != 0 {
		t.Fatalf("no pod left: watches = %d, want 0", n)
	}
	if _, err := w.ConfigMap(t.Context(), "ns", "shared"); err == nil {
		t.Error("read of an object no pod refers to succeeded")
	}
}

func TestNodeStatusPatch(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	old := &corev1.Node{Status: corev1.NodeStatus{
		Capacity:  corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")},
		Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.1"}},
		Conditions: []corev1.NodeCondition{
			{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: t0, LastTransitionTime: t0},
			{Type: corev1.NodeNetworkUnavailable, Status: corev1.ConditionFalse},
		},
	}}
	want := []conditionSpec{{corev1.NodeReady, corev1.ConditionFalse, reasonKubeletNotReady, "down"}}
	updated := old.DeepCopy()
	updated.Status.Capacity = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4000m")} // the same
	updated.Status.Conditions = nodeConditions(want, old.Status.Conditions, t0.Add(time.Minute))
	b, err := nodeStatusPatch(old, updated, want)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Status map[string]json.RawMessage `json:"status"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Status) != 1 {
		t.Fatalf("patch %s: want only conditions", b)
	}
	var conds []corev1.NodeCondition
	if err := json.Unmarshal(got.Status["conditions"], &conds); err != nil {
		t.Fatal(err)
	}
	if len(conds) != 1 || conds[0].Type != corev1.NodeReady || conds[0].Status != corev1.ConditionFalse {
		t.Errorf("patch conditions %+v: want Ready=False alone (NetworkUnavailable is not the kubelet's)", conds)
	}

	updated.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.2"}}
	if b, err = nodeStatusPatch(old, updated, want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if _, ok := got.Status["addresses"]; !ok {
		t.Errorf("patch %s: want the changed addresses", b)
	}
}

func TestNeedsReportIgnoresHeartbeat(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	want := []conditionSpec{{corev1.NodeReady, corev1.ConditionTrue, reasonKubeletReady, "ok"}}
	s := nodeStatusState{reported: want, reportedAt: now}
	if s.needsReport(slices.Clone(want), now.Add(4*time.Minute), 5*time.Minute) {
		t.Error("unchanged conditions reported before the report frequency")
	}
	if !s.needsReport(want, now.Add(5*time.Minute), 5*time.Minute) {
		t.Error("not reported after the report frequency")
	}
	changed := []conditionSpec{{corev1.NodeReady, corev1.ConditionFalse, reasonKubeletNotReady, "down"}}
	if !s.needsReport(changed, now.Add(time.Second), 5*time.Minute) {
		t.Error("a changed condition was not reported at once")
	}
}
