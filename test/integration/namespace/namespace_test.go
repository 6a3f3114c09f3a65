package namespace

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/discovery"
	"kubecore.io/client/informers"
	"kubecore.io/client/metadata"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/pkg/controller/namespace"
	"kubecore.io/kubecore/pkg/controllermanager"
	"kubecore.io/kubecore/test/integration/framework"
)

// startController runs the namespace controller until the test ends.
func startController(t *testing.T, s *framework.APIServer) *typed.Clientset {
	t.Helper()
	cs := s.Clientset(t)
	config := s.Config
	md, err := metadata.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	disco, err := discovery.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	factory := informers.NewSharedInformerFactory(cs)
	c, err := namespace.New(controllermanager.Clients{Clientset: cs, MetadataClient: md, DiscoveryClient: disco}, factory)
	if err != nil {
		t.Fatal(err)
	}
	framework.RunControllers(t, factory, func(ctx context.Context) error { return c.Run(ctx, 5) })
	return cs
}

// fakeKubelet finishes the graceful deletion of bound pods in ns, as a
// kubelet does once their containers stopped.
func fakeKubelet(ctx context.Context, t *testing.T, cs *typed.Clientset, ns string) {
	w, err := cs.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Error(err)
		return
	}
	defer w.Stop()
	zero := int64(0)
	for ev := range w.ResultChan() {
		pod, ok := ev.Object.(*corev1.Pod)
		if !ok || pod.DeletionTimestamp == nil {
			continue
		}
		uid := pod.UID
		err := cs.CoreV1().Pods(ns).Delete(ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero, Preconditions: &metav1.Preconditions{UID: &uid}})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) && ctx.Err() == nil {
			t.Errorf("kubelet delete %s: %v", pod.Name, err)
		}
	}
}

func pod(name, node string) *corev1.Pod {
	grace := int64(2)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{
			NodeName:                      node,
			TerminationGracePeriodSeconds: &grace,
			Containers:                    []corev1.Container{{Name: "c", Image: "busybox"}},
		},
	}
}

// TestNamespaceWith200ObjectsEmptiesAndDisappears deletes a namespace holding
// 200 objects of several resources: bound pods (graceful), unbound pods, and
// a config map held by a finalizer; the namespace reports what blocks it,
// and is gone once everything is.
func TestNamespaceWith200ObjectsEmptiesAndDisappears(t *testing.T) {
	ctx := context.Background()
	cs := startController(t, framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd}))
	const ns = "crowded"
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	create := func(n int, f func(i int) error) {
		for i := range n {
			if err := f(i); err != nil {
				t.Fatal(err)
			}
		}
	}
	create(99, func(i int) error {
		_, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i)}, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{})
		return err
	})
	create(40, func(i int) error {
		_, err := cs.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("secret-%d", i)}}, metav1.CreateOptions{})
		return err
	})
	create(30, func(i int) error {
		_, err := cs.CoreV1().Pods(ns).Create(ctx, pod(fmt.Sprintf("unbound-%d", i), ""), metav1.CreateOptions{})
		return err
	})
	create(10, func(i int) error {
		_, err := cs.CoreV1().Pods(ns).Create(ctx, pod(fmt.Sprintf("bound-%d", i), "node-1"), metav1.CreateOptions{})
		return err
	})
	create(20, func(i int) error {
		_, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("sa-%d", i)}}, metav1.CreateOptions{})
		return err
	})
	held, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "held", Finalizers: []string{"example.com/hold"}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	kctx, kcancel := context.WithCancel(ctx)
	defer kcancel()
	go fakeKubelet(kctx, t, cs, ns)

	start := time.Now()
	if err := cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// New content is refused while the namespace terminates.
	_, err = cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "late"}}, metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) {
		t.Errorf("create in a terminating namespace: err = %v, want Forbidden", err)
	}

	// The finalizer blocks: the conditions must say so.
	var blocked *corev1.Namespace
	framework.WaitUntil(t, 30*time.Second, "the namespace to report the remaining finalizer", func() bool {
		n, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		blocked = n
		return hasCondition(n, corev1.NamespaceFinalizersRemaining, "SomeFinalizerRemain", "Some finalizers are remaining: example.com/hold in 1 resource instances") &&
			hasCondition(n, corev1.NamespaceContentRemaining, "SomeResourcesRemain", "Some resources are remaining: configmaps. has 1 resource instances")
	})
	if blocked.Status.Phase != corev1.NamespaceTerminating || !slices.Contains(blocked.Spec.Finalizers, corev1.FinalizerKubernetes) {
		t.Errorf("blocked namespace: phase %q finalizers %v, want Terminating with kubernetes", blocked.Status.Phase, blocked.Spec.Finalizers)
	}
	for _, list := range []func() (int, error){
		func() (int, error) {
			l, err := cs.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{})
			return len(l.Items), err
		},
		func() (int, error) {
			l, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
			return len(l.Items), err
		},
		func() (int, error) {
			l, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
			return len(l.Items), err
		},
	} {
		n, err := list()
		if err != nil {
			t.Fatal(err)
		}
		if n > 1 {
			t.Errorf("%d objects of a resource left besides the held one", n)
		}
	}

	// Release the finalizer: the namespace goes.
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"finalizers": nil}})
	if _, err := cs.CoreV1().ConfigMaps(ns).Patch(ctx, held.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitUntil(t, 30*time.Second, "the namespace to disappear", func() bool {
		_, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	t.Logf("namespace with 200 objects deleted in %v", time.Since(start).Round(time.Millisecond))
}

// TestEmptyNamespaceIsFinalized deletes an empty namespace.
func TestEmptyNamespaceIsFinalized(t *testing.T) {
	ctx := context.Background()
	cs := startController(t, framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd}))
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "empty"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cs.CoreV1().Namespaces().Delete(ctx, "empty", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitUntil(t, 20*time.Second, "the empty namespace to disappear", func() bool {
		_, err := cs.CoreV1().Namespaces().Get(ctx, "empty", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
}

func hasCondition(ns *corev1.Namespace, typ corev1.NamespaceConditionType, reason, message string) bool {
	for _, c := range ns.Status.Conditions {
		if c.Type == typ {
			return c.Status == corev1.ConditionTrue && c.Reason == reason && c.Message == message
		}
	}
	return false
}
