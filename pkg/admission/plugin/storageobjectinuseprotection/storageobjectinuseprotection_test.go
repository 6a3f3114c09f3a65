package storageobjectinuseprotection

import (
	"context"
	"slices"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/registry/rest"
)

func TestAdmitAddsTheFinalizerOnce(t *testing.T) {
	for _, tc := range []struct {
		resource string
		meta     *metav1.ObjectMeta
		want     []string
	}{
		{"persistentvolumeclaims", &metav1.ObjectMeta{}, []string{PVCProtectionFinalizer}},
		{"persistentvolumeclaims", &metav1.ObjectMeta{Finalizers: []string{"x", PVCProtectionFinalizer}}, []string{"x", PVCProtectionFinalizer}},
		{"persistentvolumes", &metav1.ObjectMeta{Finalizers: []string{"x"}}, []string{"x", PVProtectionFinalizer}},
	} {
		var obj runtime.Object
		if tc.resource == "persistentvolumes" {
			obj = &corev1.PersistentVolume{ObjectMeta: *tc.meta}
		} else {
			obj = &corev1.PersistentVolumeClaim{ObjectMeta: *tc.meta}
		}
		a := &rest.Attributes{Operation: rest.OperationCreate, Resource: corev1.SchemeGroupVersion.WithResource(tc.resource), Object: obj}
		if !(Plugin{}).Handles(a) {
			t.Fatalf("%s: not handled", tc.resource)
		}
		if err := (Plugin{}).Admit(context.Background(), a); err != nil {
			t.Fatal(err)
		}
		if got := obj.(metav1.Object).GetFinalizers(); !slices.Equal(got, tc.want) {
			t.Errorf("%s: finalizers %q, want %q", tc.resource, got, tc.want)
		}
	}
	for _, a := range []*rest.Attributes{
		{Operation: rest.OperationUpdate, Resource: corev1.SchemeGroupVersion.WithResource("persistentvolumeclaims")},
		{Operation: rest.OperationCreate, Resource: corev1.SchemeGroupVersion.WithResource("persistentvolumeclaims"), Subresource: "status"},
		{Operation: rest.OperationCreate, Resource: corev1.SchemeGroupVersion.WithResource("pods")},
	} {
		if (Plugin{}).Handles(a) {
			t.Errorf("handles %+v", a)
		}
	}
}
