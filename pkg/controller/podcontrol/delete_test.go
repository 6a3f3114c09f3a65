package podcontrol

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/client/controller"
)

// deleter fails the deletes of the pods named in fail with their error.
type deleter struct {
	mu   sync.Mutex
	fail map[string]error
}

func (d *deleter) CreatePod(context.Context, *corev1.Pod, runtime.Object) (*corev1.Pod, error) {
	return nil, errors.New("unexpected create")
}

func (d *deleter) DeletePod(_ context.Context, _, name string, _ runtime.Object) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.fail[name]
}

func TestDeletePods(t *testing.T) {
	pods := []*corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "ok", UID: "ok-uid"}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "gone", UID: "gone-uid"}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "denied", UID: "denied-uid"}},
	}
	d := &deleter{fail: map[string]error{
		"gone":   apierrors.NewNotFound(corev1.Resource("pods"), "gone"),
		"denied": errors.New("forbidden"),
	}}
	exp := controller.NewUIDTrackingExpectations(nil)
	gone, err := DeletePods(context.Background(), d, owner(), pods, 2, exp, "ns/web")
	if err == nil || err.Error() != "forbidden" {
		t.Fatalf("err = %v, want the failed delete's", err)
	}
	if want := []bool{true, true, false}; !slices.Equal(gone, want) {
		t.Errorf("gone = %v, want %v", gone, want)
	}
	// The failed and the already-gone deletions were observed; the one
	// that succeeded awaits its informer.
	if exp.SatisfiedExpectations("ns/web") {
		t.Fatal("satisfied before the informer saw the deletion")
	}
	exp.DeletionObservedUID("ns/web", "ok-uid")
	if !exp.SatisfiedExpectations("ns/web") {
		t.Fatal("not satisfied once every deletion was observed")
	}
}
