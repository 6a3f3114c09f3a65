package rollout

import (
	"encoding/json"
	"testing"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
)

func replicaSet(owner types.UID, rev, image string, annotations map[string]string) appsv1.ReplicaSet {
	yes := true
	a := map[string]string{revisionAnnotation: rev}
	for k, v := range annotations {
		a[k] = v
	}
	return appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "rs-" + rev, Annotations: a,
			OwnerReferences: []metav1.OwnerReference{{Kind: "Deployment", Name: "web", UID: owner, Controller: &yes}}},
		Spec: appsv1.ReplicaSetSpec{Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web", "pod-template-hash": "h" + rev}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: image}}},
		}},
	}
}

func TestReplicaSetRevisions(t *testing.T) {
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", UID: "d1"}}
	rss := []appsv1.ReplicaSet{
		replicaSet("d1", "10", "v10", map[string]string{changeCauseAnnotation: "ten"}),
		replicaSet("d1", "2", "v2", nil),
		replicaSet("other", "3", "v3", nil),
		replicaSet("d1", "x", "vx", nil),
	}
	revs := replicaSetRevisions(dep, rss)
	if len(revs) != 2 || revs[0].number != 2 || revs[1].number != 10 {
		t.Fatalf("revisions %+v", revs)
	}
	if revs[1].changeCause != "ten" || revs[1].describedTemplate().Annotations[changeCauseAnnotation] != "ten" {
		t.Errorf("change cause of revision 10 lost: %+v", revs[1])
	}
	if revs[1].template.Annotations != nil {
		t.Errorf("describedTemplate changed the revision's template")
	}
	for _, tc := range []struct {
		n, want int64
		ok      bool
	}{{0, 2, true}, {2, 2, true}, {10, 10, true}, {3, 0, false}} {
		r, ok := find(revs, tc.n)
		if ok != tc.ok || r.number != tc.want {
			t.Errorf("find(%d) = %d, %v; want %d, %v", tc.n, r.number, ok, tc.want, tc.ok)
		}
	}
	if _, ok := find(revs[:1], 0); ok {
		t.Error("find(0) with one revision should find nothing")
	}
}

func TestRollbackPatch(t *testing.T) {
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", UID: "d1", Annotations: map[string]string{
		revisionAnnotation: "3", "mine": "dropped",
	}}}
	rev := replicaSetRevisions(dep, []appsv1.ReplicaSet{replicaSet("d1", "1", "v1", map[string]string{"theirs": "kept"})})[0]
	pt, b, err := (&deployment{dep}).rollbackPatch(rev)
	if err != nil || pt != types.JSONPatchType {
		t.Fatal(pt, err)
	}
	var ops []struct {
		Op, Path string
		Value    json.RawMessage
	}
	if err := json.Unmarshal(b, &ops); err != nil {
		t.Fatal(err)
	}
	if len(ops) != 2 || ops[0].Path != "/spec/template" || ops[1].Path != "/metadata/annotations" {
		t.Fatalf("patch %s", b)
	}
	var tmpl corev1.PodTemplateSpec
	if err := json.Unmarshal(ops[0].Value, &tmpl); err != nil {
		t.Fatal(err)
	}
	if _, ok := tmpl.Labels["pod-template-hash"]; ok || tmpl.Spec.Containers[0].Image != "v1" {
		t.Errorf("template %s", ops[0].Value)
	}
	if got := string(ops[1].Value); got != `{"deployment.kubernetes.io/revision":"3","theirs":"kept"}` {
		t.Errorf("annotations %s", got)
	}
}

func TestRevisionTemplate(t *testing.T) {
	tmpl, err := revisionTemplate([]byte(`{"spec":{"template":{"$patch":"replace","metadata":{"labels":{"app":"db"}},"spec":{"containers":[{"name":"c","image":"busybox:2"}]}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if tmpl.Labels["app"] != "db" || tmpl.Spec.Containers[0].Image != "busybox:2" {
		t.Errorf("template %+v", tmpl)
	}
	for _, bad := range []string{`{"spec":{}}`, `[]`, `{"spec":{"template":{"spec":{"containers":"x"}}}}`} {
		if _, err := revisionTemplate([]byte(bad)); err == nil {
			t.Errorf("%s: want an error", bad)
		}
	}
}
