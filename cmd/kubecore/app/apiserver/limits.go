package apiserver

import (
	"errors"
	"fmt"
	"math"

	"github.com/spf13/pflag"

	"kubecore.io/kubecore/pkg/apiserver"
)

// LimitOptions are the API server's request limits and its audit log,
// flags of both `kubecore apiserver` and `kubecore all-in-one`.
type LimitOptions struct {
	MaxRequestsInFlight         int
	MaxMutatingRequestsInFlight int
	// MaxRequestsPerUserPerSecond is each user's request rate, 0 for no
	// limit; MaxRequestsPerUserBurst how many it may send at once (0:
	// twice the rate).
	MaxRequestsPerUserPerSecond float64
	MaxRequestsPerUserBurst     int
	// AuditLogPath is where audit events go ("-": standard output; empty:
	// no audit log), rotated at AuditLogMaxSize MiB keeping
	// AuditLogMaxBackup old files.
	AuditLogPath      string
	AuditLogMaxSize   int
	AuditLogMaxBackup int
}

// NewLimitOptions returns Kubernetes' defaults: 400 read-only and 200
// mutating requests in flight, no per-user rate limit, no audit log.
func NewLimitOptions() LimitOptions {
	return LimitOptions{
		MaxRequestsInFlight:         apiserver.DefaultMaxRequestsInFlight,
		MaxMutatingRequestsInFlight: apiserver.DefaultMaxMutatingRequestsInFlight,
	}
}

// AddFlags adds the limit and audit flags to fs.
func (o *LimitOptions) AddFlags(fs *pflag.FlagSet) {
	fs.IntVar(&o.MaxRequestsInFlight, "max-requests-inflight", o.MaxRequestsInFlight,
		"Read-only requests served at once; with --max-mutating-requests-inflight, summed, the seats API priority and fairness shares among its priority levels (exempt levels, watches, logs and exec take none)")
	fs.IntVar(&o.MaxMutatingRequestsInFlight, "max-mutating-requests-inflight", o.MaxMutatingRequestsInFlight,
		"Mutating requests served at once; summed with --max-requests-inflight into the seats of API priority and fairness")
	fs.Float64Var(&o.MaxRequestsPerUserPerSecond, "max-requests-per-user-per-second", o.MaxRequestsPerUserPerSecond,
		"Requests each user may send per second on average, 0 for no limit; more get 429 TooManyRequests with Retry-After. "+
			"system:masters, nodes (system:nodes), the scheduler and the controller-manager are not limited")
	fs.IntVar(&o.MaxRequestsPerUserBurst, "max-requests-per-user-burst", o.MaxRequestsPerUserBurst,
		"Requests a user may send at once, the size of its token bucket (default: twice the per-second rate)")
	fs.StringVar(&o.AuditLogPath, "audit-log-path", o.AuditLogPath,
		"File the audit log (audit.k8s.io/v1 Events, one JSON line each, Metadata level) is appended to; '-' is standard output; empty: no audit log")
	fs.IntVar(&o.AuditLogMaxSize, "audit-log-maxsize", o.AuditLogMaxSize,
		"Size in MiB at which the audit log file is rotated to FILE-TIME.EXT beside it; 0 never rotates it")
	fs.IntVar(&o.AuditLogMaxBackup, "audit-log-maxbackup", o.AuditLogMaxBackup,
		"Rotated audit log files to keep, the newest; 0 keeps them all")
}

// Validate returns every problem with the options.
func (o *LimitOptions) Validate() []error {
	var errs []error
	if o.MaxRequestsInFlight <= 0 {
		errs = append(errs, fmt.Errorf("--max-requests-inflight %d: must be positive", o.MaxRequestsInFlight))
	}
	if o.MaxMutatingRequestsInFlight <= 0 {
		errs = append(errs, fmt.Errorf("--max-mutating-requests-inflight %d: must be positive", o.MaxMutatingRequestsInFlight))
	}
	if r := o.MaxRequestsPerUserPerSecond; r < 0 || math.IsNaN(r) || math.IsInf(r, 0) {
		errs = append(errs, fmt.Errorf("--max-requests-per-user-per-second %g: must be a number, 0 or more", r))
	}
	if o.MaxRequestsPerUserBurst < 0 {
		errs = append(errs, fmt.Errorf("--max-requests-per-user-burst %d: must not be negative", o.MaxRequestsPerUserBurst))
	}
	if o.MaxRequestsPerUserBurst > 0 && o.MaxRequestsPerUserPerSecond == 0 {
		errs = append(errs, errors.New("--max-requests-per-user-burst needs --max-requests-per-user-per-second"))
	}
	if o.AuditLogMaxSize < 0 || o.AuditLogMaxBackup < 0 {
		errs = append(errs, fmt.Errorf("--audit-log-maxsize %d, --audit-log-maxbackup %d: must not be negative", o.AuditLogMaxSize, o.AuditLogMaxBackup))
	}
	if o.AuditLogPath == "" && (o.AuditLogMaxSize > 0 || o.AuditLogMaxBackup > 0) {
		errs = append(errs, errors.New("--audit-log-maxsize and --audit-log-maxbackup need --audit-log-path"))
	}
	return errs
}

// apply sets the limits in cfg and opens the audit log, which the caller
// closes (flushing it) once the server has stopped; nil without one.
func (o *LimitOptions) apply(cfg *apiserver.Config) (*apiserver.AuditLog, error) {
	cfg.MaxRequestsInFlight = o.MaxRequestsInFlight
	cfg.MaxMutatingRequestsInFlight = o.MaxMutatingRequestsInFlight
	cfg.MaxRequestsPerUserPerSecond = o.MaxRequestsPerUserPerSecond
	cfg.MaxRequestsPerUserBurst = o.MaxRequestsPerUserBurst
	if o.AuditLogPath == "" {
		return nil, nil
	}
	log, err := apiserver.NewAuditLog(apiserver.AuditLogOptions{Path: o.AuditLogPath, MaxSizeMiB: o.AuditLogMaxSize, MaxBackups: o.AuditLogMaxBackup})
	if err != nil {
		return nil, fmt.Errorf("--audit-log-path: %w", err)
	}
	cfg.Audit = log
	return log, nil
}
