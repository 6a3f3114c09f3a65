package kubelet

import (
	"os"
	"testing"

	"github.com/spf13/pflag"
)

// TestSwitchFlag: --run-service-proxy and --run-cluster-dns take auto
// (the default) or a boolean, and a bare flag is true.
func TestSwitchFlag(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		proxy, dn Switch
		wantErr   bool
	}{
		{nil, SwitchAuto, SwitchAuto, false},
		{[]string{"--run-service-proxy"}, SwitchOn, SwitchAuto, false},
		{[]string{"--run-service-proxy=false", "--run-cluster-dns=0"}, SwitchOff, SwitchOff, false},
		{[]string{"--run-service-proxy=auto", "--run-cluster-dns=true"}, SwitchAuto, SwitchOn, false},
		{[]string{"--run-service-proxy=sometimes"}, "", "", true},
	} {
		o := NewOptions()
		fs := pflag.NewFlagSet("kubelet", pflag.ContinueOnError)
		fs.SetOutput(nopWriter{})
		AddNetworkFlags(fs, o)
		err := fs.Parse(tc.args)
		if tc.wantErr {
			if err == nil {
				t.Errorf("%v: parsed, want an error", tc.args)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", tc.args, err)
			continue
		}
		if o.RunServiceProxy != tc.proxy || o.RunClusterDNS != tc.dn {
			t.Errorf("%v: proxy %q dns %q, want %q %q", tc.args, o.RunServiceProxy, o.RunClusterDNS, tc.proxy, tc.dn)
		}
	}
}

type nopWriter struct{}

func (nopWriter) Write(p []byte) (int, error) { return len(p), nil }

// TestServiceProxyOn: auto runs the proxy only as root, with a runtime
// that runs processes and an API server; true and false are kept.
func TestServiceProxyOn(t *testing.T) {
	root := os.Geteuid() == 0
	for _, tc := range []struct {
		name   string
		change func(*Options)
		want   bool
	}{
		{"auto, process runtime, kubeconfig", func(o *Options) {}, root},
		{"auto, cri runtime", func(o *Options) { o.Runtime = RuntimeCRI }, root},
		{"auto, fake runtime", func(o *Options) { o.Runtime = RuntimeFake }, false},
		{"auto, standalone", func(o *Options) { o.Kubeconfig = "" }, false},
		{"auto, joining", func(o *Options) { o.Kubeconfig, o.Server = "", "https://10.0.0.1:6443" }, root},
		{"off", func(o *Options) { o.RunServiceProxy = SwitchOff }, false},
		{"on with the fake runtime", func(o *Options) { o.RunServiceProxy, o.Runtime = SwitchOn, RuntimeFake }, true},
	} {
		o := NewOptions()
		o.Kubeconfig = "/some/kubeconfig"
		tc.change(o)
		got, why := o.ServiceProxyOn()
		if got != tc.want {
			t.Errorf("%s: ServiceProxyOn = %v (%s), want %v", tc.name, got, why, tc.want)
		}
		if !got && why == "" {
			t.Errorf("%s: off without a reason", tc.name)
		}
	}
}

// TestValidateServiceProxySwitch: an explicit --run-service-proxy needs
// root and an API server; auto never fails validation.
func TestValidateServiceProxySwitch(t *testing.T) {
	o := NewOptions()
	o.RootDir, o.StaticPodPath = "/var/lib/kubecore", "/etc/kubecore/manifests"
	if errs := o.Validate(); len(errs) != 0 {
		t.Fatalf("standalone kubelet with the default (auto) proxy: %v", errs)
	}
	o.RunServiceProxy = SwitchOn
	if errs := o.Validate(); len(errs) == 0 {
		t.Fatal("--run-service-proxy without an API server validated")
	}
}
