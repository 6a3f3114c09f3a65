package cache

import (
	"context"
	"errors"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/watch"
)

// podClient is a typed client of pods as the typed package shapes one.
type podClient struct {
	list *corev1.PodList
	err  error
	opts []metav1.ListOptions
}

func (c *podClient) List(_ context.Context, opts metav1.ListOptions) (*corev1.PodList, error) {
	c.opts = append(c.opts, opts)
	return c.list, c.err
}

func (c *podClient) Watch(_ context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	c.opts = append(c.opts, opts)
	return watch.NewFake(), nil
}

func TestListWatchFromClient(t *testing.T) {
	c := &podClient{list: &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "4"}}}
	lw := TweakListOptions(ListWatchFromClient(c), func(o *metav1.ListOptions) { o.FieldSelector = "spec.nodeName=n1" })
	obj, err := lw.List(context.Background(), metav1.ListOptions{ResourceVersion: "0"})
	if err != nil || obj != runtime.Object(c.list) {
		t.Fatalf("List = %v, %v", obj, err)
	}
	if _, err := lw.Watch(context.Background(), metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	for i, o := range c.opts {
		if o.FieldSelector != "spec.nodeName=n1" {
			t.Errorf("call %d: options %+v lack the tweak", i, o)
		}
	}
	// An error must not come back as a typed nil list inside a non-nil
	// runtime.Object.
	c.err, c.list = errors.New("boom"), nil
	if obj, err := lw.List(context.Background(), metav1.ListOptions{}); err == nil || obj != nil {
		t.Errorf("List on error = %v, %v; want nil, error", obj, err)
	}
}
