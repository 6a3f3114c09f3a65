package v1

import (
	"reflect"
	"testing"

	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/types"
)

// The accessors of an embedding type are the promoted ObjectMeta ones.
var (
	_ Object        = (*PartialObjectMetadata)(nil)
	_ ListInterface = (*PartialObjectMetadataList)(nil)
	_ ListInterface = (*Table)(nil)
)

func TestObjectAccessors(t *testing.T) {
	obj := &PartialObjectMetadata{}
	var o Object = obj
	created := Unix(100, 0)
	deleted := Unix(200, 0)
	grace := int64(30)
	o.SetNamespace("ns")
	o.SetName("n")
	o.SetGenerateName("n-")
	o.SetUID("u")
	o.SetResourceVersion("5")
	o.SetGeneration(2)
	o.SetSelfLink("/x")
	o.SetCreationTimestamp(created)
	o.SetDeletionTimestamp(&deleted)
	o.SetDeletionGracePeriodSeconds(&grace)
	o.SetLabels(map[string]string{"a": "b"})
	o.SetAnnotations(map[string]string{"c": "d"})
	o.SetFinalizers([]string{"f"})
	o.SetOwnerReferences([]OwnerReference{{Name: "owner"}})
	o.SetManagedFields([]ManagedFieldsEntry{{Manager: "m"}})

	want := ObjectMeta{
		Namespace: "ns", Name: "n", GenerateName: "n-", UID: "u", ResourceVersion: "5", Generation: 2,
		SelfLink: "/x", CreationTimestamp: created, DeletionTimestamp: &deleted, DeletionGracePeriodSeconds: &grace,
		Labels: map[string]string{"a": "b"}, Annotations: map[string]string{"c": "d"}, Finalizers: []string{"f"},
		OwnerReferences: []OwnerReference{{Name: "owner"}}, ManagedFields: []ManagedFieldsEntry{{Manager: "m"}},
	}
	if !reflect.DeepEqual(obj.ObjectMeta, want) {
		t.Fatalf("setters gave %+v, want %+v", obj.ObjectMeta, want)
	}
	got := ObjectMeta{
		Namespace: o.GetNamespace(), Name: o.GetName(), GenerateName: o.GetGenerateName(), UID: o.GetUID(),
		ResourceVersion: o.GetResourceVersion(), Generation: o.GetGeneration(), SelfLink: o.GetSelfLink(),
		CreationTimestamp: o.GetCreationTimestamp(), DeletionTimestamp: o.GetDeletionTimestamp(),
		DeletionGracePeriodSeconds: o.GetDeletionGracePeriodSeconds(), Labels: o.GetLabels(),
		Annotations: o.GetAnnotations(), Finalizers: o.GetFinalizers(), OwnerReferences: o.GetOwnerReferences(),
		ManagedFields: o.GetManagedFields(),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("getters gave %+v, want %+v", got, want)
	}
	if obj.GetObjectMeta() != Object(&obj.ObjectMeta) {
		t.Error("GetObjectMeta does not return the embedded ObjectMeta")
	}
}

func TestListAccessors(t *testing.T) {
	l := &PartialObjectMetadataList{}
	var li ListInterface = l
	n := int64(4)
	li.SetResourceVersion("9")
	li.SetSelfLink("/l")
	li.SetContinue("c")
	li.SetRemainingItemCount(&n)
	want := ListMeta{ResourceVersion: "9", SelfLink: "/l", Continue: "c", RemainingItemCount: &n}
	if !reflect.DeepEqual(l.ListMeta, want) {
		t.Fatalf("setters gave %+v", l.ListMeta)
	}
	if li.GetResourceVersion() != "9" || li.GetSelfLink() != "/l" || li.GetContinue() != "c" || li.GetRemainingItemCount() != &n {
		t.Error("getters disagree with setters")
	}
	if l.GetListMeta() != ListInterface(&l.ListMeta) {
		t.Error("GetListMeta does not return the embedded ListMeta")
	}
}

func TestTypeMetaObjectKind(t *testing.T) {
	tests := []struct {
		gvk              schema.GroupVersionKind
		apiVersion, kind string
	}{
		{schema.GroupVersionKind{Version: "v1", Kind: "Status"}, "v1", "Status"},
		{schema.GroupVersionKind{Group: "meta.k8s.io", Version: "v1", Kind: "Table"}, "meta.k8s.io/v1", "Table"},
		{schema.GroupVersionKind{}, "", ""},
	}
	for _, tt := range tests {
		var tbl Table
		tbl.GetObjectKind().SetGroupVersionKind(tt.gvk)
		if tbl.APIVersion != tt.apiVersion || tbl.Kind != tt.kind {
			t.Errorf("SetGroupVersionKind(%v) gave %q %q", tt.gvk, tbl.APIVersion, tbl.Kind)
		}
		if got := tbl.GetObjectKind().GroupVersionKind(); got != tt.gvk {
			t.Errorf("GroupVersionKind() = %v, want %v", got, tt.gvk)
		}
	}
	var tm TypeMeta
	var ty Type = &tm
	ty.SetAPIVersion("apps/v1")
	ty.SetKind("Deployment")
	if ty.GetAPIVersion() != "apps/v1" || ty.GetKind() != "Deployment" {
		t.Errorf("Type accessors gave %+v", tm)
	}
	var e WatchEvent
	e.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{Kind: "X"})
	if !e.GetObjectKind().GroupVersionKind().Empty() {
		t.Error("WatchEvent kept a kind")
	}
	if SchemeGroupVersion.WithKind("Table").String() != "meta.k8s.io/v1, Kind=Table" || Unversioned.String() != "v1" {
		t.Errorf("group versions: %v %v", SchemeGroupVersion, Unversioned)
	}
}

func TestOwnerHelpers(t *testing.T) {
	owner := &PartialObjectMetadata{ObjectMeta: ObjectMeta{Name: "web-abc", UID: "rs-uid"}}
	gvk := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"}
	ref := NewControllerRef(owner, gvk)
	wantRef := OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-abc", UID: "rs-uid", Controller: ptr(true), BlockOwnerDeletion: ptr(true)}
	if !reflect.DeepEqual(*ref, wantRef) {
		t.Fatalf("NewControllerRef = %+v, want %+v", *ref, wantRef)
	}
	other := &PartialObjectMetadata{ObjectMeta: ObjectMeta{Name: "other", UID: "other-uid"}}

	tests := []struct {
		name           string
		refs           []OwnerReference
		wantController types.UID
	}{
		{name: "none"},
		{name: "owner but not controller", refs: []OwnerReference{{UID: "rs-uid", Controller: ptr(false)}, {UID: "x"}}},
		{name: "controller second", refs: []OwnerReference{{UID: "x"}, *ref}, wantController: "rs-uid"},
	}
	for _, tt := range tests {
		pod := &PartialObjectMetadata{ObjectMeta: ObjectMeta{OwnerReferences: tt.refs}}
		got := GetControllerOf(pod)
		if (got == nil) != (tt.wantController == "") || (got != nil && got.UID != tt.wantController) {
			t.Errorf("%s: GetControllerOf = %+v, want UID %q", tt.name, got, tt.wantController)
		}
		if got != nil {
			got.Name = "changed"
			if pod.OwnerReferences[1].Name == "changed" {
				t.Errorf("%s: GetControllerOf returned the stored reference, not a copy", tt.name)
			}
		}
		if is := IsControlledBy(pod, owner); is != (tt.wantController == "rs-uid") {
			t.Errorf("%s: IsControlledBy(owner) = %v", tt.name, is)
		}
		if IsControlledBy(pod, other) {
			t.Errorf("%s: IsControlledBy(other) = true", tt.name)
		}
	}
	if GetControllerOf(nil) != nil {
		t.Error("GetControllerOf(nil) != nil")
	}
}
