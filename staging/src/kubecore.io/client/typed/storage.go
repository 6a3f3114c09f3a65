package typed

import (
	storagev1 "kubecore.io/api/storage/v1"
	"kubecore.io/client/rest"
)

// StorageV1 returns the clients of storage.k8s.io/v1.
func (cs *Clientset) StorageV1() StorageV1 { return StorageV1{rc: cs.storage} }

// StorageV1 is storage.k8s.io/v1's client accessors.
type StorageV1 struct{ rc *rest.Client }

// RESTClient returns the group's REST client.
func (g StorageV1) RESTClient() *rest.Client { return g.rc }

func (g StorageV1) StorageClasses() *Client[*storagev1.StorageClass, *storagev1.StorageClassList] {
	return NewClient(g.rc, StorageClassesResource(), "")
}

// StorageClassesResource describes storage.k8s.io/v1 storageclasses.
func StorageClassesResource() Resource[*storagev1.StorageClass, *storagev1.StorageClassList] {
	return NewResource[storagev1.StorageClass, storagev1.StorageClassList](storagev1.SchemeGroupVersion.WithResource("storageclasses"), "StorageClass", false)
}
