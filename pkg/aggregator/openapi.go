package aggregator

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"k8s.io/klog/v2"

	apiregistrationv1 "kubecore.io/api/apiregistration/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/apiserver"
)

var _ apiserver.OpenAPIBinder = (*Aggregator)(nil)

// maxOpenAPIBytes bounds an aggregated server's OpenAPI document.
const maxOpenAPIBytes = 32 << 20

// BindOpenAPI implements apiserver.OpenAPIBinder: the OpenAPI v3
// documents of the available aggregated group versions are fetched from
// their servers and served in docs.
func (a *Aggregator) BindOpenAPI(docs apiserver.OpenAPIDocuments) {
	a.openapiMu.Lock()
	defer a.openapiMu.Unlock()
	a.openapi = docs
}

func openAPIKey(gv schema.GroupVersion) string { return "apis/" + gv.Group + "/" + gv.Version }

// refreshOpenAPI serves the OpenAPI document of s's group version when s
// is available and its server has one, and stops serving it otherwise.
func (a *Aggregator) refreshOpenAPI(ctx context.Context, s *apiregistrationv1.APIService, available bool) {
	gv := groupVersion(s)
	if !available {
		a.removeOpenAPI(gv)
		return
	}
	a.openapiMu.Lock()
	docs := a.openapi
	a.openapiMu.Unlock()
	if docs == nil {
		return
	}
	data, err := a.fetchOpenAPI(ctx, s)
	if err != nil {
		klog.FromContext(ctx).V(2).Info("No OpenAPI v3 document from an aggregated server", "apiService", s.Name, "err", err)
		a.removeOpenAPI(gv)
		return
	}
	a.openapiMu.Lock()
	defer a.openapiMu.Unlock()
	docs.SetDocument(openAPIKey(gv), data)
	a.openapiServed[gv] = true
}

// removeOpenAPI stops serving the document of gv, if the aggregator set it.
func (a *Aggregator) removeOpenAPI(gv schema.GroupVersion) {
	a.openapiMu.Lock()
	defer a.openapiMu.Unlock()
	if a.openapi != nil && a.openapiServed[gv] {
		a.openapi.RemoveGroupVersion(gv)
		delete(a.openapiServed, gv)
	}
}

// fetchOpenAPI reads the server's /openapi/v3 index and the document it
// lists for s's group version.
func (a *Aggregator) fetchOpenAPI(ctx context.Context, s *apiregistrationv1.APIService) ([]byte, error) {
	key := openAPIKey(groupVersion(s))
	index, err := a.get(ctx, s, "/openapi/v3")
	if err != nil {
		return nil, err
	}
	var idx struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(index, &idx); err != nil {
		return nil, fmt.Errorf("decode the OpenAPI v3 index: %w", err)
	}
	entry, ok := idx.Paths[key]
	if !ok || entry.ServerRelativeURL == "" {
		return nil, fmt.Errorf("the OpenAPI v3 index lists no %s", key)
	}
	data, err := a.get(ctx, s, entry.ServerRelativeURL)
	if err != nil {
		return nil, err
	}
	if !json.Valid(data) {
		return nil, fmt.Errorf("the OpenAPI v3 document of %s is not JSON", key)
	}
	return data, nil
}

// get GETs the server-relative URL ref from s's server as the aggregator.
func (a *Aggregator) get(ctx context.Context, s *apiregistrationv1.APIService, ref string) ([]byte, error) {
	data, _, err := a.getAccept(ctx, s, ref, "application/json")
	return data, err
}

// getAccept GETs ref from s's server as the aggregator, accepting the
// media types of accept; it returns the body and its Content-Type.
func (a *Aggregator) getAccept(ctx context.Context, s *apiregistrationv1.APIService, ref, accept string) ([]byte, string, error) {
	loc, err := a.resolver.Locate(ctx, clientConfig(s))
	if err != nil {
		return nil, "", err
	}
	rel, err := url.Parse(ref)
	if err != nil || rel.IsAbs() || !strings.HasPrefix(rel.Path, "/") {
		return nil, "", fmt.Errorf("bad server-relative URL %q", ref)
	}
	u := *loc.URL
	u.Path, u.RawQuery = rel.Path, rel.RawQuery
	transport, err := a.cfg.Clients.Transport(loc)
	if err != nil {
		return nil, "", err
	}
	ctx, cancel := context.WithTimeout(ctx, discoveryTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, "", err
	}
	req.Header.Set("Accept", accept)
	setIdentity(req.Header, &apirequest.UserInfo{Name: checkUser, Groups: []string{checkGroup}})
	resp, err := transport.RoundTrip(req)
	if err != nil {
		return nil, "", err
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxOpenAPIBytes))
	if err != nil {
		return nil, "", err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, "", fmt.Errorf("GET %s: %d", u.String(), resp.StatusCode)
	}
	return data, resp.Header.Get("Content-Type"), nil
}
