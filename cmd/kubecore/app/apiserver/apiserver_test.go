package apiserver

import (
	"strings"
	"testing"
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
