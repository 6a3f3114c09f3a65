// Package replicationcontroller holds the integration tests of the
// ReplicationController controller over a real API server: pods created
// and deleted to the desired count, scaled through /scale.
package replicationcontroller

import (
	"context"
	"os"
	"testing"
	"time"

	autoscalingv1 "kubecore.io/api/autoscaling/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/client/informers"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/pkg/controller/replicaset"
	"kubecore.io/kubecore/test/integration/framework"
)

var testEtcd *framework.Etcd

func TestMain(m *testing.M) { os.Exit(framework.RunWithEtcd(m, &testEtcd)) }

// ownedPods lists the active pods a controller reference ties to the RC.
func ownedPods(ctx context.Context, t *testing.T, cs *typed.Clientset, ns string, uid string) int {
	t.Helper()
	list, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: labels.Set{"app": "web"}.String()})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range list.Items {
		if ref := metav1.GetControllerOf(&p); ref != nil && ref.Kind == "ReplicationController" && string(ref.UID) == uid && p.DeletionTimestamp == nil {
			n++
		}
	}
	return n
}

func TestReplicationControllerKeepsAndScalesPods(t *testing.T) {
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	cs := s.Clientset(t)
	factory := informers.NewSharedInformerFactory(cs)
	c, err := replicaset.NewReplicationController(cs, factory, replicaset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	framework.RunControllers(t, factory, func(ctx context.Context) error { return c.Run(ctx, 2) })
	ctx := context.Background()
	ns := s.CreateNamespace(t, "rc")
	rcs := cs.CoreV1().ReplicationControllers(ns)

	three := int32(3)
	rc := &corev1.ReplicationController{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: corev1.ReplicationControllerSpec{
		Replicas: &three,
		Template: &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}}}
	created, err := rcs.Create(ctx, rc, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if created.Spec.Selector["app"] != "web" || created.Labels["app"] != "web" {
		t.Errorf("selector %v and labels %v, want both defaulted from the template", created.Spec.Selector, created.Labels)
	}
	uid := string(created.UID)
	framework.WaitUntil(t, 30*time.Second, "3 pods of the RC", func() bool { return ownedPods(ctx, t, cs, ns, uid) == 3 })
	framework.WaitFor(t, 30*time.Second, "status.replicas 3", func() (bool, error) {
		got, err := rcs.Get(ctx, "web", metav1.GetOptions{})
		return err == nil && got.Status.Replicas == 3 && got.Status.ObservedGeneration == got.Generation, err
	})

	scale, err := rcs.GetScale(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if scale.Spec.Replicas != 3 || scale.Status.Replicas != 3 || scale.Status.Selector != "app=web" {
		t.Errorf("scale = %+v, want 3 replicas selected by app=web", scale)
	}
	scale.Spec.Replicas = 1
	if _, err := rcs.UpdateScale(ctx, "web", &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns}, Spec: scale.Spec}, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitUntil(t, 30*time.Second, "1 pod of the RC after scaling down", func() bool { return ownedPods(ctx, t, cs, ns, uid) == 1 })

	// A pod deleted behind the controller's back is replaced.
	list, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	old := map[string]bool{}
	for _, p := range list.Items {
		old[p.Name] = true
		if p.DeletionTimestamp == nil {
			if err := cs.CoreV1().Pods(ns).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	framework.WaitFor(t, 30*time.Second, "the deleted pod replaced", func() (bool, error) {
		list, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		replaced := 0
		for _, p := range list.Items {
			if !old[p.Name] && p.DeletionTimestamp == nil {
				replaced++
			}
		}
		return replaced == 1 && ownedPods(ctx, t, cs, ns, uid) == 1, nil
	})
}
