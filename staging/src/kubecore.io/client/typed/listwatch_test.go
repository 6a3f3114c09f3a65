package typed

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/client/informers"
)

// A Clientset is the source of a shared informer factory.
var _ informers.ListWatchSource = (*Clientset)(nil)

func TestListWatchServesEveryBuiltinResource(t *testing.T) {
	f := &fakeServer{}
	cs := newClientset(t, f)
	for _, info := range BuiltinResources() {
		gvr := info.GroupVersionResource
		lw, err := cs.ListWatch(gvr, "ns")
		if err != nil {
			t.Errorf("%s: %v", gvr, err)
			continue
		}
		f.answer(http.StatusOK, fmt.Sprintf(`{"kind":"%sList","metadata":{"resourceVersion":"7"},"items":[{"metadata":{"name":"x","resourceVersion":"6"}}]}`, info.Kind))
		list, err := lw.List(context.Background(), metav1.ListOptions{Limit: 3})
		if err != nil {
			t.Errorf("%s: list: %v", gvr, err)
			continue
		}
		if got := fmt.Sprintf("%T", list); !strings.HasSuffix(got, "."+info.Kind+"List") {
			t.Errorf("%s: list type %s, want a %sList", gvr, got, info.Kind)
		}
		if rv := list.(metav1.ListInterface).GetResourceVersion(); rv != "7" {
			t.Errorf("%s: list resourceVersion %q, want 7", gvr, rv)
		}
		want := "/api/v1/"
		if gvr.Group != "" {
			want = "/apis/" + gvr.Group + "/" + gvr.Version + "/"
		}
		if info.Namespaced {
			want += "namespaces/ns/"
		}
		want += gvr.Resource
		if got := f.seen(); got.method != http.MethodGet || got.path != want || got.query != "limit=3" {
			t.Errorf("%s: request %s %s?%s, want GET %s?limit=3", gvr, got.method, got.path, got.query, want)
		}
	}
}

func TestListWatchAllNamespacesAndWatch(t *testing.T) {
	f := &fakeServer{}
	cs := newClientset(t, f)
	lw, err := cs.ListWatch(corev1.SchemeGroupVersion.WithResource("pods"), "")
	if err != nil {
		t.Fatal(err)
	}
	f.answer(http.StatusOK, `{"type":"ADDED","object":`+podJSON+"}\n")
	w, err := lw.Watch(context.Background(), metav1.ListOptions{ResourceVersion: "4"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	ev, ok := <-w.ResultChan()
	if !ok {
		t.Fatal("watch closed without an event")
	}
	if pod, ok := ev.Object.(*corev1.Pod); !ok || pod.Name != "p" {
		t.Errorf("event object %#v, want pod p", ev.Object)
	}
	if got := f.seen(); got.path != "/api/v1/pods" || !strings.Contains(got.query, "watch=true") || !strings.Contains(got.query, "resourceVersion=4") {
		t.Errorf("watch request %s?%s", got.path, got.query)
	}
}

func TestListWatchUnknownResource(t *testing.T) {
	cs := newClientset(t, &fakeServer{})
	for _, gvr := range []schema.GroupVersionResource{
		{Version: "v1", Resource: "widgets"},
		{Group: "apps", Version: "v1beta1", Resource: "deployments"},
		{Group: "example.com", Version: "v1", Resource: "pods"},
	} {
		_, err := cs.ListWatch(gvr, "")
		if err == nil || !strings.Contains(err.Error(), "not a built-in resource") {
			t.Errorf("%s: error %v, want not a built-in resource", gvr, err)
		}
	}
}

func TestClientsetFeedsInformerFactory(t *testing.T) {
	f := &fakeServer{}
	f.answer(http.StatusOK, `{"kind":"PodList","metadata":{"resourceVersion":"9"},"items":[`+podJSON+`]}`)
	cs := newClientset(t, f)
	factory := informers.NewSharedInformerFactory(cs, informers.WithNamespace("ns"))
	inf, err := informers.Pods(factory)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); factory.Shutdown() }()
	factory.Start(ctx)
	synced := factory.WaitForCacheSync(ctx)
	if !synced[corev1.SchemeGroupVersion.WithResource("pods")] {
		t.Fatalf("pods did not sync: %v", synced)
	}
	if _, err := inf.Lister().Namespaced("ns").Get("p"); err != nil {
		t.Errorf("pod ns/p not in the cache: %v", err)
	}
}
