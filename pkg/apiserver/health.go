package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"k8s.io/klog/v2"
)

// installHealth serves /healthz, /livez and /readyz, each with per-check
// paths (/readyz/etcd) and ?verbose detail. /readyz fails once shutdown
// starts; /livez checks only that the process serves.
func (s *Server) installHealth() {
	ping := HealthCheck{Name: "ping", Check: func(context.Context) error { return nil }}
	shutdown := HealthCheck{Name: "shutdown", Check: func(context.Context) error {
		if s.shuttingDown.Load() {
			return errors.New("the server is shutting down")
		}
		return nil
	}}
	ready := append([]HealthCheck{ping}, s.cfg.ReadyChecks...)
	if s.flow != nil {
		// As Kubernetes' post-start hook: not ready until priority and
		// fairness has its configuration.
		ready = append(ready, HealthCheck{Name: "poststarthook/priority-and-fairness-config-consumer", Check: func(context.Context) error {
			if !s.flow.Configured() {
				return errors.New("the priority and fairness configuration is not loaded yet")
			}
			return nil
		}})
	}
	s.installChecks("healthz", ready)
	s.installChecks("livez", []HealthCheck{ping})
	s.installChecks("readyz", append(ready, shutdown))
}

func (s *Server) installChecks(name string, checks []HealthCheck) {
	s.container.Handle("/"+name, healthHandler(name, checks))
	for _, c := range checks {
		s.container.Handle("/"+name+"/"+c.Name, healthHandler(name, []HealthCheck{c}))
	}
}

// healthHandler runs checks and answers "ok", or 500 listing the failures
// (every check with ?verbose).
func healthHandler(name string, checks []HealthCheck) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		_, verbose := r.URL.Query()["verbose"]
		var b strings.Builder
		failed := false
		for _, c := range checks {
			if err := c.Check(ctx); err != nil {
				failed = true
				fmt.Fprintf(&b, "[-]%s failed: reason withheld\n", c.Name)
				klog.V(2).InfoS("Health check failed", "endpoint", name, "check", c.Name, "err", err)
				continue
			}
			fmt.Fprintf(&b, "[+]%s ok\n", c.Name)
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if failed {
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintf(w, "%s%s check failed\n", b.String(), name)
			return
		}
		if verbose {
			fmt.Fprintf(w, "%s%s check passed\n", b.String(), name)
			return
		}
		_, _ = w.Write([]byte("ok"))
	})
}
