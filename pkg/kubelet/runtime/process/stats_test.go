package process

import (
	"testing"
	"time"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

func TestParseUsage(t *testing.T) {
	// A stat line whose command holds spaces and a parenthesis.
	line := "4242 (my (odd) cmd) R 1 4000 4000 0 -1 4194560 100 0 0 0 150 50 7 3 20 0 1 0 12345 1000000 300 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0"
	pgid, ticks, rss, ok := parseUsage(line)
	if !ok || pgid != 4000 || ticks != 150+50+7+3 || rss != 300 {
		t.Errorf("parseUsage = %d, %d, %d, %v; want 4000, 210, 300, true", pgid, ticks, rss, ok)
	}
	if _, _, _, ok := parseUsage("4242 (x) R 1"); ok {
		t.Error("parseUsage accepted a short line")
	}
}

// TestListContainerStatsMeasuresProcessGroup burns CPU in a container's
// child processes and checks that the container's CPU time grows and its
// working set is that of live processes.
func TestListContainerStatsMeasuresProcessGroup(t *testing.T) {
	r := newRuntime(t, Options{})
	defer r.Close()
	// A busy loop in a subshell: a child of the group leader.
	id := start(t, r, t.TempDir(), "(while :; do :; done) & wait")
	var first kruntime.ContainerStats
	deadline := time.Now().Add(30 * time.Second)
	for {
		stats, err := r.ListContainerStats(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(stats) != 1 || stats[0].ID != id {
			t.Fatalf("ListContainerStats = %+v, want one entry for %s", stats, id)
		}
		s := stats[0]
		if s.MemoryWorkingSetBytes == 0 {
			// Read while the container's wrappers (setpriv, sh) exec
			// each other, its one process can have no pages yet.
			if time.Now().After(deadline) {
				t.Fatalf("working set of a running container is 0: %+v", s)
			}
			time.Sleep(10 * time.Millisecond)
			continue
		}
		if first.Timestamp.IsZero() {
			first = s
		} else if s.CPUUsageCoreNanoSeconds > first.CPUUsageCoreNanoSeconds {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("CPU time of a busy container did not grow: %+v then %+v", first, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := r.StopContainer(t.Context(), id, time.Second); err != nil {
		t.Fatal(err)
	}
	stats, err := r.ListContainerStats(t.Context())
	if err != nil || len(stats) != 0 {
		t.Errorf("ListContainerStats after stop = %+v, %v; want none", stats, err)
	}
}
