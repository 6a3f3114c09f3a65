package informers

import (
	storagev1 "kubecore.io/api/storage/v1"
	"kubecore.io/client/tools/cache"
)

// StorageClasses returns the shared StorageClass informer.
func StorageClasses(f *SharedInformerFactory) (*cache.Informer[*storagev1.StorageClass], error) {
	return For[*storagev1.StorageClass](f, storagev1.SchemeGroupVersion.WithResource("storageclasses"))
}
