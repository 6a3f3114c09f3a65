package deployment

import (
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/apimachinery/pkg/watch"

	"kubecore.io/kubecore/pkg/controller/garbagecollector"

	"kubecore.io/kubecore/test/integration/framework"
)

// TestDeletionPropagation deletes a rolled-out Deployment with each
// propagation policy, with the Deployment, ReplicaSet and garbage
// collector controllers running, and checks the Kubernetes outcome:
// Background removes the Deployment at once and its ReplicaSet and pods
// after; Foreground keeps the Deployment (foregroundDeletion finalizer)
// until its pods and ReplicaSet are gone; Orphan leaves the ReplicaSet and
// its pods running without an owner, and nothing recreates the Deployment's
// objects.
func TestDeletionPropagation(t *testing.T) {
	e := setupWith(t, options{controllers: []string{garbagecollector.Name}})
	for _, tc := range []struct {
		policy metav1.DeletionPropagation
		name   string
	}{{metav1.DeletePropagationBackground, "bg"}, {metav1.DeletePropagationForeground, "fg"}, {metav1.DeletePropagationOrphan, "orphan"}} {
		policy, name := tc.policy, tc.name
		t.Run(string(policy), func(t *testing.T) {
			if _, err := e.client.AppsV1().Deployments(e.ns).Create(e.ctx, newDeployment(e.ns, name, 3, "v1"), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			d := e.waitComplete(t, name, 30*time.Second)
			rss := e.replicaSets(t, d)
			if len(rss) != 1 {
				t.Fatalf("%d ReplicaSets, want 1", len(rss))
			}
			rs := rss[0]
			pods := e.podsOf(t, rs.UID)
			if len(pods) != 3 {
				t.Fatalf("%d pods, want 3", len(pods))
			}
			gone := e.watchGone(t)
			if err := e.client.AppsV1().Deployments(e.ns).Delete(e.ctx, name, metav1.DeleteOptions{PropagationPolicy: &policy}); err != nil {
				t.Fatal(err)
			}
			switch policy {
			case metav1.DeletePropagationBackground:
				if _, err := e.client.AppsV1().Deployments(e.ns).Get(e.ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
					t.Fatalf("deployment after a background delete: %v, want NotFound", err)
				}
				framework.WaitFor(t, 30*time.Second, "the ReplicaSet and pods to be collected", func() (bool, error) {
					_, rsGone := gone.at("rs/" + rs.Name)
					return rsGone && len(e.podsOf(t, rs.UID)) == 0, nil
				})
			case metav1.DeletePropagationForeground:
				got, err := e.client.AppsV1().Deployments(e.ns).Get(e.ctx, name, metav1.GetOptions{})
				if err == nil && (got.DeletionTimestamp == nil || len(got.Finalizers) == 0 || got.Finalizers[0] != metav1.FinalizerDeleteDependents) {
					t.Errorf("deployment during a foreground delete: deletionTimestamp %v finalizers %v", got.DeletionTimestamp, got.Finalizers)
				}
				framework.WaitFor(t, 30*time.Second, "the deployment to be gone", func() (bool, error) {
					_, ok := gone.at("deployment/" + name)
					return ok, nil
				})
				dAt, _ := gone.at("deployment/" + name)
				rsAt, ok := gone.at("rs/" + rs.Name)
				if !ok || rsAt >= dAt {
					t.Errorf("ReplicaSet gone at %d (seen %v), Deployment at %d: want the ReplicaSet first", rsAt, ok, dAt)
				}
				for _, p := range pods {
					if at, ok := gone.at("pod/" + p.Name); !ok || at >= dAt {
						t.Errorf("pod %s gone at %d (seen %v), Deployment at %d: want the pods first", p.Name, at, ok, dAt)
					}
				}
			case metav1.DeletePropagationOrphan:
				framework.WaitFor(t, 30*time.Second, "the deployment to be gone", func() (bool, error) {
					_, ok := gone.at("deployment/" + name)
					return ok, nil
				})
				framework.WaitFor(t, 30*time.Second, "the ReplicaSet to lose its owner", func() (bool, error) {
					got, err := e.client.AppsV1().ReplicaSets(e.ns).Get(e.ctx, rs.Name, metav1.GetOptions{})
					return err == nil && len(got.OwnerReferences) == 0, err
				})
				time.Sleep(time.Second) // room for a wrong deletion or creation
				left := e.podsOf(t, rs.UID)
				if len(left) != 3 {
					t.Errorf("%d pods of the orphaned ReplicaSet, want its 3", len(left))
				}
				for _, p := range pods {
					if _, ok := gone.at("pod/" + p.Name); ok {
						t.Errorf("pod %s deleted", p.Name)
					}
				}
				list, err := e.client.AppsV1().ReplicaSets(e.ns).List(e.ctx, metav1.ListOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if n := len(list.Items); n != 1 {
					t.Errorf("%d ReplicaSets, want the orphan alone", n)
				}
				// Clean up for the next policy.
				if err := e.client.AppsV1().ReplicaSets(e.ns).Delete(e.ctx, rs.Name, metav1.DeleteOptions{}); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// podsOf lists the live pods controlled by uid.
func (e *env) podsOf(t testing.TB, uid types.UID) []corev1.Pod {
	t.Helper()
	list, err := e.client.CoreV1().Pods(e.ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []corev1.Pod
	for _, p := range list.Items {
		if ref := metav1.GetControllerOf(&p); ref != nil && ref.UID == uid && p.DeletionTimestamp == nil {
			out = append(out, p)
		}
	}
	return out
}

// goneAt records the resourceVersion at which each object of the namespace
// was deleted, which orders deletions across resources.
type goneAt struct {
	mu sync.Mutex
	rv map[string]string
}

func (g *goneAt) at(key string) (int64, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	rv, ok := g.rv[key]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(rv, 10, 64)
	return n, err == nil
}

// watchGone watches the Deployments, ReplicaSets and pods of the namespace
// for deletions until the test ends.
func (e *env) watchGone(t *testing.T) *goneAt {
	t.Helper()
	g := &goneAt{rv: map[string]string{}}
	follow := func(prefix string, w watch.Interface, err error) {
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(w.Stop)
		go func() {
			for ev := range w.ResultChan() {
				if ev.Type != watch.Deleted {
					continue
				}
				m, ok := ev.Object.(metav1.Object)
				if !ok {
					continue
				}
				g.mu.Lock()
				g.rv[prefix+m.GetName()] = m.GetResourceVersion()
				g.mu.Unlock()
			}
		}()
	}
	w, err := e.client.AppsV1().Deployments(e.ns).Watch(e.ctx, metav1.ListOptions{})
	follow("deployment/", w, err)
	w, err = e.client.AppsV1().ReplicaSets(e.ns).Watch(e.ctx, metav1.ListOptions{})
	follow("rs/", w, err)
	w, err = e.client.CoreV1().Pods(e.ns).Watch(e.ctx, metav1.ListOptions{})
	follow("pod/", w, err)
	return g
}
