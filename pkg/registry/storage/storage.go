// Package storage provides the storage of the storage.k8s.io/v1 API
// group: the resources the API server serves for it, each built by its
// own package below.
package storage

import (
	storagev1 "kubecore.io/api/storage/v1"

	"kubecore.io/kubecore/pkg/registry/generic/strategy"
	"kubecore.io/kubecore/pkg/registry/storage/csidriver"
	"kubecore.io/kubecore/pkg/registry/storage/csinode"
	"kubecore.io/kubecore/pkg/registry/storage/csistoragecapacity"
	"kubecore.io/kubecore/pkg/registry/storage/storageclass"
	"kubecore.io/kubecore/pkg/registry/storage/volumeattachment"
	"kubecore.io/kubecore/pkg/registry/storage/volumeattributesclass"
)

// Provider builds the storage of storage.k8s.io/v1.
func Provider() strategy.Group {
	return strategy.NewGroup(storagev1.SchemeGroupVersion,
		strategy.Served("csidrivers", csidriver.NewREST),
		strategy.Served("csinodes", csinode.NewREST),
		strategy.Served("csistoragecapacities", csistoragecapacity.NewREST),
		strategy.Served("storageclasses", storageclass.NewREST),
		strategy.Served("volumeattachments", volumeattachment.NewStorage),
		strategy.Served("volumeattributesclasses", volumeattributesclass.NewREST),
	)
}
