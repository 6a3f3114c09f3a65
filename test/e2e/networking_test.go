package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// TestNetworkingKinds drives the networking.k8s.io and node.k8s.io kinds
// with the stock kubectl: create (from YAML and `kubectl create
// ingress`), get with the columns kubectl shows against Kubernetes,
// describe, patch and delete.
func TestNetworkingKinds(t *testing.T) {
	t.Parallel()
	k := server.Kubectl(t)
	ns := server.CreateNamespace(t, "networking")
	suffix := ns[strings.LastIndex(ns, "-")+1:]
	class, rc, cidr := "e2e-class-"+suffix, "e2e-rc-"+suffix, "e2e-cidr-"+suffix

	k.MustRun(t, "create", "ingress", "simple", "-n", ns, "--rule=foo.com/bar=svc1:8080,tls=my-cert")
	k.MustRun(t, "create", "ingress", "catch", "-n", ns, "--class="+class, "--default-backend=defaultsvc:http", "--rule=/path=svc:port")
	manifests := fmt.Sprintf(`apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: %[2]s}
spec:
  controller: example.com/ingress
  parameters: {apiGroup: k8s.example.com, kind: IngressParameters, name: external-lb}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: db, namespace: %[1]s}
spec:
  podSelector: {matchLabels: {role: db}}
  ingress:
  - from: [{podSelector: {matchLabels: {role: web}}}]
    ports: [{port: 5432}]
---
apiVersion: networking.k8s.io/v1
kind: ServiceCIDR
metadata: {name: %[4]s}
spec: {cidrs: [192.0.2.0/24]}
---
apiVersion: networking.k8s.io/v1
kind: IPAddress
metadata: {name: 192.0.2.10}
spec: {parentRef: {group: gateway.example.com, resource: gateways, namespace: %[1]s, name: gw}}
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: %[3]s}
handler: runc
overhead: {podFixed: {cpu: 250m}}
`, ns, class, rc, cidr)
	k.MustRunStdin(t, manifests, "create", "-f", "-")
	t.Cleanup(func() {
		k.Run(t, "delete", "ingressclass", class, "--ignore-not-found")
		k.Run(t, "delete", "servicecidr", cidr, "--ignore-not-found")
		k.Run(t, "delete", "ipaddress", "192.0.2.10", "--ignore-not-found")
		k.Run(t, "delete", "runtimeclass", rc, "--ignore-not-found")
	})

	tb := parseTable(t, k.MustRun(t, "get", "ing", "-n", ns))
	expectHeader(t, "ingresses", tb, "NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE")
	if r := tb.row(t, "simple"); r["CLASS"] != "<none>" || r["HOSTS"] != "foo.com" || r["PORTS"] != "80, 443" {
		t.Errorf("ingress simple row %v", r)
	}
	if r := tb.row(t, "catch"); r["CLASS"] != class || r["HOSTS"] != "*" || r["PORTS"] != "80" {
		t.Errorf("ingress catch row %v", r)
	}
	tb = parseTable(t, k.MustRun(t, "get", "ingressclass", class))
	expectHeader(t, "ingressclasses", tb, "NAME", "CONTROLLER", "PARAMETERS", "AGE")
	if r := tb.row(t, class); r["CONTROLLER"] != "example.com/ingress" || r["PARAMETERS"] != "IngressParameters.k8s.example.com/external-lb" {
		t.Errorf("ingressclass row %v", r)
	}
	tb = parseTable(t, k.MustRun(t, "get", "netpol", "-n", ns))
	expectHeader(t, "networkpolicies", tb, "NAME", "POD-SELECTOR", "AGE")
	if r := tb.row(t, "db"); r["POD-SELECTOR"] != "role=db" {
		t.Errorf("networkpolicy row %v", r)
	}
	tb = parseTable(t, k.MustRun(t, "get", "servicecidrs"))
	expectHeader(t, "servicecidrs", tb, "NAME", "CIDRS", "AGE")
	if r := tb.row(t, cidr); r["CIDRS"] != "192.0.2.0/24" {
		t.Errorf("servicecidr row %v", r)
	}
	if r := tb.row(t, "kubernetes"); r["CIDRS"] == "" {
		t.Errorf("default servicecidr row %v", r)
	}
	tb = parseTable(t, k.MustRun(t, "get", "ipaddress", "192.0.2.10"))
	expectHeader(t, "ipaddresses", tb, "NAME", "PARENTREF", "AGE")
	if r := tb.row(t, "192.0.2.10"); r["PARENTREF"] != "gateways.gateway.example.com/"+ns+"/gw" {
		t.Errorf("ipaddress row %v", r)
	}
	tb = parseTable(t, k.MustRun(t, "get", "runtimeclass", rc))
	expectHeader(t, "runtimeclasses", tb, "NAME", "HANDLER", "AGE")
	if r := tb.row(t, rc); r["HANDLER"] != "runc" {
		t.Errorf("runtimeclass row %v", r)
	}

	expectContains(t, "describe ingress", k.MustRun(t, "describe", "ing", "simple", "-n", ns),
		"Name:             simple", "my-cert terminates foo.com", "/bar   svc1:8080")
	expectContains(t, "describe netpol", k.MustRun(t, "describe", "netpol", "db", "-n", ns), "PodSelector:     role=db", "5432/TCP")
	expectContains(t, "describe ingressclass", k.MustRun(t, "describe", "ingressclass", class), "Controller:   example.com/ingress")
	expectContains(t, "describe runtimeclass", k.MustRun(t, "describe", "runtimeclass", rc), "Handler:", "runc")

	// Defaults: the policy governs ingress, its port is TCP.
	if got := k.MustRun(t, "get", "netpol", "db", "-n", ns, "-o", "jsonpath={.spec.policyTypes} {.spec.ingress[0].ports[0].protocol}"); got != `["Ingress"] TCP` {
		t.Errorf("networkpolicy defaults %q", got)
	}

	// Patch, then delete, each kind.
	k.MustRun(t, "patch", "ing", "simple", "-n", ns, "--type=merge", "-p", `{"spec":{"ingressClassName":"`+class+`"}}`)
	if got := k.MustRun(t, "get", "ing", "simple", "-n", ns, "-o", "jsonpath={.spec.ingressClassName} {.metadata.generation}"); got != class+" 2" {
		t.Errorf("patched ingress: %q", got)
	}
	k.MustRun(t, "patch", "ing", "simple", "-n", ns, "--subresource=status", "--type=merge", "-p", `{"status":{"loadBalancer":{"ingress":[{"ip":"192.0.2.1"}]}}}`)
	if r := parseTable(t, k.MustRun(t, "get", "ing", "simple", "-n", ns)).row(t, "simple"); r["ADDRESS"] != "192.0.2.1" {
		t.Errorf("ingress address after status patch: %v", r)
	}
	k.MustRun(t, "patch", "netpol", "db", "-n", ns, "--type=merge", "-p", `{"spec":{"podSelector":{"matchLabels":{"role":"cache"}}}}`)
	k.MustRun(t, "label", "ingressclass", class, "tier=edge")
	k.MustRun(t, "patch", "runtimeclass", rc, "--type=merge", "-p", `{"scheduling":{"nodeSelector":{"sandbox":"yes"}}}`)
	k.MustRun(t, "label", "servicecidr", cidr, "extra=yes")
	k.MustRun(t, "label", "ipaddress", "192.0.2.10", "owner=gw")
	for _, args := range [][]string{
		{"ing", "simple", "-n", ns}, {"ing", "catch", "-n", ns}, {"netpol", "db", "-n", ns},
		{"ingressclass", class}, {"runtimeclass", rc}, {"servicecidr", cidr}, {"ipaddress", "192.0.2.10"},
	} {
		k.MustRun(t, append([]string{"delete"}, args...)...)
		if r := k.Run(t, append([]string{"get"}, args...)...); r.ExitCode == 0 || !strings.Contains(r.Stderr, "NotFound") {
			t.Errorf("get after delete %v: %s", args, r)
		}
	}
}

// TestServiceIPAddresses checks that a Service's ClusterIP is an
// IPAddress naming it, gone with the Service.
func TestServiceIPAddresses(t *testing.T) {
	t.Parallel()
	k := server.Kubectl(t)
	ns := server.CreateNamespace(t, "svcip")
	k.MustRun(t, "create", "service", "clusterip", "web", "-n", ns, "--tcp=80:8080")
	ip := k.MustRun(t, "get", "svc", "web", "-n", ns, "-o", "jsonpath={.spec.clusterIP}")
	if r := parseTable(t, k.MustRun(t, "get", "ipaddress", ip)).row(t, ip); r["PARENTREF"] != "services/"+ns+"/web" {
		t.Errorf("IPAddress of the service: %v", r)
	}
	// The address is taken: a second service may not ask for it.
	r := k.RunStdin(t, fmt.Sprintf("apiVersion: v1\nkind: Service\nmetadata: {name: copy, namespace: %s}\nspec:\n  clusterIP: %s\n  ports: [{port: 80}]\n", ns, ip), "create", "-f", "-")
	expectContains(t, "taken cluster IP", r.Stderr, `The Service "copy" is invalid: spec.clusterIPs: Invalid value: ["`+ip+`"]: failed to allocate IP `+ip+`: provided IP is already allocated`)
	k.MustRun(t, "delete", "svc", "web", "-n", ns)
	if r := k.Run(t, "get", "ipaddress", ip); r.ExitCode == 0 {
		t.Errorf("IPAddress %s outlived its service: %s", ip, r)
	}
}

// TestEventsGroups checks `kubectl events` and the events.k8s.io view of
// the same events.
func TestEventsGroups(t *testing.T) {
	t.Parallel()
	k := server.Kubectl(t)
	ns := server.CreateNamespace(t, "evgroups")
	k.MustRunStdin(t, fmt.Sprintf(`apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: scaled, namespace: %[1]s}
eventTime: "2026-01-01T00:00:00.000000Z"
reportingController: example.com/scaler
reportingInstance: scaler-1
action: Scale
reason: ScaledUp
type: Normal
note: scaled to 3
regarding: {apiVersion: apps/v1, kind: Deployment, namespace: %[1]s, name: web}
`, ns), "create", "-f", "-")
	out := k.MustRun(t, "events", "-n", ns)
	tb := parseTable(t, out)
	expectHeader(t, "kubectl events", tb, "LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE")
	expectContains(t, "kubectl events", out, "ScaledUp", "Deployment/web", "scaled to 3")
	tb = parseTable(t, k.MustRun(t, "get", "events.events.k8s.io", "-n", ns))
	expectHeader(t, "events.k8s.io events", tb, "LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE")
	if got := k.MustRun(t, "get", "events.v1.events.k8s.io", "scaled", "-n", ns, "-o", "jsonpath={.note}|{.regarding.name}"); got != "scaled to 3|web" {
		t.Errorf("events.k8s.io event: %q", got)
	}
	if got := k.MustRun(t, "get", "events.v1.", "scaled", "-n", ns, "-o", "jsonpath={.message}|{.reportingComponent}"); got != "scaled to 3|example.com/scaler" {
		t.Errorf("core event: %q", got)
	}
	k.MustRun(t, "patch", "events.v1.events.k8s.io", "scaled", "-n", ns, "--type=merge", "-p", `{"series":{"count":2,"lastObservedTime":"2026-01-01T00:01:00.000000Z"}}`)
	k.MustRun(t, "delete", "events.v1.events.k8s.io", "scaled", "-n", ns)
	if r := k.Run(t, "get", "events.v1.", "scaled", "-n", ns); r.ExitCode == 0 {
		t.Errorf("event outlived its delete: %s", r)
	}
}

// TestNetworkingBadInput sends invalid objects of each new kind: each is
// refused with Kubernetes' message and nothing is stored.
func TestNetworkingBadInput(t *testing.T) {
	t.Parallel()
	k := server.Kubectl(t)
	ns := server.CreateNamespace(t, "netbad")
	cases := []struct {
		name, kind, yaml string
		want             []string
	}{
		{"ingress without backend", "ingress/empty", "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: empty}\nspec: {}\n",
			[]string{`The Ingress "empty" is invalid: spec: Invalid value:`, "either `defaultBackend` or `rules` must be specified"}},
		{"ingress relative path", "ingress/rel", "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: rel}\nspec:\n  rules:\n  - http:\n      paths:\n      - {path: foo, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}\n",
			[]string{`The Ingress "rel" is invalid: spec.rules[0].http.paths[0].path: Invalid value: "foo": must be an absolute path`}},
		{"ingress without path type", "ingress/nopt", "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: nopt}\nspec:\n  rules:\n  - http:\n      paths:\n      - {path: /, backend: {service: {name: web, port: {number: 80}}}}\n",
			[]string{`spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified`}},
		{"ingressclass controller", "ingressclass/e2e-bad-class", "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: e2e-bad-class}\nspec: {controller: nginx}\n",
			[]string{`The IngressClass "e2e-bad-class" is invalid: spec.controller: Invalid value: "nginx": must be a domain-prefixed path (such as "acme.io/foo")`}},
		{"networkpolicy peer", "networkpolicy/bad", "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: bad}\nspec:\n  podSelector: {}\n  ingress:\n  - from: [{}]\n",
			[]string{`The NetworkPolicy "bad" is invalid: spec.ingress[0].from[0]: Required value: must specify a peer`}},
		{"ipaddress name", "ipaddress/10.0.0.010", "apiVersion: networking.k8s.io/v1\nkind: IPAddress\nmetadata: {name: 10.0.0.010}\nspec: {parentRef: {resource: services, namespace: default, name: x}}\n",
			[]string{`The IPAddress "10.0.0.010" is invalid: metadata.name: Invalid value: "10.0.0.010"`}},
		{"ipaddress parent", "ipaddress/192.0.2.99", "apiVersion: networking.k8s.io/v1\nkind: IPAddress\nmetadata: {name: 192.0.2.99}\nspec: {}\n",
			[]string{`The IPAddress "192.0.2.99" is invalid: spec.parentRef: Required value`}},
		{"servicecidr families", "servicecidr/e2e-bad-cidr", "apiVersion: networking.k8s.io/v1\nkind: ServiceCIDR\nmetadata: {name: e2e-bad-cidr}\nspec: {cidrs: [10.0.0.0/24, 10.1.0.0/24]}\n",
			[]string{`The ServiceCIDR "e2e-bad-cidr" is invalid: spec.cidrs: Invalid value:`, "may specify no more than one IP for each IP family"}},
		{"runtimeclass handler", "runtimeclass/e2e-bad-rc", "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: e2e-bad-rc}\nhandler: Run_C\n",
			[]string{`The RuntimeClass "e2e-bad-rc" is invalid: handler: Invalid value: "Run_C": a lowercase RFC 1123 label`}},
		{"events.k8s.io event", "events.v1.events.k8s.io/bad", "apiVersion: events.k8s.io/v1\nkind: Event\nmetadata: {name: bad}\nnote: x\n",
			[]string{`The Event "bad" is invalid`, "eventTime: Required value", "reportingController: Required value"}},
	}
	for _, c := range cases {
		r := k.RunStdin(t, c.yaml, "create", "-n", ns, "-f", "-")
		if r.ExitCode == 0 {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		expectContains(t, c.name, r.Stderr, c.want...)
		if g := k.Run(t, "get", c.kind, "-n", ns); g.ExitCode == 0 {
			t.Errorf("%s: stored after refusal: %s", c.name, g)
		}
	}
}
