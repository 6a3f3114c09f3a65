package etcd3

import (
	"bytes"
	"strings"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/protobuf"
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

// TestProtobufCodec stores a built-in object in the protobuf envelope,
// reads back what it wrote and what an earlier kubecore wrote as JSON, and
// keeps JSON for a type that has no protobuf form.
func TestProtobufCodec(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	pb := protobuf.NewSerializer(scheme)
	s, prefix := newTestStore(t, testClient, func(c *Config) {
		c.NewFunc = func() runtime.Object { return &corev1.ConfigMap{} }
		c.Codec = ProtobufCodec{Serializer: pb, New: c.NewFunc}
	})
	ctx := ctxT(t)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "default", Labels: map[string]string{"app": "web"}},
		Data: map[string]string{"key": "value"}}
	created, err := s.Create(ctx, "/configmaps/default/a", cm)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := testClient.Get(ctx, prefix+"/configmaps/default/a")
	if err != nil {
		t.Fatal(err)
	}
	stored := raw.Kvs[0].Value
	if !protobuf.IsEnveloped(stored) || !bytes.Contains(stored, []byte("ConfigMap")) || bytes.Contains(stored, []byte(`"key"`)) {
		t.Errorf("stored %q, want the protobuf envelope", stored)
	}
	got, err := s.Get(ctx, "/configmaps/default/a", storage.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if g := got.(*corev1.ConfigMap); g.Data["key"] != "value" || g.Labels["app"] != "web" || g.ResourceVersion != rvOf(t, created) {
		t.Errorf("got %+v", g)
	}

	// JSON an earlier kubecore stored still reads, and an update of it
	// writes protobuf.
	if _, err := testClient.Put(ctx, prefix+"/configmaps/default/old", `{"metadata":{"name":"old","namespace":"default"},"data":{"k":"v"}}`); err != nil {
		t.Fatal(err)
	}
	old, err := s.Get(ctx, "/configmaps/default/old", storage.GetOptions{})
	if err != nil || old.(*corev1.ConfigMap).Data["k"] != "v" {
		t.Fatalf("get of JSON data: %v %+v", err, old)
	}
	if _, err := s.GuaranteedUpdate(ctx, "/configmaps/default/old", nil, false, func(in runtime.Object) (runtime.Object, error) {
		c := in.(*corev1.ConfigMap).DeepCopy()
		c.Data["k"] = "w"
		return c, nil
	}, nil); err != nil {
		t.Fatal(err)
	}
	if raw, err := testClient.Get(ctx, prefix+"/configmaps/default/old"); err != nil || !protobuf.IsEnveloped(raw.Kvs[0].Value) {
		t.Errorf("updated JSON data stored as %q (%v), want protobuf", raw.Kvs[0].Value, err)
	}

	// Neither JSON nor an envelope: an invalid object.
	if _, err := testClient.Put(ctx, prefix+"/configmaps/default/bad", "k8s\x00\xff\xff"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "/configmaps/default/bad", storage.GetOptions{}); !storage.IsInvalidObj(err) {
		t.Errorf("get of bad data: %v, want InvalidObj", err)
	}

	// A type without protobuf tags is stored as JSON.
	ws, wprefix := newTestStore(t, testClient, func(c *Config) {
		c.Codec = ProtobufCodec{Serializer: pb, New: c.NewFunc}
	})
	w := newWidget("w", nil)
	w.Spec.Count = 4
	if _, err := ws.Create(ctx, "/widgets/default/w", w); err != nil {
		t.Fatal(err)
	}
	if raw, err := testClient.Get(ctx, wprefix+"/widgets/default/w"); err != nil || !bytes.HasPrefix(raw.Kvs[0].Value, []byte("{")) {
		t.Errorf("widget stored as %q (%v), want JSON", raw.Kvs[0].Value, err)
	}
	if got, err := ws.Get(ctx, "/widgets/default/w", storage.GetOptions{}); err != nil || got.(*widget).Spec.Count != 4 {
		t.Errorf("widget: %v %+v", err, got)
	}
}
