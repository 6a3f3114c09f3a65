package generic

import (
	"context"
	"errors"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/fieldmanager"
	"kubecore.io/kubecore/pkg/registry/rest"
	"kubecore.io/kubecore/pkg/storage"
	"kubecore.io/kubecore/pkg/storage/etcd3"
)

// StoreOptions say where a Store keeps its objects.
type StoreOptions struct {
	// Client talks to etcd. Required unless the Store has its Storage.
	Client *clientv3.Client
	// Prefix is the etcd key prefix of every resource ("/registry").
	Prefix string
	// Codec returns the codec of a resource whose objects newFunc makes;
	// JSON when nil.
	Codec func(newFunc func() runtime.Object) etcd3.Codec
	// Decorate wraps the etcd3 storage of the resource, with the Store's
	// key prefix ("/pods"), typically in the watch cache; the returned
	// func releases it. Nil serves straight from etcd.
	Decorate func(s storage.Interface, store *Store) (storage.Interface, func(), error)
	// TableConvertorFor returns the Table printer of a resource, nil for
	// the default Name/Created At table; it fills an unset TableConvertor.
	TableConvertorFor func(schema.GroupResource) rest.TableConvertor
	// NamespaceLifecycle fills an unset NamespaceLifecycle of namespaced
	// Stores.
	NamespaceLifecycle func(ctx context.Context, namespace string) error
	// Admission fills an unset Admission: the chain every Store's writes
	// pass.
	Admission rest.Admission
	// TTLFor returns how long the objects of a resource live after their
	// last write (etcd leases; events' --event-ttl), zero for as long as
	// they are not deleted. Nil keeps every resource.
	TTLFor func(schema.GroupResource) time.Duration
	// FieldManagers builds each Store's FieldManager (managedFields and
	// server-side apply); nil: the Stores record no managedFields.
	FieldManagers *fieldmanager.Builder
}

// CompleteWithOptions checks the required fields and, when Storage is nil,
// builds the etcd3 storage of the resource (decorated per opts).
func (s *Store) CompleteWithOptions(opts StoreOptions) error {
	gr := s.DefaultQualifiedResource
	switch {
	case gr.Resource == "":
		return errors.New("store: DefaultQualifiedResource is required")
	case s.NewFunc == nil:
		return fmt.Errorf("store %s: NewFunc is required", gr)
	case s.NewListFunc == nil:
		return fmt.Errorf("store %s: NewListFunc is required", gr)
	case s.CreateStrategy == nil && s.UpdateStrategy == nil && s.DeleteStrategy == nil:
		return fmt.Errorf("store %s: at least one strategy is required", gr)
	}
	if _, err := itemsField(s.NewListFunc()); err != nil {
		return fmt.Errorf("store %s: %w", gr, err)
	}
	if s.TableConvertor == nil && opts.TableConvertorFor != nil {
		if tc := opts.TableConvertorFor(gr); tc != nil {
			s.TableConvertor = tc
		}
	}
	if s.NamespaceLifecycle == nil && s.NamespaceScoped() {
		s.NamespaceLifecycle = opts.NamespaceLifecycle
	}
	if s.Admission == nil {
		s.Admission = opts.Admission
	}
	if s.FieldManager == nil && opts.FieldManagers != nil {
		var reset *fieldpath.Set
		if rs, ok := s.UpdateStrategy.(rest.ResetFieldsStrategy); ok {
			reset = rs.GetResetFields()
		}
		fm, _, err := opts.FieldManagers.For(s.NewFunc, reset)
		if err != nil {
			return fmt.Errorf("store %s: %w", gr, err)
		}
		s.FieldManager = fm
	}
	if s.Storage != nil {
		return nil
	}
	if opts.Client == nil {
		return fmt.Errorf("store %s: an etcd client or a Storage is required", gr)
	}
	var ttl time.Duration
	if opts.TTLFor != nil {
		ttl = opts.TTLFor(gr)
	}
	var codec etcd3.Codec
	if opts.Codec != nil {
		codec = opts.Codec(s.NewFunc)
	}
	st, err := etcd3.New(etcd3.Config{
		Client:        opts.Client,
		Prefix:        opts.Prefix,
		Codec:         codec,
		NewFunc:       s.NewFunc,
		GroupResource: gr,
		LeaseTTL:      ttl,
	})
	if err != nil {
		return fmt.Errorf("store %s: %w", gr, err)
	}
	if opts.Decorate != nil {
		decorated, destroy, err := opts.Decorate(st, s)
		if err != nil {
			return fmt.Errorf("store %s: decorate storage: %w", gr, err)
		}
		st, s.DestroyFunc = decorated, destroy
	}
	s.Storage = st
	return nil
}

// KeyPrefix is the key under which the Store keeps its objects ("/pods"),
// for a storage decorator such as the watch cache.
func (s *Store) KeyPrefix() string { return s.resourcePrefix() }
