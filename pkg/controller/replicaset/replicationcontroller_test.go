package replicaset

import (
	"context"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/tools/cache"
)

// fakeRCs serves one replication controller and records status writes.
type fakeRCs struct {
	rc       *corev1.ReplicationController
	statuses []corev1.ReplicationControllerStatus
}

func (f *fakeRCs) Get(context.Context, string, metav1.GetOptions) (*corev1.ReplicationController, error) {
	return f.rc, nil
}

func (f *fakeRCs) UpdateStatus(_ context.Context, rc *corev1.ReplicationController, _ metav1.UpdateOptions) (*corev1.ReplicationController, error) {
	f.statuses = append(f.statuses, rc.Status)
	return rc, nil
}

func newRC(replicas int32) *corev1.ReplicationController {
	return &corev1.ReplicationController{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: "rc-uid", Generation: 3, ResourceVersion: "1"},
		Spec: corev1.ReplicationControllerSpec{
			Replicas: &replicas,
			Selector: map[string]string{"app": "web"},
			Template: &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}},
		},
	}
}

func newRCTestController(t *testing.T, f *fakeCluster, rcs *fakeRCs, pods ...*corev1.Pod) *Controller {
	t.Helper()
	rcIdx := cache.NewIndexer[*corev1.ReplicationController]()
	podIdx := cache.NewIndexer[*corev1.Pod]()
	if err := rcIdx.Add(rcs.rc); err != nil {
		t.Fatal(err)
	}
	for _, p := range pods {
		if err := podIdx.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	return newRCController(func(string) ReplicationControllerClient { return rcs }, f.patch, f,
		cache.NewLister(rcIdx, corev1.Resource("replicationcontrollers")), cache.NewLister(podIdx, corev1.Resource("pods")),
		Options{BurstReplicas: 10, Now: func() time.Time { return now }})
}

func TestReplicationControllerCreatesOwnedPodsAndReportsStatus(t *testing.T) {
	f := &fakeCluster{}
	rcs := &fakeRCs{rc: newRC(3)}
	c := newRCTestController(t, f, rcs)
	if err := c.sync(context.Background(), "ns/web"); err != nil {
		t.Fatal(err)
	}
	if len(f.created) != 3 {
		t.Fatalf("created %d pods, want 3", len(f.created))
	}
	ref := metav1.GetControllerOf(f.created[0])
	if ref == nil || ref.Kind != "ReplicationController" || ref.APIVersion != "v1" || ref.UID != "rc-uid" {
		t.Errorf("controller reference of a created pod = %+v, want the ReplicationController", ref)
	}
	if len(rcs.statuses) != 1 || rcs.statuses[0].ObservedGeneration != 3 {
		t.Errorf("status writes = %+v, want one with observedGeneration 3", rcs.statuses)
	}
}

func TestReplicationControllerAdoptsAndDeletesExtraPods(t *testing.T) {
	f := &fakeCluster{}
	rcs := &fakeRCs{rc: newRC(1)}
	a := newPod("a", readySince(time.Hour), labelled(map[string]string{"app": "web"}))
	a.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(rcs.rc, rcKind)}
	b := newPod("b", orphan, labelled(map[string]string{"app": "web"}))
	other := newPod("other", orphan, labelled(map[string]string{"app": "db"}))
	c := newRCTestController(t, f, rcs, a, b, other)
	if err := c.sync(context.Background(), "ns/web"); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.patched["b"]; !ok {
		t.Errorf("orphan b matching the selector was not adopted; patches %v", f.patched)
	}
	if _, ok := f.patched["other"]; ok {
		t.Error("pod other not matching the selector was adopted")
	}
	if len(f.deleted) != 1 || f.deleted[0] != "b" {
		t.Errorf("deleted %v, want [b] (the not-ready pod)", f.deleted)
	}
}

func TestReplicationControllerConversionRoundTrips(t *testing.T) {
	rc := newRC(2)
	rc.Spec.MinReadySeconds = 5
	rc.Status = corev1.ReplicationControllerStatus{Replicas: 2, ReadyReplicas: 1, ObservedGeneration: 3,
		Conditions: []corev1.ReplicationControllerCondition{{Type: corev1.ReplicationControllerReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate"}}}
	back := replicationControllerOf(replicaSetOf(rc))
	if back.Spec.MinReadySeconds != 5 || *back.Spec.Replicas != 2 || back.Spec.Selector["app"] != "web" ||
		back.Status.ReadyReplicas != 1 || len(back.Status.Conditions) != 1 || back.Status.Conditions[0].Reason != "FailedCreate" {
		t.Errorf("round trip = %+v", back)
	}
}
