package openapi

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
)

// Handler serves the documents of a Spec: under /openapi/v3 the index at
// /openapi/v3 and each group version at /openapi/v3/api/v1 or
// /openapi/v3/apis/<group>/<version>, and the Swagger 2.0 document at
// /openapi/v2. It builds them on the first request, so that serving them
// costs nothing at start-up.
type Handler struct {
	spec Spec
	once sync.Once
	docs *Documents
	err  error

	// v2 is the Swagger document of the spec and the custom group
	// versions, built on demand: nil after a custom group version changed.
	v2Mu sync.Mutex
	v2   *SwaggerDocument

	// custom are the documents of the group versions set while serving
	// (custom resources), by groupPath, and customGroups what they were
	// built from.
	mu           sync.RWMutex
	custom       map[string]Document
	customGroups map[string]GroupVersion
}

// SetGroupVersion builds and serves the document of g, replacing the one
// it had; the index lists it from now on.
func (h *Handler) SetGroupVersion(g GroupVersion) error {
	doc, err := BuildGroupVersion(h.spec.Scheme, g)
	if err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.custom == nil {
		h.custom, h.customGroups = map[string]Document{}, map[string]GroupVersion{}
	}
	h.custom[groupPath(g.GroupVersion)] = doc
	h.customGroups[groupPath(g.GroupVersion)] = g
	h.invalidateV2()
	return nil
}

// invalidateV2 drops the Swagger document: the next request builds it
// again with the custom group versions of the moment.
func (h *Handler) invalidateV2() {
	h.v2Mu.Lock()
	h.v2 = nil
	h.v2Mu.Unlock()
}

// SetDocument serves data, the OpenAPI v3 document of a group version
// another server serves (an aggregated one), at key
// ("apis/<group>/<version>"); the index lists it from now on, and
// RemoveGroupVersion removes it.
func (h *Handler) SetDocument(key string, data []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.custom == nil {
		h.custom = map[string]Document{}
	}
	h.custom[key] = Document{JSON: data, Hash: hashOf(data)}
}

// RemoveGroupVersion stops serving the document SetGroupVersion set.
func (h *Handler) RemoveGroupVersion(gv schema.GroupVersion) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.custom, groupPath(gv))
	delete(h.customGroups, groupPath(gv))
	h.invalidateV2()
}

// lookup returns the document at key, a custom one first.
func (h *Handler) lookup(docs *Documents, key string) (Document, bool) {
	h.mu.RLock()
	doc, ok := h.custom[key]
	h.mu.RUnlock()
	if ok {
		return doc, true
	}
	doc, ok = docs.GroupVersions[key]
	return doc, ok
}

// index returns the index of the static and custom documents.
func (h *Handler) index(docs *Documents) ([]byte, error) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if len(h.custom) == 0 {
		return docs.Index, nil
	}
	return indexJSON(docs.GroupVersions, h.custom)
}

var _ http.Handler = (*Handler)(nil)

// NewHandler returns the handler of spec's documents.
func NewHandler(spec Spec) *Handler { return &Handler{spec: spec} }

// Documents builds (once) and returns the documents.
func (h *Handler) Documents() (*Documents, error) {
	h.once.Do(func() { h.docs, h.err = Build(h.spec) })
	return h.docs, h.err
}

// SwaggerDocument returns the Swagger 2.0 document of the spec and the
// custom group versions served now (Kubernetes publishes custom resources
// there too: kubectl explain and older clients read it). It is built on
// the first request after a change.
func (h *Handler) SwaggerDocument() (*SwaggerDocument, error) {
	h.v2Mu.Lock()
	defer h.v2Mu.Unlock()
	if h.v2 != nil {
		return h.v2, nil
	}
	spec := h.spec
	h.mu.RLock()
	if len(h.customGroups) > 0 {
		spec.Groups = slices.Clone(spec.Groups)
		for _, k := range slices.Sorted(maps.Keys(h.customGroups)) {
			spec.Groups = append(spec.Groups, h.customGroups[k])
		}
	}
	h.mu.RUnlock()
	doc, err := BuildV2(spec)
	if err != nil {
		return nil, err
	}
	h.v2 = doc
	return doc, nil
}

// The cache headers of hashed (immutable) and unhashed document URLs.
const (
	cacheImmutable  = "public, immutable, max-age=31536000"
	cacheRevalidate = "no-cache, private"
)

// ServeHTTP serves the index or one group version's document, with its
// hash as ETag. A URL carrying the current ?hash= is cached for good; an
// outdated hash is redirected to the current one.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if r.URL.Path == "/openapi/v2" {
		h.serveV2(w, r)
		return
	}
	docs, err := h.Documents()
	if err != nil {
		http.Error(w, "build OpenAPI documents: "+err.Error(), http.StatusInternalServerError)
		return
	}
	key := strings.Trim(strings.TrimPrefix(r.URL.Path, "/openapi/v3"), "/")
	if key == "" {
		index, err := h.index(docs)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Cache-Control", cacheRevalidate)
		write(w, r, index)
		return
	}
	doc, ok := h.lookup(docs, key)
	if !ok {
		http.NotFound(w, r)
		return
	}
	etag := `"` + doc.Hash + `"`
	w.Header().Set("ETag", etag)
	switch hash := r.URL.Query().Get("hash"); {
	case hash == doc.Hash:
		w.Header().Set("Cache-Control", cacheImmutable)
	case hash != "":
		w.Header().Set("Cache-Control", cacheRevalidate)
		http.Redirect(w, r, "/openapi/v3/"+key+"?hash="+doc.Hash, http.StatusMovedPermanently)
		return
	default:
		w.Header().Set("Cache-Control", cacheRevalidate)
	}
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	write(w, r, doc.JSON)
}

// serveV2 serves the Swagger 2.0 document as JSON or, when the Accept
// header prefers it, as protobuf; any other media type is 406.
func (h *Handler) serveV2(w http.ResponseWriter, r *http.Request) {
	mediaType, ok := negotiateV2(r.Header.Get("Accept"))
	if !ok {
		notAcceptable(w, "application/json", mimeSwaggerProto, mimeSwaggerProtoLegacy)
		return
	}
	doc, err := h.SwaggerDocument()
	if err != nil {
		http.Error(w, "build OpenAPI v2 document: "+err.Error(), http.StatusInternalServerError)
		return
	}
	data, hash, contentType := doc.JSON, doc.JSONHash, "application/json"
	if mediaType != "application/json" {
		// The protobuf media types have an "@" that Go's (and so
		// client-go's) media type parser rejects in a Content-Type.
		data, hash, contentType = doc.Proto, doc.ProtoHash, "application/octet-stream"
	}
	etag := `"` + hash + `"`
	w.Header().Set("ETag", etag)
	w.Header().Set("Vary", "Accept")
	w.Header().Set("Cache-Control", cacheRevalidate)
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	writeAs(w, r, contentType, data)
}

// negotiateV2 picks the encoding of /openapi/v2 for an Accept header: the
// media type to answer with, application/json or a protobuf one, and
// false when none is acceptable. Media ranges are tried by decreasing
// quality, in order for equal ones; no header means JSON.
func negotiateV2(accept string) (string, bool) {
	if strings.TrimSpace(accept) == "" {
		return "application/json", true
	}
	type mediaRange struct {
		typ string
		q   float64
	}
	var ranges []mediaRange
	for part := range strings.SplitSeq(accept, ",") {
		typ, params, _ := strings.Cut(part, ";")
		mr := mediaRange{typ: strings.ToLower(strings.TrimSpace(typ)), q: 1}
		for p := range strings.SplitSeq(params, ";") {
			k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
			if strings.TrimSpace(k) == "q" {
				if q, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
					mr.q = q
				}
			}
		}
		if mr.q > 0 {
			ranges = append(ranges, mr)
		}
	}
	sort.SliceStable(ranges, func(i, j int) bool { return ranges[i].q > ranges[j].q })
	for _, mr := range ranges {
		switch mr.typ {
		case mimeSwaggerProto, mimeSwaggerProtoLegacy:
			return mr.typ, true
		case "application/json", "application/*", "*/*":
			return "application/json", true
		}
	}
	return "", false
}

// notAcceptable answers 406 with a Status naming the media types served.
func notAcceptable(w http.ResponseWriter, served ...string) {
	st := metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure,
		Message:  "only the following media types are accepted: " + strings.Join(served, ", "),
		Reason:   metav1.StatusReasonNotAcceptable,
		Code:     http.StatusNotAcceptable,
	}
	data, err := json.Marshal(&st)
	if err != nil {
		http.Error(w, st.Message, http.StatusNotAcceptable)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotAcceptable)
	_, _ = w.Write(data)
}

func write(w http.ResponseWriter, r *http.Request, data []byte) {
	writeAs(w, r, "application/json", data)
}

func writeAs(w http.ResponseWriter, r *http.Request, contentType string, data []byte) {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(data)
	}
}
