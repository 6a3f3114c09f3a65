package cache

import (
	"context"
	"fmt"
	"reflect"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/watch"
)

// ListerWatcher lists and watches one resource (in one namespace, under one
// selector). List returns a list object such as a *corev1.PodList.
type ListerWatcher interface {
	List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// ListWatch is a ListerWatcher made of two functions.
type ListWatch struct {
	ListFunc  func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error)
	WatchFunc func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

var _ ListerWatcher = ListWatch{}

// List calls ListFunc.
func (lw ListWatch) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	return lw.ListFunc(ctx, opts)
}

// Watch calls WatchFunc.
func (lw ListWatch) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return lw.WatchFunc(ctx, opts)
}

// TweakListOptions returns a ListerWatcher that lets tweak change the
// options of every call (to add a label or field selector, say).
func TweakListOptions(lw ListerWatcher, tweak func(*metav1.ListOptions)) ListerWatcher {
	if tweak == nil {
		return lw
	}
	return ListWatch{
		ListFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			tweak(&opts)
			return lw.List(ctx, opts)
		},
		WatchFunc: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			tweak(&opts)
			return lw.Watch(ctx, opts)
		},
	}
}

// listPage is one page of a LIST: its items and list metadata.
type listPage[T Object] struct {
	items           []T
	resourceVersion string
	continueToken   string
}

// extractList reads the Items and ListMeta of a list object (a *PodList).
// Items may be values ([]Pod) or pointers ([]*Pod); each must be a T.
func extractList[T Object](list runtime.Object) (listPage[T], error) {
	var page listPage[T]
	meta, ok := list.(metav1.ListInterface)
	if !ok {
		return page, fmt.Errorf("list: %T has no list metadata", list)
	}
	page.resourceVersion, page.continueToken = meta.GetResourceVersion(), meta.GetContinue()
	v := reflect.ValueOf(list)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return page, fmt.Errorf("list: %T is not a pointer to a list struct", list)
	}
	items := v.Elem().FieldByName("Items")
	if !items.IsValid() || items.Kind() != reflect.Slice {
		return page, fmt.Errorf("list: %T has no Items slice", list)
	}
	page.items = make([]T, items.Len())
	for i := range page.items {
		item := items.Index(i)
		if item.Kind() != reflect.Pointer {
			item = item.Addr()
		}
		obj, ok := item.Interface().(T)
		if !ok {
			return page, fmt.Errorf("list: item %d of %T is a %s, want %T", i, list, item.Type(), obj)
		}
		page.items[i] = obj
	}
	return page, nil
}

// ListWatchClient is the List and Watch half of a typed client for lists
// of type L, such as a *typed.Client[*corev1.Pod, *corev1.PodList].
type ListWatchClient[L runtime.Object] interface {
	List(ctx context.Context, opts metav1.ListOptions) (L, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// ListWatchFromClient adapts a typed client to a ListerWatcher.
func ListWatchFromClient[L runtime.Object](c ListWatchClient[L]) ListerWatcher {
	return ListWatch{
		ListFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			list, err := c.List(ctx, opts)
			if err != nil {
				return nil, err
			}
			return list, nil
		},
		WatchFunc: c.Watch,
	}
}
