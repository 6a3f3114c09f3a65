package deployment

import (
	"testing"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/apimachinery/pkg/util/intstr"
)

func ptr[T any](v T) *T { return &v }

func newD(replicas int32, surge, unavailable intstr.IntOrString) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: "d-uid", Generation: 1},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "v1"}}}},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavailable}},
		},
	}
}

func TestResolveFenceposts(t *testing.T) {
	tests := []struct {
		surge, unavailable intstr.IntOrString
		desired            int32
		wantS, wantU       int32
	}{
		{intstr.FromInt32(3), intstr.FromInt32(2), 20, 3, 2},
		{intstr.FromString("25%"), intstr.FromString("25%"), 10, 3, 2}, // surge rounds up, unavailable down
		{intstr.FromString("10%"), intstr.FromString("10%"), 5, 1, 0},
		{intstr.FromInt32(0), intstr.FromString("10%"), 5, 0, 1}, // both zero: one unavailable
		{intstr.FromString("100%"), intstr.FromInt32(0), 4, 4, 0},
	}
	for _, tt := range tests {
		s, u, err := resolveFenceposts(&tt.surge, &tt.unavailable, tt.desired)
		if err != nil || s != tt.wantS || u != tt.wantU {
			t.Errorf("resolveFenceposts(%s, %s, %d) = %d, %d, %v; want %d, %d", tt.surge.String(), tt.unavailable.String(), tt.desired, s, u, err, tt.wantS, tt.wantU)
		}
	}
	bad := intstr.FromString("x%")
	if _, _, err := resolveFenceposts(&bad, &bad, 3); err == nil {
		t.Error("a malformed percentage gave no error")
	}
}

func rsWith(name string, spec, statusReplicas, available int32, age time.Duration) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name), CreationTimestamp: metav1.NewTime(time.Unix(1e9, 0).Add(-age))},
		Spec:       appsv1.ReplicaSetSpec{Replicas: &spec},
		Status:     appsv1.ReplicaSetStatus{Replicas: statusReplicas, AvailableReplicas: available},
	}
}

func TestNewRSReplicas(t *testing.T) {
	d := newD(20, intstr.FromInt32(3), intstr.FromInt32(2))
	tests := []struct {
		name string
		old  *appsv1.ReplicaSet
		new  *appsv1.ReplicaSet
		want int32
	}{
		{name: "first step grows by the surge", old: rsWith("old", 20, 20, 20, time.Hour), new: rsWith("new", 0, 0, 0, 0), want: 3},
		{name: "no room above replicas + surge", old: rsWith("old", 20, 20, 20, time.Hour), new: rsWith("new", 3, 3, 0, 0), want: 3},
		{name: "room made by scaling old down", old: rsWith("old", 18, 18, 18, time.Hour), new: rsWith("new", 3, 3, 0, 0), want: 5},
		{name: "old pods not yet gone count", old: rsWith("old", 18, 20, 20, time.Hour), new: rsWith("new", 3, 3, 0, 0), want: 3},
		{name: "never above replicas", old: rsWith("old", 0, 0, 0, time.Hour), new: rsWith("new", 19, 19, 19, 0), want: 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := newRSReplicas(d, []*appsv1.ReplicaSet{tt.old, tt.new}, tt.new); got != tt.want {
				t.Fatalf("newRSReplicas = %d, want %d", got, tt.want)
			}
		})
	}
	recreate := newD(7, intstr.FromInt32(3), intstr.FromInt32(2))
	recreate.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	if got := newRSReplicas(recreate, nil, rsWith("new", 0, 0, 0, 0)); got != 7 {
		t.Fatalf("Recreate newRSReplicas = %d, want 7", got)
	}
}

func TestTemplateHashAndEquality(t *testing.T) {
	d := newD(1, intstr.FromInt32(1), intstr.FromInt32(0))
	h1 := templateHash(&d.Spec.Template, nil)
	if h1 != templateHash(&d.Spec.Template, nil) {
		t.Fatal("hash is not stable")
	}
	if h1 == templateHash(&d.Spec.Template, ptr(int32(1))) {
		t.Fatal("collision count does not change the hash")
	}
	other := d.Spec.Template.DeepCopy()
	other.Spec.Containers[0].Image = "v2"
	if h1 == templateHash(other, nil) {
		t.Fatal("different templates hash alike")
	}
	hashed := d.Spec.Template.DeepCopy()
	hashed.Labels[appsv1.DefaultDeploymentUniqueLabelKey] = h1
	if !equalIgnoreHash(hashed, &d.Spec.Template) {
		t.Fatal("templates differing only by pod-template-hash are not equal")
	}
	if equalIgnoreHash(other, &d.Spec.Template) {
		t.Fatal("different templates are equal")
	}
	for _, c := range h1 {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9') {
			t.Fatalf("hash %q is not a label value of letters and digits", h1)
		}
	}
}

func TestSetNewReplicaSetAnnotations(t *testing.T) {
	d := newD(4, intstr.FromInt32(1), intstr.FromInt32(0))
	d.Annotations = map[string]string{changeCauseAnnotation: "kubectl set image", lastAppliedAnnotation: "{}", appsv1.RevisionAnnotation: "7"}
	rs := rsWith("r", 0, 0, 0, 0)
	if !setNewReplicaSetAnnotations(d, rs, 3, false) {
		t.Fatal("no change reported for a new replica set")
	}
	want := map[string]string{changeCauseAnnotation: "kubectl set image", appsv1.RevisionAnnotation: "3",
		appsv1.DesiredReplicasAnnotation: "4", appsv1.MaxReplicasAnnotation: "5"}
	if len(rs.Annotations) != len(want) {
		t.Fatalf("annotations %v, want %v", rs.Annotations, want)
	}
	for k, v := range want {
		if rs.Annotations[k] != v {
			t.Fatalf("annotations %v, want %v", rs.Annotations, want)
		}
	}
	// Reused by a rollback: revision raised, old one kept in history.
	if !setNewReplicaSetAnnotations(d, rs, 5, true) || rs.Annotations[appsv1.RevisionAnnotation] != "5" || rs.Annotations[appsv1.RevisionHistoryAnnotation] != "3" {
		t.Fatalf("after reuse: %v", rs.Annotations)
	}
	if setNewReplicaSetAnnotations(d, rs, 5, true) {
		t.Fatal("a change reported when nothing changed")
	}
	if setNewReplicaSetAnnotations(d, rs, 4, true) || rs.Annotations[appsv1.RevisionAnnotation] != "5" {
		t.Fatal("the revision went down")
	}
}

func TestFractionAndProportion(t *testing.T) {
	// A rollout of 10 (surge 3) scaled to 20 mid-way: old 8, new 5 were
	// sized for max 13; now max is 23.
	d := newD(20, intstr.FromInt32(3), intstr.FromInt32(2))
	old := rsWith("old", 8, 8, 8, time.Hour)
	newRS := rsWith("new", 5, 5, 5, 0)
	for _, rs := range []*appsv1.ReplicaSet{old, newRS} {
		setReplicasAnnotations(rs, 10, 13)
	}
	toAdd := int32(23 - 13)
	pOld := proportion(old, d, toAdd, 0)
	pNew := proportion(newRS, d, toAdd, pOld)
	if pOld != 6 || pNew != 4 {
		t.Fatalf("proportions old %d new %d, want 6 and 4 (8*23/13=14.2, 5*23/13=8.8)", pOld, pNew)
	}
	// Scaled down to 5 instead (max 8): 13 -> 8 takes 5, by share.
	small := newD(5, intstr.FromInt32(3), intstr.FromInt32(2))
	pOld = proportion(old, small, -5, 0)
	pNew = proportion(newRS, small, -5, pOld)
	if pOld != -3 || pNew != -2 {
		t.Fatalf("proportions old %d new %d, want -3 and -2 (8*8/13=4.9, 5*8/13=3.1)", pOld, pNew)
	}
	// Never more than what is left to take.
	if p := proportion(old, small, -1, 0); p != -1 {
		t.Fatalf("proportion when shrinking by 1 = %d, want -1", p)
	}
}

func TestConditionsAndStatus(t *testing.T) {
	now := time.Unix(1e9, 0)
	d := newD(10, intstr.FromInt32(3), intstr.FromInt32(2))
	newRS := rsWith("new", 10, 10, 8, 0)
	newRS.Status.ReadyReplicas = 9
	st := calculateStatus(d, []*appsv1.ReplicaSet{rsWith("old", 0, 1, 0, time.Hour), newRS}, newRS, now)
	if st.Replicas != 11 || st.UpdatedReplicas != 10 || st.AvailableReplicas != 8 || st.ReadyReplicas != 9 || st.UnavailableReplicas != 2 || st.ObservedGeneration != 1 {
		t.Fatalf("status %+v", st)
	}
	if c := getCondition(&st, appsv1.DeploymentAvailable); c == nil || c.Status != corev1.ConditionTrue || c.Reason != appsv1.MinimumReplicasAvailable {
		t.Fatalf("Available = %+v, want True (8 >= 10-2)", c)
	}
	newRS.Status.AvailableReplicas = 7
	st2 := calculateStatus(d, []*appsv1.ReplicaSet{newRS}, newRS, now.Add(time.Minute))
	c := getCondition(&st2, appsv1.DeploymentAvailable)
	if c == nil || c.Status != corev1.ConditionFalse || c.Reason != appsv1.MinimumReplicasUnavailable {
		t.Fatalf("Available = %+v, want False", c)
	}
	// setCondition keeps the transition time while the status is unchanged.
	st3 := appsv1.DeploymentStatus{}
	setCondition(&st3, newCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, "A", "", now))
	setCondition(&st3, newCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, "B", "", now.Add(time.Hour)))
	if got := getCondition(&st3, appsv1.DeploymentProgressing); got.Reason != "B" || !got.LastTransitionTime.Time.Equal(now) || len(st3.Conditions) != 1 {
		t.Fatalf("condition %+v", got)
	}
}

func TestDeploymentTimedOut(t *testing.T) {
	now := time.Unix(1e9, 0)
	d := newD(1, intstr.FromInt32(1), intstr.FromInt32(0))
	d.Spec.ProgressDeadlineSeconds = ptr(int32(60))
	tests := []struct {
		name   string
		reason string
		since  time.Duration
		want   bool
	}{
		{name: "within the deadline", reason: appsv1.ReplicaSetUpdatedReason, since: 30 * time.Second},
		{name: "past the deadline", reason: appsv1.ReplicaSetUpdatedReason, since: 61 * time.Second, want: true},
		{name: "complete never times out", reason: appsv1.NewRSAvailableReason, since: time.Hour},
		{name: "timed out stays so", reason: appsv1.TimedOutReason, since: 0, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := appsv1.DeploymentStatus{Conditions: []appsv1.DeploymentCondition{newCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, tt.reason, "", now.Add(-tt.since))}}
			if got := deploymentTimedOut(d, &st, now); got != tt.want {
				t.Fatalf("deploymentTimedOut = %v, want %v", got, tt.want)
			}
		})
	}
}
