// Package storage defines the storage.Interface that the generic registry
// writes through, implemented by etcd3 and decorated by the watch cache.
package storage
