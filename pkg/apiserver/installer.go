package apiserver

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	restful "github.com/emicklei/go-restful/v3"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// endpoint is one installed resource or subresource.
type endpoint struct {
	s           *Server
	gv          schema.GroupVersion
	resource    string
	subresource string
	namespaced  bool
	storage     rest.Storage
	// kind is the kind of the objects this endpoint reads and writes.
	kind schema.GroupVersionKind
	// table renders Table responses (the main resource's Lister).
	table tableConvertor
	verbs []string
	// custom decodes request bodies of a kind the scheme does not know (a
	// custom resource's); nil for built-in kinds.
	custom runtime.Decoder
}

func (e *endpoint) groupResource() schema.GroupResource {
	return schema.GroupResource{Group: e.gv.Group, Resource: e.resource}
}

// groupPath is the root of a group version: /api/v1 or /apis/<g>/<v>.
func groupPath(gv schema.GroupVersion) string {
	if gv.Group == "" {
		return "/api/" + gv.Version
	}
	return "/apis/" + gv.Group + "/" + gv.Version
}

// installAPI adds one web service per group version with every resource's
// routes.
func (s *Server) installAPI() error {
	for _, g := range s.cfg.Groups {
		ws := new(restful.WebService)
		ws.Path(groupPath(g.GroupVersion)).Produces("*/*")
		eps, err := s.endpoints(g)
		if err != nil {
			return err
		}
		for _, e := range eps {
			e.install(ws)
		}
		list := resourceList(g.GroupVersion, eps)
		installResourceList(ws, list)
		s.static.lists = append(s.static.lists, list)
		s.container.Add(ws)
	}
	return nil
}

// endpoints resolves the storages of a group version, main resources first.
func (s *Server) endpoints(g APIGroupInfo) ([]*endpoint, error) {
	paths := make([]string, 0, len(g.Storage))
	for p := range g.Storage {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var out []*endpoint
	for _, p := range paths {
		st := g.Storage[p]
		resource, sub, _ := strings.Cut(p, "/")
		parent := st
		if sub != "" {
			var ok bool
			if parent, ok = g.Storage[resource]; !ok {
				return nil, fmt.Errorf("subresource %s of %s has no parent resource", p, g.GroupVersion)
			}
		}
		e := &endpoint{s: s, gv: g.GroupVersion, resource: resource, subresource: sub, storage: st}
		if sc, ok := parent.(rest.Scoper); ok {
			e.namespaced = sc.NamespaceScoped()
		}
		if kp, ok := st.(rest.KindProvider); ok {
			e.kind = kp.GroupVersionKind(g.GroupVersion)
		} else {
			gvk, err := s.cfg.Scheme.ObjectKind(st.New())
			if err != nil {
				return nil, fmt.Errorf("resource %s of %s: %w", p, g.GroupVersion, err)
			}
			e.kind = gvk
		}
		if tc, ok := parent.(tableConvertor); ok {
			e.table = tc
		}
		if d, ok := st.(runtime.Decoder); ok {
			e.custom = d
		}
		e.verbs = verbsOf(st, sub != "")
		out = append(out, e)
	}
	return out, nil
}

// verbsOf lists the Kubernetes verbs a storage serves, in discovery's order.
func verbsOf(st rest.Storage, isSub bool) []string {
	var verbs []string
	add := func(ok bool, v ...string) {
		if ok {
			verbs = append(verbs, v...)
		}
	}
	_, creater := st.(rest.Creater)
	_, named := st.(rest.NamedCreater)
	_, deleter := st.(rest.GracefulDeleter)
	_, collDeleter := st.(rest.CollectionDeleter)
	_, getter := st.(rest.Getter)
	_, lister := st.(rest.Lister)
	_, updater := st.(rest.Updater)
	_, watcher := st.(rest.Watcher)
	// A connecter's HTTP methods are its verbs.
	connect := map[string]bool{}
	if c, ok := st.(rest.Connecter); ok {
		for _, m := range c.ConnectMethods() {
			connect[m] = true
		}
	}
	getter = getter || connect[http.MethodGet]
	add(creater || (isSub && named) || connect[http.MethodPost], "create")
	add((deleter && !isSub) || connect[http.MethodDelete], "delete")
	add(collDeleter && !isSub, "deletecollection")
	add(getter, "get")
	add(lister && !isSub, "list")
	add(updater || connect[http.MethodPatch], "patch")
	add(updater || connect[http.MethodPut], "update")
	add(watcher && !isSub, "watch")
	return verbs
}

// route is one method on one path of an endpoint, relative to its group
// version's root; "{namespace}" and "{name}" stand for one segment each.
type route struct {
	method  string
	path    string
	handler func(w http.ResponseWriter, r *http.Request, ns, name string)
	// subpath: the path ends in {path:*}, put in the request's context.
	subpath bool
}

// install adds the endpoint's routes to ws.
func (e *endpoint) install(ws *restful.WebService) {
	for _, rt := range e.routes() {
		ws.Route(ws.Method(rt.method).Path(rt.path).To(func(req *restful.Request, resp *restful.Response) {
			r := req.Request
			if rt.subpath {
				sub := req.PathParameter("path")
				if strings.HasSuffix(r.URL.Path, "/") && !strings.HasSuffix(sub, "/") {
					sub += "/" // go-restful drops it; the backend may care
				}
				r = r.WithContext(apirequest.WithSubpath(r.Context(), sub))
			}
			rt.handler(resp.ResponseWriter, r, req.PathParameter("namespace"), req.PathParameter("name"))
		}))
	}
}

// routes are the endpoint's routes: those of the verbs its storage serves.
func (e *endpoint) routes() []route {
	prefix := ""
	if e.namespaced {
		prefix = "/namespaces/{namespace}"
	}
	collection := prefix + "/" + e.resource
	item := collection + "/{name}"
	st := e.storage
	var out []route
	add := func(method, path string, h func(w http.ResponseWriter, r *http.Request, ns, name string)) {
		out = append(out, route{method: method, path: path, handler: h})
	}
	if e.subresource != "" {
		sub := item + "/" + e.subresource
		if c, ok := st.(rest.Connecter); ok {
			sc, ok := st.(rest.SubpathConnecter)
			subpaths := ok && sc.ServesSubpaths()
			for _, m := range c.ConnectMethods() {
				add(m, sub, e.connect)
				if subpaths {
					out = append(out, route{method: m, path: sub + "/{path:*}", handler: e.connect, subpath: true})
				}
			}
			return out
		}
		if _, ok := st.(rest.Getter); ok {
			add(http.MethodGet, sub, e.get)
		}
		if _, ok := st.(rest.Updater); ok {
			add(http.MethodPut, sub, e.update)
			add(http.MethodPatch, sub, e.patch)
		}
		_, named := st.(rest.NamedCreater)
		_, creater := st.(rest.Creater)
		if named || creater {
			add(http.MethodPost, sub, e.create)
		}
		return out
	}
	_, lister := st.(rest.Lister)
	_, watcher := st.(rest.Watcher)
	if lister || watcher {
		add(http.MethodGet, collection, e.list)
		if e.namespaced {
			add(http.MethodGet, "/"+e.resource, e.list)
		}
	}
	if _, ok := st.(rest.Creater); ok {
		add(http.MethodPost, collection, e.create)
	}
	if _, ok := st.(rest.CollectionDeleter); ok {
		add(http.MethodDelete, collection, e.deleteCollection)
	}
	if _, ok := st.(rest.Getter); ok {
		add(http.MethodGet, item, e.get)
	}
	if _, ok := st.(rest.Updater); ok {
		add(http.MethodPut, item, e.update)
		add(http.MethodPatch, item, e.patch)
	}
	if _, ok := st.(rest.GracefulDeleter); ok {
		add(http.MethodDelete, item, e.delete)
	}
	return out
}

// apiResource is the endpoint's discovery entry.
func (e *endpoint) apiResource() metav1.APIResource {
	name := e.resource
	if e.subresource != "" {
		name += "/" + e.subresource
	}
	r := metav1.APIResource{
		Name:       name,
		Namespaced: e.namespaced,
		Kind:       e.kind.Kind,
		Verbs:      metav1.Verbs(e.verbs),
	}
	if r.Verbs == nil {
		r.Verbs = metav1.Verbs{}
	}
	if e.kind.GroupVersion() != e.gv {
		r.Group, r.Version = e.kind.Group, e.kind.Version
	}
	if e.subresource == "" {
		if p, ok := e.storage.(rest.SingularNameProvider); ok {
			r.SingularName = p.GetSingularName()
		} else {
			r.SingularName = strings.ToLower(e.kind.Kind)
		}
		if p, ok := e.storage.(rest.ShortNamesProvider); ok {
			r.ShortNames = p.ShortNames()
		}
		if p, ok := e.storage.(rest.CategoriesProvider); ok {
			r.Categories = p.Categories()
		}
	}
	return r
}
