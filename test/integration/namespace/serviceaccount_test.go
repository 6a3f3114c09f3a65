package namespace

import (
	"context"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/informers"

	"kubecore.io/kubecore/pkg/controller/serviceaccount"
	"kubecore.io/kubecore/test/integration/framework"
)

// TestDefaultServiceAccounts: every namespace gets a default service
// account, made again when deleted; a pod naming none runs as it.
func TestDefaultServiceAccounts(t *testing.T) {
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	cs := s.Clientset(t)
	factory := informers.NewSharedInformerFactory(cs)
	c, err := serviceaccount.New(cs, factory)
	if err != nil {
		t.Fatal(err)
	}
	framework.RunControllers(t, factory, func(ctx context.Context) error { return c.Run(ctx, 2) })

	waitDefault := func(ns string) *corev1.ServiceAccount {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			sa, err := cs.CoreV1().ServiceAccounts(ns).Get(context.Background(), "default", metav1.GetOptions{})
			if err == nil {
				return sa
			}
			if !apierrors.IsNotFound(err) || time.Now().After(deadline) {
				t.Fatalf("default service account of %s: %v", ns, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitDefault("default")
	waitDefault("kube-system")
	ns := s.CreateNamespace(t, "sa")
	first := waitDefault(ns)
	if err := cs.CoreV1().ServiceAccounts(ns).Delete(context.Background(), "default", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for again := waitDefault(ns); again.UID == first.UID; again = waitDefault(ns) {
		if time.Now().After(deadline) {
			t.Fatal("the deleted default service account was not made again")
		}
		time.Sleep(20 * time.Millisecond)
	}

	pod, err := cs.CoreV1().Pods(ns).Create(context.Background(), &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pod.Spec.ServiceAccountName != "default" || pod.Spec.DeprecatedServiceAccount != "default" {
		t.Errorf("pod runs as %q (serviceAccount %q), want default", pod.Spec.ServiceAccountName, pod.Spec.DeprecatedServiceAccount)
	}
}
