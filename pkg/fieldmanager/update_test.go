package fieldmanager

import (
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

func created(t *testing.T, f *FieldManager, manager string) *appsv1.Deployment {
	t.Helper()
	out, err := f.Update(nil, deployment(t, baseDeployment+"  replicas: 1\n"), manager)
	if err != nil {
		t.Fatal(err)
	}
	return asDeployment(t, out)
}

// TestUpdateTwoManagers: an updater owns what it changed, taking it from
// the manager that had it; its entry's time moves only when it changes
// something.
func TestUpdateTwoManagers(t *testing.T) {
	c := newClock()
	f := deploymentManager(t, c, "", nil)
	obj := created(t, f, "kubectl-create")
	c.tick(time.Minute)
	upd := obj.DeepCopy()
	three := int32(3)
	upd.Spec.Replicas = &three
	out, err := f.Update(obj, upd, "kubectl-scale")
	if err != nil {
		t.Fatal(err)
	}
	e := entries(t, out)
	if e["kubectl-scale/Update"] != `{"f:spec":{"f:replicas":{}}}` || strings.Contains(e["kubectl-create/Update"], "replicas") {
		t.Errorf("entries: %v", e)
	}
	mf := managedFields(t, out)
	if len(mf) != 2 || mf[0].Manager != "kubectl-create" || !mf[1].Time.Time.Equal(c.now) {
		t.Errorf("order/time: %+v", mf)
	}
	// A no-op update by kubectl-create keeps its old time.
	c.tick(time.Minute)
	same := asDeployment(t, out).DeepCopy()
	same.ManagedFields = nil
	out2, err := f.Update(out, same, "kubectl-create")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range managedFields(t, out2) {
		if m.Manager == "kubectl-create" && m.Time.Time.Equal(c.now) {
			t.Errorf("no-op update moved the time")
		}
	}
	// Removing a field drops it from its owner.
	gone := asDeployment(t, out2).DeepCopy()
	gone.ManagedFields = nil
	gone.Spec.Replicas = nil
	out3, err := f.Update(out2, gone, "editor")
	if err != nil {
		t.Fatal(err)
	}
	if e := entries(t, out3); e["kubectl-scale/Update"] != "" || e["editor/Update"] != "" {
		t.Errorf("after removing replicas: %v", e)
	}
}

// TestUpdateManagedFieldsFromClient: valid managedFields a client sends
// are kept (kubectl rewrites them to migrate to server-side apply), [] and
// [{}] reset them, and invalid ones are replaced by the live object's.
func TestUpdateManagedFieldsFromClient(t *testing.T) {
	c := newClock()
	f := deploymentManager(t, c, "", nil)
	obj := created(t, f, "kubectl-create")
	change := func(mf []metav1.ManagedFieldsEntry) *appsv1.Deployment {
		d := obj.DeepCopy()
		d.ManagedFields = mf
		d.Labels = map[string]string{"new": "x"}
		return d
	}
	valid := []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: "Apply", APIVersion: "apps/v1", FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:replicas":{}}}`)}}}
	invalid := []metav1.ManagedFieldsEntry{{Manager: "x", Operation: "Bogus", APIVersion: "apps/v1", FieldsType: "FieldsV1"}}
	cases := []struct {
		name string
		sent []metav1.ManagedFieldsEntry
		want []string
	}{
		{"absent", nil, []string{"kubectl-create/Update", "labeler/Update"}},
		{"valid", valid, []string{"kubectl/Apply", "labeler/Update"}},
		{"invalid", invalid, []string{"kubectl-create/Update", "labeler/Update"}},
		{"empty", []metav1.ManagedFieldsEntry{}, []string{"labeler/Update"}},
		{"one empty entry", []metav1.ManagedFieldsEntry{{}}, []string{"labeler/Update"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := f.Update(obj, change(tc.sent), "labeler")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range managedFields(t, out) {
				got = append(got, m.Manager+"/"+m.Operation)
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("managers = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestAncientChanges: beyond 10 Update managers the oldest are merged
// into "ancient-changes" (per API version), which takes the newest merged
// time; appliers are never merged.
func TestAncientChanges(t *testing.T) {
	c := newClock()
	f := deploymentManager(t, c, "", nil)
	obj := mustApply(t, f, nil, config(t, baseDeployment), "applier", false)
	for i := range 12 {
		c.tick(time.Second)
		d := asDeployment(t, obj).DeepCopy()
		if d.Labels == nil {
			d.Labels = map[string]string{}
		}
		d.Labels[fmt.Sprintf("l%02d", i)] = "v"
		out, err := f.Update(obj, d, fmt.Sprintf("m%02d", i))
		if err != nil {
			t.Fatal(err)
		}
		obj = out
	}
	mf := managedFields(t, obj)
	updates := 0
	var ancient *metav1.ManagedFieldsEntry
	names := map[string]bool{}
	for i := range mf {
		names[mf[i].Manager] = true
		if mf[i].Operation == OperationUpdate {
			updates++
		}
		if mf[i].Manager == ancientChanges {
			ancient = &mf[i]
		}
	}
	if updates != 10 || !names["applier"] {
		t.Fatalf("%d update entries (want 10), managers %v", updates, names)
	}
	if ancient == nil {
		t.Fatalf("no ancient-changes entry: %v", names)
	}
	// 12 updaters: m00..m02 merged (the bucket holds three), m03..m11 kept.
	for _, gone := range []string{"m00", "m01", "m02"} {
		if names[gone] {
			t.Errorf("%s still has an entry", gone)
		}
	}
	want := `{"f:metadata":{"f:labels":{".":{},"f:l00":{},"f:l01":{},"f:l02":{}}}}`
	if string(ancient.FieldsV1.Raw) != want || ancient.APIVersion != "apps/v1" {
		t.Errorf("ancient-changes = %s (%s)", ancient.FieldsV1.Raw, ancient.APIVersion)
	}
	if want := newClock().now.Add(3 * time.Second); !ancient.Time.Time.Equal(want) {
		t.Errorf("ancient-changes time %v, want %v (m02's)", ancient.Time, want)
	}
}

// TestUpdateToleratesDuplicates: objects stored with duplicate keys in an
// associative list (older clients could write them) still get their
// managedFields updated.
func TestUpdateToleratesDuplicates(t *testing.T) {
	c := newClock()
	f := deploymentManager(t, c, "", nil)
	live := created(t, f, "kubectl-create")
	dup := live.DeepCopy()
	dup.Spec.Template.Spec.Containers = append(dup.Spec.Template.Spec.Containers, dup.Spec.Template.Spec.Containers[0])
	out, err := f.Update(live, dup, "old-client")
	if err != nil {
		t.Fatalf("update with duplicates: %v", err)
	}
	next := asDeployment(t, out).DeepCopy()
	next.Labels = map[string]string{"x": "y"}
	if _, err := f.Update(out, next, "labeler"); err != nil {
		t.Fatalf("update of an object with duplicates: %v", err)
	}
}

// TestOtherVersionEntries: entries recorded in another version of the kind
// keep their version and lose the fields others take, as field paths are
// the same in every version kubecore serves a kind in.
func TestOtherVersionEntries(t *testing.T) {
	c := newClock()
	f := deploymentManager(t, c, "", nil)
	live := created(t, f, "kubectl-create")
	live.Labels = map[string]string{"a": "b"}
	live.ManagedFields = []metav1.ManagedFieldsEntry{{
		Manager: "legacy", Operation: "Update", APIVersion: "apps/v1beta2", FieldsType: "FieldsV1",
		FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{"f:a":{}}},"f:spec":{"f:replicas":{}}}`)},
	}}
	next := live.DeepCopy()
	next.ManagedFields = nil
	two := int32(2)
	next.Spec.Replicas = &two
	out, err := f.Update(live, next, "scaler")
	if err != nil {
		t.Fatal(err)
	}
	mf := managedFields(t, out)
	if len(mf) != 2 || mf[0].Manager != "legacy" || mf[0].APIVersion != "apps/v1beta2" || string(mf[0].FieldsV1.Raw) != `{"f:metadata":{"f:labels":{"f:a":{}}}}` {
		t.Errorf("managedFields = %+v", mf)
	}
}
