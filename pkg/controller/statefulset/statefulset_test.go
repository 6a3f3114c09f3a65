package statefulset

import (
	"fmt"
	"testing"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/tools/record"
)

func testSet(replicas int32) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: "set-uid", Generation: 3},
		Spec: appsv1.StatefulSetSpec{
			Replicas:    &replicas,
			ServiceName: "svc",
			Selector:    &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{Name: "c", Image: "img:1"}},
					Volumes:    []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
				},
			},
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data"}}},
			UpdateStrategy:       appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType},
		},
	}
}

func TestOrdinalOf(t *testing.T) {
	set := testSet(1)
	tests := []struct {
		name string
		ord  int
		ok   bool
	}{
		{"web-0", 0, true}, {"web-12", 12, true}, {"web-01", 0, false}, {"web-", 0, false},
		{"web-x", 0, false}, {"webs-1", 0, false}, {"web-1-2", 0, false}, {"web--1", 0, false},
	}
	for _, tt := range tests {
		ord, ok := ordinalOf(set, tt.name)
		if ord != tt.ord || ok != tt.ok {
			t.Errorf("ordinalOf(%q) = %d, %v; want %d, %v", tt.name, ord, ok, tt.ord, tt.ok)
		}
	}
}

func TestNewPod(t *testing.T) {
	set := testSet(3)
	pod, err := newPod(set, &set.Spec.Template, "web-abc", 2)
	if err != nil {
		t.Fatal(err)
	}
	if pod.Name != "web-2" || pod.GenerateName != "" || pod.Spec.Hostname != "web-2" || pod.Spec.Subdomain != "svc" {
		t.Errorf("identity: name %q generateName %q hostname %q subdomain %q", pod.Name, pod.GenerateName, pod.Spec.Hostname, pod.Spec.Subdomain)
	}
	want := map[string]string{"app": "web", appsv1.StatefulSetPodNameLabel: "web-2", appsv1.PodIndexLabel: "2", appsv1.ControllerRevisionHashLabelKey: "web-abc"}
	if fmt.Sprint(pod.Labels) != fmt.Sprint(want) {
		t.Errorf("labels %v, want %v", pod.Labels, want)
	}
	if len(pod.Spec.Volumes) != 1 || pod.Spec.Volumes[0].PersistentVolumeClaim == nil || pod.Spec.Volumes[0].PersistentVolumeClaim.ClaimName != "data-web-2" {
		t.Errorf("volumes %+v, want the template's volume replaced by claim data-web-2", pod.Spec.Volumes)
	}
	if ref := metav1.GetControllerOf(pod); ref == nil || ref.UID != set.UID || ref.Kind != "StatefulSet" {
		t.Errorf("controller ref %+v", ref)
	}
	if set.Spec.Template.Labels[appsv1.PodIndexLabel] != "" || set.Spec.Template.Spec.Volumes[0].EmptyDir == nil {
		t.Error("newPod changed the set's template")
	}
}

func TestSlotsAndVersions(t *testing.T) {
	set := testSet(3)
	var pods []*corev1.Pod
	for _, n := range []string{"web-4", "web-0", "web-2", "web-3", "other-1"} {
		pods = append(pods, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: n}})
	}
	replicas, condemned := slots(set, pods)
	if len(replicas) != 3 || replicas[0].Name != "web-0" || replicas[1] != nil || replicas[2].Name != "web-2" {
		t.Errorf("replicas %v", replicas)
	}
	if len(condemned) != 2 || condemned[0].Name != "web-4" || condemned[1].Name != "web-3" {
		t.Errorf("condemned %v, want web-4 web-3", condemned)
	}
	cur, upd := &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: "cur"}}, &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: "upd"}}
	p := int32(2)
	set.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{Partition: &p}
	for i, want := range []string{"cur", "cur", "upd"} {
		if got := versionFor(set, i, cur, upd).Name; got != want {
			t.Errorf("versionFor(%d) = %s, want %s", i, got, want)
		}
	}
	set.Spec.UpdateStrategy.Type = appsv1.OnDeleteStatefulSetStrategyType
	if got := versionFor(set, 0, cur, upd).Name; got != "upd" {
		t.Errorf("OnDelete versionFor(0) = %s, want upd", got)
	}
}

func readyPod(name, rev string, ready bool, readySince time.Time) *corev1.Pod {
	st := corev1.ConditionFalse
	if ready {
		st = corev1.ConditionTrue
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{appsv1.ControllerRevisionHashLabelKey: rev}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{
			{Type: corev1.PodReady, Status: st, LastTransitionTime: metav1.NewTime(readySince)},
		}},
	}
}

func TestComputeStatus(t *testing.T) {
	now := time.Unix(1000, 0)
	cur, upd := &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: "cur"}}, &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: "upd"}}
	tests := []struct {
		name    string
		pods    []*corev1.Pod
		minRS   int32
		want    string // replicas ready available current updated currentRevision
		minWait bool
	}{
		{"mid rollout", []*corev1.Pod{readyPod("web-0", "cur", true, now), readyPod("web-1", "upd", false, now), readyPod("web-2", "upd", true, now)},
			0, "3 2 2 1 2 cur", false},
		{"rollout done", []*corev1.Pod{readyPod("web-0", "upd", true, now), readyPod("web-1", "upd", true, now), readyPod("web-2", "upd", true, now)},
			0, "3 3 3 3 3 upd", false},
		{"min ready seconds", []*corev1.Pod{readyPod("web-0", "cur", true, now.Add(-time.Minute)), readyPod("web-1", "cur", true, now.Add(-time.Second)), {ObjectMeta: metav1.ObjectMeta{Name: "web-2"}}},
			10, "2 2 1 2 0 cur", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := testSet(3)
			set.Spec.MinReadySeconds = tt.minRS
			st := computeStatus(set, tt.pods, cur, upd, 0, now)
			got := fmt.Sprintf("%d %d %d %d %d %s", st.Replicas, st.ReadyReplicas, st.AvailableReplicas, st.CurrentReplicas, st.UpdatedReplicas, st.CurrentRevision)
			if got != tt.want || st.UpdateRevision != "upd" || st.ObservedGeneration != 3 {
				t.Errorf("status %s (update %s, generation %d), want %s", got, st.UpdateRevision, st.ObservedGeneration, tt.want)
			}
			c := &Controller{recorder: record.OrDiscard(nil), now: func() time.Time { return now }}
			if wait := c.nextAvailable(set, tt.pods); (wait > 0) != tt.minWait {
				t.Errorf("nextAvailable = %v", wait)
			}
		})
	}
}

func TestDesiredClaimOwners(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-3", UID: "pod-uid"}}
	other := metav1.OwnerReference{Kind: "Other", UID: "other"}
	tests := []struct {
		deleted, scaled appsv1.PersistentVolumeClaimRetentionPolicyType
		condemned       bool
		want            string
	}{
		{appsv1.RetainPersistentVolumeClaimRetentionPolicyType, appsv1.RetainPersistentVolumeClaimRetentionPolicyType, true, "[other]"},
		{appsv1.DeletePersistentVolumeClaimRetentionPolicyType, appsv1.RetainPersistentVolumeClaimRetentionPolicyType, false, "[other set-uid]"},
		{appsv1.RetainPersistentVolumeClaimRetentionPolicyType, appsv1.DeletePersistentVolumeClaimRetentionPolicyType, false, "[other]"},
		{appsv1.RetainPersistentVolumeClaimRetentionPolicyType, appsv1.DeletePersistentVolumeClaimRetentionPolicyType, true, "[other pod-uid]"},
		{appsv1.DeletePersistentVolumeClaimRetentionPolicyType, appsv1.DeletePersistentVolumeClaimRetentionPolicyType, true, "[other set-uid pod-uid]"},
	}
	for _, tt := range tests {
		set := testSet(3)
		set.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenDeleted: tt.deleted, WhenScaled: tt.scaled}
		claim := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{OwnerReferences: []metav1.OwnerReference{other, {UID: "set-uid"}}}}
		var uids []string
		for _, r := range desiredClaimOwners(set, claim, pod, tt.condemned) {
			uids = append(uids, string(r.UID))
		}
		if got := fmt.Sprint(uids); got != tt.want {
			t.Errorf("%s/%s condemned=%v: owners %s, want %s", tt.deleted, tt.scaled, tt.condemned, got, tt.want)
		}
	}
}
