package apiserver

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	apidiscoveryv2 "kubecore.io/api/apidiscovery/v2"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
)

// Aggregated discovery (apidiscovery.k8s.io/v2): /api and /apis answer an
// APIGroupDiscoveryList, every group version's resources in one document,
// when the first Accept entry the server can produce asks for it. The
// document is derived from the same APIResourceLists the legacy documents
// serve (ResourcesForDiscovery), built once per change of the served set
// and kept as bytes with their ETag.

// ContentTypeDiscoveryV2 is the media type of the aggregated discovery
// document, as clients ask for it and as it is answered.
const ContentTypeDiscoveryV2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

const discoveryListKind = "APIGroupDiscoveryList"

// AggregatedDiscoverySource is implemented by an Aggregator that lists its
// group versions in the aggregated discovery document.
type AggregatedDiscoverySource interface {
	// DiscoveryGeneration changes whenever DiscoveryGroups or APIGroups
	// would answer differently; read it before them.
	DiscoveryGeneration() uint64
	// DiscoveryGroups are the aggregated groups, in the order of /apis.
	DiscoveryGroups() []apidiscoveryv2.APIGroupDiscovery
}

// wantsAggregatedDiscovery reports whether the Accept header's most
// preferred entry the server can answer is the aggregated discovery
// document. Entries the server cannot produce (the protobuf form, the
// removed v2beta1, other kinds) are passed over, as Kubernetes 1.36 does;
// plain JSON, a wildcard, or nothing at all gets the legacy document.
func wantsAggregatedDiscovery(accept string) bool {
	type entry struct {
		mediaType string
		params    map[string]string
		q         float64
	}
	var entries []entry
	for part := range strings.SplitSeq(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		q := 1.0
		if v, ok := params["q"]; ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
		if q <= 0 {
			continue
		}
		entries = append(entries, entry{mediaType: mt, params: params, q: q})
	}
	slices.SortStableFunc(entries, func(a, b entry) int {
		switch {
		case a.q > b.q:
			return -1
		case a.q < b.q:
			return 1
		}
		return 0
	})
	for _, e := range entries {
		if e.params["as"] != "" || e.params["g"] != "" || e.params["v"] != "" {
			if e.mediaType == contentTypeJSON && e.params["g"] == apidiscoveryv2.GroupName &&
				e.params["v"] == apidiscoveryv2.SchemeGroupVersion.Version && e.params["as"] == discoveryListKind {
				return true
			}
			continue
		}
		switch e.mediaType {
		case contentTypeJSON, "*/*", "application/*", contentTypeYAML, "application/vnd.kubernetes.protobuf":
			return false
		}
	}
	return false
}

// ResourcesForDiscovery converts a group version's legacy resource list
// into the resources of its aggregated discovery entry: subresources
// ("pods/status") become entries of their parent's, which is made up
// when the list lacks it. Kinds keep the group and version the legacy
// entry gives (empty when they are the group version's).
func ResourcesForDiscovery(list []metav1.APIResource) []apidiscoveryv2.APIResourceDiscovery {
	out := make([]apidiscoveryv2.APIResourceDiscovery, 0, len(list))
	parents := map[string]int{}
	scope := func(namespaced bool) apidiscoveryv2.ResourceScope {
		if namespaced {
			return apidiscoveryv2.ScopeNamespace
		}
		return apidiscoveryv2.ScopeCluster
	}
	for _, r := range list {
		if strings.Contains(r.Name, "/") {
			continue
		}
		parents[r.Name] = len(out)
		out = append(out, apidiscoveryv2.APIResourceDiscovery{
			Resource:         r.Name,
			ResponseKind:     &metav1.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind},
			Scope:            scope(r.Namespaced),
			SingularResource: r.SingularName,
			Verbs:            nonNilVerbs(r.Verbs),
			ShortNames:       r.ShortNames,
			Categories:       r.Categories,
		})
	}
	for _, r := range list {
		parent, sub, ok := strings.Cut(r.Name, "/")
		if !ok {
			continue
		}
		i, ok := parents[parent]
		if !ok {
			i = len(out)
			parents[parent] = i
			out = append(out, apidiscoveryv2.APIResourceDiscovery{
				Resource: parent, Scope: scope(r.Namespaced), ResponseKind: &metav1.GroupVersionKind{}, Verbs: []string{},
			})
		}
		kind := &metav1.GroupVersionKind{}
		if r.Kind != "" {
			kind = &metav1.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
		}
		out[i].Subresources = append(out[i].Subresources, apidiscoveryv2.APISubresourceDiscovery{
			Subresource: sub, ResponseKind: kind, Verbs: nonNilVerbs(r.Verbs),
		})
	}
	return out
}

func nonNilVerbs(v metav1.Verbs) []string {
	if v == nil {
		return []string{}
	}
	return []string(v)
}

// versionDiscovery is the aggregated discovery entry of a served group
// version's resource list.
func versionDiscovery(list *metav1.APIResourceList) apidiscoveryv2.APIVersionDiscovery {
	gv, _ := schema.ParseGroupVersion(list.GroupVersion)
	return apidiscoveryv2.APIVersionDiscovery{
		Version:   gv.Version,
		Resources: ResourcesForDiscovery(list.APIResources),
		Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent,
	}
}

// encodedDiscovery is a discovery document ready to be written.
type encodedDiscovery struct {
	data []byte
	// etag is quoted, as it is sent.
	etag string
}

func encodeDiscoveryList(groups []apidiscoveryv2.APIGroupDiscovery) (encodedDiscovery, error) {
	if groups == nil {
		groups = []apidiscoveryv2.APIGroupDiscovery{}
	}
	doc := apidiscoveryv2.APIGroupDiscoveryList{
		TypeMeta: metav1.TypeMeta{Kind: discoveryListKind, APIVersion: apidiscoveryv2.SchemeGroupVersion.String()},
		Items:    groups,
	}
	data, err := json.Marshal(&doc)
	if err != nil {
		return encodedDiscovery{}, fmt.Errorf("encode the aggregated discovery document: %w", err)
	}
	sum := sha256.Sum256(data)
	return encodedDiscovery{data: append(data, '\n'), etag: strconv.Quote(strings.ToUpper(hex.EncodeToString(sum[:])))}, nil
}

// serve writes the document with its ETag, or 304 Not Modified when the
// client holds it already.
func (d encodedDiscovery) serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("ETag", d.etag)
	h.Set("Vary", "Accept")
	h.Set("Cache-Control", "public")
	if etagMatches(r.Header.Get("If-None-Match"), d.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", ContentTypeDiscoveryV2)
	h.Set("Content-Length", strconv.Itoa(len(d.data)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(d.data)
	}
}

// etagMatches reports whether an If-None-Match header names etag.
func etagMatches(header, etag string) bool {
	for tag := range strings.SplitSeq(header, ",") {
		tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
		if tag == etag || tag == "*" {
			return true
		}
	}
	return false
}

// discoveryDocs are the documents of /apis, rebuilt when the dynamic or
// aggregated groups change.
type discoveryDocs struct {
	legacy []byte
	v2     encodedDiscovery
}

// discoveryCache holds the last built discovery documents of /apis and the
// generations of the sets they were built from.
type discoveryCache struct {
	mu                    sync.Mutex
	built                 bool
	dynamicGen, aggregGen uint64
	docs                  *discoveryDocs
}

// apisDocuments returns the documents of /apis, building them when the
// served set changed since they were last built.
func (s *Server) apisDocuments() (*discoveryDocs, error) {
	dynGen := s.cfg.Dynamic.generation()
	src, cacheable := s.cfg.Aggregator.(AggregatedDiscoverySource)
	var aggGen uint64
	if cacheable {
		aggGen = src.DiscoveryGeneration()
	} else if s.cfg.Aggregator == nil {
		cacheable = true
	}
	c := &s.discovery
	c.mu.Lock()
	defer c.mu.Unlock()
	if cacheable && c.built && c.dynamicGen == dynGen && c.aggregGen == aggGen {
		return c.docs, nil
	}
	docs, err := s.buildAPIsDocuments(src)
	if err != nil {
		return nil, err
	}
	if cacheable {
		c.built, c.dynamicGen, c.aggregGen, c.docs = true, dynGen, aggGen, docs
	}
	return docs, nil
}

// buildAPIsDocuments builds the legacy and aggregated documents of /apis:
// the built-in groups, then the dynamic ones, then the aggregated ones.
func (s *Server) buildAPIsDocuments(src AggregatedDiscoverySource) (*discoveryDocs, error) {
	legacy := metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}, Groups: slices.Clip(s.static.apiGroups)}
	groups := slices.Clone(s.static.v2Groups)
	dynLegacy, dynV2 := s.cfg.Dynamic.discoveryGroups()
	legacy.Groups = append(legacy.Groups, dynLegacy...)
	groups = append(groups, dynV2...)
	if s.cfg.Aggregator != nil {
		legacy.Groups = append(legacy.Groups, s.cfg.Aggregator.APIGroups()...)
	}
	if src != nil {
		groups = append(groups, src.DiscoveryGroups()...)
	}
	data, err := json.Marshal(&legacy)
	if err != nil {
		return nil, fmt.Errorf("encode the API group list: %w", err)
	}
	v2, err := encodeDiscoveryList(groups)
	if err != nil {
		return nil, err
	}
	return &discoveryDocs{legacy: append(data, '\n'), v2: v2}, nil
}

// staticDiscovery is what discovery knows of the built-in groups, built
// once from their resource lists.
type staticDiscovery struct {
	// lists are the group versions' resource lists, in Config.Groups order.
	lists []*metav1.APIResourceList
	// apiGroups and v2Groups are the named groups' entries in /apis, by name.
	apiGroups []metav1.APIGroup
	v2Groups  []apidiscoveryv2.APIGroupDiscovery
	// core is the aggregated document of /api.
	core encodedDiscovery
}

// discoveryGroup is the aggregated entry of a group from its versions'
// resource lists, the preferred one first.
func discoveryGroup(name string, lists []*metav1.APIResourceList) apidiscoveryv2.APIGroupDiscovery {
	g := apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: name}}
	for _, l := range lists {
		g.Versions = append(g.Versions, versionDiscovery(l))
	}
	return g
}

// serveDiscovery answers a discovery root: the aggregated document when
// Accept asks for it, the legacy one otherwise.
func serveDiscovery(w http.ResponseWriter, r *http.Request, v2 func() (encodedDiscovery, error), legacy func(http.ResponseWriter, *http.Request)) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeJSON(w, http.StatusMethodNotAllowed, statusOf(methodNotAllowed()))
		return
	}
	if !wantsAggregatedDiscovery(r.Header.Get("Accept")) {
		w.Header().Set("Vary", "Accept")
		legacy(w, r)
		return
	}
	doc, err := v2()
	if err != nil {
		writeError(w, err)
		return
	}
	doc.serve(w, r)
}
