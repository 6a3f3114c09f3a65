package apiserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	apidiscoveryv2 "kubecore.io/api/apidiscovery/v2"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/registry/rest"
)

func TestWantsAggregatedDiscovery(t *testing.T) {
	for _, tc := range []struct {
		accept string
		want   bool
	}{
		{"", false},
		{"application/json", false},
		{"*/*", false},
		{ContentTypeDiscoveryV2, true},
		// client-go's order, and kubectl's with the peer profile first.
		{ContentTypeDiscoveryV2 + ",application/json", true},
		{ContentTypeDiscoveryV2 + ";profile=nopeer," + ContentTypeDiscoveryV2 + ",application/json", true},
		// Parameters in another order, spaces.
		{"application/json; as=APIGroupDiscoveryList; v=v2; g=apidiscovery.k8s.io", true},
		// v2beta1 is removed in Kubernetes 1.36: the next entry wins.
		{"application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json", false},
		{"application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList," + ContentTypeDiscoveryV2, true},
		// The protobuf form is not produced: passed over.
		{"application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList," + ContentTypeDiscoveryV2, true},
		// Preference by q.
		{"application/json;q=0.9," + ContentTypeDiscoveryV2, true},
		{ContentTypeDiscoveryV2 + ";q=0.5,application/json", false},
		{"application/json;as=Table;v=v1;g=meta.k8s.io", false},
	} {
		if got := wantsAggregatedDiscovery(tc.accept); got != tc.want {
			t.Errorf("Accept %q: aggregated %v, want %v", tc.accept, got, tc.want)
		}
	}
}

func TestResourcesForDiscovery(t *testing.T) {
	list := []metav1.APIResource{
		{Name: "deployments", SingularName: "deployment", Namespaced: true, Kind: "Deployment", Verbs: metav1.Verbs{"get", "list"}, ShortNames: []string{"deploy"}, Categories: []string{"all"}},
		{Name: "deployments/scale", Namespaced: true, Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: metav1.Verbs{"get", "patch", "update"}},
		{Name: "deployments/status", Namespaced: true, Kind: "Deployment", Verbs: metav1.Verbs{"get", "patch", "update"}},
		{Name: "nodes/proxy", Kind: "NodeProxyOptions", Verbs: metav1.Verbs{"get"}},
		{Name: "bindings", Namespaced: true, Kind: "Binding"},
	}
	want := []apidiscoveryv2.APIResourceDiscovery{
		{
			Resource: "deployments", ResponseKind: &metav1.GroupVersionKind{Kind: "Deployment"}, Scope: apidiscoveryv2.ScopeNamespace,
			SingularResource: "deployment", Verbs: []string{"get", "list"}, ShortNames: []string{"deploy"}, Categories: []string{"all"},
			Subresources: []apidiscoveryv2.APISubresourceDiscovery{
				{Subresource: "scale", ResponseKind: &metav1.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}, Verbs: []string{"get", "patch", "update"}},
				{Subresource: "status", ResponseKind: &metav1.GroupVersionKind{Kind: "Deployment"}, Verbs: []string{"get", "patch", "update"}},
			},
		},
		{Resource: "bindings", ResponseKind: &metav1.GroupVersionKind{Kind: "Binding"}, Scope: apidiscoveryv2.ScopeNamespace, Verbs: []string{}},
		// A subresource without its resource gets a parent of no kind.
		{
			Resource: "nodes", ResponseKind: &metav1.GroupVersionKind{}, Scope: apidiscoveryv2.ScopeCluster, Verbs: []string{},
			Subresources: []apidiscoveryv2.APISubresourceDiscovery{
				{Subresource: "proxy", ResponseKind: &metav1.GroupVersionKind{Kind: "NodeProxyOptions"}, Verbs: []string{"get"}},
			},
		},
	}
	if got := ResourcesForDiscovery(list); !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Errorf("got  %s\nwant %s", g, w)
	}
}

// getDiscovery GETs path asking for the aggregated document.
func getDiscovery(t *testing.T, url, path, ifNoneMatch string) (*http.Response, apidiscoveryv2.APIGroupDiscoveryList) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Test-User", "admin")
	req.Header.Set("Accept", ContentTypeDiscoveryV2+",application/json")
	if ifNoneMatch != "" {
		req.Header.Set("If-None-Match", ifNoneMatch)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var doc apidiscoveryv2.APIGroupDiscoveryList
	if resp.StatusCode == http.StatusOK {
		if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
			t.Fatal(err)
		}
	}
	return resp, doc
}

func findVersion(doc apidiscoveryv2.APIGroupDiscoveryList, group, version string) *apidiscoveryv2.APIVersionDiscovery {
	for _, g := range doc.Items {
		if g.Name != group {
			continue
		}
		for i := range g.Versions {
			if g.Versions[i].Version == version {
				return &g.Versions[i]
			}
		}
	}
	return nil
}

func TestAggregatedDiscoveryDocument(t *testing.T) {
	dynamic := NewDynamicGroups()
	ts, st := newTestServer(t, func(c *Config) {
		c.Groups[0].Storage["widgets/status"] = c.Groups[0].Storage["widgets"]
		c.Groups = append(c.Groups, APIGroupInfo{GroupVersion: schema.GroupVersion{Version: "v1"}, Storage: map[string]rest.Storage{}})
		c.Dynamic = dynamic
	})

	resp, doc := getDiscovery(t, ts.URL, "/apis", "")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /apis: %d", resp.StatusCode)
	}
	if ct := resp.Header.Get("Content-Type"); ct != ContentTypeDiscoveryV2 {
		t.Errorf("Content-Type %q, want %q", ct, ContentTypeDiscoveryV2)
	}
	if v := resp.Header.Get("Vary"); v != "Accept" {
		t.Errorf("Vary %q, want Accept", v)
	}
	etag := resp.Header.Get("ETag")
	if len(etag) < 3 || etag[0] != '"' {
		t.Errorf("ETag %q is not a quoted tag", etag)
	}
	if doc.Kind != "APIGroupDiscoveryList" || doc.APIVersion != "apidiscovery.k8s.io/v2" {
		t.Errorf("document is a %s %s", doc.APIVersion, doc.Kind)
	}
	v := findVersion(doc, testGV.Group, testGV.Version)
	if v == nil || len(v.Resources) != 1 {
		t.Fatalf("no widgets in %+v", doc)
	}
	want := apidiscoveryv2.APIResourceDiscovery{
		Resource: "widgets", ResponseKind: &metav1.GroupVersionKind{Kind: "Widget"}, Scope: apidiscoveryv2.ScopeNamespace,
		SingularResource: "widget", Verbs: []string{"create", "delete", "get", "list", "patch", "update", "watch"},
		ShortNames: []string{"wd"}, Categories: []string{"all"},
		Subresources: []apidiscoveryv2.APISubresourceDiscovery{
			{Subresource: "status", ResponseKind: &metav1.GroupVersionKind{Kind: "Widget"}, Verbs: []string{"create", "get", "patch", "update"}},
		},
	}
	if v.Freshness != apidiscoveryv2.DiscoveryFreshnessCurrent || !reflect.DeepEqual(v.Resources[0], want) {
		g, _ := json.Marshal(v)
		t.Errorf("widgets entry %s", g)
	}
	// The core group is in /api only.
	if findVersion(doc, "", "v1") != nil {
		t.Errorf("/apis lists the core group")
	}
	resp, core := getDiscovery(t, ts.URL, "/api", "")
	if resp.StatusCode != http.StatusOK || findVersion(core, "", "v1") == nil || len(core.Items) != 1 {
		t.Errorf("/api: %d %+v", resp.StatusCode, core)
	}

	// The client holding the document is told it has not changed.
	resp, _ = getDiscovery(t, ts.URL, "/apis", etag)
	if resp.StatusCode != http.StatusNotModified || resp.Header.Get("ETag") != etag {
		t.Errorf("If-None-Match the ETag: %d %q, want 304 %q", resp.StatusCode, resp.Header.Get("ETag"), etag)
	}
	resp, _ = getDiscovery(t, ts.URL, "/apis", `"other"`)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("If-None-Match another tag: %d, want 200", resp.StatusCode)
	}

	// A dynamic group appears with full kinds, and the ETag changes; it
	// goes when removed, and the first ETag is current again.
	dgv := schema.GroupVersion{Group: "dyn.example.com", Version: "v1"}
	if err := dynamic.Set(APIGroupInfo{GroupVersion: dgv, Storage: map[string]rest.Storage{"widgets": st}}); err != nil {
		t.Fatal(err)
	}
	resp, doc = getDiscovery(t, ts.URL, "/apis", etag)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") == etag {
		t.Fatalf("after a dynamic group: %d, ETag %q (was %q)", resp.StatusCode, resp.Header.Get("ETag"), etag)
	}
	dv := findVersion(doc, dgv.Group, dgv.Version)
	if dv == nil || len(dv.Resources) != 1 || dv.Resources[0].ResponseKind.Group == "" {
		t.Errorf("dynamic group entry %+v", dv)
	}
	dynamic.Remove(dgv)
	resp, doc = getDiscovery(t, ts.URL, "/apis", "")
	if findVersion(doc, dgv.Group, dgv.Version) != nil || resp.Header.Get("ETag") != etag {
		t.Errorf("after removing the dynamic group: ETag %q, want %q; %+v", resp.Header.Get("ETag"), etag, doc)
	}
}

// TestDiscoveryDocumentsAgree checks that the legacy documents and the
// aggregated one list the same groups, versions and resources.
func TestDiscoveryDocumentsAgree(t *testing.T) {
	ts, _ := newTestServer(t, func(c *Config) {
		c.Groups[0].Storage["widgets/status"] = c.Groups[0].Storage["widgets"]
		c.Groups = append(c.Groups, APIGroupInfo{GroupVersion: schema.GroupVersion{Group: "test.kubecore.io", Version: "v1beta1"}, Storage: map[string]rest.Storage{"widgets": newMemStore()}})
	})
	_, doc := getDiscovery(t, ts.URL, "/apis", "")
	_, body := do(t, ts, call{method: "GET", path: "/apis", accept: "application/json"})
	var groups metav1.APIGroupList
	if err := json.Unmarshal([]byte(body), &groups); err != nil {
		t.Fatal(err)
	}
	if len(groups.Groups) != len(doc.Items) {
		t.Fatalf("legacy lists %d groups, aggregated %d", len(groups.Groups), len(doc.Items))
	}
	for i, g := range groups.Groups {
		a := doc.Items[i]
		if a.Name != g.Name || len(a.Versions) != len(g.Versions) || a.Versions[0].Version != g.PreferredVersion.Version {
			t.Errorf("group %d: legacy %+v, aggregated %+v", i, g, a)
			continue
		}
		for j, v := range g.Versions {
			_, body := do(t, ts, call{method: "GET", path: "/apis/" + v.GroupVersion, accept: "application/json"})
			var list metav1.APIResourceList
			if err := json.Unmarshal([]byte(body), &list); err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, r := range a.Versions[j].Resources {
				names = append(names, r.Resource)
				for _, s := range r.Subresources {
					names = append(names, r.Resource+"/"+s.Subresource)
				}
			}
			var legacy []string
			for _, r := range list.APIResources {
				legacy = append(legacy, r.Name)
			}
			if !reflect.DeepEqual(names, legacy) {
				t.Errorf("%s: aggregated %v, legacy %v", v.GroupVersion, names, legacy)
			}
		}
	}
}

// BenchmarkAggregatedDiscovery measures a GET of /apis in the aggregated
// form while the served set does not change (the cached bytes are
// written) against one after each change of a dynamic group (the
// document is rebuilt; the figure includes the Set), with 30 group
// versions of 4 resources each, through the whole filter chain. Target:
// serving the cached document costs a small fraction of a rebuild.
func BenchmarkAggregatedDiscovery(b *testing.B) {
	dynamic := NewDynamicGroups()
	cfg := Config{Scheme: newTestScheme(), Authenticator: headerAuth{}, Dynamic: dynamic}
	for i := range 30 {
		st := newMemStore()
		cfg.Groups = append(cfg.Groups, APIGroupInfo{
			GroupVersion: schema.GroupVersion{Group: fmt.Sprintf("g%02d.example.com", i), Version: "v1"},
			Storage:      map[string]rest.Storage{"widgets": st, "widgets/status": st, "gadgets": st, "gizmos": st},
		})
	}
	cc, err := cfg.Complete()
	if err != nil {
		b.Fatal(err)
	}
	s, err := New(cc)
	if err != nil {
		b.Fatal(err)
	}
	get := func() int {
		req := httptest.NewRequest(http.MethodGet, "/apis", nil)
		req.Header.Set("X-Test-User", "admin")
		req.Header.Set("Accept", ContentTypeDiscoveryV2)
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("GET /apis: %d", rec.Code)
		}
		return rec.Body.Len()
	}
	dgv := schema.GroupVersion{Group: "dyn.example.com", Version: "v1"}
	b.Run("cached", func(b *testing.B) {
		size := get()
		for b.Loop() {
			get()
		}
		b.ReportMetric(float64(size), "bytes/doc")
	})
	b.Run("rebuilt", func(b *testing.B) {
		st := newMemStore()
		for b.Loop() {
			if err := dynamic.Set(APIGroupInfo{GroupVersion: dgv, Storage: map[string]rest.Storage{"widgets": st}}); err != nil {
				b.Fatal(err)
			}
			get()
		}
	})
}
