package etcd3

import (
	"strings"
	"testing"

	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/storage"
)

// TestRuntimeCodec stores objects through the scheme's JSON serializer:
// apiVersion and kind are written, and data decodes into the Go type.
func TestRuntimeCodec(t *testing.T) {
	scheme := runtime.NewScheme()
	scheme.AddKnownTypeWithName(schema.GroupVersionKind{Group: "test.kubecore.io", Version: "v1", Kind: "Widget"}, &widget{})
	ser := runtime.NewSerializer(scheme, runtime.SerializerOptions{})
	newFunc := func() runtime.Object { return &widget{} }
	s, prefix := newTestStore(t, testClient, func(c *Config) {
		c.Codec = RuntimeCodec{Encoder: ser, Decoder: ser, New: newFunc}
	})
	ctx := ctxT(t)
	w := newWidget("a", nil)
	w.TypeMeta = widget{}.TypeMeta // the serializer fills the kind in
	w.Spec.Count = 3
	created, err := s.Create(ctx, "/widgets/default/a", w)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := testClient.Get(ctx, prefix+"/widgets/default/a")
	if err != nil {
		t.Fatal(err)
	}
	stored := string(raw.Kvs[0].Value)
	if !strings.Contains(stored, `"apiVersion":"test.kubecore.io/v1"`) || !strings.Contains(stored, `"kind":"Widget"`) ||
		strings.Contains(stored, "resourceVersion") {
		t.Errorf("stored %s", stored)
	}
	got, err := s.Get(ctx, "/widgets/default/a", storage.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if g := got.(*widget); g.Spec.Count != 3 || g.ResourceVersion != rvOf(t, created) {
		t.Errorf("got %+v", g)
	}
	// Data the codec cannot read is an invalid object, not a panic.
	if _, err := testClient.Put(ctx, prefix+"/widgets/default/bad", "{not json"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "/widgets/default/bad", storage.GetOptions{}); !storage.IsInvalidObj(err) {
		t.Errorf("get of bad data: %v, want InvalidObj", err)
	}
}
