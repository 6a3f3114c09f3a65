package printers

import (
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

func TestServiceExternalIP(t *testing.T) {
	lb := func(ingress []corev1.LoadBalancerIngress, external ...string) *corev1.Service {
		return &corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, ExternalIPs: external},
			Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: ingress}}}
	}
	tests := []struct {
		name string
		svc  *corev1.Service
		want string
	}{
		{"cluster ip", &corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP}}, "<none>"},
		{"cluster ip with external ips", &corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ExternalIPs: []string{"1.2.3.4", "5.6.7.8"}}}, "1.2.3.4,5.6.7.8"},
		{"load balancer pending", lb(nil), "<pending>"},
		{"load balancer", lb([]corev1.LoadBalancerIngress{{IP: "34.1.2.3"}, {Hostname: "lb.example.com"}}), "34.1.2.3,lb.example.com"},
		{"load balancer and external ips", lb([]corev1.LoadBalancerIngress{{IP: "34.1.2.3"}}, "1.2.3.4"), "34.1.2.3,1.2.3.4"},
		{"external name", &corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "db.example.com"}}, "db.example.com"},
		{"unknown type", &corev1.Service{}, "<unknown>"},
	}
	for _, tt := range tests {
		if got := serviceExternalIP(tt.svc); got != tt.want {
			t.Errorf("%s: external IP = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestNodeStatusCell(t *testing.T) {
	tests := []struct {
		name          string
		conditions    []corev1.NodeCondition
		unschedulable bool
		want          string
	}{
		{"ready", []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}, false, "Ready"},
		{"not ready", []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionUnknown}}, false, "NotReady"},
		{"no condition", nil, false, "Unknown"},
		{"cordoned", nil, true, "Unknown,SchedulingDisabled"},
	}
	c := &printContext{now: now}
	for _, tt := range tests {
		n := &corev1.Node{Spec: corev1.NodeSpec{Unschedulable: tt.unschedulable}, Status: corev1.NodeStatus{Conditions: tt.conditions}}
		r, err := printNode(c, n)
		if err != nil {
			t.Fatal(err)
		}
		if r.cells[1] != tt.want || r.cells[2] != "<none>" || r.cells[6] != "<none>" || r.cells[7] != "<unknown>" {
			t.Errorf("%s: cells = %v, want status %q, roles/external <none>, os <unknown>", tt.name, r.cells, tt.want)
		}
	}
}

func TestEventTimes(t *testing.T) {
	c := &printContext{now: now}
	tests := []struct {
		name             string
		ev               corev1.Event
		last, first, obj string
		count            int64
	}{
		{"singleton from events API", corev1.Event{EventTime: metav1.NewMicroTime(now.Add(-90 * time.Second)), InvolvedObject: corev1.ObjectReference{Kind: "Node"}},
			"90s", "90s", "node", 1},
		{"series", corev1.Event{EventTime: metav1.NewMicroTime(now.Add(-time.Hour)), Series: &corev1.EventSeries{Count: 4, LastObservedTime: metav1.NewMicroTime(now.Add(-time.Minute))},
			InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "p"}}, "60s", "60m", "pod/p", 4},
		{"no times", corev1.Event{Count: 2}, "<unknown>", "<unknown>", "", 2},
	}
	for _, tt := range tests {
		r, err := printEvent(c, &tt.ev)
		if err != nil {
			t.Fatal(err)
		}
		if r.cells[0] != tt.last || r.cells[7] != tt.first || r.cells[3] != tt.obj || r.cells[8] != tt.count {
			t.Errorf("%s: cells = %#v", tt.name, r.cells)
		}
	}
	ev := &corev1.Event{ReportingController: "scheduler"}
	if r, _ := printEvent(c, ev); r.cells[5] != "scheduler" {
		t.Errorf("source = %q, want scheduler", r.cells[5])
	}
}

func TestAgeUnknownAndFuture(t *testing.T) {
	c := &printContext{now: now}
	if got := c.age(metav1.Time{}); got != "<unknown>" {
		t.Errorf("age(zero) = %q", got)
	}
	if got := c.age(metav1.NewTime(now.Add(time.Hour))); got != "<invalid>" {
		t.Errorf("age(future) = %q", got)
	}
}
