package limitranger

import (
	"context"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/registry/rest"
)

type ranges []*corev1.LimitRange

func (r ranges) ListLimitRanges(context.Context, string) ([]*corev1.LimitRange, error) { return r, nil }

func q(s string) resource.Quantity { return resource.MustParse(s) }

func attrs(obj *corev1.Pod) *rest.Attributes {
	return &rest.Attributes{Operation: rest.OperationCreate, Resource: corev1.SchemeGroupVersion.WithResource("pods"), Namespace: "ns", Name: obj.Name, Object: obj}
}

func TestPodMessages(t *testing.T) {
	p := New(ranges{{ObjectMeta: metav1.ObjectMeta{Name: "lr"}, Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{
		{Type: corev1.LimitTypeContainer, Min: corev1.ResourceList{"cpu": q("100m")}, Max: corev1.ResourceList{"memory": q("1Gi")},
			MaxLimitRequestRatio: corev1.ResourceList{"cpu": q("2")}},
		{Type: corev1.LimitTypePod, Max: corev1.ResourceList{"cpu": q("1")}},
	}}}})
	tests := []struct {
		name      string
		resources corev1.ResourceRequirements
		want      string
	}{
		{"ok", corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": q("200m")}, Limits: corev1.ResourceList{"cpu": q("400m"), "memory": q("1Gi")}}, ""},
		{"below min", corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": q("50m")}, Limits: corev1.ResourceList{"cpu": q("100m"), "memory": q("1Gi")}},
			`pods "below min" is forbidden: minimum cpu usage per Container is 100m, but request is 50m`},
		{"no memory limit", corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": q("200m")}, Limits: corev1.ResourceList{"cpu": q("200m")}},
			`pods "no memory limit" is forbidden: maximum memory usage per Container is 1Gi.  No limit is specified`},
		{"ratio", corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": q("200m")}, Limits: corev1.ResourceList{"cpu": q("800m"), "memory": q("1Gi")}},
			`pods "ratio" is forbidden: cpu max limit to request ratio per Container is 2, but provided ratio is 4.000000`},
		{"pod max", corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": q("1")}, Limits: corev1.ResourceList{"cpu": q("2"), "memory": q("1Gi")}},
			`pods "pod max" is forbidden: maximum cpu usage per Pod is 1, but limit is 2`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: tt.name}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: tt.resources}}}}
			err := p.Validate(context.Background(), attrs(pod))
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.want != "" && (!apierrors.IsForbidden(err) || err.Error() != tt.want):
				t.Errorf("got %v, want %s", err, tt.want)
			}
		})
	}
}

func TestDefaultsKeepWhatThePodSets(t *testing.T) {
	p := New(ranges{{Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer,
		Default: corev1.ResourceList{"cpu": q("1"), "memory": q("128Mi")}, DefaultRequest: corev1.ResourceList{"cpu": q("500m")}}}}}})
	pod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{"cpu": q("2")}}}}}}
	if err := p.Admit(context.Background(), attrs(pod)); err != nil {
		t.Fatal(err)
	}
	r := pod.Spec.Containers[0].Resources
	if r.Limits.Cpu().String() != "2" || r.Limits.Memory().String() != "128Mi" || r.Requests.Cpu().String() != "500m" {
		t.Errorf("resources after defaults = %+v", r)
	}
	if got := pod.Annotations[Annotation]; got != "LimitRanger plugin set: cpu request for container c; memory limit for container c" {
		t.Errorf("annotation = %q", got)
	}
}
