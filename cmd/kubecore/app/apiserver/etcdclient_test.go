package apiserver

import (
	"errors"
	"strings"
	"testing"
)

func TestValidateEtcdTLS(t *testing.T) {
	for name, tc := range map[string]struct {
		mutate func(*Options)
		want   string
	}{
		"no TLS":        {func(o *Options) { o.EtcdServers = []string{"http://e:2379"} }, ""},
		"TLS":           {func(o *Options) { o.EtcdServers, o.EtcdCAFile = []string{"https://e:2379"}, "ca.crt" }, ""},
		"cert, no key":  {func(o *Options) { o.EtcdServers, o.EtcdCertFile = []string{"https://e:2379"}, "c.crt" }, "--etcd-certfile and --etcd-keyfile go together"},
		"TLS, embedded": {func(o *Options) { o.EtcdCAFile = "ca.crt" }, "need --etcd-servers"},
		"TLS over http": {func(o *Options) { o.EtcdServers, o.EtcdCAFile = []string{"http://e:2379"}, "ca.crt" }, `"http://e:2379" must be https://`},
	} {
		o := NewOptions()
		tc.mutate(o)
		err := errors.Join(o.Validate()...)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: Validate() = %v, want %q", name, err, tc.want)
		}
	}
	o := NewOptions()
	o.EtcdServers, o.EtcdCAFile = []string{"https://e:2379"}, "/nonexistent/ca.crt"
	if _, err := o.etcdTLS(); err == nil || !strings.Contains(err.Error(), "--etcd-cafile") {
		t.Errorf("missing CA file: %v", err)
	}
}
