// Package dns is kubecore's cluster DNS: it answers the Kubernetes DNS
// schema (services, headless endpoints, pods, SRV ports) from the
// informers' caches and forwards other names to the host's resolvers.
package dns

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	mdns "github.com/miekg/dns"
	"k8s.io/klog/v2"
)

// DefaultDomain is the cluster domain.
const DefaultDomain = "cluster.local"

// Config configures a Server.
type Config struct {
	// Domain is the cluster domain (DefaultDomain when empty).
	Domain string
	// Store holds the services and endpoint slices.
	Store Store
	// Addr is the UDP and TCP address served ("0.0.0.0:53"); port 0
	// picks a free port, the same for both.
	Addr string
	// Upstreams are the servers ("host:port") other names are forwarded
	// to, tried in order.
	Upstreams []string
	// UpstreamTimeout bounds each forwarded exchange (2 s when 0).
	UpstreamTimeout time.Duration
}

// Server serves the cluster domain over UDP and TCP.
type Server struct {
	cfg      Config
	resolver *resolver
	udp      net.PacketConn
	tcp      net.Listener
	servers  []*mdns.Server
	once     sync.Once
}

// Listen validates cfg and opens the UDP and TCP sockets; Serve answers
// on them.
func Listen(cfg Config) (*Server, error) {
	if cfg.Store == nil {
		return nil, errors.New("dns: no store")
	}
	if cfg.Domain == "" {
		cfg.Domain = DefaultDomain
	}
	if _, ok := mdns.IsDomainName(cfg.Domain); !ok {
		return nil, fmt.Errorf("dns: %q is not a domain name", cfg.Domain)
	}
	if cfg.UpstreamTimeout <= 0 {
		cfg.UpstreamTimeout = 2 * time.Second
	}
	s := &Server{cfg: cfg, resolver: &resolver{store: cfg.Store, domain: mdns.Fqdn(strings.ToLower(cfg.Domain))}}
	udp, tcp, err := listenBoth(cfg.Addr)
	if err != nil {
		return nil, err
	}
	s.udp, s.tcp = udp, tcp
	return s, nil
}

// listenBoth opens UDP and TCP on one port. When addr asks for any
// port (":0") the kernel picks the UDP one, which TCP may hold already
// for someone else; then it tries another pick rather than fail.
// listenUDP is net.ListenPacket; tests replace it to steer the pick.
var listenUDP = net.ListenPacket

func listenBoth(addr string) (net.PacketConn, net.Listener, error) {
	host, port, splitErr := net.SplitHostPort(addr)
	anyPort := splitErr == nil && port == "0"
	for attempt := 1; ; attempt++ {
		udp, err := listenUDP("udp", addr)
		if err != nil {
			return nil, nil, fmt.Errorf("dns: listen udp %s: %w%s", addr, err, inUseHint(err))
		}
		// TCP on the port UDP got (the same when it was given).
		tcpAddr := udp.LocalAddr().String()
		if splitErr == nil {
			_, got, _ := net.SplitHostPort(tcpAddr)
			tcpAddr = net.JoinHostPort(host, got)
		}
		tcp, err := net.Listen("tcp", tcpAddr)
		if err == nil {
			return udp, tcp, nil
		}
		_ = udp.Close()
		if anyPort && errors.Is(err, syscall.EADDRINUSE) && attempt < 10 {
			continue
		}
		return nil, nil, fmt.Errorf("dns: listen tcp %s: %w%s", tcpAddr, err, inUseHint(err))
	}
}

// inUseHint says what to do when the address is taken: most often a
// second kubecore on the host, whose cluster DNS took the node IP first.
func inUseHint(err error) string {
	if !errors.Is(err, syscall.EADDRINUSE) {
		return ""
	}
	return " (another DNS server, perhaps another kubecore, serves it on this host: stop it, or run without cluster DNS: --run-cluster-dns=false)"
}

// Addr is the address served (UDP and TCP share the port).
func (s *Server) Addr() string { return s.udp.LocalAddr().String() }

// Serve answers until ctx ends, then closes the sockets.
func (s *Server) Serve(ctx context.Context) error {
	logger := klog.FromContext(ctx).WithName("dns")
	h := mdns.HandlerFunc(s.handle)
	s.servers = []*mdns.Server{
		{PacketConn: s.udp, Handler: h, Net: "udp"},
		{Listener: s.tcp, Handler: h, Net: "tcp", ReadTimeout: 5 * time.Second},
	}
	errc := make(chan error, 2)
	for _, srv := range s.servers {
		go func() { errc <- srv.ActivateAndServe() }()
	}
	logger.Info("Cluster DNS serving", "addr", s.Addr(), "domain", s.cfg.Domain, "upstreams", s.cfg.Upstreams)
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
		err = fmt.Errorf("dns: serve: %w", err)
	}
	s.Close()
	return err
}

// Close stops serving.
func (s *Server) Close() {
	s.once.Do(func() {
		for _, srv := range s.servers {
			_ = srv.Shutdown()
		}
		_ = s.udp.Close()
		_ = s.tcp.Close()
	})
}

// handle answers one query.
func (s *Server) handle(w mdns.ResponseWriter, req *mdns.Msg) {
	if len(req.Question) != 1 || req.Opcode != mdns.OpcodeQuery {
		m := new(mdns.Msg)
		m.SetRcode(req, mdns.RcodeNotImplemented)
		if len(req.Question) != 1 {
			m.SetRcode(req, mdns.RcodeFormatError)
		}
		_ = w.WriteMsg(m)
		return
	}
	q := req.Question[0]
	var m *mdns.Msg
	if s.resolver.inZone(q.Name) {
		m = s.answer(req)
	} else if res, ok := s.resolver.reverse(q); ok {
		m = new(mdns.Msg)
		m.SetReply(req)
		m.Authoritative, m.RecursionAvailable = true, true
		m.Answer = res.answer
	} else {
		m = s.forward(req, w.RemoteAddr().Network())
	}
	if _, isUDP := w.RemoteAddr().(*net.UDPAddr); isUDP {
		size := mdns.MinMsgSize
		if opt := req.IsEdns0(); opt != nil && int(opt.UDPSize()) > size {
			size = int(opt.UDPSize())
		}
		// Truncate sets TC when the answer does not fit, so that the
		// client retries over TCP.
		m.Truncate(size)
	}
	_ = w.WriteMsg(m)
}

// answer answers a query in the cluster domain, with the zone's SOA in
// the authority section of a negative answer.
func (s *Server) answer(req *mdns.Msg) *mdns.Msg {
	q := req.Question[0]
	res := s.resolver.resolve(q)
	m := new(mdns.Msg)
	m.SetReply(req)
	m.Authoritative = true
	m.RecursionAvailable = true
	m.Rcode = res.rcode
	m.Answer, m.Extra = res.answer, res.extra
	if len(m.Answer) == 0 {
		m.Ns = []mdns.RR{s.resolver.soa()}
	}
	return m
}

// forward sends the query to the upstreams in turn; SERVFAIL when none
// answers.
func (s *Server) forward(req *mdns.Msg, network string) *mdns.Msg {
	if network != "tcp" {
		network = "udp"
	}
	c := &mdns.Client{Net: network, Timeout: s.cfg.UpstreamTimeout}
	for _, up := range s.cfg.Upstreams {
		resp, _, err := c.Exchange(req, up)
		// A truncated upstream answer keeps its TC bit: the client
		// retries over TCP, which is forwarded over TCP.
		if err == nil && resp != nil {
			return resp
		}
	}
	m := new(mdns.Msg)
	m.SetRcode(req, mdns.RcodeServerFailure)
	m.RecursionAvailable = true
	return m
}

// UpstreamsFromResolvConf reads the name servers of a resolv.conf file
// as host:port, leaving out those in skip (the cluster DNS itself).
func UpstreamsFromResolvConf(path string, skip ...string) ([]string, error) {
	cc, err := mdns.ClientConfigFromFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var out []string
	for _, s := range cc.Servers {
		skipped := false
		for _, k := range skip {
			if s == k {
				skipped = true
			}
		}
		if !skipped {
			out = append(out, net.JoinHostPort(s, cc.Port))
		}
	}
	return out, nil
}
