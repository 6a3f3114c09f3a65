package validation

import (
	"strings"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

func q(s string) resource.Quantity { return resource.MustParse(s) }

// wantErrors checks that errs are exactly the field paths of want, each
// with its message fragment.
func wantErrors(t *testing.T, errs field.ErrorList, want map[string]string) {
	t.Helper()
	if len(errs) != len(want) {
		t.Fatalf("errors = %v, want %d on %v", errs, len(want), want)
	}
	for _, e := range errs {
		frag, ok := want[e.Field]
		if !ok {
			t.Errorf("unexpected error %v", e)
			continue
		}
		if !strings.Contains(e.Error(), frag) {
			t.Errorf("error %q does not say %q", e.Error(), frag)
		}
	}
}

func TestValidateLimitRange(t *testing.T) {
	meta := metav1.ObjectMeta{Namespace: "ns", Name: "lr"}
	tests := []struct {
		name   string
		limits []corev1.LimitRangeItem
		want   map[string]string
	}{
		{"valid container", []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer,
			Min: corev1.ResourceList{"cpu": q("100m")}, Max: corev1.ResourceList{"cpu": q("2")},
			Default: corev1.ResourceList{"cpu": q("1")}, DefaultRequest: corev1.ResourceList{"cpu": q("500m")},
			MaxLimitRequestRatio: corev1.ResourceList{"cpu": q("4")}}}, nil},
		{"min above max", []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer,
			Min: corev1.ResourceList{"memory": q("2Gi")}, Max: corev1.ResourceList{"memory": q("1Gi")}}},
			map[string]string{"spec.limits[0].min[memory]": "min value 2Gi is greater than max value 1Gi"}},
		{"default above max", []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer,
			Max: corev1.ResourceList{"cpu": q("1")}, Default: corev1.ResourceList{"cpu": q("2")}, DefaultRequest: corev1.ResourceList{"cpu": q("1")}}},
			map[string]string{"spec.limits[0].default[cpu]": "default value 2 is greater than max value 1"}},
		{"default request above default", []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer,
			Default: corev1.ResourceList{"cpu": q("1")}, DefaultRequest: corev1.ResourceList{"cpu": q("2")}}},
			map[string]string{"spec.limits[0].defaultRequest[cpu]": "default request value 2 is greater than default limit value 1"}},
		{"pod defaults", []corev1.LimitRangeItem{{Type: corev1.LimitTypePod, Default: corev1.ResourceList{"cpu": q("1")}}},
			map[string]string{"spec.limits[0].default": "may not be specified when `type` is 'Pod'"}},
		{"ratio below one", []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer, MaxLimitRequestRatio: corev1.ResourceList{"cpu": q("500m")}}},
			map[string]string{"spec.limits[0].maxLimitRequestRatio[cpu]": "ratio 500m is less than 1"}},
		{"negative", []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer, Max: corev1.ResourceList{"cpu": q("-1")}}},
			map[string]string{"spec.limits[0].max[cpu]": "must be greater than or equal to 0"}},
		{"pvc without storage bound", []corev1.LimitRangeItem{{Type: corev1.LimitTypePersistentVolumeClaim}},
			map[string]string{"spec.limits[0].limits": "either minimum or maximum storage value is required"}},
		{"duplicate type", []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer}, {Type: corev1.LimitTypeContainer}},
			map[string]string{"spec.limits[1].type": "Duplicate value"}},
		{"bad resource name", []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer, Max: corev1.ResourceList{"gpus": q("1")}}},
			map[string]string{"spec.limits[0].max[gpus]": "must be a standard resource type or fully qualified"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantErrors(t, ValidateLimitRange(&corev1.LimitRange{ObjectMeta: meta, Spec: corev1.LimitRangeSpec{Limits: tt.limits}}), tt.want)
		})
	}
}

func TestValidateResourceQuota(t *testing.T) {
	meta := metav1.ObjectMeta{Namespace: "ns", Name: "q"}
	tests := []struct {
		name string
		spec corev1.ResourceQuotaSpec
		want map[string]string
	}{
		{"valid", corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"pods": q("10"), "requests.cpu": q("1"), "count/deployments.apps": q("2")}}, nil},
		{"negative", corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"pods": q("-1")}},
			map[string]string{"spec.hard[pods]": "must be greater than or equal to 0"}},
		{"fraction of a count", corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"pods": q("1500m")}},
			map[string]string{"spec.hard[pods]": "must be an integer"}},
		{"unknown name", corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"widgets": q("1")}},
			map[string]string{"spec.hard[widgets]": "must be a standard resource type or fully qualified"}},
		{"unsupported scope", corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"pods": q("1")}, Scopes: []corev1.ResourceQuotaScope{"Sometimes"}},
			map[string]string{"spec.scopes": "unsupported scope"}},
		{"conflicting scopes", corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"pods": q("1")}, Scopes: []corev1.ResourceQuotaScope{"Terminating", "NotTerminating"}},
			map[string]string{"spec.scopes": "conflicting scopes"}},
		{"scope on a resource it cannot limit", corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"services": q("1")}, Scopes: []corev1.ResourceQuotaScope{"BestEffort"}},
			map[string]string{"spec.hard": "unsupported scope applied to resource"}},
		{"selector In without values", corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"pods": q("1")}, ScopeSelector: &corev1.ScopeSelector{
			MatchExpressions: []corev1.ScopedResourceSelectorRequirement{{ScopeName: "PriorityClass", Operator: "In"}}}},
			map[string]string{"spec.scopeSelector.matchExpressions[0].values": "must be at least one value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantErrors(t, ValidateResourceQuota(&corev1.ResourceQuota{ObjectMeta: meta, Spec: tt.spec}), tt.want)
		})
	}
	old := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "q", ResourceVersion: "1"}, Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"pods": q("1")}}}
	upd := old.DeepCopy()
	upd.Spec.Scopes = []corev1.ResourceQuotaScope{"BestEffort"}
	wantErrors(t, ValidateResourceQuotaUpdate(upd, old), map[string]string{"spec.scopes": "field is immutable"})
}

func TestValidateReplicationController(t *testing.T) {
	valid := func() *corev1.ReplicationController {
		n := int32(1)
		return &corev1.ReplicationController{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "rc"},
			Spec: corev1.ReplicationControllerSpec{Replicas: &n, Selector: map[string]string{"app": "a"},
				Template: &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "a"}},
					Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyAlways, DNSPolicy: corev1.DNSClusterFirst, Containers: []corev1.Container{{Name: "c", Image: "i", ImagePullPolicy: corev1.PullIfNotPresent, TerminationMessagePolicy: corev1.TerminationMessageReadFile}}}}}}
	}
	tests := []struct {
		name   string
		mutate func(*corev1.ReplicationController)
		want   map[string]string
	}{
		{"valid", func(*corev1.ReplicationController) {}, nil},
		{"negative replicas", func(rc *corev1.ReplicationController) { n := int32(-1); rc.Spec.Replicas = &n },
			map[string]string{"spec.replicas": "must be greater than or equal to 0"}},
		{"no selector", func(rc *corev1.ReplicationController) { rc.Spec.Selector = nil },
			map[string]string{"spec.selector": "Required value"}},
		{"selector not matching", func(rc *corev1.ReplicationController) { rc.Spec.Selector = map[string]string{"app": "b"} },
			map[string]string{"spec.template.metadata.labels": "`selector` does not match template `labels`"}},
		{"no template", func(rc *corev1.ReplicationController) { rc.Spec.Template = nil },
			map[string]string{"spec.template": "Required value"}},
		{"restart never", func(rc *corev1.ReplicationController) {
			rc.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever
		},
			map[string]string{"spec.template.spec.restartPolicy": `supported values: "Always"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc := valid()
			tt.mutate(rc)
			wantErrors(t, ValidateReplicationController(rc), tt.want)
		})
	}
}
