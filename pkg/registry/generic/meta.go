package generic

import (
	"crypto/rand"
	"fmt"
	"reflect"
	"strings"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/types"

	"kubecore.io/kubecore/pkg/storage"
)

// The finalizers the garbage collector acts on, as DeleteOptions'
// propagationPolicy sets them.
const (
	// FinalizerOrphanDependents makes the collector orphan the dependents.
	FinalizerOrphanDependents = "orphan"
	// FinalizerDeleteDependents makes the collector delete the blocking
	// dependents before the owner.
	FinalizerDeleteDependents = "foregroundDeletion"
)

// objectMeta returns the metadata of obj: the ObjectMeta a typed object
// embeds, or the view an unstructured object gives of its metadata map.
func objectMeta(obj runtime.Object) (metav1.Object, error) {
	obj = storage.Unwrap(obj)
	if a, ok := obj.(metav1.ObjectMetaAccessor); ok {
		if m := a.GetObjectMeta(); m != nil {
			return m, nil
		}
	}
	return nil, fmt.Errorf("%T has no object metadata", obj)
}

// listMeta returns the list metadata of a list object.
func listMeta(list runtime.Object) (metav1.ListInterface, error) {
	switch l := list.(type) {
	case metav1.ListMetaAccessor:
		return l.GetListMeta(), nil
	case metav1.ListInterface:
		return l, nil
	}
	return nil, fmt.Errorf("%T has no list metadata", list)
}

// itemsField returns the settable Items slice of a list such as *PodList.
func itemsField(list runtime.Object) (reflect.Value, error) {
	v := reflect.ValueOf(list)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}, fmt.Errorf("%T is not a pointer to a list struct", list)
	}
	items := v.Elem().FieldByName("Items")
	if !items.IsValid() || items.Kind() != reflect.Slice {
		return reflect.Value{}, fmt.Errorf("%T has no Items slice", list)
	}
	return items, nil
}

// setListItems fills the Items of list with objs, which must be pointers to
// the item type (or, for []runtime.Object items, any object).
func setListItems(list runtime.Object, objs []runtime.Object) error {
	items, err := itemsField(list)
	if err != nil {
		return err
	}
	elem := items.Type().Elem()
	out := reflect.MakeSlice(items.Type(), len(objs), len(objs))
	for i, obj := range objs {
		obj = storage.Unwrap(obj)
		ov := reflect.ValueOf(obj)
		switch {
		case ov.Type().AssignableTo(elem):
			out.Index(i).Set(ov)
		case ov.Kind() == reflect.Pointer && ov.Type().Elem() == elem:
			out.Index(i).Set(ov.Elem())
		default:
			return fmt.Errorf("cannot put a %T into the items of %T", obj, list)
		}
	}
	items.Set(out)
	return nil
}

// listItems returns pointers to the items of list.
func listItems(list runtime.Object) ([]runtime.Object, error) {
	items, err := itemsField(list)
	if err != nil {
		return nil, err
	}
	out := make([]runtime.Object, 0, items.Len())
	for i := range items.Len() {
		it := items.Index(i)
		if it.Kind() != reflect.Pointer && it.Kind() != reflect.Interface {
			it = it.Addr()
		}
		obj, ok := it.Interface().(runtime.Object)
		if !ok {
			return nil, fmt.Errorf("item %d of %T is not an object", i, list)
		}
		out = append(out, obj)
	}
	return out, nil
}

// newUID returns a random (version 4) UUID.
func newUID() types.UID {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return types.UID(fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]))
}

// validatePathSegmentName rejects names that cannot be one path segment.
func validatePathSegmentName(name string) []string {
	var msgs []string
	for _, bad := range []string{".", ".."} {
		if name == bad {
			msgs = append(msgs, fmt.Sprintf("may not be '%s'", bad))
		}
	}
	for _, bad := range []string{"/", "%"} {
		if strings.Contains(name, bad) {
			msgs = append(msgs, fmt.Sprintf("may not contain '%s'", bad))
		}
	}
	return msgs
}
