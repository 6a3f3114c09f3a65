package etcd3

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/fields"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/types"

	"kubecore.io/kubecore/pkg/etcd"
	"kubecore.io/kubecore/pkg/storage"
)

// testClient is the in-process client of the package's embedded member.
var testClient *clientv3.Client

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "etcd3-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	srv, err := etcd.Start(context.Background(), etcd.Config{DataDir: dir, UnsafeNoFsync: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer srv.Close()
	testClient = srv.Client()
	return m.Run()
}

// widget is the test resource: object metadata and a small spec.
type widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              widgetSpec `json:"spec,omitempty"`
}

type widgetSpec struct {
	Node  string `json:"node,omitempty"`
	Count int    `json:"count,omitempty"`
}

var _ runtime.Object = (*widget)(nil)

// DeepCopyObject copies through JSON: enough for a test type.
func (w *widget) DeepCopyObject() runtime.Object {
	data, err := json.Marshal(w)
	if err != nil {
		panic(err)
	}
	out := &widget{}
	if err := json.Unmarshal(data, out); err != nil {
		panic(err)
	}
	return out
}

func newWidget(name string, lbls map[string]string) *widget {
	return &widget{
		TypeMeta:   metav1.TypeMeta{APIVersion: "test.kubecore.io/v1", Kind: "Widget"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: lbls, UID: types.UID("uid-" + name)},
	}
}

func widgetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	w, ok := obj.(*widget)
	if !ok {
		return nil, nil, fmt.Errorf("not a widget: %T", obj)
	}
	return labels.Set(w.Labels), fields.Set{
		"metadata.name":      w.Name,
		"metadata.namespace": w.Namespace,
		"spec.node":          w.Spec.Node,
	}, nil
}

// newTestStore returns a store under a prefix of its own, so that tests
// sharing the member never see each other's keys.
func newTestStore(t testing.TB, client *clientv3.Client, mutate ...func(*Config)) (storage.Interface, string) {
	t.Helper()
	// The time keeps prefixes apart across -count runs on one member.
	prefix := fmt.Sprintf("/test/%s-%d", strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()), time.Now().UnixNano())
	cfg := Config{
		Client:        client,
		Prefix:        prefix,
		NewFunc:       func() runtime.Object { return &widget{} },
		GroupResource: schema.GroupResource{Group: "test.kubecore.io", Resource: "widgets"},
	}
	for _, m := range mutate {
		m(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s, prefix
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func rvOf(t testing.TB, obj runtime.Object) string {
	t.Helper()
	m, err := accessor(obj)
	if err != nil {
		t.Fatal(err)
	}
	return m.GetResourceVersion()
}

func mustCreate(t testing.TB, s storage.Interface, key string, w *widget) *widget {
	t.Helper()
	out, err := s.Create(ctxT(t), key, w)
	if err != nil {
		t.Fatalf("create %s: %v", key, err)
	}
	return out.(*widget)
}

func hasCode(err error, code storage.ErrorCode) bool {
	se, ok := err.(*storage.StorageError)
	return ok && se.Code == code
}
