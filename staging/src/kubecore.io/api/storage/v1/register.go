package v1

import (
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the API group of this package.
const GroupName = "storage.k8s.io"

// SchemeGroupVersion is the group version of every type in this package.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1"}

// Resource qualifies an unqualified resource name with the storage group.
func Resource(resource string) schema.GroupResource {
	return schema.GroupResource{Group: GroupName, Resource: resource}
}

// AddToScheme registers the storage.k8s.io/v1 kinds with a scheme.
var AddToScheme = runtime.NewSchemeBuilder(addKnownTypes).AddToScheme

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion,
		&StorageClass{}, &StorageClassList{},
		&VolumeAttachment{}, &VolumeAttachmentList{},
		&CSIDriver{}, &CSIDriverList{},
		&CSINode{}, &CSINodeList{},
		&CSIStorageCapacity{}, &CSIStorageCapacityList{},
		&VolumeAttributesClass{}, &VolumeAttributesClassList{},
	)
	return nil
}
