package etcd

import (
	"context"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/klog/v2"
)

// minStartDefragBytes is the smallest database file defragmented at start:
// below it, the space to win is not worth the wait.
const minStartDefragBytes = 16 << 20

// Sizes are the member's database file size and the part of it in use;
// the rest is free pages that only a defragmentation returns.
func (s *Server) Sizes() (size, inUse int64) {
	be := s.etcd.Server.Backend()
	return be.Size(), be.SizeInUse()
}

// Defragment rewrites the member's database file without its free pages,
// blocking its reads and writes meanwhile, and returns the file size
// before and after.
func (s *Server) Defragment(ctx context.Context) (before, after int64, err error) {
	before, _ = s.Sizes()
	if err := ctx.Err(); err != nil {
		return before, before, err
	}
	// What etcd's Defragment RPC does; the in-process client's
	// maintenance server cannot serve it.
	if err := s.etcd.Server.Backend().Defrag(); err != nil {
		return before, before, fmt.Errorf("etcd: defragment %s: %w", s.cfg.DataDir, err)
	}
	after, _ = s.Sizes()
	return before, after, nil
}

// defragmentIfSparse defragments the member when more than half of a
// database file of at least minStartDefragBytes is free, as a start is the
// cheapest moment for the pause it costs.
func (s *Server) defragmentIfSparse(ctx context.Context) {
	size, inUse := s.Sizes()
	if size < minStartDefragBytes || inUse > size/2 {
		return
	}
	klog.InfoS("Defragmenting the etcd database: more than half of it is free", "dataDir", s.cfg.DataDir, "sizeBytes", size, "inUseBytes", inUse)
	before, after, err := s.Defragment(ctx)
	if err != nil {
		// The member serves anyway, only with a larger file.
		klog.ErrorS(err, "Defragmenting the etcd database at start")
		return
	}
	klog.InfoS("Defragmented the etcd database", "dataDir", s.cfg.DataDir, "beforeBytes", before, "afterBytes", after)
}

// Collectors are the member's database sizes under etcd's own metric names
// (etcd_mvcc_db_total_size_in_bytes, etcd_mvcc_db_total_size_in_use_in_bytes),
// for the /metrics of the apiserver it is embedded in.
func (s *Server) Collectors() []prometheus.Collector {
	return []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "etcd_mvcc_db_total_size_in_bytes",
			Help: "Bytes the embedded member's database file takes on disk, free pages included.",
		}, func() float64 { size, _ := s.Sizes(); return float64(size) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "etcd_mvcc_db_total_size_in_use_in_bytes",
			Help: "Bytes of the embedded member's database file holding data; the rest is free pages a defragmentation returns.",
		}, func() float64 { _, inUse := s.Sizes(); return float64(inUse) }),
	}
}
