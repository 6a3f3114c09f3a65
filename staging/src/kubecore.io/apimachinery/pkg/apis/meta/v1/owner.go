package v1

import "kubecore.io/apimachinery/pkg/runtime/schema"

// GetControllerOf returns a copy of the owner reference of obj that is marked
// as its controller, or nil.
func GetControllerOf(obj Object) *OwnerReference {
	ref := controllerRef(obj)
	if ref == nil {
		return nil
	}
	c := *ref
	return &c
}

// IsControlledBy reports whether owner is the controller of obj, comparing UIDs.
func IsControlledBy(obj, owner Object) bool {
	ref := controllerRef(obj)
	return ref != nil && ref.UID == owner.GetUID()
}

// NewControllerRef returns an owner reference that marks owner, of kind gvk,
// as the controller of a new object, blocking the owner's foreground deletion.
func NewControllerRef(owner Object, gvk schema.GroupVersionKind) *OwnerReference {
	yes := true
	apiVersion, kind := gvk.ToAPIVersionAndKind()
	return &OwnerReference{
		APIVersion:         apiVersion,
		Kind:               kind,
		Name:               owner.GetName(),
		UID:                owner.GetUID(),
		Controller:         &yes,
		BlockOwnerDeletion: &yes,
	}
}

func controllerRef(obj Object) *OwnerReference {
	if obj == nil {
		return nil
	}
	refs := obj.GetOwnerReferences()
	for i := range refs {
		if refs[i].Controller != nil && *refs[i].Controller {
			return &refs[i]
		}
	}
	return nil
}
