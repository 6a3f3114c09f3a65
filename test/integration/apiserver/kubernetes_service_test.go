package apiserver

import (
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"testing"

	corev1 "kubecore.io/api/core/v1"

	"kubecore.io/kubecore/test/integration/framework"
)

// movesWithServer is whether a snapshot key is one of the objects the
// server points at its own address and port at every start.
func movesWithServer(key string) bool {
	switch key {
	case "v1/services/default/kubernetes", "v1/endpoints/default/kubernetes",
		"discovery.k8s.io/v1/endpointslices/default/kubernetes",
		"v1/configmaps/kube-public/cluster-info": // names the server's URL for joining nodes
		return true
	}
	return false
}

// serverPort is the port of s.URL.
func serverPort(t *testing.T, s *framework.APIServer) int {
	t.Helper()
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	_, p, err := net.SplitHostPort(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	port, err := strconv.Atoi(p)
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// checkKubernetesService reads default/kubernetes and its Endpoints and
// checks they lead to s: the first IP of 10.96.0.0/12, https 443/TCP to
// the server's port, the endpoint its bind address and port.
func checkKubernetesService(t *testing.T, s *framework.APIServer) (svc corev1.Service, ep corev1.Endpoints) {
	t.Helper()
	c := s.HTTPClient(t)
	port := serverPort(t, s)
	for path, into := range map[string]any{
		"/api/v1/namespaces/default/services/kubernetes":  &svc,
		"/api/v1/namespaces/default/endpoints/kubernetes": &ep,
	} {
		r := do(t, c, s, request{method: http.MethodGet, path: path})
		if r.code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, r.code, r.body)
		}
		if err := json.Unmarshal(r.body, into); err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
	}
	if svc.Spec.Type != corev1.ServiceTypeClusterIP || svc.Spec.ClusterIP != "10.96.0.1" || len(svc.Spec.Ports) != 1 {
		t.Fatalf("service default/kubernetes spec = %+v", svc.Spec)
	}
	if p := svc.Spec.Ports[0]; p.Name != "https" || p.Port != 443 || p.Protocol != corev1.ProtocolTCP || p.TargetPort.IntValue() != port {
		t.Errorf("service port %+v, want https 443/TCP -> %d", p, port)
	}
	if svc.Labels["component"] != "apiserver" || svc.Labels["provider"] != "kubernetes" {
		t.Errorf("service labels %v", svc.Labels)
	}
	if len(ep.Subsets) != 1 || len(ep.Subsets[0].Addresses) != 1 || len(ep.Subsets[0].Ports) != 1 {
		t.Fatalf("endpoints default/kubernetes subsets = %+v", ep.Subsets)
	}
	a, p := ep.Subsets[0].Addresses[0], ep.Subsets[0].Ports[0]
	if a.IP != "127.0.0.1" || p.Name != "https" || int(p.Port) != port || p.Protocol != corev1.ProtocolTCP {
		t.Errorf("endpoint %s %+v, want 127.0.0.1 https %d/TCP", a.IP, p, port)
	}
	return svc, ep
}

// TestKubernetesService: the apiserver creates the Service
// default/kubernetes and its Endpoints at start, and a restart on another
// port moves them there, keeping the cluster IP.
func TestKubernetesService(t *testing.T) {
	dir := t.TempDir()
	s1 := framework.StartAPIServer(t, framework.APIServerOptions{DataDir: dir})
	svc1, _ := checkKubernetesService(t, s1)
	if err := s1.Stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	s2 := framework.StartAPIServer(t, framework.APIServerOptions{DataDir: dir})
	if serverPort(t, s1) == serverPort(t, s2) {
		t.Skip("the restarted server got the same port; nothing to move")
	}
	svc2, _ := checkKubernetesService(t, s2)
	if svc2.UID != svc1.UID {
		t.Errorf("the restart replaced the service (uid %s, was %s) instead of updating it", svc2.UID, svc1.UID)
	}
}
