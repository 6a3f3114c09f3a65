package informer

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/informers"
	"kubecore.io/client/tools/cache"

	"kubecore.io/kubecore/test/integration/client/testserver"

	"kubecore.io/kubecore/test/integration/framework"
)

// startInformer starts a shared informer factory over the Clientset and
// returns its config map informer, synced, with log as its first handler.
func startInformer(ctx context.Context, t testing.TB, s *testserver.Server, namespace string, log *eventLog) *cache.Informer[*corev1.ConfigMap] {
	t.Helper()
	factory := informers.NewSharedInformerFactory(s.Clientset, informers.WithNamespace(namespace))
	inf, err := informers.ConfigMaps(factory)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := inf.AddEventHandler(log.handler()); err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	t.Cleanup(func() { cancel(); factory.Shutdown() })
	factory.Start(runCtx)
	if synced := factory.WaitForCacheSync(ctx); !synced[configMaps] {
		t.Fatalf("informer did not sync: %v", synced)
	}
	return inf
}

// TestInformerSeesEveryChange writes 10,000 config maps with 8 writers
// (creates, updates of half, deletes of a quarter) and checks that the
// informer's handler saw each change exactly once, in order, and that the
// cache ends equal to a fresh LIST.
func TestInformerSeesEveryChange(t *testing.T) {
	const writers, perWriter = 8, 1250
	ctx := context.Background()
	s := testserver.Start(t)
	createNamespace(t, s.Clientset, "every")
	log := newEventLog()
	inf := startInformer(ctx, t, s, "every", log)

	start := time.Now()
	w := runWriters(ctx, t, s.Clientset, workload{namespace: "every", writers: writers, perWriter: perWriter})
	if t.Failed() {
		t.FailNow()
	}
	writes := len(w.created) + len(w.updated) + len(w.deleted)
	t.Logf("%d writes by %d writers in %v", writes, writers, time.Since(start).Round(time.Millisecond))
	want := waitCacheEqualsList(ctx, t, inf, s.Clientset, "every", time.Minute)
	framework.WaitUntil(t, time.Minute, "the handler to see every change", func() bool { return log.count() >= writes })
	t.Logf("cache equal to the LIST (%d objects) %v after the writers began; %d LIST(s)", len(want), time.Since(start).Round(time.Millisecond), inf.Lists())

	if len(w.created) != writers*perWriter {
		t.Fatalf("%d objects created, want %d", len(w.created), writers*perWriter)
	}
	relisted := inf.Lists() > 1
	if relisted {
		// A relist folds the changes it finds into one; only the end
		// state can be checked then.
		t.Errorf("the informer listed %d times; want one LIST and every change through the watch", inf.Lists())
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	if log.initial != 0 {
		t.Errorf("%d adds from the initial list of an empty namespace", log.initial)
	}
	checkEveryChange(t, log, w)
	if len(want) != len(w.created)-len(w.deleted) {
		t.Errorf("LIST has %d objects, want %d", len(want), len(w.created)-len(w.deleted))
	}
}

// TestInformerResumesAcrossRestart restarts the API server while 8 writers
// write, and checks that the informer resumes, gives no object two adds,
// and ends equal to a fresh LIST.
func TestInformerResumesAcrossRestart(t *testing.T) {
	const writers, perWriter = 8, 1250
	ctx := context.Background()
	s := testserver.Start(t)
	createNamespace(t, s.Clientset, "restart")
	log := newEventLog()
	inf := startInformer(ctx, t, s, "restart", log)

	restarted := make(chan error, 1)
	var once sync.Once
	start := time.Now()
	w := runWriters(ctx, t, s.Clientset, workload{
		namespace: "restart", writers: writers, perWriter: perWriter, retry: true,
		progress: func(done int) {
			if done == writers*perWriter/3 {
				once.Do(func() {
					go func() {
						t0 := time.Now()
						err := s.Restart()
						t.Logf("API server restarted in %v, with %d objects written", time.Since(t0).Round(time.Millisecond), done)
						restarted <- err
					}()
				})
			}
		},
	})
	if err := <-restarted; err != nil {
		t.Fatalf("restart: %v", err)
	}
	if t.Failed() {
		t.FailNow()
	}
	want := waitCacheEqualsList(ctx, t, inf, s.Clientset, "restart", time.Minute)
	t.Logf("cache equal to the LIST (%d objects) %v after the writers began; %d LIST(s)", len(want), time.Since(start).Round(time.Millisecond), inf.Lists())
	if dups := log.duplicateAdds(); len(dups) > 0 {
		t.Errorf("%d objects added more than once, e.g. %v", len(dups), dups[:min(5, len(dups))])
	}
	if len(want) != len(w.created)-len(w.deleted) {
		t.Errorf("LIST has %d objects, want %d", len(want), len(w.created)-len(w.deleted))
	}
	framework.WaitUntil(t, 30*time.Second, "a delete for every deleted object", func() bool {
		log.mu.Lock()
		defer log.mu.Unlock()
		for key := range w.deleted {
			if len(log.deletes[key]) != 1 {
				return false
			}
		}
		return true
	})
	if inf.Lists() == 1 {
		// The informer resumed its watch from the last resourceVersion it
		// saw, without listing: then it must have missed nothing either.
		writes := len(w.created) + len(w.updated) + len(w.deleted)
		framework.WaitUntil(t, 30*time.Second, "the handler to see every change", func() bool { return log.count() >= writes })
		log.mu.Lock()
		defer log.mu.Unlock()
		checkEveryChange(t, log, w)
	}
}

// ringOverflow is how many writes push an event out of the API server's
// watch cache (it keeps the last 1,000 events of a resource), so that a
// watch from before them is answered 410 whether it is served from the
// watch cache or from etcd.
const ringOverflow = 1200

// TestInformerRelistsAfterExpiry holds the informer's watch back while
// objects change and etcd's history is compacted past the informer's
// resourceVersion; the informer must get 410, list again, and tell its
// handler of the objects deleted meanwhile with their last known state.
func TestInformerRelistsAfterExpiry(t *testing.T) {
	ctx := context.Background()
	s := testserver.Start(t)
	cs := s.Clientset
	createNamespace(t, cs, "expiry")
	createNamespace(t, cs, "churn")
	client := cs.CoreV1().ConfigMaps("expiry")
	for i := range 30 {
		if _, err := client.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%02d", i)}, Data: map[string]string{"v": "1"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	lw, err := cs.ListWatch(configMaps, "expiry")
	if err != nil {
		t.Fatal(err)
	}
	gate := framework.NewGatedListWatch(lw)
	var errMu sync.Mutex
	var reflectorErrs []error
	inf := cache.NewInformer[*corev1.ConfigMap](gate, cache.InformerOptions{
		Resource: configMaps.GroupResource(),
		Reflector: cache.ReflectorOptions{
			InitialBackoff: 20 * time.Millisecond,
			OnError: func(err error) {
				errMu.Lock()
				reflectorErrs = append(reflectorErrs, err)
				errMu.Unlock()
			},
		},
	})
	log := newEventLog()
	if _, err := inf.AddEventHandler(log.handler()); err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { inf.Run(runCtx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	if !cache.WaitForCacheSync(ctx, inf.HasSynced) {
		t.Fatal("no sync")
	}
	framework.WaitUntil(t, 10*time.Second, "30 initial adds", func() bool { return log.count() == 30 })
	staleRV := inf.LastSyncResourceVersion()
	before := map[string]*corev1.ConfigMap{}
	for _, obj := range inf.GetIndexer().List() {
		before[obj.Name] = obj
	}

	gate.Pause()
	// Meanwhile: 10 objects deleted, 10 updated, 5 new ones.
	for i := range 10 {
		if err := client.Delete(ctx, fmt.Sprintf("cm-%02d", i), metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		obj := before[fmt.Sprintf("cm-%02d", 10+i)].DeepCopy()
		obj.Data = map[string]string{"v": "2"}
		if _, err := client.Update(ctx, obj, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 5 {
		if _, err := client.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("new-%d", i)}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	churn := cs.CoreV1().ConfigMaps("churn")
	for i := range ringOverflow {
		if _, err := churn.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("c-%04d", i)}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	rev, err := s.Etcd().Get(ctx, "compact-probe")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Etcd().Compact(ctx, rev.Header.Revision); err != nil {
		t.Fatalf("compact etcd at %d: %v", rev.Header.Revision, err)
	}
	t.Logf("informer held at resourceVersion %s; etcd compacted at %d", staleRV, rev.Header.Revision)
	listsBefore := gate.Lists()
	gate.Resume()

	want := waitCacheEqualsList(ctx, t, inf, cs, "expiry", 30*time.Second)
	if gate.Lists() <= listsBefore || inf.Lists() != 2 {
		t.Errorf("LIST calls %d -> %d, completed LISTs %d: want one relist", listsBefore, gate.Lists(), inf.Lists())
	}
	errMu.Lock()
	expired := false
	for _, err := range reflectorErrs {
		expired = expired || apierrors.IsResourceExpired(err) || apierrors.IsGone(err)
	}
	t.Logf("reflector errors: %v", reflectorErrs)
	errMu.Unlock()
	if !expired {
		t.Error("the reflector was never told its resourceVersion expired (410)")
	}
	if len(want) != 25 {
		t.Errorf("LIST has %d objects, want 25", len(want))
	}
	framework.WaitUntil(t, 10*time.Second, "the relist's changes", func() bool { return log.count() == 30+10+10+5 })
	if dups := log.duplicateAdds(); len(dups) > 0 {
		t.Errorf("objects added twice: %v", dups)
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	for i := range 10 {
		key := cache.ObjectKey("expiry", fmt.Sprintf("cm-%02d", i))
		got := log.deletes[key]
		if len(got) != 1 || got[0].ResourceVersion != before[fmt.Sprintf("cm-%02d", i)].ResourceVersion {
			t.Errorf("%s: deletes %v, want one with the last known state at resourceVersion %s", key, got, before[fmt.Sprintf("cm-%02d", i)].ResourceVersion)
		}
		key = cache.ObjectKey("expiry", fmt.Sprintf("cm-%02d", 10+i))
		if len(log.updates[key]) != 1 {
			t.Errorf("%s: updates %v, want one", key, log.updates[key])
		}
	}
	for i := range 5 {
		key := cache.ObjectKey("expiry", fmt.Sprintf("new-%d", i))
		if len(log.adds[key]) != 1 {
			t.Errorf("%s: adds %v, want one", key, log.adds[key])
		}
	}
}
