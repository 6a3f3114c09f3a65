package history

import (
	"context"
	"errors"
	"strings"
	"testing"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
)

var ownerKind = appsv1.SchemeGroupVersion.WithKind("DaemonSet")

func testOwner() *appsv1.DaemonSet {
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: "owner-uid", Annotations: map[string]string{"kubernetes.io/change-cause": "v1"}},
		Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "img:1"}}},
		}},
	}
}

func TestNewRevision(t *testing.T) {
	ds := testOwner()
	zero := int32(0)
	r1, err := New(ds, ownerKind, &ds.Spec.Template, 1, &zero)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r1.Name, "web-") || HashOf(r1) != strings.TrimPrefix(r1.Name, "web-") || r1.Revision != 1 || r1.Labels["app"] != "web" {
		t.Errorf("revision %s labels %v number %d", r1.Name, r1.Labels, r1.Revision)
	}
	if r1.Annotations["kubernetes.io/change-cause"] != "v1" || !metav1.IsControlledBy(r1, ds) {
		t.Errorf("annotations %v owners %v", r1.Annotations, r1.OwnerReferences)
	}
	if !strings.Contains(string(r1.Data.Raw), `"$patch":"replace"`) || !strings.HasPrefix(string(r1.Data.Raw), `{"spec":{"template":{`) {
		t.Errorf("data %s is not a replacing template patch", r1.Data.Raw)
	}
	tmpl, err := Template(r1)
	if err != nil || tmpl.Spec.Containers[0].Image != "img:1" {
		t.Errorf("template round trip: %+v, %v", tmpl, err)
	}
	one := int32(1)
	r1b, _ := New(ds, ownerKind, &ds.Spec.Template, 1, &one)
	if r1b.Name == r1.Name || !Equal(r1, r1b) {
		t.Errorf("a collision count must change the name (%s vs %s), not the data", r1.Name, r1b.Name)
	}
	ds.Spec.Template.Spec.Containers[0].Image = "img:2"
	r2, _ := New(ds, ownerKind, &ds.Spec.Template, 2, &zero)
	if r2.Name == r1.Name || Equal(r1, r2) {
		t.Error("another template must give another revision")
	}
	revs := []*appsv1.ControllerRevision{r2, r1}
	Sort(revs)
	if revs[0] != r1 || NextRevision(revs) != 3 || NextRevision(nil) != 1 {
		t.Errorf("sorted %v, next %d", []string{revs[0].Name, revs[1].Name}, NextRevision(revs))
	}
	if HashOf(&appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: "bare"}}) != "bare" {
		t.Error("a revision without a hash label is known by its name")
	}
}

// fakeClient keeps revisions by name and records the calls.
type fakeClient struct {
	revs  map[string]*appsv1.ControllerRevision
	calls []string
}

func (f *fakeClient) Get(_ context.Context, name string, _ metav1.GetOptions) (*appsv1.ControllerRevision, error) {
	f.calls = append(f.calls, "get "+name)
	if r, ok := f.revs[name]; ok {
		return r, nil
	}
	return nil, apierrors.NewNotFound(appsv1.Resource("controllerrevisions"), name)
}

func (f *fakeClient) Create(_ context.Context, rev *appsv1.ControllerRevision, _ metav1.CreateOptions) (*appsv1.ControllerRevision, error) {
	f.calls = append(f.calls, "create "+rev.Name)
	if _, ok := f.revs[rev.Name]; ok {
		return nil, apierrors.NewAlreadyExists(appsv1.Resource("controllerrevisions"), rev.Name)
	}
	f.revs[rev.Name] = rev
	return rev, nil
}

func (f *fakeClient) Update(_ context.Context, rev *appsv1.ControllerRevision, _ metav1.UpdateOptions) (*appsv1.ControllerRevision, error) {
	f.calls = append(f.calls, "update "+rev.Name)
	f.revs[rev.Name] = rev
	return rev, nil
}

func (f *fakeClient) Delete(_ context.Context, name string, _ metav1.DeleteOptions) error {
	f.calls = append(f.calls, "delete "+name)
	delete(f.revs, name)
	return nil
}

func TestEnsure(t *testing.T) {
	ds := testOwner()
	ctx := context.Background()
	f := &fakeClient{revs: map[string]*appsv1.ControllerRevision{}}
	v1, _ := New(ds, ownerKind, &ds.Spec.Template, 1, nil)
	got, err := Ensure(ctx, f, ds, nil, v1)
	if err != nil || got.Name != v1.Name || len(f.revs) != 1 {
		t.Fatalf("first revision: %v, %v", got, err)
	}
	// The same template again: found, nothing written.
	f.calls = nil
	again, _ := New(ds, ownerKind, &ds.Spec.Template, 2, nil)
	if got, err := Ensure(ctx, f, ds, []*appsv1.ControllerRevision{v1}, again); err != nil || got != v1 || len(f.calls) != 0 {
		t.Fatalf("unchanged template: %v, %v, calls %v", got, err, f.calls)
	}
	ds.Spec.Template.Spec.Containers[0].Image = "img:2"
	v2, _ := New(ds, ownerKind, &ds.Spec.Template, 2, nil)
	if _, err := Ensure(ctx, f, ds, []*appsv1.ControllerRevision{v1}, v2); err != nil {
		t.Fatal(err)
	}
	// A rollback to the first template renumbers its revision as the newest.
	ds.Spec.Template.Spec.Containers[0].Image = "img:1"
	back, _ := New(ds, ownerKind, &ds.Spec.Template, 3, nil)
	got, err = Ensure(ctx, f, ds, []*appsv1.ControllerRevision{v1, v2}, back)
	if err != nil || got.Name != v1.Name || got.Revision != 3 || len(f.revs) != 2 {
		t.Fatalf("rollback: %v, %v (revisions %d)", got, err, len(f.revs))
	}
	// A name taken by a revision of another template is a collision.
	other := v2.DeepCopy()
	other.Name = "web-taken"
	f.revs["web-taken"] = other
	taken := back.DeepCopy()
	taken.Name, taken.Revision = "web-taken", 4
	if _, err := Ensure(ctx, f, ds, nil, taken); !errors.Is(err, ErrCollision) {
		t.Fatalf("collision: %v", err)
	}
	// Created by an earlier sync the cache has not seen: found.
	if got, err := Ensure(ctx, f, ds, nil, v2); err != nil || got.Name != v2.Name {
		t.Fatalf("existing equal revision: %v, %v", got, err)
	}
}

func TestTruncate(t *testing.T) {
	f := &fakeClient{revs: map[string]*appsv1.ControllerRevision{}}
	var revs []*appsv1.ControllerRevision
	for i, name := range []string{"r1", "r2", "r3", "r4", "r5"} {
		r := &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: name}, Revision: int64(i + 1)}
		f.revs[name] = r
		revs = append(revs, r)
	}
	// r5 is current and r1 still runs: of r2, r3, r4 one is kept, the newest.
	live := func(r *appsv1.ControllerRevision) bool { return r.Name == "r5" || r.Name == "r1" }
	if err := Truncate(context.Background(), f, []*appsv1.ControllerRevision{revs[4], revs[3], revs[2], revs[1], revs[0]}, 1, live); err != nil {
		t.Fatal(err)
	}
	if strings.Join(f.calls, ",") != "delete r2,delete r3" {
		t.Errorf("calls %v", f.calls)
	}
}

// TestDataAsClientsComputeIt: clients (kubectl rollout, the conformance
// suite's DaemonSet specs) find the current revision by comparing its data
// byte for byte with the patch they compute from the owner with the 1.36
// types, which leave an unset creationTimestamp out.
func TestDataAsClientsComputeIt(t *testing.T) {
	ds := testOwner()
	data, err := Data(&ds.Spec.Template)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"spec":{"template":{"$patch":"replace","metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"image":"img:1","name":"c","resources":{}}]}}}}`
	if string(data) != want {
		t.Errorf("data\n%s\nwant\n%s", data, want)
	}

	// A revision written with the null creationTimestamp still holds the
	// same template: no new revision, no pod replaced.
	old := &appsv1.ControllerRevision{Data: runtime.RawExtension{Raw: []byte(
		`{"spec":{"template":{"$patch":"replace","metadata":{"creationTimestamp":null,"labels":{"app":"web"}},"spec":{"containers":[{"image":"img:1","name":"c","resources":{}}]}}}}`)}}
	now := &appsv1.ControllerRevision{Data: runtime.RawExtension{Raw: data}}
	if !Equal(old, now) {
		t.Error("a revision written with a null creationTimestamp must equal today's")
	}
	created := ds.Spec.Template.DeepCopy()
	created.CreationTimestamp = metav1.Unix(1704067200, 0)
	withTime, err := Data(created)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(withTime), `"creationTimestamp":"2024-01-01T00:00:00Z"`) {
		t.Errorf("a set creationTimestamp must stay: %s", withTime)
	}
}
