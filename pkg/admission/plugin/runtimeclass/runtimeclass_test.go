package runtimeclass

import (
	"context"
	"strings"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	nodev1 "kubecore.io/api/node/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

type classes map[string]*nodev1.RuntimeClass

func (c classes) GetRuntimeClass(_ context.Context, name string) (*nodev1.RuntimeClass, error) {
	if rc, ok := c[name]; ok {
		return rc, nil
	}
	return nil, apierrors.NewNotFound(nodev1.Resource("runtimeclasses"), name)
}

func TestAdmit(t *testing.T) {
	overhead := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("1Mi")}
	cs := classes{
		"plain": {ObjectMeta: metav1.ObjectMeta{Name: "plain"}, Handler: "runc"},
		"heavy": {ObjectMeta: metav1.ObjectMeta{Name: "heavy"}, Handler: "kata", Overhead: &nodev1.Overhead{PodFixed: overhead},
			Scheduling: &nodev1.Scheduling{NodeSelector: map[string]string{"sandbox": "kata"}, Tolerations: []corev1.Toleration{{Key: "kata", Operator: corev1.TolerationOpExists}}}},
	}
	name := func(s string) *string { return &s }
	for _, tc := range []struct {
		name    string
		spec    corev1.PodSpec
		wantErr string
		check   func(*testing.T, corev1.PodSpec)
	}{
		{name: "no class", spec: corev1.PodSpec{}},
		{name: "missing class", spec: corev1.PodSpec{RuntimeClassName: name("gone")}, wantErr: `pod rejected: RuntimeClass "gone" not found`},
		{name: "overhead without class", spec: corev1.PodSpec{Overhead: overhead}, wantErr: "Pod Overhead set without corresponding RuntimeClass defined Overhead"},
		{name: "overhead of a class without one", spec: corev1.PodSpec{RuntimeClassName: name("plain"), Overhead: overhead}, wantErr: "Pod Overhead set without corresponding RuntimeClass defined Overhead"},
		{name: "class overhead and scheduling applied", spec: corev1.PodSpec{RuntimeClassName: name("heavy"), NodeSelector: map[string]string{"zone": "a"}},
			check: func(t *testing.T, s corev1.PodSpec) {
				if !sameResources(s.Overhead, overhead) || s.NodeSelector["sandbox"] != "kata" || s.NodeSelector["zone"] != "a" || len(s.Tolerations) != 1 {
					t.Errorf("spec after admission: overhead %v, selector %v, tolerations %v", s.Overhead, s.NodeSelector, s.Tolerations)
				}
			}},
		{name: "equal overhead kept", spec: corev1.PodSpec{RuntimeClassName: name("heavy"), Overhead: overhead.DeepCopy()}},
		{name: "other overhead", spec: corev1.PodSpec{RuntimeClassName: name("heavy"), Overhead: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}, wantErr: "Pod's Overhead doesn't match RuntimeClass's defined Overhead"},
		{name: "conflicting selector", spec: corev1.PodSpec{RuntimeClassName: name("heavy"), NodeSelector: map[string]string{"sandbox": "gvisor"}}, wantErr: "conflict: runtimeClass.scheduling.nodeSelector[sandbox] = kata; pod.spec.nodeSelector[sandbox] = gvisor"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: tc.spec}
			err := admit(context.Background(), cs, pod)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("unexpected error %v", err)
			case tc.wantErr != "" && (err == nil || !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error %v, want Forbidden with %q", err, tc.wantErr)
			}
			if tc.check != nil {
				tc.check(t, pod.Spec)
			}
		})
	}
}
