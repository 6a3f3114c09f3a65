package cache

import (
	"errors"
	"slices"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime/schema"
)

func nodePod(ns, name, node string, lbls map[string]string) *corev1.Pod {
	p := pod(ns, name, "1")
	p.Spec.NodeName = node
	p.Labels = lbls
	return p
}

func byNode(p *corev1.Pod) ([]string, error) {
	if p.Spec.NodeName == "" {
		return nil, nil
	}
	return []string{p.Spec.NodeName}, nil
}

func keysOf(objs []*corev1.Pod) []string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		out = append(out, objectKey(o))
	}
	slices.Sort(out)
	return out
}

func TestIndexer(t *testing.T) {
	type step func(ix *Indexer[*corev1.Pod]) error
	add := func(p *corev1.Pod) step { return func(ix *Indexer[*corev1.Pod]) error { return ix.Add(p) } }
	del := func(p *corev1.Pod) step { return func(ix *Indexer[*corev1.Pod]) error { return ix.Delete(p) } }
	replace := func(ps ...*corev1.Pod) step {
		return func(ix *Indexer[*corev1.Pod]) error { return ix.Replace(ps, "9") }
	}
	for _, tc := range []struct {
		name      string
		steps     []step
		keys      []string
		onNode1   []string
		inNS      []string // of namespace "a"
		nodeValue []string
	}{
		{
			name:    "adds",
			steps:   []step{add(nodePod("a", "x", "n1", nil)), add(nodePod("b", "y", "n1", nil)), add(nodePod("a", "z", "", nil))},
			keys:    []string{"a/x", "a/z", "b/y"},
			onNode1: []string{"a/x", "b/y"}, inNS: []string{"a/x", "a/z"}, nodeValue: []string{"n1"},
		},
		{
			name:    "update moves the index",
			steps:   []step{add(nodePod("a", "x", "n1", nil)), add(nodePod("a", "x", "n2", nil))},
			keys:    []string{"a/x"},
			onNode1: []string{}, inNS: []string{"a/x"}, nodeValue: []string{"n2"},
		},
		{
			name:    "delete unindexes",
			steps:   []step{add(nodePod("a", "x", "n1", nil)), del(pod("a", "x", ""))},
			keys:    []string{},
			onNode1: []string{}, inNS: []string{}, nodeValue: []string{},
		},
		{
			name:    "replace drops what is not listed",
			steps:   []step{add(nodePod("a", "x", "n1", nil)), replace(nodePod("a", "y", "n1", nil), nodePod("", "c", "", nil))},
			keys:    []string{"a/y", "c"},
			onNode1: []string{"a/y"}, inNS: []string{"a/y"}, nodeValue: []string{"n1"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ix := NewIndexer[*corev1.Pod]()
			if err := ix.AddIndexers(map[string]IndexFunc[*corev1.Pod]{"nodeName": byNode}); err != nil {
				t.Fatal(err)
			}
			for _, s := range tc.steps {
				if err := s(ix); err != nil {
					t.Fatal(err)
				}
			}
			if got := ix.ListKeys(); !slices.Equal(got, tc.keys) {
				t.Errorf("ListKeys = %q, want %q", got, tc.keys)
			}
			objs, err := ix.ByIndex("nodeName", "n1")
			if err != nil {
				t.Fatal(err)
			}
			if got := keysOf(objs); !slices.Equal(got, tc.onNode1) {
				t.Errorf("ByIndex(nodeName, n1) = %q, want %q", got, tc.onNode1)
			}
			if got, _ := ix.IndexKeys(NamespaceIndex, "a"); !slices.Equal(got, tc.inNS) {
				t.Errorf("IndexKeys(namespace, a) = %q, want %q", got, tc.inNS)
			}
			if got := ix.ListIndexFuncValues("nodeName"); !slices.Equal(got, tc.nodeValue) {
				t.Errorf("node values = %q, want %q", got, tc.nodeValue)
			}
		})
	}
}

func TestIndexerErrors(t *testing.T) {
	ix := NewIndexer[*corev1.Pod]()
	if err := ix.Add(nodePod("a", "x", "n1", nil)); err != nil {
		t.Fatal(err)
	}
	if err := ix.AddIndexers(map[string]IndexFunc[*corev1.Pod]{NamespaceIndex: byNode}); err == nil {
		t.Error("AddIndexers accepted a second namespace index")
	}
	if _, err := ix.ByIndex("nope", "v"); err == nil {
		t.Error("ByIndex of an unknown index gave no error")
	}
	// An indexer added late indexes what is already stored.
	if err := ix.AddIndexers(map[string]IndexFunc[*corev1.Pod]{"nodeName": byNode}); err != nil {
		t.Fatal(err)
	}
	if got, _ := ix.IndexKeys("nodeName", "n1"); !slices.Equal(got, []string{"a/x"}) {
		t.Errorf("late index = %q", got)
	}
	same, err := ix.Index("nodeName", nodePod("z", "other", "n1", nil))
	if err != nil || !slices.Equal(keysOf(same), []string{"a/x"}) {
		t.Errorf("Index = %q, %v", keysOf(same), err)
	}
	// A failing index function leaves the store unchanged.
	bad := errors.New("bad pod")
	if err := ix.AddIndexers(map[string]IndexFunc[*corev1.Pod]{"strict": func(p *corev1.Pod) ([]string, error) {
		if p.Name == "bad" {
			return nil, bad
		}
		return nil, nil
	}}); err != nil {
		t.Fatal(err)
	}
	if err := ix.Add(pod("a", "bad", "1")); !errors.Is(err, bad) {
		t.Errorf("Add of an unindexable object: err = %v", err)
	}
	if err := ix.Replace([]*corev1.Pod{pod("a", "ok", "1"), pod("a", "bad", "1")}, "2"); !errors.Is(err, bad) {
		t.Errorf("Replace with an unindexable object: err = %v", err)
	}
	if got := ix.ListKeys(); !slices.Equal(got, []string{"a/x"}) {
		t.Errorf("store changed by failed writes: %q", got)
	}
}

func TestKeys(t *testing.T) {
	for _, tc := range []struct {
		key, ns, name string
		wantErr       bool
	}{
		{key: "a/b", ns: "a", name: "b"},
		{key: "node1", name: "node1"},
		{key: "", wantErr: true},
		{key: "a/b/c", wantErr: true},
		{key: "/b", wantErr: true},
		{key: "a/", wantErr: true},
	} {
		ns, name, err := SplitMetaNamespaceKey(tc.key)
		if (err != nil) != tc.wantErr || ns != tc.ns || name != tc.name {
			t.Errorf("SplitMetaNamespaceKey(%q) = %q, %q, %v", tc.key, ns, name, err)
		}
	}
	for _, tc := range []struct {
		obj     any
		want    string
		wantErr bool
	}{
		{obj: pod("ns", "p", ""), want: "ns/p"},
		{obj: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}}, want: "n"},
		{obj: "already/key", want: "already/key"},
		{obj: DeletedFinalStateUnknown{Key: "ns/gone"}, want: "ns/gone"},
		{obj: 42, wantErr: true},
	} {
		got, err := DeletionHandlingMetaNamespaceKeyFunc(tc.obj)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("key of %#v = %q, %v; want %q", tc.obj, got, err, tc.want)
		}
	}
}

func TestLister(t *testing.T) {
	ix := NewIndexer[*corev1.Pod]()
	for _, p := range []*corev1.Pod{
		nodePod("a", "web1", "", map[string]string{"app": "web"}),
		nodePod("a", "db", "", map[string]string{"app": "db"}),
		nodePod("b", "web2", "", map[string]string{"app": "web"}),
	} {
		if err := ix.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	l := NewLister(ix, schema.GroupResource{Resource: "pods"})
	web := labels.SelectorFromSet(labels.Set{"app": "web"})
	for _, tc := range []struct {
		name string
		list func() ([]*corev1.Pod, error)
		want []string
	}{
		{"all", func() ([]*corev1.Pod, error) { return l.List(nil) }, []string{"a/db", "a/web1", "b/web2"}},
		{"selector", func() ([]*corev1.Pod, error) { return l.List(web) }, []string{"a/web1", "b/web2"}},
		{"namespace", func() ([]*corev1.Pod, error) { return l.Namespaced("a").List(labels.Everything()) }, []string{"a/db", "a/web1"}},
		{"namespace and selector", func() ([]*corev1.Pod, error) { return l.Namespaced("a").List(web) }, []string{"a/web1"}},
		{"empty namespace", func() ([]*corev1.Pod, error) { return l.Namespaced("zz").List(nil) }, []string{}},
	} {
		objs, err := tc.list()
		if err != nil || !slices.Equal(keysOf(objs), tc.want) {
			t.Errorf("%s: got %q, %v; want %q", tc.name, keysOf(objs), err, tc.want)
		}
	}
	if p, err := l.Namespaced("b").Get("web2"); err != nil || p.Name != "web2" {
		t.Errorf("Get(b/web2) = %v, %v", p, err)
	}
	_, err := l.Namespaced("b").Get("db")
	if !apierrors.IsNotFound(err) || err.Error() != `pods "db" not found` {
		t.Errorf("Get(b/db) err = %v, want NotFound", err)
	}
	if _, err := l.Get("web1"); !apierrors.IsNotFound(err) {
		t.Errorf("cluster-scoped Get of a namespaced name: err = %v, want NotFound", err)
	}
	// The full list must not be changed by filtering.
	if n := len(ix.List()); n != 3 {
		t.Errorf("indexer holds %d after listing, want 3", n)
	}
}

func TestExtractList(t *testing.T) {
	list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "7", Continue: "tok"},
		Items: []corev1.Pod{*pod("a", "x", "1")}}
	page, err := extractList[*corev1.Pod](list)
	if err != nil || len(page.items) != 1 || page.items[0] != &list.Items[0] ||
		page.resourceVersion != "7" || page.continueToken != "tok" {
		t.Fatalf("extractList = %+v, %v", page, err)
	}
	if _, err := extractList[*corev1.Pod](&corev1.NodeList{Items: []corev1.Node{{}}}); err == nil {
		t.Error("extractList of nodes as pods gave no error")
	}
	if _, err := extractList[*corev1.Pod](pod("a", "x", "1")); err == nil {
		t.Error("extractList of a non-list gave no error")
	}
}

func TestBackoff(t *testing.T) {
	b := backoff{initial: 100 * time.Millisecond, max: time.Second}
	for i, ceil := range []time.Duration{100, 200, 400, 800, 1000, 1000} {
		ceil *= time.Millisecond
		d := b.next()
		if d < ceil/2 || d > ceil {
			t.Errorf("step %d: %v not in [%v, %v]", i, d, ceil/2, ceil)
		}
	}
	b.reset()
	if d := b.next(); d > 100*time.Millisecond {
		t.Errorf("after reset: %v, want <= 100ms", d)
	}
}
