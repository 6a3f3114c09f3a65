package unstructured

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

func TestMetadataView(t *testing.T) {
	u := &Unstructured{Object: map[string]any{"apiVersion": "x/v1", "kind": "K"}}
	m := u.GetObjectMeta()
	created := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	grace := int64(0)
	truth := true
	refs := []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "d", UID: "u1", Controller: &truth}}
	m.SetName("n")
	m.SetNamespace("ns")
	m.SetUID("uid")
	m.SetGeneration(3)
	m.SetCreationTimestamp(created)
	m.SetDeletionTimestamp(&created)
	m.SetDeletionGracePeriodSeconds(&grace)
	m.SetFinalizers([]string{"a", "b"})
	m.SetOwnerReferences(refs)
	m.SetLabels(map[string]string{"k": "v"})

	// Through JSON and back, as storage does.
	data, err := json.Marshal(u)
	if err != nil {
		t.Fatal(err)
	}
	var back Unstructured
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	b := back.GetObjectMeta()
	if b.GetName() != "n" || b.GetNamespace() != "ns" || b.GetUID() != "uid" || b.GetGeneration() != 3 {
		t.Errorf("scalars: %s", data)
	}
	if got := b.GetCreationTimestamp(); !got.Equal(&created) || !b.GetDeletionTimestamp().Equal(&created) {
		t.Errorf("timestamps: %s", data)
	}
	if g := b.GetDeletionGracePeriodSeconds(); g == nil || *g != 0 {
		t.Errorf("grace period %v", g)
	}
	if !reflect.DeepEqual(b.GetFinalizers(), []string{"a", "b"}) || !reflect.DeepEqual(b.GetOwnerReferences(), refs) {
		t.Errorf("lists: %s", data)
	}
	if om := ObjectMetaOf(b); om.Name != "n" || om.Labels["k"] != "v" || len(om.OwnerReferences) != 1 {
		t.Errorf("ObjectMetaOf %+v", om)
	}
	// Zero values remove the fields.
	b.SetDeletionTimestamp(nil)
	b.SetDeletionGracePeriodSeconds(nil)
	b.SetFinalizers(nil)
	b.SetOwnerReferences(nil)
	b.SetGeneration(0)
	md := back.Object["metadata"].(map[string]any)
	for _, k := range []string{"deletionTimestamp", "deletionGracePeriodSeconds", "finalizers", "ownerReferences", "generation"} {
		if _, ok := md[k]; ok {
			t.Errorf("%s not removed: %v", k, md)
		}
	}
}

func TestListJSON(t *testing.T) {
	in := `{"apiVersion":"x/v1","items":[{"apiVersion":"x/v1","kind":"K","metadata":{"name":"a"}}],"kind":"KList","metadata":{"continue":"c","resourceVersion":"5"}}`
	var l UnstructuredList
	if err := json.Unmarshal([]byte(in), &l); err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 1 || l.Items[0].GetName() != "a" || l.GetResourceVersion() != "5" || l.GetContinue() != "c" {
		t.Errorf("decoded %+v", l)
	}
	l.SetContinue("")
	n := int64(2)
	l.SetRemainingItemCount(&n)
	out, err := json.Marshal(&l)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"apiVersion":"x/v1","items":[{"apiVersion":"x/v1","kind":"K","metadata":{"name":"a"}}],"kind":"KList","metadata":{"remainingItemCount":2,"resourceVersion":"5"}}`
	if string(out) != want {
		t.Errorf("encoded %s, want %s", out, want)
	}
}
