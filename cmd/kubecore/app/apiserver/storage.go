package apiserver

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"kubecore.io/kubecore/pkg/storage/etcd3"
)

// DefaultEventTTL is how long events live after their last write, as in
// Kubernetes.
const DefaultEventTTL = time.Hour

// The media types objects are stored in, as Kubernetes'
// --storage-media-type names them.
const (
	StorageMediaTypeProtobuf = "application/vnd.kubernetes.protobuf"
	StorageMediaTypeJSON     = "application/json"
)

// StorageOptions say how the API server keeps etcd bounded.
type StorageOptions struct {
	// CompactionInterval is how often etcd's history is compacted to the
	// revision of one interval earlier; 0 disables compaction (another
	// apiserver, or etcd's own auto-compaction, must do it).
	CompactionInterval time.Duration
	// EventTTL is how long events are kept after their last write.
	EventTTL time.Duration
	// WritesInflight bounds the writes in flight to etcd
	// (etcd3.WriteGate); 0 leaves them unbounded.
	WritesInflight int
	// MediaType is how built-in objects are written to etcd: protobuf (the
	// default, as in Kubernetes) or JSON. Both are read whatever it says.
	MediaType string
}

// NewStorageOptions returns the defaults.
func NewStorageOptions() StorageOptions {
	return StorageOptions{CompactionInterval: etcd3.DefaultCompactionInterval, EventTTL: DefaultEventTTL,
		WritesInflight: etcd3.DefaultWritesInflight, MediaType: StorageMediaTypeProtobuf}
}

// AddFlags adds the storage flags to fs (all-in-one shares them).
func (o *StorageOptions) AddFlags(fs *pflag.FlagSet) {
	fs.DurationVar(&o.CompactionInterval, "etcd-compaction-interval", o.CompactionInterval,
		"How often etcd's history is compacted to the revision of one interval earlier (several apiservers share the work); 0 never compacts")
	fs.DurationVar(&o.EventTTL, "event-ttl", o.EventTTL, "How long events are kept after their last write (etcd leases)")
	fs.IntVar(&o.WritesInflight, "etcd-writes-inflight", o.WritesInflight,
		"Writes in flight to etcd at most; more wait in the API server, where leases and node heartbeats pass the others; 0 leaves them unbounded")
	fs.StringVar(&o.MediaType, "storage-media-type", o.MediaType,
		"How built-in objects are written to etcd: "+StorageMediaTypeProtobuf+" or "+StorageMediaTypeJSON+" (either is read; custom resources are JSON)")
}

// Validate returns every problem with the options.
func (o *StorageOptions) Validate() []error {
	var errs []error
	if o.CompactionInterval < 0 {
		errs = append(errs, fmt.Errorf("--etcd-compaction-interval %s: must not be negative", o.CompactionInterval))
	}
	if o.WritesInflight < 0 {
		errs = append(errs, fmt.Errorf("--etcd-writes-inflight %d: must not be negative", o.WritesInflight))
	}
	if o.MediaType != StorageMediaTypeProtobuf && o.MediaType != StorageMediaTypeJSON {
		errs = append(errs, fmt.Errorf("--storage-media-type %q: want %s or %s", o.MediaType, StorageMediaTypeProtobuf, StorageMediaTypeJSON))
	}
	if o.EventTTL < time.Second {
		errs = append(errs, fmt.Errorf("--event-ttl %s: must be at least 1s", o.EventTTL))
	}
	return errs
}
