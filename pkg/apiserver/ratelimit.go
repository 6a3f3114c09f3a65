package apiserver

import (
	"math"
	"net/http"
	"slices"
	"sync"
	"time"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/auth/bootstrappolicy"
)

// Identities the per-user rate limit never applies to. An administrator
// must always be able to act on a cluster under load, and throttling the
// control plane's own components would harm the cluster the limit is
// there to protect: a kubelet whose lease renewals get 429 is marked
// NotReady and its pods are evicted; a controller-manager or scheduler
// held back stalls every workload. They stay bounded by their own client
// limits and by the in-flight limits. (Kubernetes' priority and fairness
// likewise gives system:masters an exempt level and these components
// levels of their own.)
var (
	rateLimitExemptGroups = []string{bootstrappolicy.MastersGroup, bootstrappolicy.NodesGroup}
	rateLimitExemptUsers  = []string{bootstrappolicy.ControllerManagerUser, bootstrappolicy.SchedulerUser}
)

// isMaster reports whether user is in system:masters.
func isMaster(user *apirequest.UserInfo) bool {
	return user != nil && slices.Contains(user.Groups, bootstrappolicy.MastersGroup)
}

// rateLimitExempt reports whether user's requests are never rate limited.
func rateLimitExempt(user *apirequest.UserInfo) bool {
	if slices.Contains(rateLimitExemptUsers, user.Name) {
		return true
	}
	return slices.ContainsFunc(user.Groups, func(g string) bool { return slices.Contains(rateLimitExemptGroups, g) })
}

// userRateLimiter keeps one token bucket per user: each holds up to burst
// tokens, refills at rate per second, and a request takes one. A bucket
// left alone long enough to fill up is the same as a new one, so full
// buckets are dropped at most every sweepInterval: the map only holds the
// users active lately.
type userRateLimiter struct {
	rate  float64
	burst float64
	now   func() time.Time

	mu        sync.Mutex
	buckets   map[string]*tokenBucket
	lastSweep time.Time
}

// sweepInterval is how often idle buckets are looked for.
const sweepInterval = time.Minute

type tokenBucket struct {
	tokens float64
	last   time.Time
}

func newUserRateLimiter(rate float64, burst int, now func() time.Time) *userRateLimiter {
	return &userRateLimiter{rate: rate, burst: float64(burst), now: now, buckets: map[string]*tokenBucket{}, lastSweep: now()}
}

// take takes a token of user's bucket; when there is none it returns
// false and how long until there is.
func (l *userRateLimiter) take(user string) (bool, time.Duration) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.lastSweep) >= sweepInterval {
		l.sweep(now)
	}
	b, ok := l.buckets[user]
	if !ok {
		b = &tokenBucket{tokens: l.burst, last: now}
		l.buckets[user] = b
	}
	l.refill(b, now)
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	return false, time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
}

// refill adds the tokens earned since b was last seen.
func (l *userRateLimiter) refill(b *tokenBucket, now time.Time) {
	if elapsed := now.Sub(b.last); elapsed > 0 {
		b.tokens = min(l.burst, b.tokens+elapsed.Seconds()*l.rate)
		b.last = now
	}
}

// sweep drops the buckets that have filled up again.
func (l *userRateLimiter) sweep(now time.Time) {
	for user, b := range l.buckets {
		if l.refill(b, now); b.tokens >= l.burst {
			delete(l.buckets, user)
		}
	}
	l.lastSweep = now
}

// size is the number of buckets held.
func (l *userRateLimiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}

// withUserRateLimit refuses a user's requests beyond its bucket with 429
// TooManyRequests and a Retry-After of whole seconds until its next
// token. It runs after authentication and before impersonation, so that
// the user who sends the requests pays for them.
func (s *Server) withUserRateLimit(h http.Handler) http.Handler {
	if s.cfg.MaxRequestsPerUserPerSecond <= 0 {
		return h
	}
	l := newUserRateLimiter(s.cfg.MaxRequestsPerUserPerSecond, s.cfg.MaxRequestsPerUserBurst, time.Now)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, ok := apirequest.UserFrom(r.Context())
		if !ok || rateLimitExempt(user) || isPublicPath(r.URL.Path) {
			h.ServeHTTP(w, r)
			return
		}
		if ok, wait := l.take(user.Name); !ok {
			writeError(w, apierrors.NewTooManyRequests("Too many requests, please try again later.", max(1, int(math.Ceil(wait.Seconds())))))
			return
		}
		h.ServeHTTP(w, r)
	})
}
