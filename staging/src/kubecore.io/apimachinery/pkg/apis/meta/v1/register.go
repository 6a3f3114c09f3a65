package v1

import "kubecore.io/apimachinery/pkg/runtime/schema"

// GroupName is the API group of the types in this package when they are
// served on their own (Table, PartialObjectMetadata, options kinds).
const GroupName = "meta.k8s.io"

// SchemeGroupVersion is meta.k8s.io/v1, the apiVersion of a Table or a
// PartialObjectMetadata. Treat it as a constant.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1"}

// Unversioned is the group version ("v1" in the core group) that Status,
// APIVersions, APIGroupList, APIGroup and APIResourceList are served as.
// Treat it as a constant.
var Unversioned = schema.GroupVersion{Version: "v1"}

// Well-known namespaces and finalizers.
const (
	// NamespaceDefault is the namespace of objects created without one.
	NamespaceDefault = "default"
	// NamespaceAll selects every namespace in a list or watch.
	NamespaceAll = ""
	// NamespaceNone is the namespace of cluster-scoped objects.
	NamespaceNone = ""
	// NamespaceSystem holds the control plane's own objects.
	NamespaceSystem = "kube-system"
	// NamespacePublic holds objects readable by everyone.
	NamespacePublic = "kube-public"

	// FinalizerOrphanDependents makes the garbage collector orphan the
	// dependents before the owner goes away.
	FinalizerOrphanDependents = "orphan"
	// FinalizerDeleteDependents makes the garbage collector delete the
	// blocking dependents before the owner goes away (foreground deletion).
	FinalizerDeleteDependents = "foregroundDeletion"

	// ObjectNameField is the field selector key of an object's name.
	ObjectNameField = "metadata.name"

	// InitialEventsAnnotationKey marks the BOOKMARK that ends the initial
	// events of a watch started with sendInitialEvents=true.
	InitialEventsAnnotationKey = "k8s.io/initial-events-end"
)
