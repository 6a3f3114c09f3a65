package dns

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	mdns "github.com/miekg/dns"

	corev1 "kubecore.io/api/core/v1"
	discoveryv1 "kubecore.io/api/discovery/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

func ptr[T any](v T) *T { return &v }

// mapStore is a Store of fixed objects.
type mapStore struct {
	services map[string]*corev1.Service
	slices   map[string][]*discoveryv1.EndpointSlice
}

func (m *mapStore) Service(ns, name string) (*corev1.Service, bool) {
	s, ok := m.services[ns+"/"+name]
	return s, ok
}
func (m *mapStore) EndpointSlices(ns, name string) []*discoveryv1.EndpointSlice {
	return m.slices[ns+"/"+name]
}
func (m *mapStore) HasServices(ns string) bool {
	for k := range m.services {
		if strings.HasPrefix(k, ns+"/") {
			return true
		}
	}
	return false
}

func (m *mapStore) ServicesWithIP(ip string) []*corev1.Service {
	var out []*corev1.Service
	for _, s := range m.services {
		if slices.Contains(s.Spec.ClusterIPs, ip) {
			out = append(out, s)
		}
	}
	return out
}
func (m *mapStore) EndpointSlicesWithAddress(ip string) []*discoveryv1.EndpointSlice {
	var out []*discoveryv1.EndpointSlice
	for _, ss := range m.slices {
		for _, s := range ss {
			if slices.ContainsFunc(s.Endpoints, func(e discoveryv1.Endpoint) bool { return slices.Contains(e.Addresses, ip) }) {
				out = append(out, s)
			}
		}
	}
	return out
}

func testStore() *mapStore {
	svc := func(name, ip string, mut ...func(*corev1.Service)) *corev1.Service {
		s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name},
			Spec: corev1.ServiceSpec{ClusterIP: ip, ClusterIPs: []string{ip},
				Ports: []corev1.ServicePort{{Name: "http", Protocol: corev1.ProtocolTCP, Port: 80}}}}
		for _, f := range mut {
			f(s)
		}
		return s
	}
	st := &mapStore{services: map[string]*corev1.Service{
		"ns/web":  svc("web", "10.96.0.20"),
		"ns/dual": svc("dual", "10.96.0.21", func(s *corev1.Service) { s.Spec.ClusterIPs = []string{"10.96.0.21", "fd00::21"} }),
		"ns/db":   svc("db", corev1.ClusterIPNone),
		"ns/ext": svc("ext", "", func(s *corev1.Service) {
			s.Spec.Type, s.Spec.ExternalName, s.Spec.ClusterIPs = corev1.ServiceTypeExternalName, "example.org", nil
		}),
		"ns/big": svc("big", corev1.ClusterIPNone),
	}, slices: map[string][]*discoveryv1.EndpointSlice{}}
	st.slices["ns/db"] = []*discoveryv1.EndpointSlice{{
		ObjectMeta:  metav1.ObjectMeta{Namespace: "ns", Labels: map[string]string{discoveryv1.LabelServiceName: "db"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: ptr("http"), Protocol: ptr(corev1.ProtocolTCP), Port: ptr(int32(8080))}},
		Endpoints: []discoveryv1.Endpoint{
			{Addresses: []string{"10.1.0.2"}, Hostname: ptr("web-1"), Conditions: discoveryv1.EndpointConditions{Ready: ptr(true)}},
			{Addresses: []string{"10.1.0.1"}, Hostname: ptr("web-0"), Conditions: discoveryv1.EndpointConditions{Ready: ptr(true)}},
			{Addresses: []string{"10.1.0.3"}, Hostname: ptr("web-2"), Conditions: discoveryv1.EndpointConditions{Ready: ptr(false)}},
			{Addresses: []string{"10.1.0.4"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr(true)}},
		},
	}}
	big := &discoveryv1.EndpointSlice{AddressType: discoveryv1.AddressTypeIPv4}
	for i := range 100 {
		big.Endpoints = append(big.Endpoints, discoveryv1.Endpoint{Addresses: []string{fmt.Sprintf("10.2.0.%d", i+1)}})
	}
	st.slices["ns/big"] = []*discoveryv1.EndpointSlice{big}
	return st
}

// startServer serves st on a free loopback port, forwarding other names
// to upstreams.
func startServer(t *testing.T, st Store, upstreams ...string) string {
	t.Helper()
	s, err := Listen(Config{Store: st, Addr: "127.0.0.1:0", Upstreams: upstreams})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- s.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return s.Addr()
}

func query(t *testing.T, addr, net, name string, qtype uint16) *mdns.Msg {
	t.Helper()
	m := new(mdns.Msg)
	m.SetQuestion(name, qtype)
	c := &mdns.Client{Net: net}
	r, _, err := c.Exchange(m, addr)
	if err != nil {
		t.Fatalf("%s %s: %v", name, mdns.TypeToString[qtype], err)
	}
	return r
}

// rrs renders the answer section, sorted, without names and TTLs
// checked separately.
func rrs(sec []mdns.RR) []string {
	var out []string
	for _, rr := range sec {
		h := rr.Header()
		out = append(out, strings.TrimPrefix(rr.String(), h.String()))
	}
	slices.Sort(out)
	return out
}

func TestClusterRecords(t *testing.T) {
	addr := startServer(t, testStore())
	for _, tc := range []struct {
		name  string
		qtype uint16
		rcode int
		want  []string
	}{
		{"web.ns.svc.cluster.local.", mdns.TypeA, mdns.RcodeSuccess, []string{"10.96.0.20"}},
		{"WEB.ns.svc.cluster.local.", mdns.TypeA, mdns.RcodeSuccess, []string{"10.96.0.20"}},
		{"web.ns.svc.cluster.local.", mdns.TypeAAAA, mdns.RcodeSuccess, nil}, // NODATA
		{"dual.ns.svc.cluster.local.", mdns.TypeAAAA, mdns.RcodeSuccess, []string{"fd00::21"}},
		{"web.ns.svc.cluster.local.", mdns.TypeTXT, mdns.RcodeSuccess, nil},
		{"nope.ns.svc.cluster.local.", mdns.TypeA, mdns.RcodeNameError, nil},
		{"ns.svc.cluster.local.", mdns.TypeA, mdns.RcodeSuccess, nil},
		{"other.svc.cluster.local.", mdns.TypeA, mdns.RcodeNameError, nil},
		{"db.ns.svc.cluster.local.", mdns.TypeA, mdns.RcodeSuccess, []string{"10.1.0.1", "10.1.0.2", "10.1.0.4"}},
		{"web-0.db.ns.svc.cluster.local.", mdns.TypeA, mdns.RcodeSuccess, []string{"10.1.0.1"}},
		{"web-2.db.ns.svc.cluster.local.", mdns.TypeA, mdns.RcodeNameError, nil}, // not ready
		{"_http._tcp.web.ns.svc.cluster.local.", mdns.TypeSRV, mdns.RcodeSuccess, []string{"0 100 80 web.ns.svc.cluster.local."}},
		{"_http._udp.web.ns.svc.cluster.local.", mdns.TypeSRV, mdns.RcodeNameError, nil},
		{"_http._tcp.db.ns.svc.cluster.local.", mdns.TypeSRV, mdns.RcodeSuccess, []string{
			"0 100 8080 10-1-0-4.db.ns.svc.cluster.local.", "0 100 8080 web-0.db.ns.svc.cluster.local.", "0 100 8080 web-1.db.ns.svc.cluster.local."}},
		{"ext.ns.svc.cluster.local.", mdns.TypeA, mdns.RcodeSuccess, []string{"example.org."}},
		{"10-244-1-7.ns.pod.cluster.local.", mdns.TypeA, mdns.RcodeSuccess, []string{"10.244.1.7"}},
		{"fd00--7.ns.pod.cluster.local.", mdns.TypeAAAA, mdns.RcodeSuccess, []string{"fd00::7"}},
		{"bad-ip.ns.pod.cluster.local.", mdns.TypeA, mdns.RcodeNameError, nil},
		{"cluster.local.", mdns.TypeSOA, mdns.RcodeSuccess, []string{"ns.dns.cluster.local. hostmaster.cluster.local. 1 7200 1800 86400 5"}},
	} {
		r := query(t, addr, "udp", tc.name, tc.qtype)
		if r.Rcode != tc.rcode || !slices.Equal(rrs(r.Answer), tc.want) {
			t.Errorf("%s %s: rcode %s answer %v; want %s %v", tc.name, mdns.TypeToString[tc.qtype],
				mdns.RcodeToString[r.Rcode], rrs(r.Answer), mdns.RcodeToString[tc.rcode], tc.want)
			continue
		}
		if !r.Authoritative {
			t.Errorf("%s: not authoritative", tc.name)
		}
		for _, rr := range r.Answer {
			if rr.Header().Ttl != TTL && rr.Header().Rrtype != mdns.TypeSOA {
				t.Errorf("%s: TTL %d, want %d", tc.name, rr.Header().Ttl, TTL)
			}
		}
		if len(r.Answer) == 0 {
			if len(r.Ns) != 1 || r.Ns[0].Header().Ttl != NegativeTTL {
				t.Errorf("%s: negative answer without SOA of TTL %d: %v", tc.name, NegativeTTL, r.Ns)
			}
		}
	}
	// SRV of a headless service carries the targets' addresses.
	r := query(t, addr, "tcp", "_http._tcp.db.ns.svc.cluster.local.", mdns.TypeSRV)
	if got := rrs(r.Extra); !slices.Equal(got, []string{"10.1.0.1", "10.1.0.2", "10.1.0.4"}) {
		t.Errorf("SRV extra = %v", got)
	}
}

// TestReverseLookups: PTR questions for a service's cluster IP name the
// service, for an endpoint's address the endpoint (its hostname, else its
// address with dashes), over UDP and TCP as dig asks; other reverse names
// go upstream (here none answers: SERVFAIL).
func TestReverseLookups(t *testing.T) {
	addr := startServer(t, testStore())
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"20.0.96.10.in-addr.arpa.", []string{"web.ns.svc.cluster.local."}},
		{"20.0.96.10.IN-ADDR.ARPA.", []string{"web.ns.svc.cluster.local."}},
		{"21.0.96.10.in-addr.arpa.", []string{"dual.ns.svc.cluster.local."}},
		{"1.2.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.d.f.ip6.arpa.", []string{"dual.ns.svc.cluster.local."}},
		{"1.0.1.10.in-addr.arpa.", []string{"web-0.db.ns.svc.cluster.local."}},
		{"4.0.1.10.in-addr.arpa.", []string{"10-1-0-4.db.ns.svc.cluster.local."}},
	} {
		for _, network := range []string{"udp", "tcp"} {
			r := query(t, addr, network, tc.name, mdns.TypePTR)
			if r.Rcode != mdns.RcodeSuccess || !slices.Equal(rrs(r.Answer), tc.want) {
				t.Errorf("%s PTR over %s: rcode %s answer %v, want %v", tc.name, network, mdns.RcodeToString[r.Rcode], rrs(r.Answer), tc.want)
			}
		}
	}
	for _, name := range []string{"3.0.1.10.in-addr.arpa." /* not ready */, "9.9.9.9.in-addr.arpa.", "0.96.10.in-addr.arpa."} {
		if r := query(t, addr, "udp", name, mdns.TypePTR); r.Rcode != mdns.RcodeServerFailure {
			t.Errorf("%s PTR: rcode %s, want it forwarded (SERVFAIL without upstreams)", name, mdns.RcodeToString[r.Rcode])
		}
	}
	if r := query(t, addr, "udp", "20.0.96.10.in-addr.arpa.", mdns.TypeA); r.Rcode != mdns.RcodeServerFailure {
		t.Errorf("A of a reverse name: rcode %s, want it forwarded", mdns.RcodeToString[r.Rcode])
	}
}

func TestTruncationAndTCP(t *testing.T) {
	addr := startServer(t, testStore())
	r := query(t, addr, "udp", "big.ns.svc.cluster.local.", mdns.TypeA)
	if !r.Truncated || len(r.Answer) >= 100 {
		t.Errorf("100 addresses over UDP: truncated %v with %d answers, want TC and fewer", r.Truncated, len(r.Answer))
	}
	if r := query(t, addr, "tcp", "big.ns.svc.cluster.local.", mdns.TypeA); r.Truncated || len(r.Answer) != 100 {
		t.Errorf("over TCP: truncated %v with %d answers, want all 100", r.Truncated, len(r.Answer))
	}
}

func TestForwarding(t *testing.T) {
	// An upstream that knows one name.
	up := startUpstream(t)
	addr := startServer(t, testStore(), "127.0.0.1:1", up) // the first is dead
	for _, net := range []string{"udp", "tcp"} {
		r := query(t, addr, net, "example.com.", mdns.TypeA)
		if r.Rcode != mdns.RcodeSuccess || !slices.Equal(rrs(r.Answer), []string{"192.0.2.7"}) {
			t.Errorf("forwarded over %s: %s %v", net, mdns.RcodeToString[r.Rcode], rrs(r.Answer))
		}
	}
	dead := startServer(t, testStore(), "127.0.0.1:1")
	if r := query(t, dead, "udp", "example.com.", mdns.TypeA); r.Rcode != mdns.RcodeServerFailure {
		t.Errorf("no upstream answers: %s, want SERVFAIL", mdns.RcodeToString[r.Rcode])
	}
}

func startUpstream(t *testing.T) string {
	t.Helper()
	h := mdns.HandlerFunc(func(w mdns.ResponseWriter, req *mdns.Msg) {
		m := new(mdns.Msg)
		m.SetReply(req)
		if req.Question[0].Name == "example.com." {
			rr, _ := mdns.NewRR("example.com. 60 IN A 192.0.2.7")
			m.Answer = append(m.Answer, rr)
		} else {
			m.Rcode = mdns.RcodeNameError
		}
		_ = w.WriteMsg(m)
	})
	s, err := Listen(Config{Store: testStore(), Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	udp := &mdns.Server{PacketConn: s.udp, Handler: h}
	tcp := &mdns.Server{Listener: s.tcp, Handler: h}
	go func() { _ = udp.ActivateAndServe() }()
	go func() { _ = tcp.ActivateAndServe() }()
	t.Cleanup(func() { _ = udp.Shutdown(); _ = tcp.Shutdown() })
	return s.Addr()
}

func TestUpstreamsFromResolvConf(t *testing.T) {
	p := filepath.Join(t.TempDir(), "resolv.conf")
	if err := os.WriteFile(p, []byte("nameserver 10.96.0.10\nnameserver 192.0.2.53\nsearch example.org\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := UpstreamsFromResolvConf(p, "10.96.0.10")
	if err != nil || !slices.Equal(got, []string{"192.0.2.53:53"}) {
		t.Errorf("upstreams = %v, %v", got, err)
	}
}

// An address another server holds is refused with what to do about it.
func TestListenAddressInUse(t *testing.T) {
	held, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	_, err = Listen(Config{Store: testStore(), Addr: held.LocalAddr().String()})
	if err == nil || !errors.Is(err, syscall.EADDRINUSE) || !strings.Contains(err.Error(), "--run-cluster-dns=false") {
		t.Fatalf("listen on a held address: %v", err)
	}
}

// Asked for any port, Listen tries another when the port the kernel
// gave UDP is held on TCP by someone else (the test's first pick is
// steered onto such a port).
func TestListenAnyPortSkipsTCPHeldPort(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	picks := 0
	listenUDP = func(network, addr string) (net.PacketConn, error) {
		picks++
		if picks == 1 {
			return net.ListenPacket(network, held.Addr().String())
		}
		return net.ListenPacket(network, addr)
	}
	defer func() { listenUDP = net.ListenPacket }()
	s, err := Listen(Config{Store: testStore(), Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatalf("listen on any port: %v", err)
	}
	defer s.udp.Close()
	defer s.tcp.Close()
	if picks != 2 || s.Addr() == held.Addr().String() || s.tcp.Addr().String() != s.Addr() {
		t.Fatalf("picks %d, udp %s, tcp %s, held %s", picks, s.Addr(), s.tcp.Addr(), held.Addr())
	}
}
