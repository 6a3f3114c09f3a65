package printers

import (
	"context"
	"reflect"
	"testing"
	"time"

	networkingv1 "kubecore.io/api/networking/v1"
	nodev1 "kubecore.io/api/node/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
)

func TestNetworkingRows(t *testing.T) {
	created := metav1.NewTime(now.Add(-2 * time.Hour))
	meta := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Name: name, CreationTimestamp: created} }
	class, group := "nginx", "k8s.example.com"
	rules := func(hosts ...string) []networkingv1.IngressRule {
		var out []networkingv1.IngressRule
		for _, h := range hosts {
			out = append(out, networkingv1.IngressRule{Host: h})
		}
		return out
	}
	tests := []struct {
		name string
		obj  any
		want []any
	}{
		{"ingress with class and tls", &networkingv1.Ingress{ObjectMeta: meta("web"), Spec: networkingv1.IngressSpec{
			IngressClassName: &class, Rules: rules("a.example.com", "", "b.example.com"), TLS: []networkingv1.IngressTLS{{SecretName: "c"}},
		}, Status: networkingv1.IngressStatus{LoadBalancer: networkingv1.IngressLoadBalancerStatus{Ingress: []networkingv1.IngressLoadBalancerIngress{{IP: "192.0.2.1"}, {Hostname: "lb.example.com"}}}}},
			[]any{"web", "nginx", "a.example.com,b.example.com", "192.0.2.1,lb.example.com", "80, 443", "120m"}},
		{"ingress without hosts", &networkingv1.Ingress{ObjectMeta: meta("any"), Spec: networkingv1.IngressSpec{Rules: rules("")}},
			[]any{"any", "<none>", "*", "", "80", "120m"}},
		{"ingress with many hosts", &networkingv1.Ingress{ObjectMeta: meta("many"), Spec: networkingv1.IngressSpec{Rules: rules("a.io", "b.io", "c.io", "d.io", "e.io")}},
			[]any{"many", "<none>", "a.io,b.io,c.io + 2 more...", "", "80", "120m"}},
		{"ingressclass", &networkingv1.IngressClass{ObjectMeta: meta("nginx"), Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx",
			Parameters: &networkingv1.IngressClassParametersReference{APIGroup: &group, Kind: "Params", Name: "lb"}}},
			[]any{"nginx", "k8s.io/ingress-nginx", "Params.k8s.example.com/lb", "120m"}},
		{"ingressclass without parameters", &networkingv1.IngressClass{ObjectMeta: meta("plain"), Spec: networkingv1.IngressClassSpec{Controller: "example.com/c"}},
			[]any{"plain", "example.com/c", "<none>", "120m"}},
		{"networkpolicy", &networkingv1.NetworkPolicy{ObjectMeta: meta("db"), Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"role": "db"}}}},
			[]any{"db", "role=db", "120m"}},
		{"networkpolicy for every pod", &networkingv1.NetworkPolicy{ObjectMeta: meta("all")}, []any{"all", "<none>", "120m"}},
		{"ipaddress", &networkingv1.IPAddress{ObjectMeta: meta("10.96.0.1"), Spec: networkingv1.IPAddressSpec{ParentRef: &networkingv1.ParentReference{Resource: "services", Namespace: "default", Name: "kubernetes"}}},
			[]any{"10.96.0.1", "services/default/kubernetes", "120m"}},
		{"ipaddress of a cluster-scoped group object", &networkingv1.IPAddress{ObjectMeta: meta("192.0.2.5"), Spec: networkingv1.IPAddressSpec{ParentRef: &networkingv1.ParentReference{Group: "example.com", Resource: "Gateways", Name: "gw"}}},
			[]any{"192.0.2.5", "gateways.example.com/gw", "120m"}},
		{"servicecidr", &networkingv1.ServiceCIDR{ObjectMeta: meta("kubernetes"), Spec: networkingv1.ServiceCIDRSpec{CIDRs: []string{"10.96.0.0/12", "fd00::/108"}}},
			[]any{"kubernetes", "10.96.0.0/12,fd00::/108", "120m"}},
		{"runtimeclass", &nodev1.RuntimeClass{ObjectMeta: meta("gvisor"), Handler: "runsc"}, []any{"gvisor", "runsc", "120m"}},
	}
	c := &printContext{now: now}
	for _, tt := range tests {
		var r row
		var err error
		switch o := tt.obj.(type) {
		case *networkingv1.Ingress:
			r, err = printIngress(c, o)
		case *networkingv1.IngressClass:
			r, err = printIngressClass(c, o)
		case *networkingv1.NetworkPolicy:
			r, err = printNetworkPolicy(c, o)
		case *networkingv1.IPAddress:
			r, err = printIPAddress(c, o)
		case *networkingv1.ServiceCIDR:
			r, err = printServiceCIDR(c, o)
		case *nodev1.RuntimeClass:
			r, err = printRuntimeClass(c, o)
		}
		if err != nil || !reflect.DeepEqual(r.cells, tt.want) {
			t.Errorf("%s: cells %q (%v), want %q", tt.name, r.cells, err, tt.want)
		}
	}
}

func TestNetworkingTableConvertors(t *testing.T) {
	tests := []struct {
		gr   schema.GroupResource
		list runtime.Object
		cols int
	}{
		{networkingv1.Resource("ingresses"), &networkingv1.IngressList{Items: []networkingv1.Ingress{{}}}, 6},
		{networkingv1.Resource("ingressclasses"), &networkingv1.IngressClassList{Items: []networkingv1.IngressClass{{}}}, 4},
		{networkingv1.Resource("networkpolicies"), &networkingv1.NetworkPolicyList{Items: []networkingv1.NetworkPolicy{{}}}, 3},
		{networkingv1.Resource("ipaddresses"), &networkingv1.IPAddressList{Items: []networkingv1.IPAddress{{}}}, 3},
		{networkingv1.Resource("servicecidrs"), &networkingv1.ServiceCIDRList{Items: []networkingv1.ServiceCIDR{{}}}, 3},
		{nodev1.Resource("runtimeclasses"), &nodev1.RuntimeClassList{Items: []nodev1.RuntimeClass{{}}}, 3},
	}
	for _, tt := range tests {
		tc := NewTableConvertor(tt.gr, func() time.Time { return now })
		if tc == nil {
			t.Errorf("%s: no printer", tt.gr)
			continue
		}
		table, err := tc.ConvertToTable(context.Background(), tt.list, nil)
		if err != nil {
			t.Errorf("%s: %v", tt.gr, err)
			continue
		}
		if len(table.ColumnDefinitions) != tt.cols || len(table.Rows) != 1 || len(table.Rows[0].Cells) != tt.cols {
			t.Errorf("%s: %d columns, rows %v", tt.gr, len(table.ColumnDefinitions), table.Rows)
		}
	}
}
