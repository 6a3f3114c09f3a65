package server

import (
	"context"
	"encoding/json"
	"net/http"

	"k8s.io/klog/v2"

	"kubecore.io/kubecore/pkg/kubelet/stats"
)

// SummaryProvider measures the node and its pods (*stats.Provider).
type SummaryProvider interface {
	// Summary returns what it could measure, with an error for the rest.
	Summary(ctx context.Context) (*stats.Summary, error)
}

var _ SummaryProvider = (*stats.Provider)(nil)

// serveSummary serves /stats/summary: the Summary JSON. Only a Summary
// that could not be made at all is an error (500); a partial one is
// served, its failure logged.
func (s *Server) serveSummary(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Stats == nil {
		httpError(w, http.StatusNotFound, "stats are not served by this kubelet")
		return
	}
	sum, err := s.cfg.Stats.Summary(r.Context())
	if err != nil {
		klog.FromContext(r.Context()).Error(err, "Partial stats summary")
	}
	if sum == nil {
		httpError(w, http.StatusInternalServerError, "stats summary: %v", err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(sum)
}

// serveResourceMetrics serves /metrics/resource; a failed measurement sets
// resource_scrape_error to 1 and leaves out what it could not measure.
func (s *Server) serveResourceMetrics(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Stats == nil {
		httpError(w, http.StatusNotFound, "resource metrics are not served by this kubelet")
		return
	}
	sum, err := s.cfg.Stats.Summary(r.Context())
	if err != nil {
		klog.FromContext(r.Context()).Error(err, "Partial resource metrics")
	}
	if sum == nil {
		sum = &stats.Summary{}
	}
	w.Header().Set("Content-Type", stats.ResourceMetricsContentType)
	if err := stats.WriteResourceMetrics(w, sum, err != nil); err != nil {
		klog.FromContext(r.Context()).V(4).Info("Writing resource metrics failed", "err", err)
	}
}
