package controller

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/apimachinery/pkg/watch"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/util/workqueue"
)

// keyLog records the keys a sync function is called with.
type keyLog struct {
	mu   sync.Mutex
	keys []string
	seen chan string
}

func newKeyLog() *keyLog { return &keyLog{seen: make(chan string, 100)} }

func (l *keyLog) sync(_ context.Context, key string) error {
	l.mu.Lock()
	l.keys = append(l.keys, key)
	l.mu.Unlock()
	l.seen <- key
	return nil
}

// await waits for the syncs of keys, in any order (workers sync the keys
// of one event concurrently); other keys synced meanwhile are passed over.
func (l *keyLog) await(t *testing.T, keys ...string) {
	t.Helper()
	want := map[string]bool{}
	for _, k := range keys {
		want[k] = true
	}
	timeout := time.After(10 * time.Second)
	for len(want) > 0 {
		select {
		case got := <-l.seen:
			delete(want, got)
		case <-timeout:
			t.Fatalf("no sync of %q", slices.Sorted(maps.Keys(want)))
		}
	}
}

// runController runs c until the returned stop is called; stop returns
// Run's error.
func runController(t *testing.T, c *Controller, workers int) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- c.Run(ctx, workers) }()
	return func() error {
		cancel()
		select {
		case err := <-errc:
			return err
		case <-time.After(10 * time.Second):
			t.Fatal("Run did not return after cancel")
			return nil
		}
	}
}

// podInformer is an informer whose first list is pods and whose watch
// is the returned fake watcher.
func podInformer(pods ...corev1.Pod) (*cache.Informer[*corev1.Pod], *watch.FakeWatcher) {
	fw := watch.NewFakeWithChanSize(10)
	lw := cache.ListWatch{
		ListFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: pods}, nil
		},
		WatchFunc: func(context.Context, metav1.ListOptions) (watch.Interface, error) { return fw, nil },
	}
	return cache.NewInformer[*corev1.Pod](lw, cache.InformerOptions{}), fw
}

func plainPod(name, rv string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(name + "-uid"), ResourceVersion: rv}}
}

func TestWatchMapsEventsToKeys(t *testing.T) {
	log := newKeyLog()
	c := New("test", log.sync)
	inf, fw := podInformer(*plainPod("a", "1"))
	Watch(c, inf, Handler[*corev1.Pod]{
		Add:    KeyOf[*corev1.Pod],
		Update: func(_, p *corev1.Pod) []string { return []string{"updated/" + p.Name} },
		Delete: func(p *corev1.Pod) []string { return []string{"deleted/" + p.Name, "other"} },
	})
	if err := c.Err(); err != nil {
		t.Fatal(err)
	}
	stop := runController(t, c, 2)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); inf.Run(ctx) }()
	defer func() { cancel(); <-done }()

	log.await(t, "ns/a")
	fw.Modify(plainPod("a", "2"))
	log.await(t, "updated/a")
	fw.Delete(plainPod("a", "3"))
	log.await(t, "deleted/a", "other")
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}

func TestRunWaitsForWatchedCaches(t *testing.T) {
	log := newKeyLog()
	c := New("test", log.sync)
	inf, _ := podInformer()
	Watch(c, inf, ObjectKeys[*corev1.Pod]())
	c.Queue().Add("early")
	stop := runController(t, c, 1)
	select {
	case key := <-log.seen:
		t.Fatalf("synced %q before the informer listed", key)
	case <-time.After(3 * cacheSyncPeriod):
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); inf.Run(ctx) }()
	defer func() { cancel(); <-done }()
	log.await(t, "early")
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}

func TestWatchOfStoppedInformerFailsRun(t *testing.T) {
	c := New("test", newKeyLog().sync)
	inf, _ := podInformer()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	inf.Run(ctx) // a cancelled informer stops at once
	Watch(c, inf, ObjectKeys[*corev1.Pod]())
	if err := c.Err(); !errors.Is(err, cache.ErrStopped) {
		t.Fatalf("Err() = %v, want %v", err, cache.ErrStopped)
	}
	if err := c.Run(context.Background(), 1); !errors.Is(err, cache.ErrStopped) {
		t.Fatalf("Run() = %v, want %v", err, cache.ErrStopped)
	}
}

// TestRunDrainsEveryQueue: Run runs each queue with its sync function
// (and fixed workers where set), and returns only once every key queued
// before the cancel was synced.
func TestRunDrainsEveryQueue(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	got := map[string][]string{}
	record := func(queue string) SyncFunc {
		return func(_ context.Context, key string) error {
			<-release
			mu.Lock()
			defer mu.Unlock()
			got[queue] = append(got[queue], key)
			return nil
		}
	}
	c := New("main", record("main"))
	second := c.AddQueue("second", record("second"), QueueOptions{Workers: 1})
	var want []string
	for i := range 20 {
		key := fmt.Sprintf("ns/k%d", i)
		want = append(want, key)
		c.Queue().Add(key)
		second.Add(key)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- c.Run(ctx, 3) }()
	cancel()
	close(release)
	select {
	case err := <-errc:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return")
	}
	for _, q := range []string{"main", "second"} {
		keys := slices.Clone(got[q])
		slices.Sort(keys)
		w := slices.Clone(want)
		slices.Sort(w)
		if !slices.Equal(keys, w) {
			t.Errorf("queue %s synced %v, want %v", q, keys, w)
		}
	}
	if n := c.Runners()[1].Syncs(); n != 20 {
		t.Errorf("second queue counted %d syncs, want 20", n)
	}
}

func TestSyncErrorRequeuesWithBackoff(t *testing.T) {
	var mu sync.Mutex
	var calls []time.Time
	done := make(chan struct{})
	sync := func(_ context.Context, key string) error {
		mu.Lock()
		defer mu.Unlock()
		calls = append(calls, time.Now())
		if len(calls) < 3 {
			return fmt.Errorf("attempt %d failed", len(calls))
		}
		close(done)
		return nil
	}
	const base = 50 * time.Millisecond
	c := New("test", sync, QueueOptions{RateLimiter: workqueue.NewTypedItemExponentialFailureRateLimiter[string](base, time.Second)})
	stop := runController(t, c, 2)
	c.Queue().Add("ns/a")
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the key was not retried to success")
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	// The retries wait base, then 2*base: never less.
	if gap := calls[1].Sub(calls[0]); gap < base {
		t.Errorf("first retry after %v, want at least %v", gap, base)
	}
	if gap := calls[2].Sub(calls[1]); gap < 2*base {
		t.Errorf("second retry after %v, want at least %v", gap, 2*base)
	}
	if r := c.Runner(); r.Errors() != 2 || r.Syncs() != 3 {
		t.Errorf("runner counted %d errors in %d syncs, want 2 in 3", r.Errors(), r.Syncs())
	}
	if n := c.Queue().NumRequeues("ns/a"); n != 0 {
		t.Errorf("%d requeues remembered after success, want 0", n)
	}
}

// ownedFixture is a lister of ReplicaSets ns/rs (uid rs-uid) and ns/other
// (uid other-uid), and UID-tracking expectations.
func ownedFixture(t *testing.T) (cache.Lister[*appsv1.ReplicaSet], *UIDTrackingExpectations) {
	t.Helper()
	idx := cache.NewIndexer[*appsv1.ReplicaSet]()
	for _, rs := range []*appsv1.ReplicaSet{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "rs", UID: "rs-uid"}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "other", UID: "other-uid"}},
	} {
		if err := idx.Add(rs); err != nil {
			t.Fatal(err)
		}
	}
	return cache.NewLister(idx, schema.GroupResource{Group: "apps", Resource: "replicasets"}), NewUIDTrackingExpectations(nil)
}

func controlledBy(name, uid string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		yes := true
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: name, UID: types.UID(uid), Controller: &yes}}
	}
}

func podWith(rv string, opts ...func(*corev1.Pod)) *corev1.Pod {
	p := plainPod("p", rv)
	p.Labels = map[string]string{"app": "web"}
	for _, o := range opts {
		o(p)
	}
	return p
}

func markDeleting(p *corev1.Pod) {
	now := metav1.NewTime(time.Now())
	p.DeletionTimestamp = &now
}

func TestOwnedMapsToOwnerAndObservesExpectations(t *testing.T) {
	owners, exp := ownedFixture(t)
	c := New("test", newKeyLog().sync)
	h := Owned[*appsv1.ReplicaSet, *corev1.Pod]{
		Kind:         schema.GroupKind{Group: "apps", Kind: "ReplicaSet"},
		Owners:       owners,
		Expectations: exp,
		Adopters:     func(*corev1.Pod) []string { return []string{"ns/adopter"} },
	}.Handler(c)
	owned := controlledBy("rs", "rs-uid")
	tests := []struct {
		name string
		run  func() []string
		want []string
	}{
		{"add of an owned pod", func() []string { return h.Add(podWith("1", owned)) }, []string{"ns/rs"}},
		{"add of an orphan", func() []string { return h.Add(podWith("1")) }, []string{"ns/adopter"}},
		{"add of a pod whose owner is gone", func() []string { return h.Add(podWith("1", controlledBy("rs", "old-uid"))) }, nil},
		{"resync", func() []string { return h.Update(podWith("1", owned), podWith("1", owned)) }, nil},
		{"update of an owned pod", func() []string { return h.Update(podWith("1", owned), podWith("2", owned)) }, []string{"ns/rs"}},
		{"owner changed", func() []string {
			return h.Update(podWith("1", owned), podWith("2", controlledBy("other", "other-uid")))
		}, []string{"ns/rs", "ns/other"}},
		{"released", func() []string { return h.Update(podWith("1", owned), podWith("2")) }, []string{"ns/rs", "ns/adopter"}},
		{"orphan unchanged labels", func() []string { return h.Update(podWith("1"), podWith("2")) }, nil},
		{"orphan relabelled", func() []string {
			return h.Update(podWith("1"), podWith("2", func(p *corev1.Pod) { p.Labels = map[string]string{"app": "db"} }))
		}, []string{"ns/adopter"}},
		{"delete of an orphan", func() []string { return h.Delete(podWith("1")) }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.run(); !slices.Equal(got, tt.want) {
				t.Errorf("keys %v, want %v", got, tt.want)
			}
		})
	}

	// Creations count as the pods appear.
	exp.ExpectCreations("ns/rs", 2)
	h.Add(podWith("1", owned))
	if exp.SatisfiedExpectations("ns/rs") {
		t.Fatal("satisfied after 1 of 2 creations")
	}
	h.Add(podWith("1", owned, func(p *corev1.Pod) { p.Name, p.UID = "q", "q-uid" }))
	if !exp.SatisfiedExpectations("ns/rs") {
		t.Fatal("not satisfied after 2 of 2 creations")
	}
	// A deletion counts when it starts (update to deleting), once, and a
	// pod seen deleting on add counts too.
	exp.ExpectDeletionsOf("ns/rs", []types.UID{"p-uid", "q-uid"})
	if got := h.Update(podWith("1", owned), podWith("2", owned, markDeleting)); !slices.Equal(got, []string{"ns/rs"}) {
		t.Fatalf("keys %v on the start of a deletion", got)
	}
	h.Delete(podWith("3", owned, markDeleting))
	if exp.SatisfiedExpectations("ns/rs") {
		t.Fatal("one pod's deletion, reported twice, satisfied two")
	}
	h.Add(podWith("1", owned, markDeleting, func(p *corev1.Pod) { p.Name, p.UID = "q", "q-uid" }))
	if !exp.SatisfiedExpectations("ns/rs") {
		t.Fatal("not satisfied after both deletions")
	}
}

func TestOwnedRequeuesAfter(t *testing.T) {
	owners, _ := ownedFixture(t)
	log := newKeyLog()
	c := New("test", log.sync)
	h := Owned[*appsv1.ReplicaSet, *corev1.Pod]{
		Kind:   schema.GroupKind{Group: "apps", Kind: "ReplicaSet"},
		Owners: owners,
		RequeueAfter: func(rs *appsv1.ReplicaSet, _, _ *corev1.Pod) time.Duration {
			if rs.Name != "rs" {
				t.Errorf("RequeueAfter asked about %s", rs.Name)
			}
			return time.Millisecond
		},
	}.Handler(c)
	owned := controlledBy("rs", "rs-uid")
	if got := h.Update(podWith("1", owned), podWith("2", owned)); !slices.Equal(got, []string{"ns/rs"}) {
		t.Fatalf("keys %v", got)
	}
	// Nothing but the delayed add is queued: the key arrives through it.
	stop := runController(t, c, 1)
	log.await(t, "ns/rs")
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}

func TestSelectorKeys(t *testing.T) {
	sel := func(m map[string]string) *metav1.LabelSelector { return &metav1.LabelSelector{MatchLabels: m} }
	rss := []*appsv1.ReplicaSet{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"}, Spec: appsv1.ReplicaSetSpec{Selector: sel(map[string]string{"app": "web"})}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "db"}, Spec: appsv1.ReplicaSetSpec{Selector: sel(map[string]string{"app": "db"})}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "all"}, Spec: appsv1.ReplicaSetSpec{Selector: sel(nil)}},
	}
	got := SelectorKeys(rss, func(rs *appsv1.ReplicaSet) *metav1.LabelSelector { return rs.Spec.Selector }, podWith("1"))
	if !slices.Equal(got, []string{"ns/web"}) {
		t.Fatalf("keys %v, want [ns/web] (an empty selector adopts nothing)", got)
	}
}

// statusClient is a StatusClient of one ReplicaSet whose UpdateStatus
// answers the errors given, in order, then succeeds.
type statusClient struct {
	errs    []error
	fresh   *appsv1.ReplicaSet
	updates []*appsv1.ReplicaSet
}

func (s *statusClient) Get(context.Context, string, metav1.GetOptions) (*appsv1.ReplicaSet, error) {
	if s.fresh == nil {
		return nil, apierrors.NewNotFound(schema.GroupResource{Group: "apps", Resource: "replicasets"}, "rs")
	}
	return s.fresh.DeepCopy(), nil
}

func (s *statusClient) UpdateStatus(_ context.Context, rs *appsv1.ReplicaSet, _ metav1.UpdateOptions) (*appsv1.ReplicaSet, error) {
	s.updates = append(s.updates, rs.DeepCopy())
	if len(s.errs) > 0 {
		err := s.errs[0]
		s.errs = s.errs[1:]
		return nil, err
	}
	return rs, nil
}

func TestUpdateStatus(t *testing.T) {
	conflict := apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "replicasets"}, "rs", errors.New("stale"))
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "rs", UID: "rs-uid", ResourceVersion: "1", Generation: 1}}
	newer := rs.DeepCopy()
	newer.ResourceVersion = "2"
	set := func(r *appsv1.ReplicaSet) { r.Status.Replicas = 3 }
	tests := []struct {
		name        string
		client      *statusClient
		stale       func(*appsv1.ReplicaSet) bool
		wantErr     bool
		wantUpdates int
		wantLastRV  string
	}{
		{name: "first try", client: &statusClient{}, wantUpdates: 1, wantLastRV: "1"},
		{name: "conflict retried on the fresh copy", client: &statusClient{errs: []error{conflict}, fresh: newer}, wantUpdates: 2, wantLastRV: "2"},
		{name: "stale after conflict", client: &statusClient{errs: []error{conflict}, fresh: newer}, stale: func(*appsv1.ReplicaSet) bool { return true }, wantUpdates: 1},
		{name: "replaced object", client: &statusClient{errs: []error{conflict}, fresh: func() *appsv1.ReplicaSet {
			r := newer.DeepCopy()
			r.UID = "new-uid"
			return r
		}()}, wantUpdates: 1},
		{name: "gone", client: &statusClient{errs: []error{conflict}}, wantUpdates: 1},
		{name: "other error", client: &statusClient{errs: []error{errors.New("boom")}}, wantErr: true, wantUpdates: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := UpdateStatus(context.Background(), tt.client, "replicaset", rs, set, tt.stale)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if len(tt.client.updates) != tt.wantUpdates {
				t.Fatalf("%d updates, want %d", len(tt.client.updates), tt.wantUpdates)
			}
			last := tt.client.updates[len(tt.client.updates)-1]
			if last.Status.Replicas != 3 {
				t.Errorf("status not set on the update: %+v", last.Status)
			}
			if tt.wantLastRV != "" && last.ResourceVersion != tt.wantLastRV {
				t.Errorf("last update on version %s, want %s", last.ResourceVersion, tt.wantLastRV)
			}
		})
	}
	if rs.Status.Replicas != 0 {
		t.Error("UpdateStatus changed the cached object")
	}
}

func TestRunWaitsForLoops(t *testing.T) {
	c := New("test", newKeyLog().sync)
	started, stopped := make(chan struct{}), make(chan struct{})
	c.AddLoop(func(ctx context.Context) {
		close(started)
		<-ctx.Done()
		close(stopped)
	})
	stop := runController(t, c, 1)
	<-started
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-stopped:
	default:
		t.Fatal("Run returned before its loop")
	}
}

func TestEveryRepeatsUntilCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	calls := make(chan struct{}, 10)
	done := make(chan struct{})
	go func() {
		defer close(done)
		Every(time.Millisecond, func(context.Context) { calls <- struct{}{} })(ctx)
	}()
	for range 2 {
		select {
		case <-calls:
		case <-time.After(10 * time.Second):
			t.Fatal("the loop was not called again")
		}
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the loop did not stop")
	}
}

func TestForgetOnDelete(t *testing.T) {
	var forgotten []string
	h := ForgetOnDelete[*corev1.Pod](func(key string) { forgotten = append(forgotten, key) })
	if got := h.Add(plainPod("a", "1")); !slices.Equal(got, []string{"ns/a"}) || forgotten != nil {
		t.Fatalf("add: keys %v, forgotten %v", got, forgotten)
	}
	if got := h.Update(plainPod("a", "1"), plainPod("a", "2")); !slices.Equal(got, []string{"ns/a"}) || forgotten != nil {
		t.Fatalf("update: keys %v, forgotten %v", got, forgotten)
	}
	if got := h.Delete(plainPod("a", "3")); !slices.Equal(got, []string{"ns/a"}) || !slices.Equal(forgotten, []string{"ns/a"}) {
		t.Fatalf("delete: keys %v, forgotten %v", got, forgotten)
	}
}
