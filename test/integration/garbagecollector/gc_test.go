package garbagecollector

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/apimachinery/pkg/watch"
	"kubecore.io/client/controller"
	"kubecore.io/client/discovery"
	"kubecore.io/client/metadata"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/pkg/controller/garbagecollector"
	"kubecore.io/kubecore/pkg/controllermanager"
	"kubecore.io/kubecore/test/integration/framework"
)

// setup starts an API server and the garbage collector; it returns the
// clients and a namespace of the test's own.
func setup(t *testing.T) (*typed.Clientset, string) {
	t.Helper()
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	cs := s.Clientset(t)
	md, err := metadata.NewForConfig(s.Config)
	if err != nil {
		t.Fatal(err)
	}
	disco, err := discovery.NewForConfig(s.Config)
	if err != nil {
		t.Fatal(err)
	}
	gc, err := garbagecollector.New(controllermanager.Clients{MetadataClient: md, DiscoveryClient: disco}, garbagecollector.Options{DiscoveryPeriod: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- gc.Run(ctx, 5) }()
	t.Cleanup(func() {
		cancel()
		// A test may end before every runner's caches synced (a quick
		// one, on a busy machine): that stop is not a failure.
		if err := <-done; err != nil && !errors.Is(err, controller.ErrCacheSyncStopped) {
			t.Error(err)
		}
		del, orphan := gc.Runners()
		if p := del.Panics() + orphan.Panics(); p > 0 {
			t.Errorf("%d syncs panicked", p)
		}
	})
	return cs, s.CreateNamespace(t, "gc")
}

var labels = map[string]string{"app": "web"}

func template() corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
	}
}

func ref(kind, apiVersion, name string, uid types.UID) metav1.OwnerReference {
	t := true
	return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: uid, Controller: &t, BlockOwnerDeletion: &t}
}

// tree is a Deployment owning a ReplicaSet owning pods, made directly with
// ownerReferences (no workload controllers run).
type tree struct {
	deploy *appsv1.Deployment
	rs     *appsv1.ReplicaSet
	pods   []*corev1.Pod
}

func makeTree(t *testing.T, cs *typed.Clientset, ns, name string, pods int) tree {
	t.Helper()
	ctx := context.Background()
	one := int32(pods)
	d, err := cs.AppsV1().Deployments(ns).Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       appsv1.DeploymentSpec{Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: template()},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := cs.AppsV1().ReplicaSets(ns).Create(ctx, &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-rs", OwnerReferences: []metav1.OwnerReference{ref("Deployment", "apps/v1", d.Name, d.UID)}},
		Spec:       appsv1.ReplicaSetSpec{Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: template()},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tr := tree{deploy: d, rs: rs}
	for i := range pods {
		p, err := cs.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", name, i), Labels: labels,
				OwnerReferences: []metav1.OwnerReference{ref("ReplicaSet", "apps/v1", rs.Name, rs.UID)}},
			Spec: template().Spec,
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		tr.pods = append(tr.pods, p)
	}
	return tr
}

// deletions records, by watching, when each object of the namespace went:
// the resourceVersion (etcd revision) of its deletion, which orders
// deletions across resources exactly.
type deletions struct {
	mu   sync.Mutex
	gone map[string]int64
}

func (d *deletions) at(key string) (int64, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	t, ok := d.gone[key]
	return t, ok
}

func watchDeletions(t *testing.T, cs *typed.Clientset, ns string) *deletions {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	d := &deletions{gone: map[string]int64{}}
	start := func(kind string, w watch.Interface, err error) {
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			defer w.Stop()
			for ev := range w.ResultChan() {
				if ev.Type != watch.Deleted {
					continue
				}
				m, ok := ev.Object.(metav1.Object)
				if !ok {
					continue
				}
				rv, err := strconv.ParseInt(m.GetResourceVersion(), 10, 64)
				if err != nil {
					t.Errorf("deleted %s/%s: resourceVersion %q: %v", kind, m.GetName(), m.GetResourceVersion(), err)
					continue
				}
				d.mu.Lock()
				d.gone[kind+"/"+m.GetName()] = rv
				d.mu.Unlock()
			}
		}()
	}
	w, err := cs.AppsV1().Deployments(ns).Watch(ctx, metav1.ListOptions{})
	start("deployment", w, err)
	w, err = cs.AppsV1().ReplicaSets(ns).Watch(ctx, metav1.ListOptions{})
	start("replicaset", w, err)
	w, err = cs.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{})
	start("pod", w, err)
	return d
}

func countPods(cs *typed.Clientset, ns string) (int, error) {
	l, err := cs.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		return 0, err
	}
	return len(l.Items), nil
}

func policy(p metav1.DeletionPropagation) metav1.DeleteOptions {
	return metav1.DeleteOptions{PropagationPolicy: &p}
}

func TestBackgroundDeletion(t *testing.T) {
	cs, ns := setup(t)
	ctx := context.Background()
	tr := makeTree(t, cs, ns, "bg", 5)
	if err := cs.AppsV1().Deployments(ns).Delete(ctx, tr.deploy.Name, policy(metav1.DeletePropagationBackground)); err != nil {
		t.Fatal(err)
	}
	// The owner goes at once; its dependents after it.
	if _, err := cs.AppsV1().Deployments(ns).Get(ctx, tr.deploy.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("deployment after a background delete: err = %v, want NotFound", err)
	}
	framework.WaitFor(t, 30*time.Second, "the ReplicaSet and pods to be collected", func() (bool, error) {
		_, err := cs.AppsV1().ReplicaSets(ns).Get(ctx, tr.rs.Name, metav1.GetOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return false, err
		}
		n, err2 := countPods(cs, ns)
		return apierrors.IsNotFound(err) && n == 0, err2
	})
}

func TestForegroundDeletion(t *testing.T) {
	cs, ns := setup(t)
	ctx := context.Background()
	gone := watchDeletions(t, cs, ns)
	tr := makeTree(t, cs, ns, "fg", 5)
	if err := cs.AppsV1().Deployments(ns).Delete(ctx, tr.deploy.Name, policy(metav1.DeletePropagationForeground)); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, 30*time.Second, "the deployment to be gone", func() (bool, error) {
		d, err := cs.AppsV1().Deployments(ns).Get(ctx, tr.deploy.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		if d.DeletionTimestamp == nil || len(d.Finalizers) != 1 || d.Finalizers[0] != metav1.FinalizerDeleteDependents {
			return false, fmt.Errorf("deployment during a foreground delete: deletionTimestamp %v finalizers %v", d.DeletionTimestamp, d.Finalizers)
		}
		return false, nil
	})
	framework.WaitFor(t, 30*time.Second, "the deletions to be observed", func() (bool, error) {
		_, ok := gone.at("deployment/" + tr.deploy.Name)
		return ok, nil
	})
	dAt, _ := gone.at("deployment/" + tr.deploy.Name)
	rsAt, ok := gone.at("replicaset/" + tr.rs.Name)
	if !ok || rsAt >= dAt {
		t.Errorf("ReplicaSet gone at %v (seen %v), deployment at %v: want the ReplicaSet first", rsAt, ok, dAt)
	}
	for _, p := range tr.pods {
		pAt, ok := gone.at("pod/" + p.Name)
		if !ok || pAt >= rsAt {
			t.Errorf("pod %s gone at %v (seen %v), ReplicaSet at %v: want pods first", p.Name, pAt, ok, rsAt)
		}
	}
}

func TestOrphanDeletion(t *testing.T) {
	cs, ns := setup(t)
	ctx := context.Background()
	tr := makeTree(t, cs, ns, "orphan", 3)
	if err := cs.AppsV1().Deployments(ns).Delete(ctx, tr.deploy.Name, policy(metav1.DeletePropagationOrphan)); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, 30*time.Second, "the deployment to be gone", func() (bool, error) {
		_, err := cs.AppsV1().Deployments(ns).Get(ctx, tr.deploy.Name, metav1.GetOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return false, err
		}
		return apierrors.IsNotFound(err), nil
	})
	rs, err := cs.AppsV1().ReplicaSets(ns).Get(ctx, tr.rs.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("orphaned ReplicaSet: %v", err)
	}
	if len(rs.OwnerReferences) != 0 {
		t.Errorf("orphaned ReplicaSet still has owners %v", rs.OwnerReferences)
	}
	// The pods keep their own owner, which lives; nothing is collected.
	time.Sleep(500 * time.Millisecond)
	for _, p := range tr.pods {
		got, err := cs.CoreV1().Pods(ns).Get(ctx, p.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("pod %s: %v", p.Name, err)
		}
		if len(got.OwnerReferences) != 1 || got.OwnerReferences[0].UID != rs.UID {
			t.Errorf("pod %s owners %v, want the ReplicaSet", p.Name, got.OwnerReferences)
		}
	}
}

func TestDefaultPropagationIsBackground(t *testing.T) {
	cs, ns := setup(t)
	ctx := context.Background()
	tr := makeTree(t, cs, ns, "default", 2)
	if err := cs.AppsV1().ReplicaSets(ns).Delete(ctx, tr.rs.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, 30*time.Second, "the pods to be collected", func() (bool, error) {
		n, err := countPods(cs, ns)
		return n == 0, err
	})
	if _, err := cs.AppsV1().Deployments(ns).Get(ctx, tr.deploy.Name, metav1.GetOptions{}); err != nil {
		t.Errorf("the ReplicaSet's owner must stay: %v", err)
	}
}

func TestDanglingOwners(t *testing.T) {
	cs, ns := setup(t)
	ctx := context.Background()
	tr := makeTree(t, cs, ns, "live", 0)
	mk := func(name string, refs ...metav1.OwnerReference) {
		_, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, OwnerReferences: refs}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
	}
	ghost := ref("ReplicaSet", "apps/v1", "ghost", "00000000-dead-beef-0000-000000000000")
	// Same name as a live object, other uid: the owner is gone too.
	impostor := ref("ReplicaSet", "apps/v1", tr.rs.Name, "00000000-dead-beef-0000-000000000001")
	impostor.Controller = nil
	live := ref("ReplicaSet", "apps/v1", tr.rs.Name, tr.rs.UID)
	live.Controller = nil
	mk("only-ghost", ghost)
	mk("impostor", impostor)
	mk("mixed", func() metav1.OwnerReference { g := ghost; g.Controller = nil; return g }(), live)
	mk("no-owner")
	mk("unknown-kind", ref("Widget", "example.com/v1", "w", "00000000-dead-beef-0000-000000000002"))

	framework.WaitFor(t, 30*time.Second, "objects with only dead owners to be collected", func() (bool, error) {
		_, e1 := cs.CoreV1().ConfigMaps(ns).Get(ctx, "only-ghost", metav1.GetOptions{})
		_, e2 := cs.CoreV1().ConfigMaps(ns).Get(ctx, "impostor", metav1.GetOptions{})
		return apierrors.IsNotFound(e1) && apierrors.IsNotFound(e2), nil
	})
	framework.WaitFor(t, 30*time.Second, "the dead reference of a live dependent to be dropped", func() (bool, error) {
		cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "mixed", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return len(cm.OwnerReferences) == 1 && cm.OwnerReferences[0].UID == tr.rs.UID, nil
	})
	for _, name := range []string{"no-owner", "unknown-kind"} {
		if _, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{}); err != nil {
			t.Errorf("%s: %v, want it kept", name, err)
		}
	}
}

// TestClusterScopedOwner collects a namespaced dependent of a
// cluster-scoped owner (a Node) once the owner goes.
func TestClusterScopedOwner(t *testing.T) {
	cs, ns := setup(t)
	ctx := context.Background()
	node, err := cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "owner-node"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := ref("Node", "v1", node.Name, node.UID)
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "of-node", OwnerReferences: []metav1.OwnerReference{r}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if _, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "of-node", metav1.GetOptions{}); err != nil {
		t.Fatalf("dependent of a live node: %v", err)
	}
	if err := cs.CoreV1().Nodes().Delete(ctx, node.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, 30*time.Second, "the node's dependent to be collected", func() (bool, error) {
		_, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "of-node", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
}

// TestDependentChangingWhileCollected: a dependent that changes between
// the collector's look at it and its delete (as a kubelet updates a pod's
// status) is still collected: the delete's precondition fails, and the
// collector looks again rather than waiting for an event that brings it
// no new work.
func TestDependentChangingWhileCollected(t *testing.T) {
	cs, ns := setup(t)
	ctx := context.Background()
	owner, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const n = 20
	for i := range n {
		dep := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("dep-", i), OwnerReferences: []metav1.OwnerReference{ref("ConfigMap", "v1", owner.Name, owner.UID)}}}
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, dep, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// Keep changing the dependents' data while the owner goes.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			for k := 0; ; k++ {
				select {
				case <-stop:
					return
				default:
				}
				patch := fmt.Sprintf(`{"data":{"k":"%d"}}`, k)
				if _, err := cs.CoreV1().ConfigMaps(ns).Patch(ctx, fmt.Sprint("dep-", i), types.MergePatchType, []byte(patch), metav1.PatchOptions{}); apierrors.IsNotFound(err) {
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
	defer func() { close(stop); wg.Wait() }()
	if err := cs.CoreV1().ConfigMaps(ns).Delete(ctx, owner.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, 30*time.Second, "the changing dependents to be collected", func() (bool, error) {
		l, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		left := 0
		for _, cm := range l.Items {
			if len(cm.OwnerReferences) > 0 {
				left++
			}
		}
		if left > 0 {
			return false, fmt.Errorf("%d dependents left", left)
		}
		return true, nil
	})
}

// TestDependencyCycle: three objects each owning the next with
// blockOwnerDeletion, the first deleted in the foreground; every one is
// collected (the upstream conformance spec "should not be blocked by
// dependency circle" does the same with pods).
func TestDependencyCycle(t *testing.T) {
	cs, ns := setup(t)
	ctx := context.Background()
	cms := cs.CoreV1().ConfigMaps(ns)
	var objs []*corev1.ConfigMap
	for i := range 3 {
		cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm" + strconv.Itoa(i)}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, cm)
	}
	// cm0 is owned by cm2, cm1 by cm0, cm2 by cm1.
	for i, cm := range objs {
		owner := objs[(i+2)%3]
		patch := fmt.Sprintf(`{"metadata":{"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":%q,"uid":%q,"controller":true,"blockOwnerDeletion":true}]}}`, owner.Name, owner.UID)
		if _, err := cms.Patch(ctx, cm.Name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	opts := policy(metav1.DeletePropagationForeground)
	opts.Preconditions = metav1.NewUIDPreconditions(string(objs[0].UID))
	if err := cms.Delete(ctx, objs[0].Name, opts); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, 60*time.Second, "every object of the cycle to be collected", func() (bool, error) {
		l, err := cms.List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		left := 0
		for _, cm := range l.Items {
			if cm.Name != "kube-root-ca.crt" {
				left++
			}
		}
		return left == 0, nil
	})
}
