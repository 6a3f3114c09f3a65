package controlplane

import (
	"context"
	"net"
	"slices"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	corev1 "kubecore.io/api/core/v1"
	discoveryv1 "kubecore.io/api/discovery/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/apirequest"
)

func defaultNS() context.Context {
	return apirequest.WithNamespace(context.Background(), metav1.NamespaceDefault)
}

func getKubernetes(t *testing.T, in *Instance) (*corev1.Service, *corev1.Endpoints) {
	t.Helper()
	svc, err := in.services.Get(defaultNS(), "kubernetes", &metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get service default/kubernetes: %v", err)
	}
	ep, err := in.endpoints.Get(defaultNS(), "kubernetes", &metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get endpoints default/kubernetes: %v", err)
	}
	return svc.(*corev1.Service), ep.(*corev1.Endpoints)
}

func checkKubernetes(t *testing.T, svc *corev1.Service, ep *corev1.Endpoints, clusterIP, ip string, port int32) {
	t.Helper()
	if svc.Spec.ClusterIP != clusterIP || svc.Spec.Type != corev1.ServiceTypeClusterIP || len(svc.Spec.Ports) != 1 {
		t.Fatalf("service spec = %+v", svc.Spec)
	}
	if p := svc.Spec.Ports[0]; p.Name != "https" || p.Port != 443 || p.Protocol != corev1.ProtocolTCP || p.TargetPort.IntValue() != int(port) {
		t.Errorf("service port = %+v, want https 443/TCP -> %d", p, port)
	}
	if svc.Labels["component"] != "apiserver" || svc.Labels["provider"] != "kubernetes" {
		t.Errorf("service labels = %v", svc.Labels)
	}
	if len(ep.Subsets) != 1 || len(ep.Subsets[0].Addresses) != 1 || len(ep.Subsets[0].Ports) != 1 {
		t.Fatalf("endpoints subsets = %+v", ep.Subsets)
	}
	if a, p := ep.Subsets[0].Addresses[0], ep.Subsets[0].Ports[0]; a.IP != ip || p.Name != "https" || p.Port != port || p.Protocol != corev1.ProtocolTCP {
		t.Errorf("endpoints = %+v %+v, want %s https %d/TCP", a, p, ip, port)
	}
}

func TestKubernetesServiceBootstrap(t *testing.T) {
	in, _ := start(t, Config{ServiceCIDR: "10.0.0.0/24", Advertise: Endpoint{IP: net.ParseIP("192.0.2.10"), Port: 6443}})
	svc, ep := getKubernetes(t, in)
	checkKubernetes(t, svc, ep, "10.0.0.1", "192.0.2.10", 6443)

	// Bootstrapping again (a restart) changes nothing.
	svcRV, epRV := svc.ResourceVersion, ep.ResourceVersion
	if err := in.Bootstrap(context.Background()); err != nil {
		t.Fatal(err)
	}
	if svc, ep := getKubernetes(t, in); svc.ResourceVersion != svcRV || ep.ResourceVersion != epRV {
		t.Errorf("a second bootstrap rewrote the unchanged service or endpoints")
	}

	// A restart on another address and port (the old server released its
	// lease as it stopped), edits and deletions are repaired.
	if err := in.leases.release(context.Background(), in.advertise); err != nil {
		t.Fatal(err)
	}
	in.advertise = Endpoint{IP: net.ParseIP("192.0.2.11"), Port: 7443}
	svc.Spec.Ports[0].Port = 8443
	if _, _, err := in.services.Update(defaultNS(), "kubernetes", replaceWith{svc}, nil, nil, false, &metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := in.ReconcileKubernetesService(context.Background()); err != nil {
		t.Fatal(err)
	}
	svc, ep = getKubernetes(t, in)
	checkKubernetes(t, svc, ep, "10.0.0.1", "192.0.2.11", 7443)

	if _, _, err := in.endpoints.Delete(defaultNS(), "kubernetes", nil, &metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); in.RunKubernetesService(ctx, 10*time.Millisecond) }()
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, err := in.endpoints.Get(defaultNS(), "kubernetes", &metav1.GetOptions{})
		if err == nil {
			break
		}
		if !apierrors.IsNotFound(err) || time.Now().After(deadline) {
			t.Fatalf("deleted endpoints not recreated: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
	svc, ep = getKubernetes(t, in)
	checkKubernetes(t, svc, ep, "10.0.0.1", "192.0.2.11", 7443)
}

func TestKubernetesServiceNeedsAdvertise(t *testing.T) {
	in, _ := start(t, Config{})
	if _, err := in.services.Get(defaultNS(), "kubernetes", &metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("service default/kubernetes without an advertised endpoint: %v", err)
	}
}

// TestKubernetesServiceIPTaken: a data dir where another Service holds the
// first service IP still bootstraps; the kubernetes Service is skipped.
func TestKubernetesServiceIPTaken(t *testing.T) {
	in, srv := start(t, Config{ServiceCIDR: "10.0.0.0/24"})
	other := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "early", Namespace: "default"},
		Spec:       corev1.ServiceSpec{ClusterIP: "10.0.0.1", Ports: []corev1.ServicePort{{Port: 80}}},
	}
	in.Scheme.Default(other)
	if _, err := in.services.Create(defaultNS(), other, nil, &metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	in.Destroy()
	again, err := New(context.Background(), Config{EtcdClient: srv.Client(), ServiceCIDR: "10.0.0.0/24", Advertise: Endpoint{IP: net.ParseIP("127.0.0.1"), Port: 6443}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(again.Destroy)
	if err := again.Bootstrap(context.Background()); err != nil {
		t.Fatalf("bootstrap with the kubernetes service IP taken: %v", err)
	}
	if err := again.ReconcileKubernetesService(context.Background()); !apierrors.IsInvalid(err) {
		t.Errorf("reconcile with the IP taken: %v, want Invalid", err)
	}
}

// With several API servers, the Endpoints list every live one: a server
// that stops renewing its lease drops out, one that shuts down leaves at
// once.
func TestKubernetesEndpointsListLiveServers(t *testing.T) {
	in, srv := start(t, Config{ServiceCIDR: "10.0.0.0/24", Advertise: Endpoint{IP: net.ParseIP("192.0.2.10"), Port: 6443}})
	ctx := context.Background()
	other := Endpoint{IP: net.ParseIP("192.0.2.9"), Port: 6443}
	otherLeases := apiServerLeases{client: srv.Client(), prefix: in.leases.prefix}
	if err := otherLeases.renew(ctx, other); err != nil {
		t.Fatal(err)
	}
	if err := in.ReconcileKubernetesService(ctx); err != nil {
		t.Fatal(err)
	}
	_, ep := getKubernetes(t, in)
	if len(ep.Subsets) != 1 || len(ep.Subsets[0].Addresses) != 2 ||
		ep.Subsets[0].Addresses[0].IP != "192.0.2.10" || ep.Subsets[0].Addresses[1].IP != "192.0.2.9" {
		t.Fatalf("endpoints with two servers = %+v", ep.Subsets)
	}
	checkSlice(t, in, "192.0.2.10", "192.0.2.9")

	// The other server's lease runs out.
	resp, err := srv.Client().Get(ctx, in.leases.prefix+other.String())
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("lease key: %v %v", resp, err)
	}
	if _, err := srv.Client().Revoke(ctx, clientv3.LeaseID(resp.Kvs[0].Lease)); err != nil {
		t.Fatal(err)
	}
	if err := in.ReconcileKubernetesService(ctx); err != nil {
		t.Fatal(err)
	}
	svc, ep := getKubernetes(t, in)
	checkKubernetes(t, svc, ep, "10.0.0.1", "192.0.2.10", 6443)
	checkSlice(t, in, "192.0.2.10")

	// Stopping the reconcile loop releases this server's lease.
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); in.RunKubernetesService(runCtx, time.Hour) }()
	cancel()
	<-done
	live, err := in.leases.live(ctx)
	if err != nil || len(live) != 0 {
		t.Errorf("live servers after shutdown = %v %v, want none", live, err)
	}
}

// checkSlice checks the EndpointSlice default/kubernetes lists exactly ips,
// ready, on port https 6443.
func checkSlice(t *testing.T, in *Instance, ips ...string) {
	t.Helper()
	obj, err := in.endpointSlices.Get(defaultNS(), "kubernetes", &metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get endpointslice default/kubernetes: %v", err)
	}
	s := obj.(*discoveryv1.EndpointSlice)
	var got []string
	for _, e := range s.Endpoints {
		if e.Conditions.Ready == nil || !*e.Conditions.Ready {
			t.Errorf("endpoint %v not ready", e.Addresses)
		}
		got = append(got, e.Addresses...)
	}
	if s.AddressType != discoveryv1.AddressTypeIPv4 || s.Labels[discoveryv1.LabelServiceName] != "kubernetes" || !slices.Equal(got, ips) {
		t.Errorf("slice %s %v %v, want IPv4 %v", s.AddressType, s.Labels, got, ips)
	}
	if len(s.Ports) != 1 || *s.Ports[0].Name != "https" || *s.Ports[0].Port != 6443 {
		t.Errorf("slice ports %+v", s.Ports)
	}
}
