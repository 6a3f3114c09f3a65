package sliceplan

import (
	"context"
	"errors"
	"fmt"

	discoveryv1 "kubecore.io/api/discovery/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/client/controller"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/typed"
)

// SliceClient writes the EndpointSlices of one namespace; the typed
// clientset's EndpointSlices(namespace) satisfies it.
type SliceClient interface {
	Create(ctx context.Context, s *discoveryv1.EndpointSlice, opts metav1.CreateOptions) (*discoveryv1.EndpointSlice, error)
	Update(ctx context.Context, s *discoveryv1.EndpointSlice, opts metav1.UpdateOptions) (*discoveryv1.EndpointSlice, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

var _ SliceClient = (*typed.Client[*discoveryv1.EndpointSlice, *discoveryv1.EndpointSliceList])(nil)

// Client is the API group a Writer's clients come from; *typed.Clientset
// satisfies it.
type Client interface {
	DiscoveryV1() typed.DiscoveryV1
}

// SlicesOf returns, for NewWriter, the EndpointSlice clients of c.
func SlicesOf(c Client) func(namespace string) SliceClient {
	return func(namespace string) SliceClient { return c.DiscoveryV1().EndpointSlices(namespace) }
}

// Writer carries out plans. The slices it creates are counted on its
// expectations under the key "namespace/name" of the Service they are
// for, until the informer brings them: a controller syncs a key only when
// Synced says so, rather than create its slices again from a stale cache.
type Writer struct {
	slices    func(namespace string) SliceClient
	creations *controller.Expectations
}

// NewWriter returns a Writer through the clients slices returns.
func NewWriter(slices func(namespace string) SliceClient) *Writer {
	return &Writer{slices: slices, creations: controller.NewExpectations(nil)}
}

// Synced reports whether the informer has brought every slice created for
// key, so that a sync may trust the cache.
func (w *Writer) Synced(key string) bool { return w.creations.SatisfiedExpectations(key) }

// Forget drops what the writer expects for key, when its Service is gone.
func (w *Writer) Forget(key string) { w.creations.DeleteExpectations(key) }

// Handler maps the events of the slices managedBy manages to their
// Service's key, counting off the creations the informer brings.
func (w *Writer) Handler(managedBy string) controller.Handler[*discoveryv1.EndpointSlice] {
	keys := func(s *discoveryv1.EndpointSlice) []string {
		if key, ok := ServiceKey(s, managedBy); ok {
			return []string{key}
		}
		return nil
	}
	return controller.Handler[*discoveryv1.EndpointSlice]{
		Add: func(s *discoveryv1.EndpointSlice) []string {
			out := keys(s)
			for _, key := range out {
				w.creations.CreationObserved(key)
			}
			return out
		},
		Update: func(old, s *discoveryv1.EndpointSlice) []string { return append(keys(old), keys(s)...) },
		Delete: keys,
	}
}

// Apply carries out plan for the Service namespace/name: creations and
// updates first, so that no endpoint is missing meanwhile, then
// deletions. A creation refused as Forbidden (the namespace is
// terminating) is dropped; a deletion of a slice already gone or replaced
// is done.
func (w *Writer) Apply(ctx context.Context, namespace, name string, plan Plan) error {
	key := namespace + "/" + name
	if len(plan.Creates) > 0 {
		w.creations.ExpectCreations(key, len(plan.Creates))
	}
	client := w.slices(namespace)
	var errs []error
	for _, s := range plan.Creates {
		if _, err := client.Create(ctx, s, metav1.CreateOptions{}); err != nil {
			w.creations.CreationObserved(key)
			if !apierrors.IsForbidden(err) {
				errs = append(errs, fmt.Errorf("create an endpoint slice of %s: %w", key, err))
			}
		}
	}
	for _, s := range plan.Updates {
		if _, err := client.Update(ctx, s, metav1.UpdateOptions{}); err != nil {
			errs = append(errs, fmt.Errorf("update endpoint slice %s/%s: %w", namespace, s.Name, err))
		}
	}
	for _, s := range plan.Deletes {
		err := client.Delete(ctx, s.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &s.UID}})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			errs = append(errs, fmt.Errorf("delete endpoint slice %s/%s: %w", namespace, s.Name, err))
		}
	}
	return errors.Join(errs...)
}

// ServiceKey is the key "namespace/name" of the Service whose slice s is,
// when managedBy manages it.
func ServiceKey(s *discoveryv1.EndpointSlice, managedBy string) (string, bool) {
	name := s.Labels[discoveryv1.LabelServiceName]
	if name == "" || s.Labels[discoveryv1.LabelManagedBy] != managedBy {
		return "", false
	}
	return s.Namespace + "/" + name, true
}

// List lists the slices managedBy manages for the Service namespace/name.
func List(lister cache.Lister[*discoveryv1.EndpointSlice], namespace, name, managedBy string) ([]*discoveryv1.EndpointSlice, error) {
	return lister.Namespaced(namespace).List(labels.SelectorFromSet(labels.Set{
		discoveryv1.LabelServiceName: name,
		discoveryv1.LabelManagedBy:   managedBy,
	}))
}
