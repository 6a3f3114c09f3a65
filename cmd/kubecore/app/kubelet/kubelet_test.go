package kubelet

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
)

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name    string
		change  func(*Options)
		wantErr string
	}{
		{"defaults with the required flags", func(o *Options) {}, ""},
		{"fake runtime, labels and taints", func(o *Options) {
			o.Runtime, o.NodeLabels, o.RegisterWithTaints = RuntimeFake, []string{"zone=a", "example.com/x="}, []string{"dedicated=gpu:NoSchedule", "spot:PreferNoSchedule"}
		}, ""},
		{"no kubeconfig", func(o *Options) { o.Kubeconfig = "" }, "--kubeconfig is required"},
		{"no root dir", func(o *Options) { o.RootDir = "" }, "--root-dir is required"},
		{"bad node name", func(o *Options) { o.NodeName = "Not_A_Name" }, "--node-name"},
		{"bad hostname override", func(o *Options) { o.HostnameOverride = "no way" }, "--hostname-override \"no way\""},
		{"unknown runtime", func(o *Options) { o.Runtime = "docker" }, `--runtime "docker"`},
		{"cri endpoint not a unix socket", func(o *Options) { o.Runtime, o.ContainerRuntimeEndpoint = "cri", "tcp://1.2.3.4:5" }, "--container-runtime-endpoint"},
		{"bad node ip", func(o *Options) { o.NodeIP = "1.2.3" }, "--node-ip"},
		{"label without value", func(o *Options) { o.NodeLabels = []string{"zone"} }, "--node-labels \"zone\": want key=value"},
		{"bad label key", func(o *Options) { o.NodeLabels = []string{"-bad=x"} }, "--node-labels"},
		{"taint without effect", func(o *Options) { o.RegisterWithTaints = []string{"k=v"} }, "want key=value:Effect"},
		{"bad taint effect", func(o *Options) { o.RegisterWithTaints = []string{"k=v:Sometimes"} }, "effect \"Sometimes\""},
		{"max pods", func(o *Options) { o.MaxPods = 0 }, "--max-pods"},
		{"port", func(o *Options) { o.Port = 70000 }, "--port"},
		{"log max size", func(o *Options) { o.ContainerLogMaxSize = "ten megs" }, "--container-log-max-size \"ten megs\""},
		{"log max size zero", func(o *Options) { o.ContainerLogMaxSize = "0" }, "--container-log-max-size"},
		{"log max files", func(o *Options) { o.ContainerLogMaxFiles = 1 }, "--container-log-max-files 1 must be at least 2"},
		{"a pod bridge of its own", func(o *Options) { o.PodBridge = "kubecore1" }, ""},
		{"pod bridge name too long", func(o *Options) { o.PodBridge = "kubecore-bridge-2" }, `--pod-bridge "kubecore-bridge-2"`},
		{"pod bridge name with a slash", func(o *Options) { o.PodBridge = "kc/1" }, `--pod-bridge "kc/1"`},
		{"json to the API server", func(o *Options) { o.ContentType = "application/json" }, ""},
		{"unknown content type", func(o *Options) { o.ContentType = "application/yaml" }, `--kube-api-content-type "application/yaml"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := NewOptions()
			o.Kubeconfig, o.RootDir, o.NodeName = "/some/kubeconfig", "/var/lib/kubecore", "node-1"
			tc.change(o)
			err := errors.Join(o.Validate()...)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Validate = %v, want an error about %s", err, tc.wantErr)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
		})
	}
}

func TestParseTaints(t *testing.T) {
	got, err := parseTaints([]string{"dedicated=gpu:NoSchedule", "spot:NoExecute"})
	if err != nil {
		t.Fatal(err)
	}
	want := []corev1.Taint{{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}, {Key: "spot", Effect: corev1.TaintEffectNoExecute}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("parseTaints = %+v, want %+v", got, want)
	}
}

func TestCompleteMissingKubeconfig(t *testing.T) {
	o := NewOptions()
	o.Kubeconfig, o.RootDir, o.NodeName = t.TempDir()+"/missing.kubeconfig", t.TempDir(), "n"
	if _, err := o.Complete(); err == nil || !strings.Contains(err.Error(), "missing.kubeconfig") {
		t.Fatalf("Complete = %v, want an error naming the file", err)
	}
}

func TestLoadConfigFileFlagsWin(t *testing.T) {
	path := t.TempDir() + "/kubelet.yaml"
	if err := os.WriteFile(path, []byte(`apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: 127.0.0.1
port: 11250
readOnlyPort: 10255
staticPodPath: /etc/kubecore/manifests
fileCheckFrequency: 2s
nodeStatusUpdateFrequency: 4s
nodeStatusReportFrequency: 2m
maxPods: 50
containerLogMaxSize: 1Mi
containerLogMaxFiles: 3
contentType: application/json
allowedUnsafeSysctls: ["kernel.msg*", "net.core.somaxconn"]
registerWithTaints:
- key: dedicated
  value: infra
  effect: NoSchedule
authentication:
  x509:
    clientCAFile: /pki/ca.crt
`), 0o644); err != nil {
		t.Fatal(err)
	}
	o := NewOptions()
	o.Port = 12345 // as if set with --port
	if err := o.LoadConfigFile(path, func(f string) bool { return f == "port" }); err != nil {
		t.Fatal(err)
	}
	if o.Port != 12345 || o.Address != "127.0.0.1" || o.ReadOnlyPort != 10255 || o.StaticPodPath != "/etc/kubecore/manifests" ||
		o.FileCheckFrequency != 2*time.Second || o.NodeStatusUpdateFrequency != 4*time.Second || o.NodeStatusReportFrequency != 2*time.Minute || o.MaxPods != 50 ||
		o.ClientCAFile != "/pki/ca.crt" || o.ContainerLogMaxSize != "1Mi" || o.ContainerLogMaxFiles != 3 || o.ContentType != "application/json" || len(o.RegisterWithTaints) != 1 || o.RegisterWithTaints[0] != "dedicated=infra:NoSchedule" ||
		strings.Join(o.AllowedUnsafeSysctls, ",") != "kernel.msg*,net.core.somaxconn" {
		t.Errorf("options after the config file: %+v", o)
	}
	if err := os.WriteFile(path, []byte("kind: Pod\napiVersion: v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := NewOptions().LoadConfigFile(path, func(string) bool { return false }); err == nil || !strings.Contains(err.Error(), "KubeletConfiguration") {
		t.Errorf("wrong kind: %v", err)
	}
}
