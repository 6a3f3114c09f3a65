package resource

import (
	"context"
	"fmt"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/watch"
	"kubecore.io/client/dynamic"
)

// WaitForDeletion returns when the object named name with uid is gone
// (deleted, or replaced by one with another uid), watching it rather than
// polling; ctx bounds the wait.
func WaitForDeletion(ctx context.Context, c *dynamic.ResourceClient, name, uid string) error {
	for {
		obj, err := c.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if uid != "" && obj.GetUID() != uid {
			return nil
		}
		w, err := c.Watch(ctx, metav1.ListOptions{
			FieldSelector:   "metadata.name=" + name,
			ResourceVersion: obj.GetResourceVersion(),
		})
		if err != nil {
			return err
		}
		gone, err := watchUntilDeleted(ctx, w, uid)
		w.Stop()
		if gone || err != nil {
			return err
		}
	}
}

// watchUntilDeleted reads events until the object is deleted (true), the
// watch ends (false, to start again) or ctx is done.
func watchUntilDeleted(ctx context.Context, w watch.Interface, uid string) (bool, error) {
	for {
		select {
		case <-ctx.Done():
			return false, fmt.Errorf("timed out waiting for the condition")
		case ev, ok := <-w.ResultChan():
			if !ok {
				return false, nil
			}
			switch ev.Type {
			case watch.Deleted:
				obj, _ := ev.Object.(*dynamic.Unstructured)
				if obj == nil || uid == "" || obj.GetUID() == uid {
					return true, nil
				}
			case watch.Error:
				return false, nil
			}
		}
	}
}
