package apiserver

import (
	"errors"
	"strings"
	"testing"
)

func TestValidateStorage(t *testing.T) {
	def := NewStorageOptions()
	if errs := def.Validate(); len(errs) != 0 {
		t.Errorf("defaults: %v", errs)
	}
	if def.MediaType != StorageMediaTypeProtobuf {
		t.Errorf("default media type %q, want protobuf as Kubernetes", def.MediaType)
	}
	for _, c := range []struct {
		mutate func(*StorageOptions)
		err    string
	}{
		{func(o *StorageOptions) { o.CompactionInterval = -1 }, "--etcd-compaction-interval"},
		{func(o *StorageOptions) { o.WritesInflight = -1 }, "--etcd-writes-inflight -1"},
		{func(o *StorageOptions) { o.EventTTL = 0 }, "--event-ttl"},
		{func(o *StorageOptions) { o.MediaType = "application/yaml" }, `--storage-media-type "application/yaml": want application/vnd.kubernetes.protobuf or application/json`},
	} {
		o := NewStorageOptions()
		c.mutate(&o)
		if err := errors.Join(o.Validate()...); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("error %v, want %q", err, c.err)
		}
	}
	o := NewStorageOptions()
	o.MediaType = StorageMediaTypeJSON
	if errs := o.Validate(); len(errs) != 0 {
		t.Errorf("JSON: %v", errs)
	}
}
