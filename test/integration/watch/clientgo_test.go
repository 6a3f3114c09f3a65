package watch

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	k8scorev1 "k8s.io/api/core/v1"
	k8smetav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sunstructured "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	clientfeatures "k8s.io/client-go/features"
	k8sinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	k8srest "k8s.io/client-go/rest"
	k8scache "k8s.io/client-go/tools/cache"
	k8sclientcmd "k8s.io/client-go/tools/clientcmd"
)

// requestCounter counts the initial syncs (LISTs and streaming lists) and
// the plain watches of each collection path a client sends.
type requestCounter struct {
	mu                         sync.Mutex
	lists, watchLists, watches map[string]int
}

func newRequestCounter() *requestCounter {
	return &requestCounter{lists: map[string]int{}, watchLists: map[string]int{}, watches: map[string]int{}}
}

func (c *requestCounter) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		if req.Method == http.MethodGet {
			q := req.URL.Query()
			c.mu.Lock()
			switch w := q.Get("watch"); {
			case w != "true" && w != "1":
				c.lists[req.URL.Path]++
			case q.Get("sendInitialEvents") == "true":
				c.watchLists[req.URL.Path]++
			default:
				c.watches[req.URL.Path]++
			}
			c.mu.Unlock()
		}
		return rt.RoundTrip(req)
	})
}

// counts returns the LISTs, streaming lists and watches of path.
func (c *requestCounter) counts(path string) (lists, watchLists, watches int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lists[path], c.watchLists[path], c.watches[path]
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// stockConfig is client-go's config for the server, its requests counted.
func stockConfig(t testing.TB, kubeconfig string, counter *requestCounter) *k8srest.Config {
	t.Helper()
	cfg, err := k8sclientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = -1, 0
	cfg.Wrap(counter.wrap)
	return cfg
}

var widgetsV1 = k8sschema.GroupVersionResource{Group: crdGroup, Version: "v1", Resource: crdPlural}

// seen records when an informer's handler was told of each version of
// the objects it follows.
type seen struct {
	mu   sync.Mutex
	at   map[string]time.Time // "name@resourceVersion" -> when the handler ran
	wake chan struct{}
}

func newSeen() *seen { return &seen{at: map[string]time.Time{}, wake: make(chan struct{}, 1)} }

func (s *seen) record(obj any) {
	m, err := k8smetaAccessor(obj)
	if err != nil {
		return
	}
	s.mu.Lock()
	s.at[m.GetName()+"@"+m.GetResourceVersion()] = time.Now()
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func k8smetaAccessor(obj any) (k8smetav1.Object, error) {
	if d, ok := obj.(k8scache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	m, ok := obj.(k8smetav1.Object)
	if !ok {
		return nil, errNoMeta
	}
	return m, nil
}

type noMetaError struct{}

func (noMetaError) Error() string { return "no object metadata" }

var errNoMeta = noMetaError{}

func (s *seen) handlers() k8scache.ResourceEventHandlerFuncs {
	return k8scache.ResourceEventHandlerFuncs{
		AddFunc:    s.record,
		UpdateFunc: func(_, obj any) { s.record(obj) },
		DeleteFunc: s.record,
	}
}

// wait returns when the handler was told of name at rv, failing after 10 s.
func (s *seen) wait(t testing.TB, name, rv string) time.Time {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		s.mu.Lock()
		at, ok := s.at[name+"@"+rv]
		s.mu.Unlock()
		if ok {
			return at
		}
		select {
		case <-s.wake:
		case <-timeout:
			t.Fatalf("the informer was not told of %s at %s within 10s", name, rv)
		}
	}
}

// watchErrors collects what reflectors report about their watches.
type watchErrors struct {
	mu   sync.Mutex
	errs []string
}

func (w *watchErrors) handler(what string) k8scache.WatchErrorHandlerWithContext {
	return func(_ context.Context, _ *k8scache.Reflector, err error) {
		w.mu.Lock()
		w.errs = append(w.errs, what+": "+err.Error())
		w.mu.Unlock()
	}
}

func (w *watchErrors) list() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.errs)
}

// TestClientGoInformersNeverRelist runs the stock client-go informers
// against kubecore for more than ten bookmark intervals: a dynamic
// informer on the custom resource and a typed one on config maps, with
// the WatchListClient feature on. Each syncs once (by a LIST or a
// streaming list) and then keeps its one watch: no relist, no re-watch,
// no watch error, while every change of the custom resource reaches the
// handler.
func TestClientGoInformersNeverRelist(t *testing.T) {
	t.Setenv("KUBE_FEATURE_WatchListClient", "true")
	if !clientfeatures.FeatureGates().Enabled(clientfeatures.WatchListClient) {
		t.Fatal("client-go's WatchListClient feature is off")
	}
	s := startServer(t)
	counter := newRequestCounter()
	cfg := stockConfig(t, s.Kubeconfig, counter)
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	pbCfg := k8srest.CopyConfig(cfg)
	pbCfg.ContentType = "application/vnd.kubernetes.protobuf"
	cs, err := kubernetes.NewForConfig(pbCfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	var errs watchErrors
	widgetsSeen, cmsSeen := newSeen(), newSeen()
	dynFactory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dyn, 0, s.ns, nil)
	widgets := dynFactory.ForResource(widgetsV1).Informer()
	if err := widgets.SetWatchErrorHandlerWithContext(errs.handler("widgets")); err != nil {
		t.Fatal(err)
	}
	if _, err := widgets.AddEventHandler(widgetsSeen.handlers()); err != nil {
		t.Fatal(err)
	}
	factory := k8sinformers.NewSharedInformerFactoryWithOptions(cs, 0, k8sinformers.WithNamespace(s.ns))
	cms := factory.Core().V1().ConfigMaps().Informer()
	if err := cms.SetWatchErrorHandlerWithContext(errs.handler("configmaps")); err != nil {
		t.Fatal(err)
	}
	if _, err := cms.AddEventHandler(cmsSeen.handlers()); err != nil {
		t.Fatal(err)
	}
	dynFactory.Start(ctx.Done())
	factory.Start(ctx.Done())
	if !k8scache.WaitForCacheSync(ctx.Done(), widgets.HasSynced, cms.HasSynced) {
		t.Fatal("the informers did not sync")
	}

	widgetsClient := dyn.Resource(widgetsV1).Namespace(s.ns)
	w := &k8sunstructured.Unstructured{Object: map[string]any{
		"apiVersion": crdGroup + "/v1", "kind": crdKind,
		"metadata": map[string]any{"name": "followed"}, "spec": map[string]any{"size": int64(0)},
	}}
	w, err = widgetsClient.Create(ctx, w, k8smetav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	widgetsSeen.wait(t, "followed", w.GetResourceVersion())
	cm, err := cs.CoreV1().ConfigMaps(s.ns).Create(ctx, &k8scorev1.ConfigMap{ObjectMeta: k8smetav1.ObjectMeta{Name: "followed"}}, k8smetav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cmsSeen.wait(t, "followed", cm.ResourceVersion)

	// More than ten bookmark intervals of changes, one every 500 ms, each
	// of which the handler must be told of.
	start := time.Now()
	var latencies []time.Duration
	for i := int64(1); time.Since(start) < 11*bookmarkInterval; i++ {
		if err := k8sunstructured.SetNestedField(w.Object, i, "spec", "size"); err != nil {
			t.Fatal(err)
		}
		sent := time.Now()
		if w, err = widgetsClient.Update(ctx, w, k8smetav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		latencies = append(latencies, widgetsSeen.wait(t, "followed", w.GetResourceVersion()).Sub(sent))
		if i%4 == 0 {
			cm.Data = map[string]string{"i": strings.Repeat("x", int(i))}
			if cm, err = cs.CoreV1().ConfigMaps(s.ns).Update(ctx, cm, k8smetav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			cmsSeen.wait(t, "followed", cm.ResourceVersion)
		}
		time.Sleep(500 * time.Millisecond)
	}
	slices.Sort(latencies)
	t.Logf("Custom resource update -> informer handler over %d changes: median %v, max %v (figure: BenchmarkInformerSeesCustomResourceChange)",
		len(latencies), latencies[len(latencies)/2], latencies[len(latencies)-1])

	for _, path := range []string{"/apis/" + crdGroup + "/v1/namespaces/" + s.ns + "/" + crdPlural, "/api/v1/namespaces/" + s.ns + "/configmaps"} {
		lists, watchLists, watches := counter.counts(path)
		t.Logf("%s: %d LIST, %d streaming list, %d watch", path, lists, watchLists, watches)
		if lists+watchLists != 1 {
			t.Errorf("%s: %d LISTs and %d streaming lists over %v, want one initial sync", path, lists, watchLists, time.Since(start))
		}
		if watchLists == 0 && watches != 1 {
			t.Errorf("%s: %d watches after its LIST, want 1", path, watches)
		}
		if watchLists == 1 && watches != 0 {
			t.Errorf("%s: %d watches after its streaming list, want none", path, watches)
		}
	}
	if _, watchLists, _ := counter.counts("/api/v1/namespaces/" + s.ns + "/configmaps"); watchLists != 1 {
		t.Errorf("the typed informer synced without a streaming list although WatchListClient is on")
	}
	if e := errs.list(); len(e) > 0 {
		t.Errorf("watch errors: %v", e)
	}
}

// BenchmarkInformerSeesCustomResourceChange: the time from sending an
// update of a custom resource to the stock client-go dynamic informer's
// handler being told of it, against a kubecore API server in the same
// process, over 200 updates one after the other (target: 100 ms).
func BenchmarkInformerSeesCustomResourceChange(b *testing.B) {
	const changes = 200
	s := startServer(b)
	counter := newRequestCounter()
	dyn, err := dynamic.NewForConfig(stockConfig(b, s.Kubeconfig, counter))
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	widgetsSeen := newSeen()
	factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dyn, 0, s.ns, nil)
	inf := factory.ForResource(widgetsV1).Informer()
	if _, err := inf.AddEventHandler(widgetsSeen.handlers()); err != nil {
		b.Fatal(err)
	}
	factory.Start(ctx.Done())
	if !k8scache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		b.Fatal("the informer did not sync")
	}
	client := dyn.Resource(widgetsV1).Namespace(s.ns)
	w, err := client.Create(ctx, &k8sunstructured.Unstructured{Object: map[string]any{
		"apiVersion": crdGroup + "/v1", "kind": crdKind, "metadata": map[string]any{"name": "bench"},
	}}, k8smetav1.CreateOptions{})
	if err != nil {
		b.Fatal(err)
	}
	widgetsSeen.wait(b, "bench", w.GetResourceVersion())
	var latencies []time.Duration
	b.ResetTimer()
	for b.Loop() {
		latencies = latencies[:0]
		for i := range int64(changes) {
			if err := k8sunstructured.SetNestedField(w.Object, i, "spec", "size"); err != nil {
				b.Fatal(err)
			}
			sent := time.Now()
			if w, err = client.Update(ctx, w, k8smetav1.UpdateOptions{}); err != nil {
				b.Fatal(err)
			}
			latencies = append(latencies, widgetsSeen.wait(b, "bench", w.GetResourceVersion()).Sub(sent))
		}
	}
	b.StopTimer()
	slices.Sort(latencies)
	median, p99 := latencies[len(latencies)/2], latencies[len(latencies)*99/100]
	b.ReportMetric(float64(median.Microseconds())/1000, "ms-median")
	b.ReportMetric(float64(p99.Microseconds())/1000, "ms-p99")
	fmt.Printf("figure: %-62s %9.1f ms   (target 100 ms)\n", "custom resource update -> client-go informer handler, median", float64(median.Microseconds())/1000)
	fmt.Printf("figure: %-62s %9.1f ms   (target 100 ms)\n", "custom resource update -> client-go informer handler, p99", float64(p99.Microseconds())/1000)
}
