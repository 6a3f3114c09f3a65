package priority

import (
	"context"
	"errors"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	schedulingv1 "kubecore.io/api/scheduling/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// fakeClasses serves a fixed set of priority classes.
type fakeClasses struct {
	classes []*schedulingv1.PriorityClass
	err     error
}

func (f fakeClasses) GetPriorityClass(_ context.Context, name string) (*schedulingv1.PriorityClass, error) {
	if f.err != nil {
		return nil, f.err
	}
	for _, pc := range f.classes {
		if pc.Name == name {
			return pc, nil
		}
	}
	return nil, apierrors.NewNotFound(schedulingv1.Resource("priorityclasses"), name)
}

func (f fakeClasses) ListPriorityClasses(context.Context) ([]*schedulingv1.PriorityClass, error) {
	return f.classes, f.err
}

func class(name string, value int32, globalDefault bool, policy corev1.PreemptionPolicy) *schedulingv1.PriorityClass {
	pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value, GlobalDefault: globalDefault}
	if policy != "" {
		pc.PreemptionPolicy = &policy
	}
	return pc
}

func TestAdmitPriority(t *testing.T) {
	high := class("high", 1000, false, corev1.PreemptLowerPriority)
	never := class("never", 500, false, corev1.PreemptNever)
	defaultLow := class("default-low", 10, true, corev1.PreemptLowerPriority)
	defaultHigh := class("default-high", 20, true, corev1.PreemptLowerPriority)
	i32 := func(v int32) *int32 { return &v }
	pol := func(p corev1.PreemptionPolicy) *corev1.PreemptionPolicy { return &p }
	tests := []struct {
		name        string
		classes     fakeClasses
		className   string
		priority    *int32
		policy      *corev1.PreemptionPolicy
		wantClass   string
		wantValue   int32
		wantPolicy  corev1.PreemptionPolicy
		wantErr     string
		wantForbids bool
	}{
		{name: "named class", classes: fakeClasses{classes: []*schedulingv1.PriorityClass{high}}, className: "high",
			wantClass: "high", wantValue: 1000, wantPolicy: corev1.PreemptLowerPriority},
		{name: "class with policy Never", classes: fakeClasses{classes: []*schedulingv1.PriorityClass{never}}, className: "never",
			wantClass: "never", wantValue: 500, wantPolicy: corev1.PreemptNever},
		{name: "unknown class", classes: fakeClasses{classes: []*schedulingv1.PriorityClass{high}}, className: "foo",
			wantErr: `pods "p" is forbidden: no PriorityClass with name foo was found`, wantForbids: true},
		{name: "no class, no default", wantValue: 0, wantPolicy: corev1.PreemptLowerPriority},
		{name: "no class, lowest global default wins", classes: fakeClasses{classes: []*schedulingv1.PriorityClass{high, defaultHigh, defaultLow}},
			wantClass: "default-low", wantValue: 10, wantPolicy: corev1.PreemptLowerPriority},
		{name: "matching priority is accepted", classes: fakeClasses{classes: []*schedulingv1.PriorityClass{high}}, className: "high", priority: i32(1000),
			wantClass: "high", wantValue: 1000, wantPolicy: corev1.PreemptLowerPriority},
		{name: "priority set without class", priority: i32(7),
			wantErr: `pods "p" is forbidden: the integer value of priority (7) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name`, wantForbids: true},
		{name: "priority differing from class", classes: fakeClasses{classes: []*schedulingv1.PriorityClass{high}}, className: "high", priority: i32(5),
			wantErr: `pods "p" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name`, wantForbids: true},
		{name: "policy differing from class", classes: fakeClasses{classes: []*schedulingv1.PriorityClass{never}}, className: "never", policy: pol(corev1.PreemptLowerPriority),
			wantErr: `pods "p" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission controller computed Never from the given PriorityClass name`, wantForbids: true},
		{name: "storage failure", classes: fakeClasses{err: errors.New("etcd down")}, className: "high",
			wantErr: "Internal error occurred: failed to resolve PriorityClass with name high: etcd down"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}}
			pod.Spec.PriorityClassName, pod.Spec.Priority, pod.Spec.PreemptionPolicy = tc.className, tc.priority, tc.policy
			err := admitPriority(context.Background(), tc.classes, pod)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				if apierrors.IsForbidden(err) != tc.wantForbids {
					t.Errorf("forbidden = %v, want %v", apierrors.IsForbidden(err), tc.wantForbids)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if pod.Spec.Priority == nil || *pod.Spec.Priority != tc.wantValue {
				t.Errorf("priority = %v, want %d", pod.Spec.Priority, tc.wantValue)
			}
			if pod.Spec.PriorityClassName != tc.wantClass {
				t.Errorf("class = %q, want %q", pod.Spec.PriorityClassName, tc.wantClass)
			}
			if pod.Spec.PreemptionPolicy == nil || *pod.Spec.PreemptionPolicy != tc.wantPolicy {
				t.Errorf("policy = %v, want %s", pod.Spec.PreemptionPolicy, tc.wantPolicy)
			}
		})
	}
}
