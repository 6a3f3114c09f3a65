package storage

import (
	"fmt"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
)

// Check compares the preconditions with the stored object at key (nil when
// there is none): a UID or resourceVersion that differs is a
// ResourceVersionConflicts error with Kubernetes' "Precondition failed"
// message. Nil preconditions always hold.
func (p *Preconditions) Check(key string, obj runtime.Object) error {
	if p == nil || (p.UID == nil && p.ResourceVersion == nil) {
		return nil
	}
	var uid, rv string
	if obj != nil {
		m, err := objectMeta(Unwrap(obj))
		if err != nil {
			return NewError(ErrCodeInvalidObj, key, 0, err.Error())
		}
		uid, rv = string(m.GetUID()), m.GetResourceVersion()
	}
	if p.UID != nil && string(*p.UID) != uid {
		return NewError(ErrCodeResourceVersionConflicts, key, 0,
			fmt.Sprintf("Precondition failed: UID in precondition: %v, UID in object meta: %v", *p.UID, uid))
	}
	if p.ResourceVersion != nil && *p.ResourceVersion != rv {
		return NewError(ErrCodeResourceVersionConflicts, key, 0,
			fmt.Sprintf("Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", *p.ResourceVersion, rv))
	}
	return nil
}

// objectMeta returns the object metadata of obj.
func objectMeta(obj runtime.Object) (metav1.Object, error) {
	switch m := obj.(type) {
	case metav1.Object:
		return m, nil
	case metav1.ObjectMetaAccessor:
		if om := m.GetObjectMeta(); om != nil {
			return om, nil
		}
	}
	return nil, fmt.Errorf("%T has no object metadata", obj)
}
