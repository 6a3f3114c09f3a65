package kubectl

import (
	"strings"
	"testing"
	"time"

	"kubecore.io/kubecore/test/e2e/framework"
)

func TestGetWatch(t *testing.T) {
	t.Parallel()
	ns := getNamespace(t)
	for _, mode := range [][]string{
		{"-w"},
		{"--watch-only"},
		{"-w", "--output-watch-events"},
		{"-w", "-o", "name"},
	} {
		t.Run(strings.Join(mode, " "), func(t *testing.T) {
			args := append([]string{"get", "cm", "-n", ns}, mode...)
			runs := []*framework.Background{suite.kubectl(stock).Start(t, args...), suite.kubectl(bundled).Start(t, args...)}
			time.Sleep(time.Second)
			name := "watched-" + strings.NewReplacer("-", "", " ", "").Replace(strings.Join(mode, ""))
			suite.mustRun(t, "", "create", "configmap", name, "-n", ns)
			suite.mustRun(t, "", "label", "configmap", name, "-n", ns, "seen=yes")
			suite.mustRun(t, "", "delete", "configmap", name, "-n", ns)
			time.Sleep(time.Second)
			runs[0].Stop()
			runs[1].Stop()
			want, got := runs[0].Stdout()+runs[0].Stderr(), runs[1].Stdout()+runs[1].Stderr()
			if d := diffLines(mask(want, nil), mask(got, nil)); d != "" {
				t.Errorf("kubectl %s differs:\n%s\nstock:\n%s\nbundled:\n%s", strings.Join(args, " "), d, want, got)
			}
			if !strings.Contains(got, name) {
				t.Errorf("the watch did not show %s:\n%s", name, got)
			}
		})
	}
}
