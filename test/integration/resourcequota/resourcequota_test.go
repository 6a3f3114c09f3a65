// Package resourcequota holds the integration tests of ResourceQuota and
// LimitRange: the quota controller's status.used over a real API server,
// quota admission refusing over-quota writes (concurrent ones included),
// and LimitRanger's defaults and bounds.
package resourcequota

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/informers"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/pkg/controller/resourcequota"
	"kubecore.io/kubecore/test/integration/framework"
)

var testEtcd *framework.Etcd

func TestMain(m *testing.M) { os.Exit(framework.RunWithEtcd(m, &testEtcd)) }

// start runs an API server and the quota controller; it returns the admin
// client and a fresh namespace.
func start(t *testing.T) (context.Context, *typed.Clientset, string) {
	t.Helper()
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	cs := s.Clientset(t)
	factory := informers.NewSharedInformerFactory(cs)
	c, err := resourcequota.New(cs, factory, resourcequota.Options{})
	if err != nil {
		t.Fatal(err)
	}
	framework.RunControllers(t, factory, func(ctx context.Context) error { return c.Run(ctx, 2) })
	return context.Background(), cs, s.CreateNamespace(t, "quota")
}

func q(s string) resource.Quantity { return resource.MustParse(s) }

func pod(name, cpu string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
	if cpu != "" {
		p.Spec.Containers[0].Resources = corev1.ResourceRequirements{
			Requests: corev1.ResourceList{"cpu": q(cpu)}, Limits: corev1.ResourceList{"memory": q("64Mi")}}
	}
	return p
}

// waitUsed waits until the quota's status.used equals want (in every
// resource want names) and status.hard is set.
func waitUsed(t *testing.T, ctx context.Context, cs *typed.Clientset, ns, name string, want corev1.ResourceList) {
	t.Helper()
	framework.WaitFor(t, 30*time.Second, fmt.Sprintf("quota %s used %v", name, want), func() (bool, error) {
		got, err := cs.CoreV1().ResourceQuotas(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if len(got.Status.Hard) == 0 {
			return false, fmt.Errorf("no status.hard yet")
		}
		for k, v := range want {
			u, ok := got.Status.Used[k]
			if !ok || u.Cmp(v) != 0 {
				// Not a failure yet: the reason shown if it stays so.
				return false, fmt.Errorf("status.used is %v", got.Status.Used)
			}
		}
		return true, nil
	})
}

func TestUsedConvergesWithObjects(t *testing.T) {
	ctx, cs, ns := start(t)
	core := cs.CoreV1()
	// Objects that exist before the quota are counted by the controller.
	for i := range 2 {
		if _, err := core.ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm%d", i)}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := core.Pods(ns).Create(ctx, pod("p0", "100m"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	quota := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "q"}, Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{
		"pods": q("10"), "configmaps": q("10"), "requests.cpu": q("4"), "limits.memory": q("1Gi"), "services": q("5"),
		"services.nodeports": q("5"), "count/configmaps": q("10"), "persistentvolumeclaims": q("5"), "requests.storage": q("10Gi"),
	}}}
	if _, err := core.ResourceQuotas(ns).Create(ctx, quota, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUsed(t, ctx, cs, ns, "q", corev1.ResourceList{"pods": q("1"), "configmaps": q("2"), "count/configmaps": q("2"),
		"requests.cpu": q("100m"), "limits.memory": q("64Mi"), "services": q("0"), "persistentvolumeclaims": q("0")})

	// Creates are charged by admission.
	if _, err := core.Pods(ns).Create(ctx, pod("p1", "250m"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "np"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort,
		Ports: []corev1.ServicePort{{Name: "a", Port: 80}, {Name: "b", Port: 81}}}}
	if _, err := core.Services(ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Spec: corev1.PersistentVolumeClaimSpec{
		AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{"storage": q("1Gi")}}}}
	if _, err := core.PersistentVolumeClaims(ns).Create(ctx, pvc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUsed(t, ctx, cs, ns, "q", corev1.ResourceList{"pods": q("2"), "requests.cpu": q("350m"), "limits.memory": q("128Mi"),
		"services": q("1"), "services.nodeports": q("2"), "persistentvolumeclaims": q("1"), "requests.storage": q("1Gi")})

	// Deletions give the quota back, through the controller.
	if err := core.Pods(ns).Delete(ctx, "p1", metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatal(err)
	}
	if err := core.ConfigMaps(ns).Delete(ctx, "cm0", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUsed(t, ctx, cs, ns, "q", corev1.ResourceList{"pods": q("1"), "requests.cpu": q("100m"), "configmaps": q("1"), "count/configmaps": q("1")})
}

func TestScopes(t *testing.T) {
	ctx, cs, ns := start(t)
	core := cs.CoreV1()
	for _, spec := range []struct {
		name  string
		scope corev1.ResourceQuotaScope
	}{{"best-effort", corev1.ResourceQuotaScopeBestEffort}, {"not-best-effort", corev1.ResourceQuotaScopeNotBestEffort}, {"terminating", corev1.ResourceQuotaScopeTerminating}} {
		rq := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: spec.name}, Spec: corev1.ResourceQuotaSpec{
			Hard: corev1.ResourceList{"pods": q("5")}, Scopes: []corev1.ResourceQuotaScope{spec.scope}}}
		if _, err := core.ResourceQuotas(ns).Create(ctx, rq, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	rq := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Spec: corev1.ResourceQuotaSpec{
		Hard: corev1.ResourceList{"pods": q("5")}, ScopeSelector: &corev1.ScopeSelector{MatchExpressions: []corev1.ScopedResourceSelectorRequirement{
			{ScopeName: corev1.ResourceQuotaScopePriorityClass, Operator: corev1.ScopeSelectorOpIn, Values: []string{"system-cluster-critical"}}}}}}
	if _, err := core.ResourceQuotas(ns).Create(ctx, rq, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"best-effort", "not-best-effort", "terminating", "high"} {
		waitUsed(t, ctx, cs, ns, name, corev1.ResourceList{"pods": q("0")})
	}
	if _, err := core.Pods(ns).Create(ctx, pod("be", ""), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	burst := pod("burst", "100m")
	deadline := int64(600)
	burst.Spec.ActiveDeadlineSeconds = &deadline
	if _, err := core.Pods(ns).Create(ctx, burst, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	critical := pod("critical", "")
	critical.Spec.PriorityClassName = "system-cluster-critical"
	if _, err := core.Pods(ns).Create(ctx, critical, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUsed(t, ctx, cs, ns, "best-effort", corev1.ResourceList{"pods": q("2")})
	waitUsed(t, ctx, cs, ns, "not-best-effort", corev1.ResourceList{"pods": q("1")})
	waitUsed(t, ctx, cs, ns, "terminating", corev1.ResourceList{"pods": q("1")})
	waitUsed(t, ctx, cs, ns, "high", corev1.ResourceList{"pods": q("1")})
}

func TestOverQuotaCreateIsRefusedAndNotStored(t *testing.T) {
	ctx, cs, ns := start(t)
	core := cs.CoreV1()
	rq := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "q"}, Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"requests.cpu": q("500m"), "secrets": q("1")}}}
	if _, err := core.ResourceQuotas(ns).Create(ctx, rq, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUsed(t, ctx, cs, ns, "q", corev1.ResourceList{"requests.cpu": q("0"), "secrets": q("0")})
	if _, err := core.Pods(ns).Create(ctx, pod("a", "400m"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err := core.Pods(ns).Create(ctx, pod("b", "200m"), metav1.CreateOptions{})
	want := `pods "b" is forbidden: exceeded quota: q, requested: requests.cpu=200m, used: requests.cpu=400m, limited: requests.cpu=500m`
	if !apierrors.IsForbidden(err) || err.Error() != want {
		t.Fatalf("create over quota: %v, want 403 %q", err, want)
	}
	if _, err := core.Pods(ns).Get(ctx, "b", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("refused pod was stored: get = %v", err)
	}
	_, err = core.Pods(ns).Create(ctx, pod("c", ""), metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "failed quota: q: must specify requests.cpu for: c") {
		t.Errorf("pod without a cpu request: %v, want must specify requests.cpu", err)
	}
	if _, err := core.Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s1"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = core.Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s2"}}, metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "exceeded quota: q, requested: secrets=1, used: secrets=1, limited: secrets=1") {
		t.Errorf("second secret: %v, want exceeded quota", err)
	}
	if _, err := core.Secrets(ns).Get(ctx, "s2", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("refused secret was stored: get = %v", err)
	}
}

func TestConcurrentCreatesNeverExceedACountQuota(t *testing.T) {
	ctx, cs, ns := start(t)
	core := cs.CoreV1()
	const limit, tries = 5, 40
	rq := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "q"}, Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"configmaps": q(fmt.Sprint(limit))}}}
	if _, err := core.ResourceQuotas(ns).Create(ctx, rq, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUsed(t, ctx, cs, ns, "q", corev1.ResourceList{"configmaps": q("0")})
	var created, refused atomic.Int32
	var wg sync.WaitGroup
	for i := range tries {
		wg.Go(func() {
			_, err := core.ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm%d", i)}}, metav1.CreateOptions{})
			switch {
			case err == nil:
				created.Add(1)
			case apierrors.IsForbidden(err):
				refused.Add(1)
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	list, err := core.ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// kube-root-ca.crt is not published here: no controller runs it.
	if n := len(list.Items); n != limit || created.Load() != limit || refused.Load() != tries-limit {
		t.Errorf("stored %d config maps, %d creates succeeded and %d were refused; want exactly %d stored of %d", n, created.Load(), refused.Load(), limit, tries)
	}
	got, err := core.ResourceQuotas(ns).Get(ctx, "q", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if used := got.Status.Used["configmaps"]; used.Value() != limit {
		t.Errorf("status.used configmaps = %s, want %d", used.String(), limit)
	}
}

func TestLimitRangeDefaultsAndBounds(t *testing.T) {
	ctx, cs, ns := start(t)
	core := cs.CoreV1()
	lr := &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "lr"}, Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{
		{Type: corev1.LimitTypeContainer, Max: corev1.ResourceList{"cpu": q("1")}, Min: corev1.ResourceList{"memory": q("16Mi")},
			DefaultRequest: corev1.ResourceList{"cpu": q("100m"), "memory": q("32Mi")}, Default: corev1.ResourceList{"memory": q("64Mi")}},
		{Type: corev1.LimitTypePersistentVolumeClaim, Max: corev1.ResourceList{"storage": q("2Gi")}},
	}}}
	stored, err := core.LimitRanges(ns).Create(ctx, lr, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := stored.Spec.Limits[0].Default["cpu"]; d.String() != "1" {
		t.Errorf("default cpu limit = %q, want 1 (defaulted from max)", d.String())
	}
	var p *corev1.Pod
	framework.WaitFor(t, 20*time.Second, "the limit range to apply", func() (bool, error) {
		_ = core.Pods(ns).Delete(ctx, "d", metav1.DeleteOptions{GracePeriodSeconds: new(int64)})
		framework.WaitForPodGone(ctx, t, cs, ns, "d", 10*time.Second)
		p, err = core.Pods(ns).Create(ctx, pod("d", ""), metav1.CreateOptions{})
		if err != nil {
			return false, err
		}
		return p.Annotations["kubernetes.io/limit-ranger"] != "", nil
	})
	r := p.Spec.Containers[0].Resources
	if got := fmt.Sprintf("%s %s %s %s", ptrQ(r.Requests, "cpu"), ptrQ(r.Requests, "memory"), ptrQ(r.Limits, "cpu"), ptrQ(r.Limits, "memory")); got != "100m 32Mi 1 64Mi" {
		t.Errorf("requests cpu, memory and limits cpu, memory = %s, want 100m 32Mi 1 64Mi", got)
	}
	big := pod("big", "")
	big.Spec.Containers[0].Resources.Limits = corev1.ResourceList{"cpu": q("2")}
	_, err = core.Pods(ns).Create(ctx, big, metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "maximum cpu usage per Container is 1, but limit is 2") {
		t.Errorf("pod over max: %v, want forbidden with the max message", err)
	}
	if _, err := core.Pods(ns).Get(ctx, "big", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("refused pod was stored: %v", err)
	}
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Spec: corev1.PersistentVolumeClaimSpec{
		AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{"storage": q("5Gi")}}}}
	_, err = core.PersistentVolumeClaims(ns).Create(ctx, pvc, metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "maximum storage usage per PersistentVolumeClaim is 2Gi, but request is 5Gi") {
		t.Errorf("claim over max: %v, want forbidden with the max message", err)
	}
}

func ptrQ(l corev1.ResourceList, n corev1.ResourceName) string {
	v, ok := l[n]
	if !ok {
		return "<none>"
	}
	return v.String()
}
