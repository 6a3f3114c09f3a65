package server

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	authorizationv1 "kubecore.io/api/authorization/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
	"kubecore.io/kubecore/pkg/kubelet/stats"
)

type summaryFunc func(ctx context.Context) (*stats.Summary, error)

func (f summaryFunc) Summary(ctx context.Context) (*stats.Summary, error) { return f(ctx) }

// reviews answers SubjectAccessReviews from a set of "user verb
// subresource" grants and records what was asked.
type reviews struct {
	grants map[string]bool
	asked  []authorizationv1.ResourceAttributes
	fail   bool
}

func (r *reviews) Create(_ context.Context, sar *authorizationv1.SubjectAccessReview, _ metav1.CreateOptions) (*authorizationv1.SubjectAccessReview, error) {
	if r.fail {
		return nil, errors.New("apiserver down")
	}
	ra := *sar.Spec.ResourceAttributes
	r.asked = append(r.asked, ra)
	out := sar.DeepCopy()
	out.Status.Allowed = r.grants[sar.Spec.User+" "+ra.Verb+" "+ra.Subresource] && slices.Contains(sar.Spec.Groups, "system:authenticated")
	return out, nil
}

type noHost struct{}

func (noHost) Pods() []*corev1.Pod { return nil }
func (noHost) Container(context.Context, string, string, string, bool) (*kruntime.ContainerStatus, error) {
	return nil, kruntime.ErrNotFound
}
func (noHost) Runtime() kruntime.Runtime { return nil }
func (noHost) Sandbox(context.Context, string, string) (*kruntime.PodSandboxStatus, error) {
	return nil, kruntime.ErrNotFound
}

func request(method, path, user string) *http.Request {
	r := httptest.NewRequest(method, path, nil)
	r.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{{Subject: pkix.Name{CommonName: user, Organization: []string{"g"}}}}}
	return r
}

func TestStatsRoutesAndAuthorization(t *testing.T) {
	one := uint64(1500)
	sum := &stats.Summary{Node: stats.NodeStats{NodeName: "n1", Memory: &stats.MemoryStats{WorkingSetBytes: &one}}, Pods: []stats.PodStats{}}
	var partial error
	rv := &reviews{grants: map[string]bool{"ms get metrics": true, "ms get stats": true, "admin get proxy": true}}
	s := &Server{cfg: Config{Host: noHost{}, NodeName: "n1", Authorizer: SubjectAccessReviewAuthorizer{Reviews: rv},
		Stats: summaryFunc(func(context.Context) (*stats.Summary, error) { return sum, partial })}}
	h := s.Handler()

	for _, tc := range []struct {
		name, method, path, user string
		code                     int
		subresource, body        string
	}{
		{"summary", "GET", "/stats/summary", "ms", 200, "stats", `"nodeName":"n1"`},
		{"resource metrics", "GET", "/metrics/resource", "ms", 200, "metrics", "node_memory_working_set_bytes 1500"},
		{"metrics-server may not read pods", "GET", "/pods", "ms", 403, "proxy", "Forbidden (user=ms, verb=get, resource=nodes, subresource=proxy)"},
		{"stats need nodes/stats", "GET", "/stats/summary", "admin", 403, "stats", "subresource=stats"},
		{"exec is create on nodes/proxy", "POST", "/exec/ns/p/c", "ms", 403, "proxy", "verb=create"},
		{"healthz is proxy", "GET", "/healthz", "admin", 200, "proxy", "ok"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rv.asked = nil
			w := httptest.NewRecorder()
			h.ServeHTTP(w, request(tc.method, tc.path, tc.user))
			if w.Code != tc.code || !strings.Contains(w.Body.String(), tc.body) {
				t.Errorf("%s %s as %s = %d %q, want %d with %q", tc.method, tc.path, tc.user, w.Code, w.Body.String(), tc.code, tc.body)
			}
			if len(rv.asked) != 1 || rv.asked[0].Subresource != tc.subresource || rv.asked[0].Resource != "nodes" || rv.asked[0].Name != "n1" {
				t.Errorf("asked %+v, want one review of nodes/%s n1", rv.asked, tc.subresource)
			}
		})
	}

	t.Run("summary JSON", func(t *testing.T) {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, request("GET", "/stats/summary", "ms"))
		var got stats.Summary
		if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || got.Node.NodeName != "n1" || w.Header().Get("Content-Type") != "application/json" {
			t.Errorf("summary = %+v, %v, %s", got, err, w.Header().Get("Content-Type"))
		}
	})
	t.Run("partial measurement sets resource_scrape_error", func(t *testing.T) {
		partial = errors.New("runtime down")
		defer func() { partial = nil }()
		w := httptest.NewRecorder()
		h.ServeHTTP(w, request("GET", "/metrics/resource", "ms"))
		if w.Code != 200 || !strings.Contains(w.Body.String(), "\nresource_scrape_error 1\n") || w.Header().Get("Content-Type") != stats.ResourceMetricsContentType {
			t.Errorf("got %d %s %q", w.Code, w.Header().Get("Content-Type"), w.Body.String())
		}
	})
	t.Run("authorizer down is 500", func(t *testing.T) {
		rv.fail = true
		defer func() { rv.fail = false }()
		w := httptest.NewRecorder()
		h.ServeHTTP(w, request("GET", "/stats/summary", "ms"))
		if w.Code != 500 || !strings.Contains(w.Body.String(), "apiserver down") {
			t.Errorf("got %d %q", w.Code, w.Body.String())
		}
	})
	t.Run("no authorizer, no stats", func(t *testing.T) {
		s := &Server{cfg: Config{Host: noHost{}}}
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, request("GET", "/metrics/resource", "x"))
		if w.Code != 404 {
			t.Errorf("got %d %q, want 404", w.Code, w.Body.String())
		}
	})
}
