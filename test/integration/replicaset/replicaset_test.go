// Package replicaset tests the ReplicaSet controller against an in-process
// API server, with the fake node agent running the pods.
package replicaset

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/rest"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/pkg/controllermanager"
	"kubecore.io/kubecore/test/integration/fakenode"

	"kubecore.io/kubecore/test/integration/framework"
)

// setup starts an API server, the fake node agent and, unless noManager,
// a controller-manager running the ReplicaSet controller.
func setup(t *testing.T, noManager bool) (context.Context, *typed.Clientset, *rest.Config, string) {
	t.Helper()
	rc, _ := fakenode.StartAPIServer(t)
	client, err := typed.NewForConfig(rc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	agent, err := fakenode.Start(ctx, client, fakenode.Options{Nodes: []string{"n1", "n2"}, Bind: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = agent.Stop() })
	if !noManager {
		startManager(t, ctx, rc, controllermanager.LeaderElection{})
	}
	ns := fmt.Sprintf("rs-%d", time.Now().UnixNano()%100000)
	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return ctx, client, rc, ns
}

// startManager runs a controller-manager until the returned stop is called
// or the test ends; stop returns Run's error.
func startManager(t *testing.T, ctx context.Context, rc *rest.Config, le controllermanager.LeaderElection) func() error {
	ctx, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		errc <- controllermanager.Config{RESTConfig: rc, Controllers: []string{"replicaset"}, LeaderElection: le}.Run(ctx)
	}()
	var err error
	stopped := false
	stop := func() error {
		if !stopped {
			cancel()
			err = <-errc
			stopped = true
		}
		return err
	}
	t.Cleanup(func() { _ = stop() })
	return stop
}

func newRS(ns, name string, replicas int32) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
			},
		},
	}
}

// ownedPods lists the live pods of ns controlled by uid, and all live pods.
func ownedPods(ctx context.Context, client *typed.Clientset, ns string, uid types.UID) (owned, all []corev1.Pod, err error) {
	list, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, nil, err
	}
	for _, p := range list.Items {
		if p.DeletionTimestamp != nil {
			continue
		}
		all = append(all, p)
		if ref := metav1.GetControllerOf(&p); ref != nil && ref.UID == uid {
			owned = append(owned, p)
		}
	}
	return owned, all, nil
}

func waitStatus(t *testing.T, ctx context.Context, client *typed.Clientset, ns, name string, want int32) *appsv1.ReplicaSet {
	t.Helper()
	var rs *appsv1.ReplicaSet
	framework.WaitFor(t, 30*time.Second, fmt.Sprintf("%s to have %d available replicas", name, want), func() (bool, error) {
		var err error
		rs, err = client.AppsV1().ReplicaSets(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		st := rs.Status
		return st.ObservedGeneration == rs.Generation && st.Replicas == want && st.ReadyReplicas == want &&
			st.AvailableReplicas == want && st.FullyLabeledReplicas == want, fmt.Errorf("status %+v", st)
	})
	return rs
}

func TestScaleAdoptRelease(t *testing.T) {
	ctx, client, _, ns := setup(t, false)
	rsClient := client.AppsV1().ReplicaSets(ns)
	rs, err := rsClient.Create(ctx, newRS(ns, "web", 5), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, ctx, client, ns, "web", 5)
	owned, _, err := ownedPods(ctx, client, ns, rs.UID)
	if err != nil || len(owned) != 5 {
		t.Fatalf("%d owned pods, want 5 (err %v)", len(owned), err)
	}
	for _, p := range owned {
		ref := metav1.GetControllerOf(&p)
		if ref.Kind != "ReplicaSet" || ref.Name != "web" || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
			t.Fatalf("pod %s has controllerRef %+v", p.Name, ref)
		}
	}

	// Scale down to 2.
	scale, err := rsClient.GetScale(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	scale.Spec.Replicas = 2
	if _, err := rsClient.UpdateScale(ctx, "web", scale, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, ctx, client, ns, "web", 2)

	// An orphan that matches is adopted, and the surplus deleted.
	orphan := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "orphan", Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
	if _, err := client.CoreV1().Pods(ns).Create(ctx, orphan, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, 30*time.Second, "the orphan to be adopted and the surplus deleted", func() (bool, error) {
		owned, all, err := ownedPods(ctx, client, ns, rs.UID)
		return err == nil && len(owned) == 2 && len(all) == 2, fmt.Errorf("owned %d, all %d, err %v", len(owned), len(all), err)
	})

	// A pod relabelled out of the selector is released and replaced.
	owned, _, _ = ownedPods(ctx, client, ns, rs.UID)
	patch := []byte(`{"metadata":{"labels":{"app":"gone"}}}`)
	if _, err := client.CoreV1().Pods(ns).Patch(ctx, owned[0].Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, 30*time.Second, "the relabelled pod to be released and replaced", func() (bool, error) {
		p, err := client.CoreV1().Pods(ns).Get(ctx, owned[0].Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		mine, all, err := ownedPods(ctx, client, ns, rs.UID)
		return err == nil && metav1.GetControllerOf(p) == nil && len(mine) == 2 && len(all) == 3, fmt.Errorf("released=%v owned %d all %d", metav1.GetControllerOf(p) == nil, len(mine), len(all))
	})
	waitStatus(t, ctx, client, ns, "web", 2)
}

func TestMinReadySeconds(t *testing.T) {
	ctx, client, _, ns := setup(t, false)
	rs := newRS(ns, "slow", 2)
	rs.Spec.MinReadySeconds = 2
	start := time.Now()
	if _, err := client.AppsV1().ReplicaSets(ns).Create(ctx, rs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, 30*time.Second, "2 ready replicas", func() (bool, error) {
		got, err := client.AppsV1().ReplicaSets(ns).Get(ctx, "slow", metav1.GetOptions{})
		return err == nil && got.Status.ReadyReplicas == 2, err
	})
	got, err := client.AppsV1().ReplicaSets(ns).Get(ctx, "slow", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.AvailableReplicas != 0 && time.Since(start) < 2*time.Second {
		t.Fatalf("available %d before minReadySeconds passed", got.Status.AvailableReplicas)
	}
	waitStatus(t, ctx, client, ns, "slow", 2)
	// Availability is judged on whole seconds (the Ready transition time
	// is stored in seconds), so allow for the truncation.
	if el := time.Since(start); el < time.Second {
		t.Fatalf("available after %v, before minReadySeconds", el)
	}
}

// TestLeaderFailover runs two managers under leader election: when the
// leader stops, the other takes over and a scale-up is carried out with
// no duplicate pods.
func TestLeaderFailover(t *testing.T) {
	ctx, client, rc, ns := setup(t, true)
	le := func(id string) controllermanager.LeaderElection {
		return controllermanager.LeaderElection{Enabled: true, Identity: id, LeaseDuration: 2 * time.Second, RenewDeadline: 1500 * time.Millisecond, RetryPeriod: 200 * time.Millisecond}
	}
	stopA := startManager(t, ctx, rc, le("a"))
	framework.WaitFor(t, 10*time.Second, "a to lead", func() (bool, error) {
		l, err := client.CoordinationV1().Leases("kube-system").Get(ctx, controllermanager.LeaseName, metav1.GetOptions{})
		return err == nil && l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity == "a", err
	})
	startManager(t, ctx, rc, le("b"))
	if _, err := client.AppsV1().ReplicaSets(ns).Create(ctx, newRS(ns, "web", 4), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, ctx, client, ns, "web", 4)
	if err := stopA(); err != nil {
		t.Fatalf("leader a: %v", err)
	}
	framework.WaitFor(t, 10*time.Second, "b to lead", func() (bool, error) {
		l, err := client.CoordinationV1().Leases("kube-system").Get(ctx, controllermanager.LeaseName, metav1.GetOptions{})
		return err == nil && l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity == "b", err
	})
	rs, err := client.AppsV1().ReplicaSets(ns).Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rs.Spec.Replicas = new(int32)
	*rs.Spec.Replicas = 10
	if _, err := client.AppsV1().ReplicaSets(ns).Update(ctx, rs, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, ctx, client, ns, "web", 10)
	// Give a duplicate creator time to show itself.
	time.Sleep(time.Second)
	owned, all, err := ownedPods(ctx, client, ns, rs.UID)
	if err != nil || len(owned) != 10 || len(all) != 10 {
		t.Fatalf("owned %d, all %d pods, want 10 (err %v)", len(owned), len(all), err)
	}
}
