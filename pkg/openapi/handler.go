package openapi

import (
	"net/http"
	"strings"
	"sync"
)

// Handler serves the documents of a Spec under /openapi/v3: the index at
// /openapi/v3 and each group version at /openapi/v3/api/v1 or
// /openapi/v3/apis/<group>/<version>. It builds them on the first request,
// so that serving them costs nothing at start-up.
type Handler struct {
	spec Spec
	once sync.Once
	docs *Documents
	err  error
}

var _ http.Handler = (*Handler)(nil)

// NewHandler returns the handler of spec's documents.
func NewHandler(spec Spec) *Handler { return &Handler{spec: spec} }

// Documents builds (once) and returns the documents.
func (h *Handler) Documents() (*Documents, error) {
	h.once.Do(func() { h.docs, h.err = Build(h.spec) })
	return h.docs, h.err
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
	docs, err := h.Documents()
	if err != nil {
		http.Error(w, "build OpenAPI documents: "+err.Error(), http.StatusInternalServerError)
		return
	}
	key := strings.Trim(strings.TrimPrefix(r.URL.Path, "/openapi/v3"), "/")
	if key == "" {
		w.Header().Set("Cache-Control", cacheRevalidate)
		write(w, r, docs.Index)
		return
	}
	doc, ok := docs.GroupVersions[key]
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

func write(w http.ResponseWriter, r *http.Request, data []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(data)
	}
}
