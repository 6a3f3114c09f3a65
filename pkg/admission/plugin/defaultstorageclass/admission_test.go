package defaultstorageclass

import (
	"context"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	storagev1 "kubecore.io/api/storage/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/registry/rest"
)

type classes []*storagev1.StorageClass

func (c classes) ListStorageClasses(context.Context) ([]*storagev1.StorageClass, error) {
	return c, nil
}

func class(name string, isDefault bool, created time.Time) *storagev1.StorageClass {
	sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(created)}}
	if isDefault {
		sc.Annotations = map[string]string{storagev1.IsDefaultStorageClassAnnotation: "true"}
	}
	return sc
}

func TestAdmit(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	name := func(s string) *string { return &s }
	for _, tc := range []struct {
		name    string
		classes classes
		claim   *string
		want    *string
	}{
		{"no class: the default", classes{class("slow", false, t0), class("local-path", true, t0)}, nil, name("local-path")},
		{"no default: left unset", classes{class("slow", false, t0)}, nil, nil},
		{"two defaults: the newest", classes{class("old", true, t0), class("new", true, t0.Add(time.Hour))}, nil, name("new")},
		{"a class named: kept", classes{class("local-path", true, t0)}, name("slow"), name("slow")},
		{"empty class (static binding): kept", classes{class("local-path", true, t0)}, name(""), name("")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			claim := &corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: tc.claim}}
			a := &rest.Attributes{Operation: rest.OperationCreate, Resource: corev1.SchemeGroupVersion.WithResource("persistentvolumeclaims"), Object: claim}
			p := &Plugin{Classes: tc.classes}
			if !p.Handles(a) {
				t.Fatal("the plugin does not handle claim creates")
			}
			if err := p.Admit(context.Background(), a); err != nil {
				t.Fatal(err)
			}
			got := claim.Spec.StorageClassName
			if (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
				t.Errorf("class %v, want %v", got, tc.want)
			}
		})
	}
	if (&Plugin{}).Handles(&rest.Attributes{Operation: rest.OperationUpdate, Resource: corev1.SchemeGroupVersion.WithResource("persistentvolumeclaims")}) {
		t.Error("the plugin handles claim updates")
	}
}
