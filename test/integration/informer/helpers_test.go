package informer

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/typed"
)

// configMaps is the resource the tests write and watch.
var configMaps = corev1.SchemeGroupVersion.WithResource("configmaps")

// createNamespace creates a namespace for one test.
func createNamespace(t testing.TB, cs *typed.Clientset, name string) {
	t.Helper()
	_, err := cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create namespace %s: %v", name, err)
	}
}

// eventLog records what a handler was told, per object key.
type eventLog struct {
	mu      sync.Mutex
	adds    map[string][]string // resourceVersions added
	updates map[string][]string // resourceVersions an update brought
	deletes map[string][]*corev1.ConfigMap
	initial int // adds from an initial list
	total   int
}

func newEventLog() *eventLog {
	return &eventLog{adds: map[string][]string{}, updates: map[string][]string{}, deletes: map[string][]*corev1.ConfigMap{}}
}

func (l *eventLog) handler() cache.ResourceEventHandlerFuncs[*corev1.ConfigMap] {
	return cache.ResourceEventHandlerFuncs[*corev1.ConfigMap]{
		AddFunc: func(obj *corev1.ConfigMap, initial bool) {
			l.mu.Lock()
			defer l.mu.Unlock()
			key := cache.ObjectKey(obj.Namespace, obj.Name)
			l.adds[key] = append(l.adds[key], obj.ResourceVersion)
			if initial {
				l.initial++
			}
			l.total++
		},
		UpdateFunc: func(oldObj, newObj *corev1.ConfigMap) {
			l.mu.Lock()
			defer l.mu.Unlock()
			key := cache.ObjectKey(newObj.Namespace, newObj.Name)
			l.updates[key] = append(l.updates[key], newObj.ResourceVersion)
			l.total++
		},
		DeleteFunc: func(obj *corev1.ConfigMap) {
			l.mu.Lock()
			defer l.mu.Unlock()
			key := cache.ObjectKey(obj.Namespace, obj.Name)
			l.deletes[key] = append(l.deletes[key], obj)
			l.total++
		},
	}
}

func (l *eventLog) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.total
}

// duplicateAdds returns the keys added more than once.
func (l *eventLog) duplicateAdds() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for k, rvs := range l.adds {
		if len(rvs) > 1 {
			out = append(out, fmt.Sprintf("%s %v", k, rvs))
		}
	}
	slices.Sort(out)
	return out
}

// written is what the writers did, by object key: the resourceVersion of
// each create and update, and the objects deleted.
type written struct {
	mu      sync.Mutex
	created map[string]string
	updated map[string]string
	deleted map[string]bool
}

func newWritten() *written {
	return &written{created: map[string]string{}, updated: map[string]string{}, deleted: map[string]bool{}}
}

func (w *written) record(m map[string]string, key, rv string) {
	w.mu.Lock()
	m[key] = rv
	w.mu.Unlock()
}

// workload is what runWriters does.
type workload struct {
	namespace string
	writers   int
	perWriter int
	// retry makes every write retry through transport errors and
	// unavailability, as while the API server restarts.
	retry bool
	// progress, if set, is called after each object's writes with the
	// number of objects done so far.
	progress func(done int)
}

// runWriters runs w.writers goroutines, each writing w.perWriter config
// maps: every object is created; every even one is then updated; every
// fourth one is then deleted.
func runWriters(ctx context.Context, t testing.TB, cs *typed.Clientset, w workload) *written {
	t.Helper()
	out := newWritten()
	client := cs.CoreV1().ConfigMaps(w.namespace)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	errs := make(chan error, w.writers)
	for wr := range w.writers {
		wg.Go(func() {
			for i := range w.perWriter {
				name := fmt.Sprintf("w%d-%05d", wr, i)
				if err := writeOne(ctx, client, name, i, w.retry, out); err != nil {
					errs <- fmt.Errorf("writer %d: %s: %w", wr, name, err)
					return
				}
				if w.progress != nil {
					mu.Lock()
					done++
					n := done
					mu.Unlock()
					w.progress(n)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	return out
}

type configMapClient = typed.Client[*corev1.ConfigMap, *corev1.ConfigMapList]

// writeOne creates object i, and updates and deletes it as the workload
// says.
func writeOne(ctx context.Context, c *configMapClient, name string, i int, retry bool, out *written) error {
	key := cache.ObjectKey(c.Namespace(), name)
	var obj *corev1.ConfigMap
	err := attempt(ctx, retry, func(first bool) error {
		var err error
		obj, err = c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"v": "1"}}, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) && !first {
			// An earlier attempt was applied but its answer was lost.
			obj, err = c.Get(ctx, name, metav1.GetOptions{})
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("create: %w", err)
	}
	out.record(out.created, key, obj.ResourceVersion)
	if i%2 != 0 {
		return nil
	}
	err = attempt(ctx, retry, func(first bool) error {
		if !first {
			current, err := c.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if current.Data["v"] == "2" {
				obj = current
				return nil
			}
			obj = current
		}
		next := obj.DeepCopy()
		next.Data = map[string]string{"v": "2"}
		updated, err := c.Update(ctx, next, metav1.UpdateOptions{})
		if err != nil {
			return err
		}
		obj = updated
		return nil
	})
	if err != nil {
		return fmt.Errorf("update: %w", err)
	}
	out.record(out.updated, key, obj.ResourceVersion)
	if i%4 != 0 {
		return nil
	}
	err = attempt(ctx, retry, func(first bool) error {
		err := c.Delete(ctx, name, metav1.DeleteOptions{})
		if apierrors.IsNotFound(err) && !first {
			return nil
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	out.mu.Lock()
	out.deleted[key] = true
	out.mu.Unlock()
	return nil
}

// attempt runs op once, or, with retry, until it succeeds or fails with an
// error that is not about the server being away; first tells op whether an
// earlier attempt may have been applied.
func attempt(ctx context.Context, retry bool, op func(first bool) error) error {
	for i := 0; ; i++ {
		err := op(i == 0)
		if err == nil || !retry || !transient(err) || ctx.Err() != nil || i > 600 {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// transient reports errors a write sees while the API server restarts.
func transient(err error) bool {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return true // no answer: connection refused or cut
	}
	return apierrors.IsServiceUnavailable(err) || apierrors.IsInternalError(err) ||
		apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) || apierrors.IsTooManyRequests(err) ||
		apierrors.IsConflict(err) // an update retried after its first attempt was applied
}

// snapshot is the key -> resourceVersion of a set of objects.
type snapshot map[string]string

func cacheSnapshot(inf *cache.Informer[*corev1.ConfigMap]) snapshot {
	out := snapshot{}
	for _, obj := range inf.GetIndexer().List() {
		out[cache.ObjectKey(obj.Namespace, obj.Name)] = obj.ResourceVersion
	}
	return out
}

func listSnapshot(ctx context.Context, cs *typed.Clientset, namespace string) (snapshot, string, error) {
	list, err := cs.CoreV1().ConfigMaps(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, "", err
	}
	out := snapshot{}
	for _, obj := range list.Items {
		out[cache.ObjectKey(obj.Namespace, obj.Name)] = obj.ResourceVersion
	}
	return out, list.ResourceVersion, nil
}

// diff describes how got differs from want, in at most a few lines.
func diff(got, want snapshot) string {
	var lines []string
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if rv, ok := got[k]; !ok {
			lines = append(lines, fmt.Sprintf("missing %s@%s", k, want[k]))
		} else if rv != want[k] {
			lines = append(lines, fmt.Sprintf("%s at %s, want %s", k, rv, want[k]))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[k]; !ok {
			lines = append(lines, fmt.Sprintf("extra %s@%s", k, got[k]))
		}
	}
	if len(lines) > 10 {
		lines = append(lines[:10], fmt.Sprintf("... and %d more", len(lines)-10))
	}
	return fmt.Sprint(lines)
}

// waitCacheEqualsList waits until the informer's cache equals a fresh
// LIST of namespace, and returns that LIST.
func waitCacheEqualsList(ctx context.Context, t testing.TB, inf *cache.Informer[*corev1.ConfigMap], cs *typed.Clientset, namespace string, timeout time.Duration) snapshot {
	t.Helper()
	want, rv, err := listSnapshot(ctx, cs, namespace)
	if err != nil {
		t.Fatalf("list %s: %v", namespace, err)
	}
	deadline := time.Now().Add(timeout)
	for {
		got := cacheSnapshot(inf)
		if maps.Equal(got, want) {
			return want
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v the cache (at resourceVersion %s) differs from a LIST at resourceVersion %s: %s",
				timeout, inf.LastSyncResourceVersion(), rv, diff(got, want))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkEveryChange checks, with log locked, that the handler was told of
// each write exactly once: one add at the create's resourceVersion, the
// update at its resourceVersion, and a delete carrying the final state.
func checkEveryChange(t testing.TB, log *eventLog, w *written) {
	t.Helper()
	writes := len(w.created) + len(w.updated) + len(w.deleted)
	if log.total != writes {
		t.Errorf("handler saw %d changes, want %d", log.total, writes)
	}
	bad := 0
	for key, createdRV := range w.created {
		var problems []string
		if adds := log.adds[key]; len(adds) != 1 || adds[0] != createdRV {
			problems = append(problems, fmt.Sprintf("adds %v, want [%s]", adds, createdRV))
		}
		var wantUpdates []string
		if rv, ok := w.updated[key]; ok {
			wantUpdates = []string{rv}
		}
		if got := log.updates[key]; fmt.Sprint(got) != fmt.Sprint(wantUpdates) {
			problems = append(problems, fmt.Sprintf("updates %v, want %v", got, wantUpdates))
		}
		deletes := log.deletes[key]
		switch {
		case w.deleted[key] && len(deletes) != 1:
			problems = append(problems, fmt.Sprintf("%d deletes, want 1", len(deletes)))
		case w.deleted[key] && deletes[0].Data["v"] != "2":
			problems = append(problems, fmt.Sprintf("delete carries data %v, want the final state v=2", deletes[0].Data))
		case !w.deleted[key] && len(deletes) != 0:
			problems = append(problems, fmt.Sprintf("%d deletes of an object never deleted", len(deletes)))
		}
		if len(problems) > 0 {
			if bad++; bad <= 10 {
				t.Errorf("%s: %v", key, problems)
			}
		}
	}
	if bad > 10 {
		t.Errorf("... %d objects in all with wrong events", bad)
	}
}
