package namespace

import (
	"testing"

	"kubecore.io/kubecore/pkg/registry/rest"
)

// TestNoDeleteCollection: a collection delete would skip the finalizers,
// and Kubernetes serves none for namespaces.
func TestNoDeleteCollection(t *testing.T) {
	if _, ok := any(&REST{}).(rest.CollectionDeleter); ok {
		t.Error("namespaces serve deletecollection")
	}
	if _, ok := any(&REST{}).(rest.GracefulDeleter); !ok {
		t.Error("namespaces serve no delete")
	}
}
