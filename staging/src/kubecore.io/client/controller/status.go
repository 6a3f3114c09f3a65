package controller

import (
	"context"
	"fmt"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/util/retry"
)

// StatusClient reads an object of one namespace and writes its status; the
// typed clients satisfy it.
type StatusClient[T any] interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	UpdateStatus(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
}

// StatusObject is an API object that copies itself deeply.
type StatusObject[T any] interface {
	metav1.Object
	DeepCopy() T
}

// UpdateStatus writes a status onto obj through client: set puts the
// status on a copy. On a conflict it rereads the object and tries again on
// the fresh copy (retry.DefaultRetry), unless the object was replaced (a
// new uid) or, when stale is set, stale(fresh) says what was computed no
// longer holds — the next sync then computes it afresh. An object gone is
// not an error. kind names the object in the error.
func UpdateStatus[T StatusObject[T]](ctx context.Context, client StatusClient[T], kind string, obj T, set func(T), stale func(fresh T) bool) error {
	cur := obj.DeepCopy()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		set(cur)
		_, err := client.UpdateStatus(ctx, cur, metav1.UpdateOptions{})
		if !apierrors.IsConflict(err) {
			return err
		}
		fresh, getErr := client.Get(ctx, obj.GetName(), metav1.GetOptions{})
		if getErr != nil {
			return getErr
		}
		if fresh.GetUID() != obj.GetUID() || (stale != nil && stale(fresh)) {
			return nil
		}
		cur = fresh
		return err
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("update status of %s %s/%s: %w", kind, obj.GetNamespace(), obj.GetName(), err)
	}
	return nil
}
