package e2e

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"kubecore.io/kubecore/test/e2e/framework"
)

// webService is a Deployment of sh -c pods (the process runtime runs the
// command) and the Service in front of them, on the pods' named port.
const webService = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: web
        image: busybox
        command: ["sh", "-c", "echo serving; while true; do sleep 1; done"]
        ports:
        - name: http
          containerPort: 8080
---
apiVersion: v1
kind: Service
metadata:
  name: web
  labels:
    tier: frontend
spec:
  selector:
    app: web
  ports:
  - name: http
    port: 80
    targetPort: http
`

// describedEndpoints is the value of the "Endpoints:" line of kubectl
// describe service.
var describedEndpoints = regexp.MustCompile(`(?m)^Endpoints:[ \t]*(.*)$`)

// TestServiceEndpoints runs a Deployment behind a Service on all-in-one:
// the stock kubectl describes the Service with its pods' endpoints, read
// from EndpointSlices, and lists the slices and Endpoints in Kubernetes'
// table formats.
func TestServiceEndpoints(t *testing.T) {
	s := framework.StartAllInOne(t, "")
	k := s.Kubectl(t)
	eventually(t, 30*time.Second, func() string {
		if r := k.Run(t, "get", "nodes", "-o", "name"); r.ExitCode != 0 || strings.TrimSpace(r.Stdout) == "" {
			return "no node registered: " + r.String()
		}
		return ""
	})
	ns := s.CreateNamespace(t, "svc")
	k.MustRunStdin(t, webService, "apply", "-n", ns, "-f", "-")
	t.Cleanup(func() {
		k.Run(t, "delete", "deployment", "web", "-n", ns, "--wait=false")
		eventually(t, 60*time.Second, func() string {
			if out := k.MustRun(t, "get", "pods", "-n", ns, "-o", "name"); out != "" {
				return "pods left: " + out
			}
			return ""
		})
	})

	// podEndpoints waits for n Ready pods and returns their "ip:8080",
	// sorted.
	podEndpoints := func(n int) []string {
		var eps []string
		eventually(t, 60*time.Second, func() string {
			r := k.Run(t, "get", "pods", "-n", ns, "-l", "app=web", "-o",
				`jsonpath={range .items[*]}{.status.podIP} {.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}`)
			eps = nil
			for _, line := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
				if ip, ready, _ := strings.Cut(line, " "); ip != "" && ready == "True" {
					eps = append(eps, ip+":8080")
				}
			}
			if len(eps) != n {
				return "ready pods: " + r.String()
			}
			return ""
		})
		slices.Sort(eps)
		return eps
	}
	// described is the endpoints kubectl describe shows, split and sorted.
	described := func() []string {
		out := k.MustRun(t, "describe", "service", "web", "-n", ns)
		m := describedEndpoints.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no Endpoints line in\n%s", out)
		}
		got := strings.Split(strings.TrimSpace(m[1]), ",")
		slices.Sort(got)
		return got
	}

	want := podEndpoints(3)
	eventually(t, 30*time.Second, func() string {
		if got := described(); !slices.Equal(got, want) {
			return "describe service shows endpoints " + strings.Join(got, ",") + ", want " + strings.Join(want, ",")
		}
		return ""
	})
	ips := make([]string, len(want))
	for i, ep := range want {
		ips[i] = strings.TrimSuffix(ep, ":8080")
	}

	// One slice, named after the service, in Kubernetes' table.
	tb := parseTable(t, k.MustRun(t, "get", "endpointslices", "-n", ns))
	expectHeader(t, "get endpointslices", tb, "NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE")
	if len(tb.rows) != 1 || !strings.HasPrefix(tb.rows[0][0], "web-") {
		t.Fatalf("endpoint slices %q, want one named web-*", tb.rows)
	}
	row := tb.row(t, tb.rows[0][0])
	gotIPs := strings.Split(row["ENDPOINTS"], ",")
	slices.Sort(gotIPs)
	if row["ADDRESSTYPE"] != "IPv4" || row["PORTS"] != "8080" || !slices.Equal(gotIPs, ips) {
		t.Errorf("endpoint slice row %v, want IPv4, 8080, %v", row, ips)
	}
	slice := decodeJSON(t, k.MustRun(t, "get", "endpointslices", "-n", ns, "-l", "kubernetes.io/service-name=web", "-o", "json"))
	item := object(slice.field("items").([]any)[0].(map[string]any))
	labels, _ := item.field("metadata.labels").(map[string]any)
	if labels["endpointslice.kubernetes.io/managed-by"] != "endpointslice-controller.k8s.io" || labels["tier"] != "frontend" {
		t.Errorf("slice labels %v", labels)
	}
	owners, _ := item.field("metadata.ownerReferences").([]any)
	if len(owners) != 1 || object(owners[0].(map[string]any)).str("kind") != "Service" || object(owners[0].(map[string]any)).field("controller") != true {
		t.Errorf("slice owners %v", owners)
	}

	// A fourth pod: three shown and "+ 1 more..." in all three views.
	k.MustRun(t, "scale", "deployment", "web", "-n", ns, "--replicas=4")
	want = podEndpoints(4)
	more := regexp.MustCompile(`^[0-9.]+:8080,[0-9.]+:8080,[0-9.]+:8080 \+ 1 more\.\.\.$`)
	eventually(t, 30*time.Second, func() string {
		out := k.MustRun(t, "describe", "service", "web", "-n", ns)
		if m := describedEndpoints.FindStringSubmatch(out); m == nil || !more.MatchString(strings.TrimSpace(m[1])) {
			return "describe service with 4 pods:\n" + out
		}
		return ""
	})
	tb = parseTable(t, k.MustRun(t, "get", "endpointslices", "-n", ns))
	if cell := tb.rows[0][3]; len(tb.rows) != 1 || !regexp.MustCompile(`^[0-9.]+,[0-9.]+,[0-9.]+ \+ 1 more\.\.\.$`).MatchString(cell) {
		t.Errorf("get endpointslices with 4 pods: %q", tb.rows)
	}
	tb = parseTable(t, k.MustRun(t, "get", "endpoints", "-n", ns))
	expectHeader(t, "get endpoints", tb, "NAME", "ENDPOINTS", "AGE")
	if cell := tb.row(t, "web")["ENDPOINTS"]; !more.MatchString(cell) {
		t.Errorf("get endpoints with 4 pods: %q", cell)
	}
	eps := decodeJSON(t, k.MustRun(t, "get", "endpoints", "web", "-n", ns, "-o", "json"))
	var listed []string
	for _, ss := range eps.field("subsets").([]any) {
		for _, a := range object(ss.(map[string]any)).field("addresses").([]any) {
			listed = append(listed, object(a.(map[string]any)).str("ip")+":8080")
		}
	}
	slices.Sort(listed)
	if !slices.Equal(listed, want) {
		t.Errorf("endpoints list %v, want %v", listed, want)
	}

	// view may read slices, not write them.
	k.MustRun(t, "create", "serviceaccount", "viewer", "-n", ns)
	k.MustRun(t, "create", "rolebinding", "viewer-view", "-n", ns, "--clusterrole=view", "--serviceaccount="+ns+":viewer")
	sa := "--as=system:serviceaccount:" + ns + ":viewer"
	eventually(t, 10*time.Second, func() string {
		if r := k.Run(t, "auth", "can-i", "list", "endpointslices.discovery.k8s.io", "-n", ns, sa); strings.TrimSpace(r.Stdout) != "yes" {
			return "viewer can-i list endpointslices: " + r.String()
		}
		return ""
	})
	if r := k.Run(t, "auth", "can-i", "delete", "endpointslices.discovery.k8s.io", "-n", ns, sa); strings.TrimSpace(r.Stdout) != "no" {
		t.Errorf("viewer can-i delete endpointslices: %s", r.String())
	}

	// The service goes, and its slices with it.
	k.MustRun(t, "delete", "service", "web", "-n", ns)
	eventually(t, 30*time.Second, func() string {
		if out := k.MustRun(t, "get", "endpointslices", "-n", ns, "-o", "name"); out != "" {
			return "slices left: " + out
		}
		return ""
	})
}
