package cacher

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/fields"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/watch"

	"kubecore.io/kubecore/pkg/etcd"
	"kubecore.io/kubecore/pkg/storage"
	"kubecore.io/kubecore/pkg/storage/etcd3"
)

// testClient is the in-process client of the package's embedded member.
var testClient *clientv3.Client

func TestMain(m *testing.M) { os.Exit(runTests(m)) }

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "cacher-test-")
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

func podAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return nil, nil, fmt.Errorf("not a pod: %T", obj)
	}
	return labels.Set(p.Labels), fields.Set{
		"metadata.name":      p.Name,
		"metadata.namespace": p.Namespace,
		"spec.nodeName":      p.Spec.NodeName,
	}, nil
}

func testEncoder(t testing.TB) func(runtime.Object) ([]byte, error) {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	ser := runtime.NewSerializer(scheme, runtime.SerializerOptions{})
	return func(obj runtime.Object) ([]byte, error) { return runtime.Encode(ser, obj) }
}

// newEtcdStorage returns pod storage under a prefix of the test's own.
func newEtcdStorage(t testing.TB, mutate ...func(*etcd3.Config)) storage.Interface {
	t.Helper()
	prefix := fmt.Sprintf("/test/%s-%d", strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()), time.Now().UnixNano())
	cfg := etcd3.Config{
		Client:           testClient,
		Prefix:           prefix,
		NewFunc:          func() runtime.Object { return &corev1.Pod{} },
		GroupResource:    schema.GroupResource{Resource: "pods"},
		BookmarkInterval: 50 * time.Millisecond,
	}
	for _, m := range mutate {
		m(&cfg)
	}
	s, err := etcd3.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// newTestCacher returns a ready cache of pods over under.
func newTestCacher(t testing.TB, under storage.Interface, mutate ...func(*Config)) *Cacher {
	t.Helper()
	cfg := Config{
		Storage:          under,
		ResourcePrefix:   "/pods",
		NewFunc:          func() runtime.Object { return &corev1.Pod{} },
		GetAttrs:         podAttrs,
		IndexFields:      []string{"spec.nodeName"},
		Encode:           testEncoder(t),
		BookmarkInterval: 50 * time.Millisecond,
		RelistBackoff:    10 * time.Millisecond,
		RequestProgress: func(ctx context.Context) error {
			return testClient.RequestProgress(clientv3.WithRequireLeader(ctx))
		},
	}
	for _, m := range mutate {
		m(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	waitReady(t, c)
	return c
}

func waitReady(t testing.TB, c *Cacher) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !c.Ready() {
		if time.Now().After(deadline) {
			t.Fatal("the cache did not become ready")
		}
		time.Sleep(time.Millisecond)
	}
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func newPod(ns, name, node string, lbls map[string]string) *corev1.Pod {
	return &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: lbls},
		Spec:       corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
	}
}

func podKey(ns, name string) string { return "/pods/" + ns + "/" + name }

func mustCreate(t testing.TB, s storage.Interface, p *corev1.Pod) *corev1.Pod {
	t.Helper()
	out, err := s.Create(ctxT(t), podKey(p.Namespace, p.Name), p)
	if err != nil {
		t.Fatalf("create %s/%s: %v", p.Namespace, p.Name, err)
	}
	return out.(*corev1.Pod)
}

func mustUpdate(t testing.TB, s storage.Interface, ns, name string, fn func(*corev1.Pod)) *corev1.Pod {
	t.Helper()
	out, err := s.GuaranteedUpdate(ctxT(t), podKey(ns, name), nil, false, func(cur runtime.Object) (runtime.Object, error) {
		p := cur.(*corev1.Pod)
		fn(p)
		return p, nil
	}, nil)
	if err != nil {
		t.Fatalf("update %s/%s: %v", ns, name, err)
	}
	return out.(*corev1.Pod)
}

func rvOf(t testing.TB, obj runtime.Object) uint64 {
	t.Helper()
	rv, err := objectRV(storage.Unwrap(obj))
	if err != nil {
		t.Fatal(err)
	}
	return rv
}

func names(items []runtime.Object) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		p := storage.Unwrap(it).(*corev1.Pod)
		out = append(out, p.Namespace+"/"+p.Name)
	}
	return out
}

// nextEvent returns the watch's next event, failing after a few seconds.
func nextEvent(t testing.TB, w watch.Interface) (watch.Event, bool) {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		return ev, ok
	case <-time.After(5 * time.Second):
		t.Fatal("no watch event within 5s")
	}
	return watch.Event{}, false
}

// expectEvents reads len(want) events and compares "TYPE ns/name" strings.
func expectEvents(t testing.TB, w watch.Interface, want ...string) []watch.Event {
	t.Helper()
	var got []watch.Event
	for i := range want {
		ev, ok := nextEvent(t, w)
		if !ok {
			t.Fatalf("watch closed after %d events, want %v", i, want)
		}
		for ev.Type == watch.Bookmark {
			if ev, ok = nextEvent(t, w); !ok {
				t.Fatalf("watch closed after %d events, want %v", i, want)
			}
		}
		got = append(got, ev)
		if s := describe(ev); s != want[i] {
			t.Fatalf("event %d = %s, want %s", i, s, want[i])
		}
	}
	return got
}

func describe(ev watch.Event) string {
	if p, ok := storage.Unwrap(ev.Object).(*corev1.Pod); ok {
		return string(ev.Type) + " " + p.Namespace + "/" + p.Name
	}
	if st, ok := ev.Object.(*metav1.Status); ok {
		return fmt.Sprintf("%s %d %s", ev.Type, st.Code, st.Message)
	}
	return fmt.Sprintf("%s %T", ev.Type, ev.Object)
}
