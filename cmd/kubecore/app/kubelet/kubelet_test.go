package kubelet

import (
	"strings"
	"testing"

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
		{"unknown runtime", func(o *Options) { o.Runtime = "docker" }, `--runtime "docker"`},
		{"cri not yet", func(o *Options) { o.Runtime = "cri" }, "--runtime cri is not implemented yet"},
		{"bad node ip", func(o *Options) { o.NodeIP = "1.2.3" }, "--node-ip"},
		{"label without value", func(o *Options) { o.NodeLabels = []string{"zone"} }, "--node-labels \"zone\": want key=value"},
		{"bad label key", func(o *Options) { o.NodeLabels = []string{"-bad=x"} }, "--node-labels"},
		{"taint without effect", func(o *Options) { o.RegisterWithTaints = []string{"k=v"} }, "want key=value:Effect"},
		{"bad taint effect", func(o *Options) { o.RegisterWithTaints = []string{"k=v:Sometimes"} }, "effect \"Sometimes\""},
		{"max pods", func(o *Options) { o.MaxPods = 0 }, "--max-pods"},
		{"port", func(o *Options) { o.Port = 70000 }, "--port"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := NewOptions()
			o.Kubeconfig, o.RootDir, o.NodeName = "/some/kubeconfig", "/var/lib/kubecore", "node-1"
			tc.change(o)
			err := o.Validate()
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
