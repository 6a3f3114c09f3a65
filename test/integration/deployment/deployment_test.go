// Package deployment tests the Deployment and ReplicaSet controllers
// together against an in-process API server, with the fake node agent.
package deployment

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/protobuf"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/apimachinery/pkg/util/intstr"
	"kubecore.io/client/informers"
	"kubecore.io/client/rest"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/typed"
	"kubecore.io/client/util/retry"

	"kubecore.io/kubecore/pkg/controllermanager"
	"kubecore.io/kubecore/pkg/scheduler"
	"kubecore.io/kubecore/test/integration/fakenode"

	"kubecore.io/kubecore/test/integration/framework"
)

type env struct {
	ctx        context.Context
	client     *typed.Clientset
	rc         *rest.Config
	kubeconfig string
	ns         string
}

// setup starts an API server, the fake node agent binding pods to three
// nodes (pods Ready readyAfter after they run) and a controller-manager
// with the Deployment and ReplicaSet controllers.
func setup(t testing.TB, readyAfter time.Duration) *env {
	return setupWith(t, options{readyAfter: readyAfter})
}

// options shape a test's cluster.
type options struct {
	// readyAfter is how long a pod runs before the agent makes it Ready.
	readyAfter time.Duration
	// nodes is the number of the agent's nodes; 3 when 0.
	nodes int
	// scheduler runs the scheduler; otherwise the agent binds pods.
	scheduler bool
	// nodesOnly makes the agent's nodes hollow Node objects: it runs no
	// pods.
	nodesOnly bool
	// controllers are run besides deployment and replicaset.
	controllers []string
}

func setupWith(t testing.TB, o options) *env {
	t.Helper()
	rc, kubeconfig := fakenode.StartAPIServer(t)
	client, err := typed.NewForConfig(rc)
	if err != nil {
		t.Fatal(err)
	}
	// The components speak protobuf, as they do by default; the test's
	// own client JSON, as a user's.
	crc := rest.CopyConfig(rc)
	crc.ContentType = protobuf.ContentType
	components, err := typed.NewForConfig(crc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	nodes := make([]string, max(o.nodes, 3))
	for i := range nodes {
		nodes[i] = fmt.Sprint("n", i+1)
	}
	agent, err := fakenode.Start(ctx, components, fakenode.Options{Nodes: nodes, Bind: !o.scheduler, ReadyAfter: o.readyAfter, Workers: 32, NodesOnly: o.nodesOnly})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = agent.Stop() })
	if o.scheduler {
		sctx, scancel := context.WithCancel(ctx)
		factory := informers.NewSharedInformerFactory(components)
		sched, err := scheduler.New(sctx, scheduler.Config{Client: components, Informers: factory})
		if err != nil {
			scancel()
			t.Fatal(err)
		}
		factory.Start(sctx)
		errc := make(chan error, 1)
		go func() { errc <- sched.Run(sctx) }()
		t.Cleanup(func() {
			scancel()
			if err := <-errc; err != nil {
				t.Errorf("scheduler: %v", err)
			}
			factory.Shutdown()
		})
	}
	mctx, mcancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		errc <- controllermanager.Config{RESTConfig: crc, Controllers: append([]string{"deployment", "replicaset"}, o.controllers...)}.Run(mctx)
	}()
	t.Cleanup(func() {
		mcancel()
		if err := <-errc; err != nil {
			t.Errorf("controller-manager: %v", err)
		}
	})
	ns := fmt.Sprintf("d-%d", time.Now().UnixNano()%1000000)
	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The service account every namespace of a cluster has: pods run as it.
	if _, err := client.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return &env{ctx: ctx, client: client, rc: rc, kubeconfig: kubeconfig, ns: ns}
}

func newDeployment(ns, name string, replicas int32, image string) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: image}}},
			},
		},
	}
}

func rolling(d *appsv1.Deployment, surge, unavailable intstr.IntOrString) *appsv1.Deployment {
	d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavailable}}
	return d
}

// waitComplete waits until the Deployment has rolled out: every replica
// updated and available, nothing older left, status observed.
func (e *env) waitComplete(t testing.TB, name string, timeout time.Duration) *appsv1.Deployment {
	t.Helper()
	var d *appsv1.Deployment
	framework.WaitFor(t, timeout, name+" to complete", func() (bool, error) {
		var err error
		d, err = e.client.AppsV1().Deployments(e.ns).Get(e.ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		r, st := *d.Spec.Replicas, d.Status
		return st.ObservedGeneration >= d.Generation && st.UpdatedReplicas == r && st.Replicas == r && st.AvailableReplicas == r &&
			st.ReadyReplicas == r && st.UnavailableReplicas == 0, fmt.Errorf("status %+v", st)
	})
	return d
}

func (e *env) replicaSets(t testing.TB, d *appsv1.Deployment) []appsv1.ReplicaSet {
	t.Helper()
	list, err := e.client.AppsV1().ReplicaSets(e.ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []appsv1.ReplicaSet
	for _, rs := range list.Items {
		if ref := metav1.GetControllerOf(&rs); ref != nil && ref.UID == d.UID {
			out = append(out, rs)
		}
	}
	return out
}

func (e *env) setImage(t testing.TB, name, image string) {
	t.Helper()
	patch := fmt.Sprintf(`{"spec":{"template":{"spec":{"containers":[{"name":"c","image":%q}]}}}}`, image)
	if _, err := e.client.AppsV1().Deployments(e.ns).Patch(e.ctx, name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// podWatch follows every pod change of a namespace and calls observe with
// the pods as they are after each change.
func (e *env) podWatch(t testing.TB, observe func(pods map[string]*corev1.Pod)) {
	t.Helper()
	factory := informers.NewSharedInformerFactory(e.client, informers.WithNamespace(e.ns))
	inf, err := informers.Pods(factory)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	pods := map[string]*corev1.Pod{}
	apply := func(p *corev1.Pod, gone, initial bool) {
		mu.Lock()
		defer mu.Unlock()
		if gone {
			delete(pods, p.Name)
		} else {
			pods[p.Name] = p
		}
		if !initial { // the first list arrives one pod at a time
			observe(pods)
		}
	}
	reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs[*corev1.Pod]{
		AddFunc:    func(p *corev1.Pod, initial bool) { apply(p, false, initial) },
		UpdateFunc: func(_, p *corev1.Pod) { apply(p, false, false) },
		DeleteFunc: func(p *corev1.Pod) { apply(p, true, false) },
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(e.ctx)
	t.Cleanup(func() { cancel(); factory.Shutdown() })
	factory.Start(ctx)
	framework.WaitFor(t, 10*time.Second, "the pod watch to sync", func() (bool, error) { return reg.HasSynced(), nil })
}

// scaleTo sets the Deployment's replicas through its scale subresource.
func (e *env) scaleTo(t testing.TB, name string, n int32) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		scale, err := e.client.AppsV1().Deployments(e.ns).GetScale(e.ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		scale.Spec.Replicas = n
		_, err = e.client.AppsV1().Deployments(e.ns).UpdateScale(e.ctx, name, scale, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func isReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// TestRollingUpdateInvariant: 20 replicas, maxSurge 3, maxUnavailable 2:
// at every observed moment at most 23 pods and at least 18 available.
func TestRollingUpdateInvariant(t *testing.T) {
	e := setup(t, 150*time.Millisecond)
	d := rolling(newDeployment(e.ns, "web", 20, "v1"), intstr.FromInt32(3), intstr.FromInt32(2))
	if _, err := e.client.AppsV1().Deployments(e.ns).Create(e.ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.waitComplete(t, "web", 60*time.Second)

	var mu sync.Mutex
	maxTotal, minAvailable, events := 0, 1<<30, 0
	e.podWatch(t, func(pods map[string]*corev1.Pod) {
		total, available := 0, 0
		for _, p := range pods {
			if p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
				continue
			}
			total++
			if isReady(p) {
				available++
			}
		}
		mu.Lock()
		defer mu.Unlock()
		events++
		maxTotal, minAvailable = max(maxTotal, total), min(minAvailable, available)
	})
	for _, image := range []string{"v2", "v3"} {
		e.setImage(t, "web", image)
		got := e.waitComplete(t, "web", 60*time.Second)
		rss := e.replicaSets(t, got)
		for _, rs := range rss {
			if rs.Spec.Template.Spec.Containers[0].Image != image && *rs.Spec.Replicas != 0 {
				t.Fatalf("old replica set %s still has %d replicas", rs.Name, *rs.Spec.Replicas)
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	t.Logf("observed %d pod events: max total %d (limit 23), min available %d (limit 18)", events, maxTotal, minAvailable)
	if events < 80 {
		t.Fatalf("only %d pod events observed across two rollouts", events)
	}
	if maxTotal > 23 || minAvailable < 18 {
		t.Fatalf("invariant broken: max total %d (limit 23), min available %d (limit 18)", maxTotal, minAvailable)
	}
}

// TestRecreateNeverOverlaps: no pod of the new template exists while a pod
// of the old one (terminating included) does.
func TestRecreateNeverOverlaps(t *testing.T) {
	e := setup(t, 50*time.Millisecond)
	d := newDeployment(e.ns, "db", 5, "v1")
	d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	if _, err := e.client.AppsV1().Deployments(e.ns).Create(e.ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.waitComplete(t, "db", 30*time.Second)
	var mu sync.Mutex
	overlaps, sawNew := 0, false
	e.podWatch(t, func(pods map[string]*corev1.Pod) {
		images := map[string]bool{}
		for _, p := range pods {
			images[p.Spec.Containers[0].Image] = true
		}
		mu.Lock()
		defer mu.Unlock()
		if images["v1"] && images["v2"] {
			overlaps++
		}
		sawNew = sawNew || images["v2"]
	})
	e.setImage(t, "db", "v2")
	e.waitComplete(t, "db", 30*time.Second)
	mu.Lock()
	defer mu.Unlock()
	if !sawNew || overlaps > 0 {
		t.Fatalf("saw new pods %v, %d moments with old and new pods together", sawNew, overlaps)
	}
}

// TestRevisionsRollbackAndHistory: each template change is a revision, a
// rollback by template reuses the old ReplicaSet, and revisionHistoryLimit
// removes the oldest idle ReplicaSets.
func TestRevisionsRollbackAndHistory(t *testing.T) {
	e := setup(t, 0)
	d := newDeployment(e.ns, "app", 3, "v1")
	limit := int32(2)
	d.Spec.RevisionHistoryLimit = &limit
	d.Annotations = map[string]string{"kubernetes.io/change-cause": "create v1"}
	if _, err := e.client.AppsV1().Deployments(e.ns).Create(e.ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.waitComplete(t, "app", 30*time.Second)
	e.setImage(t, "app", "v2")
	got := e.waitComplete(t, "app", 30*time.Second)
	rss := e.replicaSets(t, got)
	if len(rss) != 2 {
		t.Fatalf("%d replica sets after one update, want 2", len(rss))
	}
	byImage := map[string]appsv1.ReplicaSet{}
	for _, rs := range rss {
		byImage[rs.Spec.Template.Spec.Containers[0].Image] = rs
		if h := rs.Labels[appsv1.DefaultDeploymentUniqueLabelKey]; h == "" || rs.Spec.Selector.MatchLabels[appsv1.DefaultDeploymentUniqueLabelKey] != h ||
			rs.Spec.Template.Labels[appsv1.DefaultDeploymentUniqueLabelKey] != h || rs.Name != "app-"+h {
			t.Fatalf("replica set %s lacks a consistent pod-template-hash: labels %v selector %v", rs.Name, rs.Labels, rs.Spec.Selector)
		}
	}
	if byImage["v1"].Annotations[appsv1.RevisionAnnotation] != "1" || byImage["v2"].Annotations[appsv1.RevisionAnnotation] != "2" ||
		got.Annotations[appsv1.RevisionAnnotation] != "2" || byImage["v1"].Annotations["kubernetes.io/change-cause"] != "create v1" {
		t.Fatalf("revisions: v1 %v, v2 %v, deployment %v", byImage["v1"].Annotations, byImage["v2"].Annotations, got.Annotations)
	}

	// Roll back by template, as kubectl rollout undo does.
	e.setImage(t, "app", "v1")
	got = e.waitComplete(t, "app", 30*time.Second)
	rss = e.replicaSets(t, got)
	if len(rss) != 2 {
		t.Fatalf("%d replica sets after the rollback, want 2 (the old one reused)", len(rss))
	}
	for _, rs := range rss {
		if rs.Spec.Template.Spec.Containers[0].Image == "v1" {
			if rs.UID != byImage["v1"].UID || rs.Annotations[appsv1.RevisionAnnotation] != "3" || *rs.Spec.Replicas != 3 {
				t.Fatalf("rollback did not reuse %s at revision 3: %s rev %s replicas %d", byImage["v1"].Name, rs.Name, rs.Annotations[appsv1.RevisionAnnotation], *rs.Spec.Replicas)
			}
		}
	}

	// Two more revisions: with a limit of 2 old ReplicaSets, one goes.
	e.setImage(t, "app", "v3")
	e.waitComplete(t, "app", 30*time.Second)
	e.setImage(t, "app", "v4")
	got = e.waitComplete(t, "app", 30*time.Second)
	framework.WaitFor(t, 10*time.Second, "history cleanup to 3 replica sets", func() (bool, error) {
		n := len(e.replicaSets(t, got))
		return n == 3, fmt.Errorf("%d replica sets", n)
	})
}

// TestProportionalScalingAndPause: scaling mid-rollout spreads the change
// over the ReplicaSets; a paused Deployment does not roll out but scales.
func TestProportionalScalingAndPause(t *testing.T) {
	e := setup(t, 0)
	d := rolling(newDeployment(e.ns, "p", 10, "v1"), intstr.FromInt32(3), intstr.FromInt32(2))
	if _, err := e.client.AppsV1().Deployments(e.ns).Create(e.ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.waitComplete(t, "p", 30*time.Second)

	// Pause, change the template: nothing rolls out.
	pause := func(p bool) {
		patch := fmt.Sprintf(`{"spec":{"paused":%v}}`, p)
		if _, err := e.client.AppsV1().Deployments(e.ns).Patch(e.ctx, "p", types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	pause(true)
	e.setImage(t, "p", "v2")
	time.Sleep(500 * time.Millisecond)
	cur, err := e.client.AppsV1().Deployments(e.ns).Get(e.ctx, "p", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(e.replicaSets(t, cur)); n != 1 {
		t.Fatalf("%d replica sets while paused, want 1", n)
	}
	cond := func(d *appsv1.Deployment, ct appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
		for i := range d.Status.Conditions {
			if d.Status.Conditions[i].Type == ct {
				return &d.Status.Conditions[i]
			}
		}
		return nil
	}
	if c := cond(cur, appsv1.DeploymentProgressing); c == nil || c.Reason != "DeploymentPaused" || c.Status != corev1.ConditionUnknown {
		t.Fatalf("Progressing while paused = %+v", c)
	}
	// Scaling still applies while paused.
	e.scaleTo(t, "p", 12)
	framework.WaitFor(t, 30*time.Second, "the paused deployment to scale to 12", func() (bool, error) {
		cur, err := e.client.AppsV1().Deployments(e.ns).Get(e.ctx, "p", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return cur.Status.ObservedGeneration == cur.Generation && cur.Status.Replicas == 12 && cur.Status.AvailableReplicas == 12 &&
			len(e.replicaSets(t, cur)) == 1, fmt.Errorf("status %+v", cur.Status)
	})

	// Resume, then scale in the middle of the rollout: both ReplicaSets
	// take a share, the total stays within replicas + maxSurge.
	pause(false)
	framework.WaitFor(t, 10*time.Second, "the new replica set", func() (bool, error) {
		cur, err := e.client.AppsV1().Deployments(e.ns).Get(e.ctx, "p", metav1.GetOptions{})
		return err == nil && len(e.replicaSets(t, cur)) == 2, err
	})
	e.scaleTo(t, "p", 24)
	got := e.waitComplete(t, "p", 60*time.Second)
	var total int32
	for _, rs := range e.replicaSets(t, got) {
		total += *rs.Spec.Replicas
	}
	if total != 24 {
		t.Fatalf("replica sets sum to %d, want 24", total)
	}
	if c := cond(got, appsv1.DeploymentProgressing); c == nil || c.Reason != "NewReplicaSetAvailable" || c.Status != corev1.ConditionTrue {
		t.Fatalf("Progressing after the rollout = %+v", c)
	}
	if c := cond(got, appsv1.DeploymentAvailable); c == nil || c.Reason != "MinimumReplicasAvailable" || c.Status != corev1.ConditionTrue {
		t.Fatalf("Available after the rollout = %+v", c)
	}
}

// TestProgressDeadline: pods that never become ready make the rollout
// time out with ProgressDeadlineExceeded.
func TestProgressDeadline(t *testing.T) {
	e := setup(t, time.Hour)
	d := newDeployment(e.ns, "stuck", 2, "v1")
	deadline := int32(2)
	d.Spec.ProgressDeadlineSeconds = &deadline
	if _, err := e.client.AppsV1().Deployments(e.ns).Create(e.ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, 20*time.Second, "ProgressDeadlineExceeded", func() (bool, error) {
		got, err := e.client.AppsV1().Deployments(e.ns).Get(e.ctx, "stuck", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range got.Status.Conditions {
			if c.Type == appsv1.DeploymentProgressing && c.Status == corev1.ConditionFalse && c.Reason == "ProgressDeadlineExceeded" &&
				c.Message == fmt.Sprintf("ReplicaSet %q has timed out progressing.", "stuck-"+got.Name[len(got.Name):]+hashOf(e, t, got)) {
				return true, nil
			}
		}
		return false, fmt.Errorf("conditions %+v", got.Status.Conditions)
	})
}

func hashOf(e *env, t testing.TB, d *appsv1.Deployment) string {
	rss := e.replicaSets(t, d)
	if len(rss) != 1 {
		return "?"
	}
	return rss[0].Labels[appsv1.DefaultDeploymentUniqueLabelKey]
}
