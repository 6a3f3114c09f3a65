package persistentvolumeclaimresize

import (
	"context"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	storagev1 "kubecore.io/api/storage/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/registry/rest"
)

type classes map[string]*storagev1.StorageClass

func (c classes) GetStorageClass(_ context.Context, name string) (*storagev1.StorageClass, error) {
	return c[name], nil
}

func TestValidate(t *testing.T) {
	yes, no := true, false
	cs := classes{
		"grow":  {ObjectMeta: metav1.ObjectMeta{Name: "grow"}, AllowVolumeExpansion: &yes},
		"fixed": {ObjectMeta: metav1.ObjectMeta{Name: "fixed"}, AllowVolumeExpansion: &no},
	}
	claim := func(class, size string) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: "data"},
			Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &class,
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}}},
		}
	}
	for _, tc := range []struct {
		name, class, from, to string
		forbidden             bool
	}{
		{"grow allowed", "grow", "1Gi", "2Gi", false},
		{"grow refused", "fixed", "1Gi", "2Gi", true},
		{"grow with a missing class", "gone", "1Gi", "2Gi", true},
		{"same size", "fixed", "1Gi", "1Gi", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &rest.Attributes{Operation: rest.OperationUpdate, Resource: corev1.SchemeGroupVersion.WithResource("persistentvolumeclaims"),
				Object: claim(tc.class, tc.to), OldObject: claim(tc.class, tc.from)}
			p := &Plugin{Classes: cs}
			if !p.Handles(a) {
				t.Fatal("the plugin does not handle claim updates")
			}
			err := p.Validate(context.Background(), a)
			if apierrors.IsForbidden(err) != tc.forbidden || !tc.forbidden && err != nil {
				t.Fatalf("Validate: %v, want forbidden %v", err, tc.forbidden)
			}
		})
	}
}
