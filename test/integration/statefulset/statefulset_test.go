package statefulset

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/apimachinery/pkg/watch"
	"kubecore.io/client/discovery"
	"kubecore.io/client/informers"
	"kubecore.io/client/metadata"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/pkg/controller/garbagecollector"
	"kubecore.io/kubecore/pkg/controller/statefulset"
	"kubecore.io/kubecore/pkg/controllermanager"
	"kubecore.io/kubecore/test/integration/fakenode"
	"kubecore.io/kubecore/test/integration/framework"
)

// setup runs an API server, the StatefulSet controller, the garbage
// collector and a fake node agent that binds pods and makes them Ready
// after readyAfter.
func setup(t *testing.T, readyAfter time.Duration) (*typed.Clientset, string) {
	t.Helper()
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	cs := s.Clientset(t)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })

	factory := informers.NewSharedInformerFactory(cs)
	c, err := statefulset.New(cs, factory, statefulset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx)
	wg.Go(func() {
		if err := c.Run(ctx, 3); err != nil {
			t.Error(err)
		}
		if p := c.Runner().Panics(); p > 0 {
			t.Errorf("%d syncs panicked", p)
		}
		factory.Shutdown()
	})
	md, err := metadata.NewForConfig(s.Config)
	if err != nil {
		t.Fatal(err)
	}
	disco, err := discovery.NewForConfig(s.Config)
	if err != nil {
		t.Fatal(err)
	}
	gc, err := garbagecollector.New(controllermanager.Clients{MetadataClient: md, DiscoveryClient: disco}, garbagecollector.Options{})
	if err != nil {
		t.Fatal(err)
	}
	wg.Go(func() {
		if err := gc.Run(ctx, 3); err != nil {
			t.Error(err)
		}
	})
	agent, err := fakenode.Start(ctx, cs, fakenode.Options{Bind: true, ReadyAfter: readyAfter, LeaseRenewInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = agent.Stop() })
	return cs, s.CreateNamespace(t, "sts")
}

var podLabels = map[string]string{"app": "db"}

func newSet(name string, replicas int32, mutate ...func(*appsv1.StatefulSet)) *appsv1.StatefulSet {
	s := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.StatefulSetSpec{
			Replicas:    &replicas,
			ServiceName: name + "-headless",
			Selector:    &metav1.LabelSelector{MatchLabels: podLabels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "db", Image: "db:1"}}},
			},
		},
	}
	for _, m := range mutate {
		m(s)
	}
	return s
}

// podEvent is one observed change of a pod.
type podEvent struct {
	typ      watch.EventType
	name     string
	uid      types.UID
	ready    bool
	deleting bool
	revision string
}

// recorder keeps every pod event of a namespace, in order.
type recorder struct {
	mu     sync.Mutex
	events []podEvent
}

func record(t *testing.T, cs *typed.Clientset, ns string) *recorder {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w, err := cs.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			p, ok := ev.Object.(*corev1.Pod)
			if !ok {
				continue
			}
			ready := p.Status.Phase == corev1.PodRunning
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodReady {
					ready = ready && c.Status == corev1.ConditionTrue
				}
			}
			r.mu.Lock()
			r.events = append(r.events, podEvent{typ: ev.Type, name: p.Name, uid: p.UID, ready: ready, deleting: p.DeletionTimestamp != nil, revision: p.Labels[appsv1.ControllerRevisionHashLabelKey]})
			r.mu.Unlock()
		}
	}()
	t.Cleanup(func() { cancel(); w.Stop(); <-done })
	return r
}

func (r *recorder) snapshot() []podEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]podEvent(nil), r.events...)
}

func ordinal(name string) int {
	i := strings.LastIndexByte(name, '-')
	n, _ := strconv.Atoi(name[i+1:])
	return n
}

func statusIs(cs *typed.Clientset, ns, name string, f func(appsv1.StatefulSetStatus, *appsv1.StatefulSet) bool) func() (bool, error) {
	return func() (bool, error) {
		s, err := cs.AppsV1().StatefulSets(ns).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return s.Status.ObservedGeneration == s.Generation && f(s.Status, s), nil
	}
}

// TestOrderedReadyScaleAndPartitionedUpdate: five replicas created strictly
// in order, each only once the previous is Ready; scaled down in reverse;
// a rolling update with partition 3 replaces only pods 3 and 4, highest
// first, one at a time.
func TestOrderedReadyScaleAndPartitionedUpdate(t *testing.T) {
	cs, ns := setup(t, 150*time.Millisecond)
	ctx := context.Background()
	rec := record(t, cs, ns)
	set, err := cs.AppsV1().StatefulSets(ns).Create(ctx, newSet("web", 5), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, 30*time.Second, "5 ready replicas", statusIs(cs, ns, set.Name, func(s appsv1.StatefulSetStatus, _ *appsv1.StatefulSet) bool {
		return s.ReadyReplicas == 5 && s.Replicas == 5 && s.AvailableReplicas == 5
	}))

	// Creation order: pod i is added only when 0..i-1 exist and are Ready.
	ready := map[int]bool{}
	var created []int
	for _, ev := range rec.snapshot() {
		ord := ordinal(ev.name)
		switch ev.typ {
		case watch.Added:
			created = append(created, ord)
			for j := range ord {
				if !ready[j] {
					t.Errorf("pod %s created while pod %d was not Ready", ev.name, j)
				}
			}
		case watch.Modified:
			ready[ord] = ev.ready && !ev.deleting
		}
	}
	if fmt.Sprint(created) != "[0 1 2 3 4]" {
		t.Errorf("creation order %v, want [0 1 2 3 4]", created)
	}
	pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		ord := ordinal(p.Name)
		if p.Spec.Hostname != p.Name || p.Spec.Subdomain != "web-headless" ||
			p.Labels[appsv1.StatefulSetPodNameLabel] != p.Name || p.Labels[appsv1.PodIndexLabel] != strconv.Itoa(ord) ||
			p.Labels[appsv1.ControllerRevisionHashLabelKey] == "" {
			t.Errorf("pod %s: hostname %q subdomain %q labels %v", p.Name, p.Spec.Hostname, p.Spec.Subdomain, p.Labels)
		}
		if ref := metav1.GetControllerOf(&p); ref == nil || ref.UID != set.UID {
			t.Errorf("pod %s is not controlled by the set: %v", p.Name, p.OwnerReferences)
		}
	}

	// Partitioned rolling update: only 3 and 4 change, 4 first.
	before := map[string]types.UID{}
	for _, p := range pods.Items {
		before[p.Name] = p.UID
	}
	mark := len(rec.snapshot())
	patch := `{"spec":{"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":3}},"template":{"spec":{"containers":[{"name":"db","image":"db:2"}]}}}}`
	if _, err := cs.AppsV1().StatefulSets(ns).Patch(ctx, set.Name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, 30*time.Second, "pods 3 and 4 updated", statusIs(cs, ns, set.Name, func(s appsv1.StatefulSetStatus, _ *appsv1.StatefulSet) bool {
		return s.UpdatedReplicas == 2 && s.ReadyReplicas == 5 && s.CurrentReplicas == 3 && s.CurrentRevision != s.UpdateRevision
	}))
	var deleted []int
	for _, ev := range rec.snapshot()[mark:] {
		if ev.typ == watch.Deleted {
			deleted = append(deleted, ordinal(ev.name))
		}
	}
	if fmt.Sprint(deleted) != "[4 3]" {
		t.Errorf("pods replaced in order %v, want [4 3]", deleted)
	}
	pods, err = cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cur, _ := cs.AppsV1().StatefulSets(ns).Get(ctx, set.Name, metav1.GetOptions{})
	for _, p := range pods.Items {
		ord := ordinal(p.Name)
		rev := p.Labels[appsv1.ControllerRevisionHashLabelKey]
		switch {
		case ord < 3 && (p.UID != before[p.Name] || rev != cur.Status.CurrentRevision || p.Spec.Containers[0].Image != "db:1"):
			t.Errorf("pod %s below the partition changed: uid %s->%s revision %s image %s", p.Name, before[p.Name], p.UID, rev, p.Spec.Containers[0].Image)
		case ord >= 3 && (rev != cur.Status.UpdateRevision || p.Spec.Containers[0].Image != "db:2"):
			t.Errorf("pod %s at or above the partition: revision %s image %s, want %s db:2", p.Name, rev, p.Spec.Containers[0].Image, cur.Status.UpdateRevision)
		}
	}
	revs, err := cs.AppsV1().ControllerRevisions(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(revs.Items) != 2 {
		t.Errorf("%d ControllerRevisions, want 2", len(revs.Items))
	}

	// Finishing the rollout makes the update revision current.
	patch = `{"spec":{"updateStrategy":{"rollingUpdate":{"partition":0}}}}`
	if _, err := cs.AppsV1().StatefulSets(ns).Patch(ctx, set.Name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, 30*time.Second, "the rollout to finish", statusIs(cs, ns, set.Name, func(s appsv1.StatefulSetStatus, _ *appsv1.StatefulSet) bool {
		return s.UpdatedReplicas == 5 && s.ReadyReplicas == 5 && s.CurrentRevision == s.UpdateRevision && s.CurrentReplicas == 5
	}))

	// Scale down to 2: 4, then 3, then 2, each after the previous is gone.
	mark = len(rec.snapshot())
	if _, err := cs.AppsV1().StatefulSets(ns).Patch(ctx, set.Name, types.MergePatchType, []byte(`{"spec":{"replicas":2}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, 30*time.Second, "2 replicas", statusIs(cs, ns, set.Name, func(s appsv1.StatefulSetStatus, _ *appsv1.StatefulSet) bool {
		return s.Replicas == 2 && s.ReadyReplicas == 2
	}))
	deleted = nil
	var markedWhileOthersLeft []string
	gone := map[int]bool{}
	for _, ev := range rec.snapshot()[mark:] {
		ord := ordinal(ev.name)
		if ev.deleting && ev.typ == watch.Modified {
			for j := ord + 1; j < 5; j++ {
				if !gone[j] {
					markedWhileOthersLeft = append(markedWhileOthersLeft, fmt.Sprintf("%d before %d", ord, j))
				}
			}
		}
		if ev.typ == watch.Deleted {
			gone[ord] = true
			deleted = append(deleted, ord)
		}
	}
	if fmt.Sprint(deleted) != "[4 3 2]" {
		t.Errorf("scale-down order %v, want [4 3 2]", deleted)
	}
	if len(markedWhileOthersLeft) > 0 {
		t.Errorf("pods deleted before higher ones were gone: %v", markedWhileOthersLeft)
	}
}

// TestParallelAndClaims: Parallel creates every pod without waiting;
// volumeClaimTemplates give each pod its claim, which survives the pod;
// with whenScaled Delete the claims of removed replicas go.
func TestParallelAndClaims(t *testing.T) {
	cs, ns := setup(t, time.Hour) // pods never become Ready
	ctx := context.Background()
	set := newSet("par", 3, func(s *appsv1.StatefulSet) {
		s.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
		s.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
			WhenDeleted: appsv1.RetainPersistentVolumeClaimRetentionPolicyType,
			WhenScaled:  appsv1.DeletePersistentVolumeClaimRetentionPolicyType,
		}
		s.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{
			ObjectMeta: metav1.ObjectMeta{Name: "data"},
			Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
			},
		}}
	})
	set, err := cs.AppsV1().StatefulSets(ns).Create(ctx, set, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, 30*time.Second, "3 pods without readiness", statusIs(cs, ns, set.Name, func(s appsv1.StatefulSetStatus, _ *appsv1.StatefulSet) bool {
		return s.Replicas == 3 && s.ReadyReplicas == 0
	}))
	for i := range 3 {
		p, err := cs.CoreV1().Pods(ns).Get(ctx, fmt.Sprintf("par-%d", i), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		claim := fmt.Sprintf("data-par-%d", i)
		found := false
		for _, v := range p.Spec.Volumes {
			found = found || (v.Name == "data" && v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == claim)
		}
		if !found {
			t.Errorf("pod %s volumes %+v, want claim %s", p.Name, p.Spec.Volumes, claim)
		}
		c, err := cs.CoreV1().PersistentVolumeClaims(ns).Get(ctx, claim, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("claim %s: %v", claim, err)
		}
		if c.Labels["app"] != "db" {
			t.Errorf("claim %s labels %v, want the selector's", claim, c.Labels)
		}
	}
	// A deleted pod comes back with the same claim.
	old, _ := cs.CoreV1().Pods(ns).Get(ctx, "par-1", metav1.GetOptions{})
	if err := cs.CoreV1().Pods(ns).Delete(ctx, "par-1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, 30*time.Second, "par-1 to be recreated", func() (bool, error) {
		p, err := cs.CoreV1().Pods(ns).Get(ctx, "par-1", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil && p.UID != old.UID && p.DeletionTimestamp == nil, err
	})
	if _, err := cs.CoreV1().PersistentVolumeClaims(ns).Get(ctx, "data-par-1", metav1.GetOptions{}); err != nil {
		t.Errorf("claim of a recreated pod: %v", err)
	}
	// Scale to 1: both pods go at once (Parallel), and their claims.
	if _, err := cs.AppsV1().StatefulSets(ns).Patch(ctx, set.Name, types.MergePatchType, []byte(`{"spec":{"replicas":1}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, 30*time.Second, "the claims of removed replicas to go", func() (bool, error) {
		l, err := cs.CoreV1().PersistentVolumeClaims(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		return len(l.Items) == 1 && l.Items[0].Name == "data-par-0", nil
	})
}

// TestOnDeleteAndRollback: with OnDelete a template change replaces no pod
// until one is deleted; putting the old template back reuses its
// ControllerRevision.
func TestOnDeleteAndRollback(t *testing.T) {
	cs, ns := setup(t, 0)
	ctx := context.Background()
	set, err := cs.AppsV1().StatefulSets(ns).Create(ctx, newSet("od", 2, func(s *appsv1.StatefulSet) {
		s.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType}
	}), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, 30*time.Second, "2 ready replicas", statusIs(cs, ns, set.Name, func(s appsv1.StatefulSetStatus, _ *appsv1.StatefulSet) bool {
		return s.ReadyReplicas == 2
	}))
	first, _ := cs.AppsV1().StatefulSets(ns).Get(ctx, set.Name, metav1.GetOptions{})
	rev1 := first.Status.UpdateRevision
	setImage := func(image string) {
		t.Helper()
		patch, _ := json.Marshal(map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "db", "image": image}}}}}})
		if _, err := cs.AppsV1().StatefulSets(ns).Patch(ctx, set.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	setImage("db:2")
	framework.WaitFor(t, 30*time.Second, "a new update revision", statusIs(cs, ns, set.Name, func(s appsv1.StatefulSetStatus, _ *appsv1.StatefulSet) bool {
		return s.UpdateRevision != rev1 && s.UpdatedReplicas == 0
	}))
	time.Sleep(300 * time.Millisecond)
	p, _ := cs.CoreV1().Pods(ns).Get(ctx, "od-1", metav1.GetOptions{})
	if p.Spec.Containers[0].Image != "db:1" {
		t.Fatalf("OnDelete replaced pod od-1 by itself: image %s", p.Spec.Containers[0].Image)
	}
	if err := cs.CoreV1().Pods(ns).Delete(ctx, "od-1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, 30*time.Second, "od-1 at the new revision", statusIs(cs, ns, set.Name, func(s appsv1.StatefulSetStatus, _ *appsv1.StatefulSet) bool {
		return s.UpdatedReplicas == 1 && s.ReadyReplicas == 2
	}))
	// Roll back: the first revision becomes the newest again.
	setImage("db:1")
	framework.WaitFor(t, 30*time.Second, "the first revision to be the update revision again", statusIs(cs, ns, set.Name, func(s appsv1.StatefulSetStatus, _ *appsv1.StatefulSet) bool {
		return s.UpdateRevision == rev1
	}))
	revs, err := cs.AppsV1().ControllerRevisions(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(revs.Items) != 2 {
		t.Fatalf("%d revisions after a rollback, want 2", len(revs.Items))
	}
	for _, r := range revs.Items {
		if r.Name == rev1 && r.Revision != 3 {
			t.Errorf("rolled-back revision %s has number %d, want 3", r.Name, r.Revision)
		}
	}
}
