package controlplane

import (
	"context"
	"fmt"

	corev1 "kubecore.io/api/core/v1"
	storagev1 "kubecore.io/api/storage/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/admission/plugin/defaultstorageclass"
	"kubecore.io/kubecore/pkg/admission/plugin/persistentvolumeclaimresize"
)

const (
	// LocalPathClassName is the default StorageClass every cluster starts
	// with, served by the built-in local-path provisioner
	// (pkg/controller/localpath).
	LocalPathClassName = "local-path"
	// LocalPathProvisioner is the provisioner name of that class.
	LocalPathProvisioner = "kubecore.io/local-path"
)

var (
	_ defaultstorageclass.ClassLister         = (*objectReader)(nil)
	_ persistentvolumeclaimresize.ClassGetter = (*objectReader)(nil)
)

// GetStorageClass implements persistentvolumeclaimresize.ClassGetter.
func (r *objectReader) GetStorageClass(ctx context.Context, name string) (*storagev1.StorageClass, error) {
	return r.storageClasses.get(ctx, "", name, true)
}

// ListStorageClasses implements defaultstorageclass.ClassLister.
func (r *objectReader) ListStorageClasses(ctx context.Context) ([]*storagev1.StorageClass, error) {
	return r.storageClasses.list(ctx, "", nil)
}

// LocalPathStorageClass is the default class of the local-path
// provisioner: volumes are made on the node of the claim's first pod and
// deleted with their claim.
func LocalPathStorageClass() *storagev1.StorageClass {
	reclaim := corev1.PersistentVolumeReclaimDelete
	binding := storagev1.VolumeBindingWaitForFirstConsumer
	return &storagev1.StorageClass{
		ObjectMeta: metav1.ObjectMeta{
			Name:        LocalPathClassName,
			Annotations: map[string]string{storagev1.IsDefaultStorageClassAnnotation: "true"},
		},
		Provisioner:       LocalPathProvisioner,
		ReclaimPolicy:     &reclaim,
		VolumeBindingMode: &binding,
	}
}

// bootstrapStorageClass creates the local-path class when it is missing;
// a class of that name the administrator changed or re-created is kept.
func (in *Instance) bootstrapStorageClass(ctx context.Context) error {
	if in.storageClasses == nil {
		return nil
	}
	sc := LocalPathStorageClass()
	in.Scheme.Default(sc)
	if _, err := in.storageClasses.Create(ctx, sc, nil, &metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create storage class %s: %w", sc.Name, err)
	}
	return nil
}
