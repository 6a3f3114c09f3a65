package validation

import (
	"strings"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	nodev1 "kubecore.io/api/node/v1"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

func TestValidateRuntimeClass(t *testing.T) {
	rc := func(change func(*nodev1.RuntimeClass)) *nodev1.RuntimeClass {
		r := &nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: "gvisor"}, Handler: "runsc"}
		if change != nil {
			change(r)
		}
		return r
	}
	tests := []struct {
		name string
		rc   *nodev1.RuntimeClass
		want string
	}{
		{"valid", rc(nil), ""},
		{"overhead and scheduling", rc(func(r *nodev1.RuntimeClass) {
			r.Overhead = &nodev1.Overhead{PodFixed: corev1.ResourceList{"cpu": resource.MustParse("250m")}}
			r.Scheduling = &nodev1.Scheduling{NodeSelector: map[string]string{"sandbox": "yes"}, Tolerations: []corev1.Toleration{{Key: "sandbox", Operator: "Exists"}}}
		}), ""},
		{"no handler", rc(func(r *nodev1.RuntimeClass) { r.Handler = "" }), `handler: Invalid value: "": a lowercase RFC 1123 label`},
		{"bad handler", rc(func(r *nodev1.RuntimeClass) { r.Handler = "run.sc" }), `handler: Invalid value: "run.sc"`},
		{"negative overhead", rc(func(r *nodev1.RuntimeClass) {
			r.Overhead = &nodev1.Overhead{PodFixed: corev1.ResourceList{"memory": resource.MustParse("-1Mi")}}
		}), `overhead.podFixed[memory]: Invalid value: "-1Mi": must be greater than or equal to 0`},
		{"bad node selector", rc(func(r *nodev1.RuntimeClass) {
			r.Scheduling = &nodev1.Scheduling{NodeSelector: map[string]string{"a b": "c"}}
		}), "scheduling.nodeSelector"},
		{"bad toleration", rc(func(r *nodev1.RuntimeClass) {
			r.Scheduling = &nodev1.Scheduling{Tolerations: []corev1.Toleration{{Operator: "Equal", Value: "x"}}}
		}), "scheduling.tolerations[0].operator"},
		{"duplicate toleration", rc(func(r *nodev1.RuntimeClass) {
			t := corev1.Toleration{Key: "a", Operator: "Exists"}
			r.Scheduling = &nodev1.Scheduling{Tolerations: []corev1.Toleration{t, t}}
		}), "scheduling.tolerations[1]: Duplicate value"},
	}
	for _, tt := range tests {
		got := ValidateRuntimeClass(tt.rc).ToAggregate()
		switch {
		case tt.want == "" && got != nil:
			t.Errorf("%s: unexpected errors: %v", tt.name, got)
		case tt.want != "" && (got == nil || !strings.Contains(got.Error(), tt.want)):
			t.Errorf("%s: errors %v, want %q", tt.name, got, tt.want)
		}
	}
	if errs := ValidateRuntimeClassUpdate(rc(func(r *nodev1.RuntimeClass) { r.Handler = "kata" }), rc(nil)); !strings.Contains(errs.ToAggregate().Error(), `handler: Invalid value: "kata": field is immutable`) {
		t.Errorf("handler update: %v", errs)
	}
}
