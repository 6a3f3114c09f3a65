package networking

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	networkingv1 "kubecore.io/api/networking/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/informers"

	"kubecore.io/kubecore/pkg/controller/servicecidr"
	"kubecore.io/kubecore/test/integration/framework"
)

// readyCIDR reports whether a ServiceCIDR has the controller's finalizer
// and the Ready condition status.
func cidrState(sc *networkingv1.ServiceCIDR) (finalizer bool, ready metav1.ConditionStatus, reason string) {
	finalizer = slices.Contains(sc.Finalizers, servicecidr.Finalizer)
	for _, c := range sc.Status.Conditions {
		if c.Type == networkingv1.ServiceCIDRConditionReady {
			return finalizer, c.Status, c.Reason
		}
	}
	return finalizer, "", ""
}

// TestServiceCIDRs runs an API server whose own range is a /29 with the
// ServiceCIDR controller: a second ServiceCIDR is marked Ready and
// Services get addresses from it once the /29 is full, or when they ask
// for one of its addresses; an address outside every ServiceCIDR is
// refused as Kubernetes refuses it; a deleted ServiceCIDR stays while
// addresses inside it exist, unless another ServiceCIDR holds them.
func TestServiceCIDRs(t *testing.T) {
	// Its own etcd: the server's range differs from the package's.
	s := framework.StartAPIServer(t, framework.APIServerOptions{ServiceClusterIPRange: "10.0.0.0/29"})
	c := s.HTTPClient(t)
	cs := s.Clientset(t)
	factory := informers.NewSharedInformerFactory(cs)
	ctrl, err := servicecidr.New(cs, factory, servicecidr.Options{DeletionGrace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	framework.RunControllers(t, factory, func(ctx context.Context) error { return ctrl.Run(ctx, 1) })
	ns := s.CreateNamespace(t, "cidr")
	const cidrs = "/apis/networking.k8s.io/v1/servicecidrs"
	services := "/api/v1/namespaces/" + ns + "/services"

	waitCIDR := func(name, what string, cond func(sc *networkingv1.ServiceCIDR, code int) bool) {
		t.Helper()
		framework.WaitUntil(t, time.Minute, what, func() bool {
			var sc networkingv1.ServiceCIDR
			code, _, err := call(context.Background(), c, s, "GET", cidrs+"/"+name, nil, &sc)
			return err == nil && cond(&sc, code)
		})
	}
	readyWithFinalizer := func(sc *networkingv1.ServiceCIDR, code int) bool {
		f, ready, _ := cidrState(sc)
		return code == http.StatusOK && f && ready == metav1.ConditionTrue
	}
	waitCIDR("kubernetes", "the default ServiceCIDR ready, with its finalizer", readyWithFinalizer)

	newCIDR := func(name string, prefixes ...string) {
		t.Helper()
		mustCall(t, c, s, "POST", cidrs, networkingv1.ServiceCIDR{
			TypeMeta: metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "ServiceCIDR"}, ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: networkingv1.ServiceCIDRSpec{CIDRs: prefixes},
		}, http.StatusCreated, nil)
		waitCIDR(name, "ServiceCIDR "+name+" ready, with its finalizer", readyWithFinalizer)
	}
	newCIDR("extra", "10.97.0.0/16")

	service := func(name, ip string) corev1.Service {
		return corev1.Service{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"}, ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: corev1.ServiceSpec{ClusterIP: ip, Ports: []corev1.ServicePort{{Port: 80, Protocol: corev1.ProtocolTCP}}},
		}
	}
	own := netip.MustParsePrefix("10.0.0.0/29")
	extra := netip.MustParsePrefix("10.97.0.0/16")

	// The /29 has six addresses (one the kubernetes service's): the
	// services take them, then the extra range's.
	var inOwn int
	for i := range 8 {
		var out corev1.Service
		mustCall(t, c, s, "POST", services, service(fmt.Sprintf("fill-%d", i), ""), http.StatusCreated, &out)
		ip := netip.MustParseAddr(out.Spec.ClusterIP)
		switch {
		case own.Contains(ip):
			inOwn++
		case extra.Contains(ip):
			if inOwn < 5 {
				t.Fatalf("service fill-%d got %s from the extra range with %d addresses taken in the full one", i, ip, inOwn)
			}
			mustCall(t, c, s, "GET", "/apis/networking.k8s.io/v1/ipaddresses/"+ip.String(), nil, http.StatusOK, nil)
		default:
			t.Fatalf("service fill-%d got %s, in no ServiceCIDR", i, ip)
		}
	}
	if inOwn < 5 || inOwn > 6 {
		t.Fatalf("%d services took addresses of the /29", inOwn)
	}

	// A specific address of the extra range.
	var pinned corev1.Service
	mustCall(t, c, s, "POST", services, service("pinned", "10.97.5.5"), http.StatusCreated, &pinned)
	if pinned.Spec.ClusterIP != "10.97.5.5" || !slices.Equal(pinned.Spec.ClusterIPs, []string{"10.97.5.5"}) {
		t.Errorf("pinned service: clusterIP %s, clusterIPs %v", pinned.Spec.ClusterIP, pinned.Spec.ClusterIPs)
	}

	// Addresses no ServiceCIDR hands out, refused as Kubernetes refuses
	// them; nothing stored.
	for _, tc := range []struct{ name, ip, want string }{
		{"outside", "10.200.0.1", `Service \"outside\" is invalid: spec.clusterIPs: Invalid value: [\"10.200.0.1\"]: failed to allocate IP 10.200.0.1: the provided network does not match the current range`},
		{"network", "10.97.0.0", `Service \"network\" is invalid: spec.clusterIPs: Invalid value: [\"10.97.0.0\"]: failed to allocate IP 10.97.0.0: the provided IP (10.97.0.0) is not in the valid range. The range of valid IPs is 10.97.0.0/16`},
		{"taken", "10.97.5.5", `Service \"taken\" is invalid: spec.clusterIPs: Invalid value: [\"10.97.5.5\"]: failed to allocate IP 10.97.5.5: provided IP is already allocated`},
	} {
		body := mustCall(t, c, s, "POST", services, service(tc.name, tc.ip), http.StatusUnprocessableEntity, nil)
		if !strings.Contains(string(body), tc.want) || !strings.Contains(string(body), `"field":"spec.clusterIPs"`) {
			t.Errorf("%s: %s\nwant %s", tc.name, body, tc.want)
		}
		mustCall(t, c, s, "GET", services+"/"+tc.name, nil, http.StatusNotFound, nil)
	}

	// Deleted with addresses inside, the extra range stays, not ready,
	// and hands out no more addresses.
	mustCall(t, c, s, "DELETE", cidrs+"/extra", nil, http.StatusOK, nil)
	waitCIDR("extra", "the deleted ServiceCIDR kept, Ready=False Terminating", func(sc *networkingv1.ServiceCIDR, code int) bool {
		f, ready, reason := cidrState(sc)
		return code == http.StatusOK && sc.DeletionTimestamp != nil && f && ready == metav1.ConditionFalse && reason == networkingv1.ServiceCIDRReasonTerminating
	})
	body := mustCall(t, c, s, "POST", services, service("late", "10.97.6.6"), http.StatusUnprocessableEntity, nil)
	if !strings.Contains(string(body), "the provided network does not match the current range") {
		t.Errorf("address of a deleted ServiceCIDR: %s", body)
	}
	// Once its services are gone, it goes.
	var list corev1.ServiceList
	mustCall(t, c, s, "GET", services, nil, http.StatusOK, &list)
	for _, svc := range list.Items {
		if extra.Contains(netip.MustParseAddr(svc.Spec.ClusterIP)) {
			mustCall(t, c, s, "DELETE", services+"/"+svc.Name, nil, http.StatusOK, nil)
		}
	}
	waitCIDR("extra", "the deleted ServiceCIDR gone once its addresses are", func(_ *networkingv1.ServiceCIDR, code int) bool { return code == http.StatusNotFound })

	// An address another ServiceCIDR holds too does not keep a deleted
	// one.
	newCIDR("narrow", "10.98.0.0/16")
	mustCall(t, c, s, "POST", services, service("covered", "10.98.1.1"), http.StatusCreated, nil)
	newCIDR("wide", "10.98.0.0/15")
	mustCall(t, c, s, "DELETE", cidrs+"/narrow", nil, http.StatusOK, nil)
	waitCIDR("narrow", "the deleted ServiceCIDR whose address another holds gone", func(_ *networkingv1.ServiceCIDR, code int) bool { return code == http.StatusNotFound })
	mustCall(t, c, s, "GET", "/apis/networking.k8s.io/v1/ipaddresses/10.98.1.1", nil, http.StatusOK, nil)
}
