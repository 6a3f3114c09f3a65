package v1

import (
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/types"
)

// Object is the metadata accessor set of a persisted API object. *ObjectMeta
// implements it, so every *T whose struct embeds ObjectMeta (a *Pod, a
// *Deployment) is an Object through the promoted methods. A generic store
// therefore constrains its type parameter to "runtime.Object and Object":
//
//	type StoredObject interface {
//		runtime.Object
//		metav1.Object
//	}
type Object interface {
	GetNamespace() string
	SetNamespace(namespace string)
	GetName() string
	SetName(name string)
	GetGenerateName() string
	SetGenerateName(name string)
	GetUID() types.UID
	SetUID(uid types.UID)
	GetResourceVersion() string
	SetResourceVersion(version string)
	GetGeneration() int64
	SetGeneration(generation int64)
	GetSelfLink() string
	SetSelfLink(selfLink string)
	GetCreationTimestamp() Time
	SetCreationTimestamp(timestamp Time)
	GetDeletionTimestamp() *Time
	SetDeletionTimestamp(timestamp *Time)
	GetDeletionGracePeriodSeconds() *int64
	SetDeletionGracePeriodSeconds(seconds *int64)
	GetLabels() map[string]string
	SetLabels(labels map[string]string)
	GetAnnotations() map[string]string
	SetAnnotations(annotations map[string]string)
	GetFinalizers() []string
	SetFinalizers(finalizers []string)
	GetOwnerReferences() []OwnerReference
	SetOwnerReferences(references []OwnerReference)
	GetManagedFields() []ManagedFieldsEntry
	SetManagedFields(managedFields []ManagedFieldsEntry)
}

// ObjectMetaAccessor is implemented by objects that embed ObjectMeta.
type ObjectMetaAccessor interface {
	GetObjectMeta() Object
}

// ListInterface is the metadata accessor set of a list; *ListMeta implements
// it, and so does every *TList embedding ListMeta.
type ListInterface interface {
	GetResourceVersion() string
	SetResourceVersion(version string)
	GetSelfLink() string
	SetSelfLink(selfLink string)
	GetContinue() string
	SetContinue(c string)
	GetRemainingItemCount() *int64
	SetRemainingItemCount(c *int64)
}

// ListMetaAccessor is implemented by lists that embed ListMeta.
type ListMetaAccessor interface {
	GetListMeta() ListInterface
}

// Type gives access to the kind and apiVersion strings of an object.
type Type interface {
	GetAPIVersion() string
	SetAPIVersion(version string)
	GetKind() string
	SetKind(kind string)
}

var (
	_ Object             = (*ObjectMeta)(nil)
	_ ObjectMetaAccessor = (*ObjectMeta)(nil)
	_ ListInterface      = (*ListMeta)(nil)
	_ ListMetaAccessor   = (*ListMeta)(nil)
	_ Type               = (*TypeMeta)(nil)
	_ schema.ObjectKind  = (*TypeMeta)(nil)
)

// GetObjectKind returns the TypeMeta itself; it makes every struct embedding
// TypeMeta satisfy the first half of runtime.Object.
func (obj *TypeMeta) GetObjectKind() schema.ObjectKind { return obj }

// SetGroupVersionKind sets apiVersion and kind.
func (obj *TypeMeta) SetGroupVersionKind(gvk schema.GroupVersionKind) {
	obj.APIVersion, obj.Kind = gvk.ToAPIVersionAndKind()
}

// GroupVersionKind parses apiVersion and kind.
func (obj *TypeMeta) GroupVersionKind() schema.GroupVersionKind {
	return schema.FromAPIVersionAndKind(obj.APIVersion, obj.Kind)
}

// GetAPIVersion returns apiVersion.
func (obj *TypeMeta) GetAPIVersion() string { return obj.APIVersion }

// SetAPIVersion sets apiVersion.
func (obj *TypeMeta) SetAPIVersion(version string) { obj.APIVersion = version }

// GetKind returns kind.
func (obj *TypeMeta) GetKind() string { return obj.Kind }

// SetKind sets kind.
func (obj *TypeMeta) SetKind(kind string) { obj.Kind = kind }

// GetListMeta returns the ListMeta itself.
func (meta *ListMeta) GetListMeta() ListInterface { return meta }

// GetResourceVersion returns metadata.resourceVersion.
func (meta *ListMeta) GetResourceVersion() string { return meta.ResourceVersion }

// SetResourceVersion sets metadata.resourceVersion.
func (meta *ListMeta) SetResourceVersion(version string) { meta.ResourceVersion = version }

// GetSelfLink returns metadata.selfLink.
func (meta *ListMeta) GetSelfLink() string { return meta.SelfLink }

// SetSelfLink sets metadata.selfLink.
func (meta *ListMeta) SetSelfLink(selfLink string) { meta.SelfLink = selfLink }

// GetContinue returns metadata.continue.
func (meta *ListMeta) GetContinue() string { return meta.Continue }

// SetContinue sets metadata.continue.
func (meta *ListMeta) SetContinue(c string) { meta.Continue = c }

// GetRemainingItemCount returns metadata.remainingItemCount.
func (meta *ListMeta) GetRemainingItemCount() *int64 { return meta.RemainingItemCount }

// SetRemainingItemCount sets metadata.remainingItemCount.
func (meta *ListMeta) SetRemainingItemCount(c *int64) { meta.RemainingItemCount = c }

// GetObjectMeta returns the ObjectMeta itself.
func (meta *ObjectMeta) GetObjectMeta() Object { return meta }

// GetNamespace returns metadata.namespace.
func (meta *ObjectMeta) GetNamespace() string { return meta.Namespace }

// SetNamespace sets metadata.namespace.
func (meta *ObjectMeta) SetNamespace(namespace string) { meta.Namespace = namespace }

// GetName returns metadata.name.
func (meta *ObjectMeta) GetName() string { return meta.Name }

// SetName sets metadata.name.
func (meta *ObjectMeta) SetName(name string) { meta.Name = name }

// GetGenerateName returns metadata.generateName.
func (meta *ObjectMeta) GetGenerateName() string { return meta.GenerateName }

// SetGenerateName sets metadata.generateName.
func (meta *ObjectMeta) SetGenerateName(name string) { meta.GenerateName = name }

// GetUID returns metadata.uid.
func (meta *ObjectMeta) GetUID() types.UID { return meta.UID }

// SetUID sets metadata.uid.
func (meta *ObjectMeta) SetUID(uid types.UID) { meta.UID = uid }

// GetResourceVersion returns metadata.resourceVersion.
func (meta *ObjectMeta) GetResourceVersion() string { return meta.ResourceVersion }

// SetResourceVersion sets metadata.resourceVersion.
func (meta *ObjectMeta) SetResourceVersion(version string) { meta.ResourceVersion = version }

// GetGeneration returns metadata.generation.
func (meta *ObjectMeta) GetGeneration() int64 { return meta.Generation }

// SetGeneration sets metadata.generation.
func (meta *ObjectMeta) SetGeneration(generation int64) { meta.Generation = generation }

// GetSelfLink returns metadata.selfLink.
func (meta *ObjectMeta) GetSelfLink() string { return meta.SelfLink }

// SetSelfLink sets metadata.selfLink.
func (meta *ObjectMeta) SetSelfLink(selfLink string) { meta.SelfLink = selfLink }

// GetCreationTimestamp returns metadata.creationTimestamp.
func (meta *ObjectMeta) GetCreationTimestamp() Time { return meta.CreationTimestamp }

// SetCreationTimestamp sets metadata.creationTimestamp.
func (meta *ObjectMeta) SetCreationTimestamp(timestamp Time) { meta.CreationTimestamp = timestamp }

// GetDeletionTimestamp returns metadata.deletionTimestamp.
func (meta *ObjectMeta) GetDeletionTimestamp() *Time { return meta.DeletionTimestamp }

// SetDeletionTimestamp sets metadata.deletionTimestamp.
func (meta *ObjectMeta) SetDeletionTimestamp(timestamp *Time) { meta.DeletionTimestamp = timestamp }

// GetDeletionGracePeriodSeconds returns metadata.deletionGracePeriodSeconds.
func (meta *ObjectMeta) GetDeletionGracePeriodSeconds() *int64 {
	return meta.DeletionGracePeriodSeconds
}

// SetDeletionGracePeriodSeconds sets metadata.deletionGracePeriodSeconds.
func (meta *ObjectMeta) SetDeletionGracePeriodSeconds(seconds *int64) {
	meta.DeletionGracePeriodSeconds = seconds
}

// GetLabels returns metadata.labels.
func (meta *ObjectMeta) GetLabels() map[string]string { return meta.Labels }

// SetLabels sets metadata.labels.
func (meta *ObjectMeta) SetLabels(labels map[string]string) { meta.Labels = labels }

// GetAnnotations returns metadata.annotations.
func (meta *ObjectMeta) GetAnnotations() map[string]string { return meta.Annotations }

// SetAnnotations sets metadata.annotations.
func (meta *ObjectMeta) SetAnnotations(annotations map[string]string) {
	meta.Annotations = annotations
}

// GetFinalizers returns metadata.finalizers.
func (meta *ObjectMeta) GetFinalizers() []string { return meta.Finalizers }

// SetFinalizers sets metadata.finalizers.
func (meta *ObjectMeta) SetFinalizers(finalizers []string) { meta.Finalizers = finalizers }

// GetOwnerReferences returns metadata.ownerReferences.
func (meta *ObjectMeta) GetOwnerReferences() []OwnerReference { return meta.OwnerReferences }

// SetOwnerReferences sets metadata.ownerReferences.
func (meta *ObjectMeta) SetOwnerReferences(references []OwnerReference) {
	meta.OwnerReferences = references
}

// GetManagedFields returns metadata.managedFields.
func (meta *ObjectMeta) GetManagedFields() []ManagedFieldsEntry { return meta.ManagedFields }

// SetManagedFields sets metadata.managedFields.
func (meta *ObjectMeta) SetManagedFields(managedFields []ManagedFieldsEntry) {
	meta.ManagedFields = managedFields
}
