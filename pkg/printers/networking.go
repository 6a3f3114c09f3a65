package printers

import (
	"fmt"
	"strings"
	"time"

	networkingv1 "kubecore.io/api/networking/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/registry/rest"
)

// networkingTableConvertor returns the printers of networking.k8s.io.
func networkingTableConvertor(gr schema.GroupResource, now func() time.Time) rest.TableConvertor {
	gvk := networkingv1.SchemeGroupVersion.WithKind
	switch gr {
	case networkingv1.Resource("ingresses"):
		return newPrinter(now, gvk("Ingress"), ingressColumns(), printIngress, func(l *networkingv1.IngressList) []networkingv1.Ingress { return l.Items })
	case networkingv1.Resource("ingressclasses"):
		return newPrinter(now, gvk("IngressClass"), ingressClassColumns(), printIngressClass, func(l *networkingv1.IngressClassList) []networkingv1.IngressClass { return l.Items })
	case networkingv1.Resource("networkpolicies"):
		return newPrinter(now, gvk("NetworkPolicy"), networkPolicyColumns(), printNetworkPolicy, func(l *networkingv1.NetworkPolicyList) []networkingv1.NetworkPolicy { return l.Items })
	case networkingv1.Resource("ipaddresses"):
		return newPrinter(now, gvk("IPAddress"), ipAddressColumns(), printIPAddress, func(l *networkingv1.IPAddressList) []networkingv1.IPAddress { return l.Items })
	case networkingv1.Resource("servicecidrs"):
		return newPrinter(now, gvk("ServiceCIDR"), serviceCIDRColumns(), printServiceCIDR, func(l *networkingv1.ServiceCIDRList) []networkingv1.ServiceCIDR { return l.Items })
	}
	return nil
}

func ingressColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("Class", "string", "The name of the IngressClass whose controller serves the Ingress."),
		column("Hosts", "string", "Hosts the Ingress's rules match, at most three shown."),
		column("Address", "string", "Addresses of the ingress points the controller serves the Ingress on."),
		column("Ports", "string", "Ports the Ingress is served on: 80, and 443 with TLS."),
		ageColumn(),
	}
}

func printIngress(c *printContext, ing *networkingv1.Ingress) (row, error) {
	class := "<none>"
	if ing.Spec.IngressClassName != nil {
		class = *ing.Spec.IngressClassName
	}
	var hosts []string
	more := 0
	for _, r := range ing.Spec.Rules {
		switch {
		case len(hosts)+more >= 3:
			more++
		case r.Host != "":
			hosts = append(hosts, r.Host)
		}
	}
	hostCell := "*"
	if len(hosts) > 0 {
		hostCell = strings.Join(hosts, ",")
		if more > 0 {
			hostCell = fmt.Sprintf("%s + %d more...", hostCell, more)
		}
	}
	var addrs []string
	for _, in := range ing.Status.LoadBalancer.Ingress {
		switch {
		case in.IP != "":
			addrs = append(addrs, in.IP)
		case in.Hostname != "":
			addrs = append(addrs, in.Hostname)
		}
	}
	// Kubernetes' server-side printers print wide: the address is not
	// cut.
	address := strings.Join(addrs, ",")
	ports := "80"
	if len(ing.Spec.TLS) != 0 {
		ports = "80, 443"
	}
	return row{cells: []any{ing.Name, class, hostCell, address, ports, c.age(ing.CreationTimestamp)}}, nil
}

func ingressClassColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("Controller", "string", "The controller that serves the class."),
		column("Parameters", "string", "The object holding the controller's parameters: kind[.group]/name."),
		ageColumn(),
	}
}

func printIngressClass(c *printContext, ic *networkingv1.IngressClass) (row, error) {
	params := "<none>"
	if p := ic.Spec.Parameters; p != nil {
		params = p.Kind
		if p.APIGroup != nil {
			params += "." + *p.APIGroup
		}
		params += "/" + p.Name
	}
	return row{cells: []any{ic.Name, ic.Spec.Controller, params, c.age(ic.CreationTimestamp)}}, nil
}

func networkPolicyColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("Pod-Selector", "string", "The pods of the namespace the policy applies to."),
		ageColumn(),
	}
}

func printNetworkPolicy(c *printContext, np *networkingv1.NetworkPolicy) (row, error) {
	return row{cells: []any{np.Name, metav1.FormatLabelSelector(&np.Spec.PodSelector), c.age(np.CreationTimestamp)}}, nil
}

func ipAddressColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("ParentRef", "string", "The object the address is allocated to: resource[.group][/namespace]/name."),
		ageColumn(),
	}
}

func printIPAddress(c *printContext, ip *networkingv1.IPAddress) (row, error) {
	parent := "<none>"
	if p := ip.Spec.ParentRef; p != nil {
		parent = strings.ToLower(schema.GroupResource{Group: p.Group, Resource: p.Resource}.String())
		if p.Namespace != "" {
			parent += "/" + p.Namespace
		}
		parent += "/" + p.Name
	}
	return row{cells: []any{ip.Name, parent, c.age(ip.CreationTimestamp)}}, nil
}

func serviceCIDRColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("CIDRs", "string", "The ranges Services take their ClusterIPs from."),
		ageColumn(),
	}
}

func printServiceCIDR(c *printContext, sc *networkingv1.ServiceCIDR) (row, error) {
	cidrs := "<none>"
	if len(sc.Spec.CIDRs) > 0 {
		cidrs = strings.Join(sc.Spec.CIDRs, ",")
	}
	return row{cells: []any{sc.Name, cidrs, c.age(sc.CreationTimestamp)}}, nil
}
