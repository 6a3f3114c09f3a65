package controlplane

import (
	"context"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	schedulingv1 "kubecore.io/api/scheduling/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// TestPodPriorityAdmission creates pods through the served storage: their
// priority comes from their PriorityClass or the global default.
func TestPodPriorityAdmission(t *testing.T) {
	in, _ := start(t, Config{})
	ctx := apirequest.WithNamespace(context.Background(), "default")
	pods := servedStorage(t, in, "", "pods").(rest.Creater)
	classes := servedStorage(t, in, "scheduling.k8s.io", "priorityclasses").(rest.Creater)
	newClass := func(name string, value int32, globalDefault bool) {
		t.Helper()
		pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value, GlobalDefault: globalDefault}
		in.Scheme.Default(pc)
		if _, err := classes.Create(context.Background(), pc, nil, &metav1.CreateOptions{}); err != nil {
			t.Fatalf("create class %s: %v", name, err)
		}
	}
	create := func(name, class string, priority *int32) (*corev1.Pod, error) {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PodSpec{
			PriorityClassName: class, Priority: priority, Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
		in.Scheme.Default(pod)
		out, err := pods.Create(ctx, pod, nil, &metav1.CreateOptions{})
		if err != nil {
			return nil, err
		}
		return out.(*corev1.Pod), nil
	}
	i32 := func(v int32) *int32 { return &v }

	// Before any default class: priority 0.
	p, err := create("plain", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Spec.Priority == nil || *p.Spec.Priority != 0 || p.Spec.PriorityClassName != "" || p.Spec.PreemptionPolicy == nil || *p.Spec.PreemptionPolicy != corev1.PreemptLowerPriority {
		t.Errorf("plain pod: priority %v class %q policy %v", p.Spec.Priority, p.Spec.PriorityClassName, p.Spec.PreemptionPolicy)
	}

	newClass("high", 1000, false)
	newClass("everyone", 100, true)
	tests := []struct {
		name, class string
		priority    *int32
		wantClass   string
		wantValue   int32
		wantErr     string
	}{
		{name: "high", class: "high", wantClass: "high", wantValue: 1000},
		{name: "system", class: "system-node-critical", wantClass: "system-node-critical", wantValue: 2000001000},
		{name: "defaulted", wantClass: "everyone", wantValue: 100},
		{name: "unknown", class: "foo", wantErr: `pods "unknown" is forbidden: no PriorityClass with name foo was found`},
		{name: "own-priority", class: "high", priority: i32(5), wantErr: `pods "own-priority" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name`},
		{name: "matching-priority", class: "high", priority: i32(1000), wantClass: "high", wantValue: 1000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := create(tc.name, tc.class, tc.priority)
			if tc.wantErr != "" {
				if !apierrors.IsForbidden(err) || err.Error() != tc.wantErr {
					t.Fatalf("err = %v, want Forbidden %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Spec.PriorityClassName != tc.wantClass || p.Spec.Priority == nil || *p.Spec.Priority != tc.wantValue {
				t.Errorf("class %q priority %v, want %q %d", p.Spec.PriorityClassName, p.Spec.Priority, tc.wantClass, tc.wantValue)
			}
		})
	}
}
