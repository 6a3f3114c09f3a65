// Package volumeprotection holds the integration tests of the
// StorageObjectInUseProtection and TaintNodesByCondition admission plugins
// and of the pvc-protection and pv-protection controllers: a claim in use
// by a pod outlives its deletion until the pod is gone, a volume until its
// claim is gone, and a new node is tainted not-ready until it is Ready.
package volumeprotection

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/informers"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/pkg/controller/nodelifecycle"
	"kubecore.io/kubecore/pkg/controller/volumeprotection"
	"kubecore.io/kubecore/test/integration/fakenode"
	"kubecore.io/kubecore/test/integration/framework"
)

var testEtcd *framework.Etcd

func TestMain(m *testing.M) { os.Exit(framework.RunWithEtcd(m, &testEtcd)) }

const wait = 30 * time.Second

func start(t *testing.T) (*framework.APIServer, *typed.Clientset) {
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd,
		EnableAdmissionPlugins: []string{"StorageObjectInUseProtection", "TaintNodesByCondition"}})
	return s, s.Clientset(t)
}

// runProtection runs both protection controllers, one worker each (so a
// key enqueued later is synced later), until the test ends.
func runProtection(t *testing.T, cs *typed.Clientset) {
	factory := informers.NewSharedInformerFactory(cs)
	claims, err := volumeprotection.NewClaimController(cs, factory)
	if err != nil {
		t.Fatal(err)
	}
	volumes, err := volumeprotection.NewVolumeController(cs, factory)
	if err != nil {
		t.Fatal(err)
	}
	framework.RunControllers(t, factory,
		func(ctx context.Context) error { return claims.Run(ctx, 1) },
		func(ctx context.Context) error { return volumes.Run(ctx, 1) })
}

func claim(ns, name string) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			StorageClassName: new(string),
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		},
	}
}

func gone(err error) (bool, error) {
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	return false, err
}

func TestClaimDeletedOnlyAfterItsPodIsGone(t *testing.T) {
	s, cs := start(t)
	ctx := context.Background()
	ns := s.CreateNamespace(t, "pvc")
	claims := cs.CoreV1().PersistentVolumeClaims(ns)
	used, err := claims.Create(ctx, claim(ns, "used"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(used.Finalizers, []string{"kubernetes.io/pvc-protection"}) {
		t.Fatalf("new claim's finalizers %q, want the pvc-protection one", used.Finalizers)
	}
	if _, err := claims.Create(ctx, claim(ns, "sentinel"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// A pod on a node (no kubelet runs: it stays there until deleted).
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "user"},
		Spec: corev1.PodSpec{NodeName: "nowhere", Containers: []corev1.Container{{Name: "c", Image: "busybox"}},
			Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "used"}}}}},
	}
	if _, err := cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	runProtection(t, cs)

	if err := claims.Delete(ctx, "used", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := claims.Delete(ctx, "sentinel", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// The sentinel, deleted after, is synced after: once it is gone the
	// controller has seen the used claim's deletion and kept it.
	framework.WaitFor(t, wait, "the unused claim removed", func() (bool, error) {
		_, err := claims.Get(ctx, "sentinel", metav1.GetOptions{})
		return gone(err)
	})
	cur, err := claims.Get(ctx, "used", metav1.GetOptions{})
	if err != nil || cur.DeletionTimestamp == nil || !slices.Contains(cur.Finalizers, "kubernetes.io/pvc-protection") {
		t.Fatalf("the claim in use: %v, %+v; want it kept, terminating, with its finalizer", err, cur)
	}

	zero := int64(0)
	if err := cs.CoreV1().Pods(ns).Delete(ctx, "user", metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, wait, "the claim removed after its pod", func() (bool, error) {
		_, err := claims.Get(ctx, "used", metav1.GetOptions{})
		return gone(err)
	})
}

func TestVolumeFreedAfterItsClaimIsGone(t *testing.T) {
	s, cs := start(t)
	ctx := context.Background()
	ns := s.CreateNamespace(t, "pv")
	volume := func(name string, ref *corev1.ObjectReference) *corev1.PersistentVolume {
		return &corev1.PersistentVolume{
			ObjectMeta: metav1.ObjectMeta{Name: ns + "-" + name},
			Spec: corev1.PersistentVolumeSpec{
				Capacity:               corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
				AccessModes:            []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/tmp/" + name}},
				ClaimRef:               ref,
			},
		}
	}
	c, err := cs.CoreV1().PersistentVolumeClaims(ns).Create(ctx, claim(ns, "c"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pvs := cs.CoreV1().PersistentVolumes()
	bound, err := pvs.Create(ctx, volume("bound", &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: ns, Name: "c", UID: c.UID}), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(bound.Finalizers, []string{"kubernetes.io/pv-protection"}) {
		t.Fatalf("new volume's finalizers %q, want the pv-protection one", bound.Finalizers)
	}
	free, err := pvs.Create(ctx, volume("free", nil), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, n := range []string{bound.Name, free.Name} {
			_ = pvs.Delete(context.Background(), n, metav1.DeleteOptions{})
		}
	})
	runProtection(t, cs)

	if err := pvs.Delete(ctx, bound.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := pvs.Delete(ctx, free.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, wait, "the unbound volume removed", func() (bool, error) {
		_, err := pvs.Get(ctx, free.Name, metav1.GetOptions{})
		return gone(err)
	})
	cur, err := pvs.Get(ctx, bound.Name, metav1.GetOptions{})
	if err != nil || cur.DeletionTimestamp == nil {
		t.Fatalf("the bound volume: %v, %+v; want it kept, terminating", err, cur)
	}
	// Its claim goes (no pod uses it): the volume follows.
	if err := cs.CoreV1().PersistentVolumeClaims(ns).Delete(ctx, "c", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, wait, "the volume removed after its claim", func() (bool, error) {
		_, err := pvs.Get(ctx, bound.Name, metav1.GetOptions{})
		return gone(err)
	})
}

func TestNewNodeTaintedNotReadyUntilReady(t *testing.T) {
	s, cs := start(t)
	ctx := context.Background()
	name := s.CreateNamespace(t, "node") // a unique name for the nodes
	notReady := corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}
	hasTaint := func(n *corev1.Node) bool {
		return slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.MatchTaint(&notReady) })
	}
	created, err := cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name + "-new"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.CoreV1().Nodes().Delete(context.Background(), created.Name, metav1.DeleteOptions{}) })
	if !hasTaint(created) {
		t.Fatalf("new node's taints %+v, want %s:NoSchedule", created.Spec.Taints, corev1.TaintNodeNotReady)
	}

	// A node whose agent reports Ready loses the taint to the node
	// lifecycle controller.
	runCtx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	agent, err := fakenode.Start(runCtx, cs, fakenode.Options{Nodes: []string{name + "-ready"}, LeaseRenewInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = agent.Stop()
		_ = cs.CoreV1().Nodes().Delete(context.Background(), name+"-ready", metav1.DeleteOptions{})
	})
	factory := informers.NewSharedInformerFactory(cs)
	c, err := nodelifecycle.New(cs, factory, nodelifecycle.Options{NodeMonitorPeriod: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	framework.RunControllers(t, factory, func(ctx context.Context) error { return c.Run(ctx, 1) })
	framework.WaitFor(t, wait, "the ready node untainted", func() (bool, error) {
		n, err := cs.CoreV1().Nodes().Get(ctx, name+"-ready", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		ready := slices.ContainsFunc(n.Status.Conditions, func(c corev1.NodeCondition) bool {
			return c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue
		})
		return ready && !hasTaint(n), nil
	})
}
