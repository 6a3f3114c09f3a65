package apply

import (
	"net/http"
	"strings"
	"testing"

	"kubecore.io/kubecore/test/integration/framework"
)

// TestApplyServiceAllocates: a Service created or changed by server-side
// apply (Helm 4's default) gets its cluster IP and node ports as one
// created with POST does, keeps them when applied again, and gives them
// back when deleted; a dry-run apply stores and keeps nothing.
func TestApplyServiceAllocates(t *testing.T) {
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	c := newClient(t, s)
	ns := s.CreateNamespace(t, "apply-svc")
	path := "/api/v1/namespaces/" + ns + "/services/web"
	cfg := func(typ string) string {
		return "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  type: " + typ +
			"\n  selector:\n    app: web\n  ports:\n  - name: http\n    port: 80\n    targetPort: http\n"
	}

	// Dry run: the answer has an address, nothing is stored or held.
	dry := c.apply(path, "fieldManager=helm&dryRun=All", cfg("ClusterIP")).expect(t, http.StatusCreated).object(t)
	if ip, _ := get(dry, "spec", "clusterIP").(string); ip == "" {
		t.Errorf("dry-run apply answered no clusterIP: %v", dry["spec"])
	}
	c.do(http.MethodGet, path, "", "").expect(t, http.StatusNotFound)

	obj := c.apply(path, "fieldManager=helm", cfg("ClusterIP")).expect(t, http.StatusCreated).object(t)
	ip, _ := get(obj, "spec", "clusterIP").(string)
	if ip == "" || get(obj, "spec", "clusterIPs", 0) != ip {
		t.Fatalf("applied service has clusterIP %q clusterIPs %v", ip, get(obj, "spec", "clusterIPs"))
	}
	if get(obj, "spec", "ipFamilies", 0) != "IPv4" || get(obj, "spec", "ipFamilyPolicy") != "SingleStack" {
		t.Errorf("applied service ipFamilies %v ipFamilyPolicy %v", get(obj, "spec", "ipFamilies"), get(obj, "spec", "ipFamilyPolicy"))
	}
	e := managers(obj)["helm/Apply"]
	if e == nil || !owns(e, `"f:selector"`, `"k:{\"port\":80,\"protocol\":\"TCP\"}"`) || owns(e, `"f:clusterIP"`) {
		t.Errorf("managedFields of the applied service: %v", managers(obj))
	}
	if _, ok := managers(obj)["helm/Update"]; ok {
		t.Errorf("an apply was also recorded as an Update: %v", managers(obj))
	}
	// The address is held: its IPAddress names the service.
	addr := c.do(http.MethodGet, "/apis/networking.k8s.io/v1/ipaddresses/"+ip, "", "").expect(t, http.StatusOK).object(t)
	if get(addr, "spec", "parentRef", "name") != "web" || get(addr, "spec", "parentRef", "namespace") != ns {
		t.Errorf("IPAddress %s parentRef = %v", ip, get(addr, "spec", "parentRef"))
	}

	// Applied again, and as a NodePort: same address, a node port.
	obj = c.apply(path, "fieldManager=helm", cfg("ClusterIP")).expect(t, http.StatusOK).object(t)
	if get(obj, "spec", "clusterIP") != ip {
		t.Errorf("re-applied service clusterIP %v, want %s", get(obj, "spec", "clusterIP"), ip)
	}
	obj = c.apply(path, "fieldManager=helm", cfg("NodePort")).expect(t, http.StatusOK).object(t)
	port, _ := get(obj, "spec", "ports", 0, "nodePort").(float64)
	if get(obj, "spec", "clusterIP") != ip || port < 30000 || port > 32767 {
		t.Errorf("service applied as NodePort: clusterIP %v nodePort %v", get(obj, "spec", "clusterIP"), port)
	}

	// A second service applied cannot take the first one's address.
	other := strings.ReplaceAll(cfg("ClusterIP"), "name: web\n", "name: other\n") + "  clusterIP: " + ip + "\n"
	st := c.apply("/api/v1/namespaces/"+ns+"/services/other", "fieldManager=helm", other).expect(t, http.StatusUnprocessableEntity).status(t)
	if !strings.Contains(st.Message, "spec.clusterIPs") || !strings.Contains(st.Message, "already allocated") {
		t.Errorf("apply of a taken clusterIP: %s", st.Message)
	}

	c.do(http.MethodDelete, path, "", "").expect(t, http.StatusOK)
	c.do(http.MethodGet, "/apis/networking.k8s.io/v1/ipaddresses/"+ip, "", "").expect(t, http.StatusNotFound)
}
