package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// printEtcd prints what the embedded etcd member did while the pods were
// created, from its metrics on the API server's /metrics: how many raft
// proposals it committed and applied, how often and how long its WAL was
// fsynced and its backend committed, how long applies took, and the most
// proposals pending at one sample. It answers which stage bounds its write
// rate.
func printEtcd(before, after map[string]float64, window time.Duration, maxPending float64) {
	d := func(name string, matches ...string) float64 { return deltaSum(before, after, name, matches...) }
	committed := d("etcd_server_proposals_committed_total")
	if committed == 0 {
		return // not an embedded member: no etcd metrics
	}
	secs := window.Seconds()
	fmt.Printf("\netcd (the embedded member) over the %.0f s of the pods:\n", secs)
	if gated := d("kubecore_etcd_writes_total{"); gated > 0 {
		fmt.Printf("  writes the API server sent through its write gate %.0f (%.0f /s)\n", gated, gated/secs)
	}
	if n := d("kubecore_etcd_write_duration_seconds_count"); n > 0 {
		fmt.Printf("  a write held its gate slot (sent to etcd until answered) %.1f ms on average\n", d("kubecore_etcd_write_duration_seconds_sum")/n*1000)
	}
	fmt.Printf("  proposals committed %.0f (%.0f /s), applied %.0f, failed %.0f; pending at most %.0f at a 10 s sample\n",
		committed, committed/secs, d("etcd_server_proposals_applied_total"), d("etcd_server_proposals_failed_total"), maxPending)
	mean := func(name string) (n, busy, avg float64) {
		n, busy = d(name+"_count"), d(name+"_sum")
		if n > 0 {
			avg = busy / n
		}
		return n, busy, avg
	}
	for _, h := range []struct{ name, what string }{
		{"etcd_disk_wal_fsync_duration_seconds", "WAL fsyncs"},
		{"etcd_disk_wal_write_duration_seconds", "WAL writes"},
		{"etcd_disk_backend_commit_duration_seconds", "backend commits"},
		{"etcd_server_apply_duration_seconds", "applies"},
	} {
		n, busy, avg := mean(h.name)
		if n == 0 {
			continue
		}
		fmt.Printf("  %-16s %8.0f (%6.1f /s), mean %6.2f ms, busy %5.1f%% of the time, %.1f proposals each\n",
			h.what, n, n/secs, avg*1000, busy/secs*100, committed/n)
	}
	if b := d("etcd_disk_wal_write_bytes_total"); b > 0 {
		fmt.Printf("  WAL bytes written %.1f MiB (%.1f KiB per proposal)\n", b/(1<<20), b/1024/committed)
	}
	if n := d("etcd_server_slow_apply_total"); n > 0 {
		fmt.Printf("  slow applies (over 100 ms): %.0f\n", n)
	}
}

// cpuProfile saves a 20 s CPU profile of the API server taken 20 s after
// the Deployments were created, while the pods are being made.
func (b *bench) cpuProfile(ctx context.Context, dir string) {
	if err := sleep(ctx, 20*time.Second); err != nil {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Printf("bench-scale: CPU profile: %v\n", err)
		return
	}
	file := filepath.Join(dir, "apiserver.cpu")
	if err := b.fetch("/debug/pprof/profile?seconds=20", file); err != nil {
		fmt.Printf("bench-scale: CPU profile: %v\n", err)
		return
	}
	fmt.Printf("CPU profile of the API server during the pods in %s\n", file)
}
