package apiserver

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/controlplane"
	"kubecore.io/kubecore/pkg/registry/core/node"
)

func TestValidate(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*Options)
		err    string
	}{
		{"defaults", func(*Options) {}, ""},
		{"no data dir", func(o *Options) { o.DataDir = "" }, "--data-dir is required"},
		{"bad bind", func(o *Options) { o.BindAddress = "localhost" }, "--bind-address"},
		{"bad port", func(o *Options) { o.SecurePort = 70000 }, "--secure-port"},
		{"bad etcd", func(o *Options) { o.EtcdServers = []string{"nohost"} }, "--etcd-servers"},
		{"bad cidr", func(o *Options) { o.ServiceClusterIPRange = "10.0.0.0" }, "--service-cluster-ip-range"},
	}
	for _, c := range cases {
		o := NewOptions()
		o.DataDir = t.TempDir()
		c.mutate(o)
		_, err := o.Complete()
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want %q", c.name, err, c.err)
		}
	}
}

func TestAdvertiseEndpoint(t *testing.T) {
	ipNet := func(s string) net.Addr {
		ip, n, err := net.ParseCIDR(s)
		if err != nil {
			t.Fatal(err)
		}
		n.IP = ip
		return n
	}
	host := []net.Addr{ipNet("127.0.0.1/8"), ipNet("::1/128"), ipNet("fe80::1/64"), ipNet("2001:db8::5/64"), ipNet("192.0.2.7/24"), ipNet("198.51.100.1/24")}
	listening := &net.TCPAddr{IP: net.IPv6unspecified, Port: 41234}
	cases := []struct {
		bind  string
		addrs []net.Addr
		want  string
	}{
		{"127.0.0.1", host, "127.0.0.1"},
		{"192.0.2.9", host, "192.0.2.9"},
		{"0.0.0.0", host, "192.0.2.7"},
		{"::", host, "2001:db8::5"},
		{"0.0.0.0", host[:4], "2001:db8::5"},
		{"0.0.0.0", host[:3], "127.0.0.1"},
		{"::", host[:3], "::1"},
	}
	for _, c := range cases {
		ep, err := advertiseEndpoint(c.bind, listening, func() ([]net.Addr, error) { return c.addrs, nil })
		if err != nil {
			t.Errorf("%s: %v", c.bind, err)
			continue
		}
		if ep.IP.String() != c.want || ep.Port != 41234 {
			t.Errorf("%s over %v: %s:%d, want %s:41234", c.bind, c.addrs, ep.IP, ep.Port, c.want)
		}
	}
	if _, err := advertiseEndpoint("0.0.0.0", listening, func() ([]net.Addr, error) { return nil, errors.New("boom") }); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("interface error: %v", err)
	}
}

// A background loop that fails stops the serving API server: Run returns
// the loop's error, named, instead of logging it and serving on.
func TestBackgroundLoopFailureEndsRun(t *testing.T) {
	o := NewOptions()
	o.DataDir, o.SecurePort = t.TempDir(), 0
	boom := errors.New("loop broke")
	var c Config
	loopCtxDone := make(chan struct{})
	o.Resources = func(ctx context.Context, _ *clientv3.Client, _ node.KubeletClientConfig, _ controlplane.Endpoint) (Resources, error) {
		return Resources{Scheme: runtime.NewScheme(), Loops: []Loop{
			{Name: "failing loop", Run: func(ctx context.Context) error {
				select {
				case <-c.Ready(): // fail while the server serves
					return boom
				case <-ctx.Done():
					return nil
				}
			}},
			{Name: "other loop", Run: func(ctx context.Context) error {
				<-ctx.Done()
				close(loopCtxDone)
				return nil
			}},
		}}, nil
	}
	var err error
	if c, err = o.Complete(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err = c.Run(ctx)
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "failing loop") {
		t.Fatalf("Run = %v, want the failing loop's error", err)
	}
	if ctx.Err() != nil {
		t.Fatal("Run returned only when the test's context ended")
	}
	select {
	case <-loopCtxDone:
	default:
		t.Error("the other loops were still running when Run returned")
	}
}
