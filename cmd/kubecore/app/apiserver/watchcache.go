package apiserver

import (
	"bytes"
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"kubecore.io/apimachinery/pkg/fields"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/storage"
	"kubecore.io/kubecore/pkg/storage/cacher"
)

// indexedFields are the selectable fields the watch cache indexes per
// resource: kubelets list and watch their pods by spec.nodeName.
var indexedFields = map[schema.GroupResource][]string{
	{Resource: "pods"}: {"spec.nodeName"},
}

// watchCache returns the storage decorator that puts every resource behind
// a watch cache. Its events are encoded by scheme's JSON serializer exactly
// as the apiserver encodes objects, and a consistent read that waits asks
// etcd for a progress notification on the watch stream of the etcd3
// storage (opened with WithRequireLeader). Each cache's sizes are exported
// through caches.
func watchCache(client *clientv3.Client, scheme *runtime.Scheme, caches *cacher.Collector) func(storage.Interface, *generic.Store) (storage.Interface, func(), error) {
	ser := runtime.NewSerializer(scheme, runtime.SerializerOptions{})
	encode := func(obj runtime.Object) ([]byte, error) {
		data, err := runtime.Encode(ser, obj)
		if err != nil {
			return nil, err
		}
		return bytes.TrimRight(data, "\n"), nil
	}
	progress := func(ctx context.Context) error {
		return client.RequestProgress(clientv3.WithRequireLeader(ctx))
	}
	return func(s storage.Interface, store *generic.Store) (storage.Interface, func(), error) {
		attrs := store.GetAttrs
		if attrs == nil {
			attrs = defaultAttrs(store.NamespaceScoped())
		}
		c, err := cacher.New(cacher.Config{
			Storage:         s,
			ResourcePrefix:  store.KeyPrefix(),
			NewFunc:         store.NewFunc,
			GetAttrs:        attrs,
			IndexFields:     indexedFields[store.DefaultQualifiedResource],
			Encode:          encode,
			RequestProgress: progress,
		})
		if err != nil {
			return nil, nil, fmt.Errorf("watch cache of %s: %w", store.DefaultQualifiedResource, err)
		}
		caches.Add(store.DefaultQualifiedResource.Group, store.DefaultQualifiedResource.Resource, c)
		return c, c.Stop, nil
	}
}

// defaultAttrs is the Store's default attribute function: labels,
// metadata.name, and metadata.namespace when namespaced.
func defaultAttrs(namespaced bool) storage.AttrFunc {
	if namespaced {
		return generic.DefaultAttrs
	}
	return func(obj runtime.Object) (labels.Set, fields.Set, error) {
		ls, fs, err := generic.DefaultAttrs(obj)
		if err != nil {
			return nil, nil, err
		}
		return ls, fields.Set{"metadata.name": fs["metadata.name"]}, nil
	}
}
