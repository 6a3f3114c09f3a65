package perf

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/test/e2e/framework"

	"kubecore.io/kubecore/test/figure"
)

// BenchmarkCLI times the bundled CLI against the stock kubectl in the same
// run, on the same server: `get pods` over 5,000 pods, and `apply -f` of a
// directory of 200 objects (created, then unchanged).
func BenchmarkCLI(b *testing.B) {
	ctx := context.Background()
	work := b.TempDir()
	s, err := framework.NewAPIServer(work+"/data", work)
	if err != nil {
		b.Fatal(err)
	}
	s.LogLevel = 0
	if err := s.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := s.Stop(); err != nil {
			b.Error(err)
		}
	}()
	bin, err := framework.Binary()
	if err != nil {
		b.Fatal(err)
	}
	cs := clientset(b, s)
	for _, ns := range []string{"bench", "apply-stock", "apply-bundled"} {
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	createPods(ctx, b, cs, "bench", "p", 5000, 16)

	dir := filepath.Join(work, "manifests")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	for i := range 200 {
		m := fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-%03d\ndata:\n  key: value-%d\n", i, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("cm-%03d.yaml", i)), []byte(m), 0o644); err != nil {
			b.Fatal(err)
		}
	}

	clis := []struct {
		name string
		k    *framework.Kubectl
	}{
		{"stock kubectl", s.CLI(framework.KubectlPath)},
		{"kubecore kubectl", s.CLI(bin, "kubectl")},
	}
	run := func(k *framework.Kubectl, args ...string) time.Duration {
		t0 := time.Now()
		r := k.Run(b, args...)
		d := time.Since(t0)
		if r.ExitCode != 0 {
			b.Fatalf("%s: %s", strings.Join(args, " "), r.String())
		}
		return d
	}
	best := func(k *framework.Kubectl, args ...string) time.Duration {
		var m time.Duration
		for i := range 3 {
			if d := run(k, args...); i == 0 || d < m {
				m = d
			}
		}
		return m
	}
	figures := map[string][3]time.Duration{}
	for _, c := range clis {
		run(c.k, "get", "ns") // discovery cache warm
		ns := "apply-stock"
		if c.name == "kubecore kubectl" {
			ns = "apply-bundled"
		}
		get := best(c.k, "get", "pods", "-n", "bench")
		created := run(c.k, "apply", "-n", ns, "-f", dir)
		unchanged := run(c.k, "apply", "-n", ns, "-f", dir)
		figures[c.name] = [3]time.Duration{get, created, unchanged}
	}
	stock, bundled := figures["stock kubectl"], figures["kubecore kubectl"]
	for i, what := range []string{"get pods over 5,000 pods (best of 3)", "apply -f of 200 objects, created", "apply -f of 200 objects, unchanged"} {
		figure.Print("stock kubectl: "+what, figure.Milliseconds(stock[i]), "ms", "the reference", true)
		figure.Print("kubecore kubectl: "+what, figure.Milliseconds(bundled[i]), "ms", "faster than stock", bundled[i] < stock[i])
	}
}
