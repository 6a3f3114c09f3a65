package resourcequota

import (
	"context"
	"strings"
	"sync"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/registry/rest"
)

// fakeQuotas keeps quotas in memory; UpdateQuota is atomic under mu.
type fakeQuotas struct {
	mu     sync.Mutex
	quotas map[string]*corev1.ResourceQuota
}

func (f *fakeQuotas) ListQuotas(_ context.Context, _ string) ([]*corev1.ResourceQuota, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*corev1.ResourceQuota
	for _, q := range f.quotas {
		out = append(out, q.DeepCopy())
	}
	return out, nil
}

func (f *fakeQuotas) UpdateQuota(_ context.Context, _, name string, update func(*corev1.ResourceQuota) error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	cp := f.quotas[name].DeepCopy()
	if err := update(cp); err != nil {
		return err
	}
	f.quotas[name] = cp
	return nil
}

func rq(name string, hard, used corev1.ResourceList) *corev1.ResourceQuota {
	return &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name},
		Spec: corev1.ResourceQuotaSpec{Hard: hard}, Status: corev1.ResourceQuotaStatus{Hard: hard, Used: used}}
}

func qty(s string) resource.Quantity { return resource.MustParse(s) }

func createAttrs(obj *corev1.Pod) *rest.Attributes {
	return &rest.Attributes{Operation: rest.OperationCreate, Resource: corev1.SchemeGroupVersion.WithResource("pods"),
		Namespace: "ns", Name: obj.Name, Object: obj}
}

func cpuPod(name, cpu string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}, Spec: corev1.PodSpec{Containers: []corev1.Container{
		{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": qty(cpu)}}}}}}
}

func TestChargesEveryMatchingQuotaOrNone(t *testing.T) {
	f := &fakeQuotas{quotas: map[string]*corev1.ResourceQuota{
		"a": rq("a", corev1.ResourceList{"pods": qty("5")}, corev1.ResourceList{"pods": qty("1")}),
		"b": rq("b", corev1.ResourceList{"requests.cpu": qty("1")}, corev1.ResourceList{"requests.cpu": qty("800m")}),
	}}
	p := New(f)
	if err := p.Validate(context.Background(), createAttrs(cpuPod("ok", "100m"))); err != nil {
		t.Fatal(err)
	}
	if u := f.quotas["a"].Status.Used["pods"]; u.String() != "2" {
		t.Errorf("a used pods = %s, want 2", u.String())
	}
	if u := f.quotas["b"].Status.Used["requests.cpu"]; u.String() != "900m" {
		t.Errorf("b used requests.cpu = %s, want 900m", u.String())
	}
	err := p.Validate(context.Background(), createAttrs(cpuPod("big", "200m")))
	want := `pods "big" is forbidden: exceeded quota: b, requested: requests.cpu=200m, used: requests.cpu=900m, limited: requests.cpu=1`
	if !apierrors.IsForbidden(err) || err.Error() != want {
		t.Fatalf("over quota: %v, want %s", err, want)
	}
	// Quota a, charged before b refused, was given back.
	if u := f.quotas["a"].Status.Used["pods"]; u.String() != "2" {
		t.Errorf("a used pods after the refusal = %s, want 2 (charge undone)", u.String())
	}
}

func TestStatusUnknownAndDryRun(t *testing.T) {
	f := &fakeQuotas{quotas: map[string]*corev1.ResourceQuota{"a": rq("a", corev1.ResourceList{"pods": qty("1")}, nil)}}
	err := New(f).Validate(context.Background(), createAttrs(cpuPod("p", "1")))
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "status unknown for quota: a, resources: pods") {
		t.Errorf("quota without used: %v", err)
	}
	f.quotas["a"].Status.Used = corev1.ResourceList{"pods": qty("0")}
	a := createAttrs(cpuPod("p", "1"))
	a.DryRun = true
	if err := New(f).Validate(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	if u := f.quotas["a"].Status.Used["pods"]; !u.IsZero() {
		t.Errorf("dry run charged the quota: used pods %s", u.String())
	}
}

// staleList lists each quota as it was before the controller's first
// status write, while the stored ones are current.
type staleList struct{ *fakeQuotas }

func (s staleList) ListQuotas(ctx context.Context, ns string) ([]*corev1.ResourceQuota, error) {
	qs, err := s.fakeQuotas.ListQuotas(ctx, ns)
	for _, q := range qs {
		q.Status = corev1.ResourceQuotaStatus{}
	}
	return qs, err
}

// A quota the listing shows without status yet is charged (and enforced)
// by its stored status, which the controller has written meanwhile.
func TestStaleListedQuotaIsChargedByItsStoredStatus(t *testing.T) {
	f := &fakeQuotas{quotas: map[string]*corev1.ResourceQuota{
		"pods": rq("pods", corev1.ResourceList{"pods": qty("2")}, corev1.ResourceList{"pods": qty("1")}),
		"cpu":  rq("cpu", corev1.ResourceList{"requests.cpu": qty("1")}, corev1.ResourceList{"requests.cpu": qty("0")}),
	}}
	p := New(staleList{f})
	if err := p.Validate(context.Background(), createAttrs(cpuPod("a", "500m"))); err != nil {
		t.Fatal(err)
	}
	if u := f.quotas["pods"].Status.Used["pods"]; u.String() != "2" {
		t.Errorf("used pods = %s, want 2", u.String())
	}
	if u := f.quotas["cpu"].Status.Used["requests.cpu"]; u.String() != "500m" {
		t.Errorf("used requests.cpu = %s, want 500m", u.String())
	}
	err := p.Validate(context.Background(), createAttrs(cpuPod("b", "100m")))
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "exceeded quota: pods") {
		t.Errorf("a third pod past a stale-listed quota of 2: %v", err)
	}
	noRequest := createAttrs(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}})
	delete(f.quotas, "pods")
	if err := p.Validate(context.Background(), noRequest); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "must specify requests.cpu") {
		t.Errorf("a pod without a cpu request past a stale-listed cpu quota: %v", err)
	}
}

func TestConcurrentChargesNeverOvershoot(t *testing.T) {
	f := &fakeQuotas{quotas: map[string]*corev1.ResourceQuota{"a": rq("a", corev1.ResourceList{"pods": qty("10")}, corev1.ResourceList{"pods": qty("0")})}}
	p := New(f)
	var wg sync.WaitGroup
	var mu sync.Mutex
	admitted := 0
	for range 50 {
		wg.Go(func() {
			if p.Validate(context.Background(), createAttrs(cpuPod("p", "1"))) == nil {
				mu.Lock()
				admitted++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if u := f.quotas["a"].Status.Used["pods"]; admitted != 10 || u.Value() != 10 {
		t.Errorf("admitted %d, used %s; want 10 and 10", admitted, u.String())
	}
}
