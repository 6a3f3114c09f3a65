package apiserver

import (
	"net"
	"net/http"
	"sort"
	"strings"

	restful "github.com/emicklei/go-restful/v3"

	apidiscoveryv2 "kubecore.io/api/apidiscovery/v2"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/version"
)

// installDiscovery serves /api, /apis, /apis/<group>, each group version's
// resource list, and /version. /api and /apis answer the aggregated
// discovery document (apidiscovery.k8s.io/v2) to clients asking for it.
func (s *Server) installDiscovery() error {
	var legacyVersions []string
	var coreLists []*metav1.APIResourceList
	groups := map[string][]*metav1.APIResourceList{}
	var groupOrder []string
	for i, g := range s.cfg.Groups {
		gv, list := g.GroupVersion, s.static.lists[i]
		if gv.Group == "" {
			legacyVersions = append(legacyVersions, gv.Version)
			coreLists = append(coreLists, list)
			continue
		}
		if _, ok := groups[gv.Group]; !ok {
			groupOrder = append(groupOrder, gv.Group)
		}
		groups[gv.Group] = append(groups[gv.Group], list)
	}
	sort.Strings(groupOrder)

	var core []apidiscoveryv2.APIGroupDiscovery
	if len(coreLists) > 0 {
		core = append(core, discoveryGroup("", coreLists))
	}
	var err error
	if s.static.core, err = encodeDiscoveryList(core); err != nil {
		return err
	}
	s.container.Handle("/api", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		serveDiscovery(w, r, func() (encodedDiscovery, error) { return s.static.core, nil }, func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusOK, &metav1.APIVersions{
				TypeMeta: metav1.TypeMeta{Kind: "APIVersions"},
				Versions: legacyVersions,
				ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{
					{ClientCIDR: "0.0.0.0/0", ServerAddress: serverAddress(r)},
				},
			})
		})
	}))

	for _, name := range groupOrder {
		g := apiGroup(name, groupVersionsOf(groups[name]))
		s.static.apiGroups = append(s.static.apiGroups, g)
		s.static.v2Groups = append(s.static.v2Groups, discoveryGroup(name, groups[name]))
		g.TypeMeta = metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}
		s.container.Handle("/apis/"+name, staticJSON(&g))
	}
	if s.static.apiGroups == nil {
		s.static.apiGroups = []metav1.APIGroup{}
	}
	groupList := http.HandlerFunc(s.serveAPIs)
	s.container.Handle("/apis", groupList)
	s.container.Handle("/version", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, version.Get())
	}))
	for p, h := range s.cfg.Paths {
		s.container.Handle(p, h)
	}
	s.container.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.Path; p == "/api/" || p == "/apis/" || strings.HasPrefix(p, "/apis/") && strings.HasSuffix(p, "/") && strings.Count(p, "/") == 3 {
			// Kubernetes answers /api/, /apis/ and /apis/<group>/ as the
			// paths without the slash, whoever serves the group.
			r2 := r.Clone(r.Context())
			r2.URL.Path = strings.TrimSuffix(p, "/")
			s.container.ServeHTTP(w, r2)
			return
		}
		if r.URL.Path != "/" {
			// Paths no built-in route serves may be those of a dynamic
			// group (custom resources).
			if !s.cfg.Dynamic.serve(w, r) && (s.cfg.Aggregator == nil || !s.cfg.Aggregator.ServeAggregated(w, r)) {
				writeError(w, notFoundPath())
			}
			return
		}
		writeJSON(w, http.StatusOK, &metav1.RootPaths{Paths: s.rootPaths()})
	}))
	return nil
}

// groupVersionsOf lists the group versions of resource lists.
func groupVersionsOf(lists []*metav1.APIResourceList) []schema.GroupVersion {
	out := make([]schema.GroupVersion, 0, len(lists))
	for _, l := range lists {
		gv, _ := schema.ParseGroupVersion(l.GroupVersion)
		out = append(out, gv)
	}
	return out
}

func apiGroup(name string, versions []schema.GroupVersion) metav1.APIGroup {
	g := metav1.APIGroup{Name: name}
	for _, gv := range versions {
		g.Versions = append(g.Versions, metav1.GroupVersionForDiscovery{GroupVersion: gv.String(), Version: gv.Version})
	}
	g.PreferredVersion = g.Versions[0]
	return g
}

// serveAPIs answers /apis: the built-in groups, then those served
// dynamically, then the aggregated ones, in the legacy or the aggregated
// form.
func (s *Server) serveAPIs(w http.ResponseWriter, r *http.Request) {
	docs, err := s.apisDocuments()
	if err != nil {
		writeError(w, apierrors.NewInternalError(err))
		return
	}
	serveDiscovery(w, r, func() (encodedDiscovery, error) { return docs.v2, nil }, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentTypeJSON)
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			_, _ = w.Write(docs.legacy)
		}
	})
}

// rootPaths lists the paths the server serves, for GET /.
func (s *Server) rootPaths() []string {
	paths := []string{"/api", "/apis", "/healthz", "/livez", "/metrics", "/readyz", "/version"}
	for _, g := range s.cfg.Groups {
		paths = append(paths, groupPath(g.GroupVersion))
		if g.GroupVersion.Group != "" {
			paths = append(paths, "/apis/"+g.GroupVersion.Group)
		}
	}
	sort.Strings(paths)
	return paths
}

// serverAddress is the host:port the client reached.
func serverAddress(r *http.Request) string {
	if r.Host != "" {
		return r.Host
	}
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		return a.String()
	}
	return ""
}

// staticJSON serves v, marshalled once, to GET requests on exactly one path.
func staticJSON(v any) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			writeJSON(w, http.StatusMethodNotAllowed, statusOf(methodNotAllowed()))
			return
		}
		writeJSON(w, http.StatusOK, v)
	})
}

// resourceList is a group version's discovery document.
func resourceList(gv schema.GroupVersion, eps []*endpoint) *metav1.APIResourceList {
	resources := make([]metav1.APIResource, 0, len(eps))
	for _, e := range eps {
		resources = append(resources, e.apiResource())
	}
	return &metav1.APIResourceList{
		TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
		GroupVersion: gv.String(),
		APIResources: resources,
	}
}

// installResourceList serves the group version's discovery document at the
// web service's root.
func installResourceList(ws *restful.WebService, list *metav1.APIResourceList) {
	h := staticJSON(list)
	ws.Route(ws.GET("/").To(func(req *restful.Request, resp *restful.Response) {
		h.ServeHTTP(resp.ResponseWriter, req.Request)
	}))
}

func methodNotAllowed() error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Message: "the server does not allow this method on the requested resource",
		Reason: metav1.StatusReasonMethodNotAllowed, Code: http.StatusMethodNotAllowed, Details: &metav1.StatusDetails{},
	}}
}
