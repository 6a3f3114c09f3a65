package v1

import (
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the core API group, which has the empty name.
const GroupName = ""

// SchemeGroupVersion is the group version ("v1") of every type in this
// package. Treat it as a constant.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1"}

// Resource qualifies an unqualified resource name with the core group.
func Resource(resource string) schema.GroupResource {
	return SchemeGroupVersion.WithResource(resource).GroupResource()
}

// AddToScheme registers the core/v1 kinds with a scheme.
var AddToScheme = runtime.NewSchemeBuilder(addKnownTypes).AddToScheme

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion,
		&Pod{}, &PodList{},
		&PodTemplate{}, &PodTemplateList{},
		&Node{}, &NodeList{},
		&Namespace{}, &NamespaceList{},
		&Service{}, &ServiceList{},
		&Endpoints{}, &EndpointsList{},
		&ConfigMap{}, &ConfigMapList{},
		&Secret{}, &SecretList{},
		&ServiceAccount{}, &ServiceAccountList{},
		&Event{}, &EventList{},
		&PersistentVolume{}, &PersistentVolumeList{},
		&PersistentVolumeClaim{}, &PersistentVolumeClaimList{},
		&Binding{},
		&LimitRange{}, &LimitRangeList{},
		&ResourceQuota{}, &ResourceQuotaList{},
		&ReplicationController{}, &ReplicationControllerList{},
		&ComponentStatus{}, &ComponentStatusList{},
		&List{},
	)
	return nil
}
