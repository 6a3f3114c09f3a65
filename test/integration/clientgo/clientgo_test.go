// Package clientgo runs the stock client-go informers beside kubecore's own
// against a kubecore API server: wire compatibility, checked by their caches.
package clientgo

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	k8scorev1 "k8s.io/api/core/v1"
	k8sinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	k8scache "k8s.io/client-go/tools/cache"
	k8sclientcmd "k8s.io/client-go/tools/clientcmd"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/informers"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/test/integration/client/testserver"
)

const namespace = "side-by-side"

// state is what a cache holds of one object: enough to tell versions and
// content apart.
type state struct {
	resourceVersion string
	uid             string
	content         string // config map data, or pod image and labels
}

type snapshot map[string]state

func cmContent(data map[string]string) string { return fmt.Sprint(data) }

func podContent(image string, labels map[string]string) string {
	return image + " " + fmt.Sprint(labels)
}

// ours is kubecore's informers for config maps and pods.
type ours struct {
	cms  *cache.Informer[*corev1.ConfigMap]
	pods *cache.Informer[*corev1.Pod]
}

func (o ours) snapshot() (snapshot, snapshot) {
	cms, pods := snapshot{}, snapshot{}
	for _, cm := range o.cms.GetIndexer().List() {
		cms[cm.Namespace+"/"+cm.Name] = state{cm.ResourceVersion, string(cm.UID), cmContent(cm.Data)}
	}
	for _, p := range o.pods.GetIndexer().List() {
		pods[p.Namespace+"/"+p.Name] = state{p.ResourceVersion, string(p.UID), podContent(p.Spec.Containers[0].Image, p.Labels)}
	}
	return cms, pods
}

// stock is client-go's informers for config maps and pods, with a count of
// what their handlers were told.
type stock struct {
	name          string
	cms, pods     k8scache.SharedIndexInformer
	events        atomic.Int64
	deletedPods   sync.Map // key -> image of the final state the delete carried
	seenPods      sync.Map // keys of the pods the handler saw added or updated
	handlerErrors atomic.Int64
}

func (s *stock) snapshot() (snapshot, snapshot) {
	cms, pods := snapshot{}, snapshot{}
	for _, obj := range s.cms.GetStore().List() {
		cm := obj.(*k8scorev1.ConfigMap)
		cms[cm.Namespace+"/"+cm.Name] = state{cm.ResourceVersion, string(cm.UID), cmContent(cm.Data)}
	}
	for _, obj := range s.pods.GetStore().List() {
		p := obj.(*k8scorev1.Pod)
		pods[p.Namespace+"/"+p.Name] = state{p.ResourceVersion, string(p.UID), podContent(p.Spec.Containers[0].Image, p.Labels)}
	}
	return cms, pods
}

// startStock starts client-go informers on the kubeconfig, asking for
// contentType ("" for client-go's default).
func startStock(ctx context.Context, t *testing.T, kubeconfig, name, contentType string) *stock {
	t.Helper()
	cfg, err := k8sclientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatalf("client-go cannot load %s: %v", kubeconfig, err)
	}
	if contentType != "" {
		cfg.ContentType = contentType
	}
	cfg.QPS, cfg.Burst = -1, 0 // no client-side throttling, as ours in-process
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	factory := k8sinformers.NewSharedInformerFactoryWithOptions(cs, 0, k8sinformers.WithNamespace(namespace))
	s := &stock{name: name, cms: factory.Core().V1().ConfigMaps().Informer(), pods: factory.Core().V1().Pods().Informer()}
	count := k8scache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { s.events.Add(1) },
		UpdateFunc: func(any, any) { s.events.Add(1) },
		DeleteFunc: func(any) { s.events.Add(1) },
	}
	if _, err := s.cms.AddEventHandler(count); err != nil {
		t.Fatal(err)
	}
	seen := func(obj any) {
		if p, ok := obj.(*k8scorev1.Pod); ok {
			s.seenPods.Store(p.Namespace+"/"+p.Name, true)
		}
	}
	if _, err := s.pods.AddEventHandler(k8scache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { s.events.Add(1); seen(obj) },
		UpdateFunc: func(_, obj any) { s.events.Add(1); seen(obj) },
		DeleteFunc: func(obj any) {
			s.events.Add(1)
			if tomb, ok := obj.(k8scache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			p, ok := obj.(*k8scorev1.Pod)
			if !ok {
				s.handlerErrors.Add(1)
				return
			}
			s.deletedPods.Store(p.Namespace+"/"+p.Name, p.Spec.Containers[0].Image)
		},
	}); err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	t.Cleanup(factory.Shutdown)
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			t.Fatalf("client-go (%s) informer for %v did not sync", name, typ)
		}
	}
	return s
}

// startOurs starts kubecore's informers.
func startOurs(ctx context.Context, t *testing.T, cs *typed.Clientset) ours {
	t.Helper()
	factory := informers.NewSharedInformerFactory(cs, informers.WithNamespace(namespace))
	cms, err := informers.ConfigMaps(factory)
	if err != nil {
		t.Fatal(err)
	}
	pods, err := informers.Pods(factory)
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx)
	t.Cleanup(factory.Shutdown)
	for gvr, ok := range factory.WaitForCacheSync(ctx) {
		if !ok {
			t.Fatalf("kubecore informer for %v did not sync", gvr)
		}
	}
	return ours{cms: cms, pods: pods}
}

// write creates n config maps and n pods with w writers, updates every
// second one and deletes every fourth one; prefix keeps rounds apart.
func write(ctx context.Context, t *testing.T, cs *typed.Clientset, prefix string, w, n int) {
	t.Helper()
	cms := cs.CoreV1().ConfigMaps(namespace)
	pods := cs.CoreV1().Pods(namespace)
	var wg sync.WaitGroup
	for wr := range w {
		wg.Go(func() {
			for i := wr; i < n; i += w {
				if err := writeOne(ctx, cms, pods, fmt.Sprintf("%s-%04d", prefix, i), i); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
}

func writeOne(ctx context.Context, cms *typed.Client[*corev1.ConfigMap, *corev1.ConfigMapList], pods *typed.PodClient, name string, i int) error {
	cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"v": "1"}}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create config map %s: %w", name, err)
	}
	pod, err := pods.Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "side-by-side"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "example.test/app:v1"}}},
	}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create pod %s: %w", name, err)
	}
	if i%2 != 0 {
		return nil
	}
	cm.Data = map[string]string{"v": "2"}
	if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("update config map %s: %w", name, err)
	}
	pod.Labels["round"] = "2"
	pod.Spec.Containers[0].Image = "example.test/app:v2"
	if _, err := pods.Update(ctx, pod, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("update pod %s: %w", name, err)
	}
	if i%4 != 0 {
		return nil
	}
	if err := cms.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		return fmt.Errorf("delete config map %s: %w", name, err)
	}
	if err := pods.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		return fmt.Errorf("delete pod %s: %w", name, err)
	}
	return nil
}

// listed is a fresh LIST of the namespace from kubecore's client.
func listed(ctx context.Context, t *testing.T, cs *typed.Clientset) (snapshot, snapshot) {
	t.Helper()
	cmList, err := cs.CoreV1().ConfigMaps(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	podList, err := cs.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cms, pods := snapshot{}, snapshot{}
	for _, cm := range cmList.Items {
		cms[cm.Namespace+"/"+cm.Name] = state{cm.ResourceVersion, string(cm.UID), cmContent(cm.Data)}
	}
	for _, p := range podList.Items {
		pods[p.Namespace+"/"+p.Name] = state{p.ResourceVersion, string(p.UID), podContent(p.Spec.Containers[0].Image, p.Labels)}
	}
	return cms, pods
}

func diff(got, want snapshot) string {
	var lines []string
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if g, ok := got[k]; !ok {
			lines = append(lines, fmt.Sprintf("missing %s (resourceVersion %s)", k, want[k].resourceVersion))
		} else if g != want[k] {
			lines = append(lines, fmt.Sprintf("%s: %+v, want %+v", k, g, want[k]))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[k]; !ok {
			lines = append(lines, "extra "+k)
		}
	}
	if len(lines) > 8 {
		lines = append(lines[:8], fmt.Sprintf("... %d more", len(lines)-8))
	}
	return fmt.Sprint(lines)
}

// TestClientGoAndOursEndWithTheSameCache runs kubecore's informers and two
// sets of client-go's (JSON, and protobuf as Kubernetes' own components
// ask) on config maps and pods while four writers create, update and
// delete, before and after an API server restart; every cache must end
// equal to a fresh LIST, resourceVersions, UIDs and content alike.
func TestClientGoAndOursEndWithTheSameCache(t *testing.T) {
	const writers, perRound = 4, 300
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := testserver.Start(t)
	if _, err := s.Clientset.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Objects before the informers start come through their first LIST.
	write(ctx, t, s.Clientset, "before", writers, 40)

	o := startOurs(ctx, t, s.Clientset)
	stocks := []*stock{
		startStock(ctx, t, s.Kubeconfig, "json", ""),
		startStock(ctx, t, s.Kubeconfig, "protobuf", "application/vnd.kubernetes.protobuf"),
	}
	write(ctx, t, s.Clientset, "during", writers, perRound)
	if err := s.Restart(); err != nil {
		t.Fatalf("restart the API server: %v", err)
	}
	write(ctx, t, s.Clientset, "after", writers, perRound)

	wantCMs, wantPods := listed(ctx, t, s.Clientset)
	deadline := time.Now().Add(time.Minute)
	for {
		type result struct {
			name      string
			cms, pods snapshot
		}
		ocms, opods := o.snapshot()
		results := []result{{"kubecore", ocms, opods}}
		for _, st := range stocks {
			cms, pods := st.snapshot()
			results = append(results, result{"client-go " + st.name, cms, pods})
		}
		var problems []string
		for _, r := range results {
			if !maps.Equal(r.cms, wantCMs) {
				problems = append(problems, fmt.Sprintf("%s config maps: %s", r.name, diff(r.cms, wantCMs)))
			}
			if !maps.Equal(r.pods, wantPods) {
				problems = append(problems, fmt.Sprintf("%s pods: %s", r.name, diff(r.pods, wantPods)))
			}
		}
		if len(problems) == 0 {
			break
		}
		if time.Now().After(deadline) {
			for _, p := range problems {
				t.Error(p)
			}
			// Where each client-go informer's reflector stands tells a
			// missed event (an RV past it) from a stuck watch (an RV
			// before it).
			for _, st := range stocks {
				t.Logf("client-go %s last synced: config maps at %s, pods at %s", st.name, st.cms.LastSyncResourceVersion(), st.pods.LastSyncResourceVersion())
			}
			t.FailNow()
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("every cache equals a LIST of %d config maps and %d pods", len(wantCMs), len(wantPods))
	if want := 40 + 2*perRound - (10 + 2*perRound/4); len(wantPods) != want || len(wantCMs) != want {
		t.Errorf("LIST has %d config maps and %d pods, want %d of each", len(wantCMs), len(wantPods), want)
	}
	for _, st := range stocks {
		if n := st.handlerErrors.Load(); n != 0 {
			t.Errorf("client-go %s: %d deletes carried no pod", st.name, n)
		}
		// Every deleted pod the handler had seen got a delete, carrying its
		// final state (image v2). A pod created and deleted while the
		// informer was relisting (a busy machine across the restart) is
		// one it never saw: no event is owed for it.
		missing := 0
		for _, round := range []string{"before", "during", "after"} {
			n := perRound
			if round == "before" {
				n = 40
			}
			for i := 0; i < n; i += 4 {
				key := fmt.Sprintf("%s/%s-%04d", namespace, round, i)
				image, ok := st.deletedPods.Load(key)
				if !ok {
					if _, saw := st.seenPods.Load(key); saw || round == "before" {
						missing++
					}
					continue
				}
				if round != "before" && image != "example.test/app:v2" {
					t.Errorf("client-go %s: delete of %s carried image %v, want the final example.test/app:v2", st.name, key, image)
				}
			}
		}
		// The deletes of "before" happened before the informers started.
		if want := 10; missing != want {
			t.Errorf("client-go %s: %d deletes of pods it had seen (or of before-start pods) never reached the handler, want only the %d from before it started", st.name, missing, want)
		}
		t.Logf("client-go %s handlers saw %d events", st.name, st.events.Load())
	}
}
