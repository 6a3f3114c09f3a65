package apiserver

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"

	"k8s.io/klog/v2"

	apidiscoveryv2 "kubecore.io/api/apidiscovery/v2"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/openapi"
)

// DynamicGroups are the group versions served while the server runs,
// added and removed without a restart: those of CustomResourceDefinitions.
// Their requests pass through the same filters and handlers as the
// built-in resources'; discovery and OpenAPI list them while they are
// served. Set one in Config.Dynamic; its methods are safe for concurrent
// use.
type DynamicGroups struct {
	mu     sync.RWMutex
	server *Server
	groups map[schema.GroupVersion]*dynamicGroup
	// gen counts the changes of the served set, for discovery's cache.
	gen uint64
}

// dynamicGroup is one served group version.
type dynamicGroup struct {
	info   APIGroupInfo
	routes []route
	list   *metav1.APIResourceList
}

// OpenAPISchemaProvider is implemented by storages of kinds the scheme does
// not know (custom resources): the schema of their objects, for the
// group version's OpenAPI document.
type OpenAPISchemaProvider interface {
	OpenAPISchema() *openapi.Schema
}

// DeprecationWarner is implemented by storages of deprecated versions:
// every request to them gets the warning.
type DeprecationWarner interface {
	DeprecationWarning() string
}

// NewDynamicGroups returns an empty set of dynamic group versions.
func NewDynamicGroups() *DynamicGroups {
	return &DynamicGroups{groups: map[schema.GroupVersion]*dynamicGroup{}}
}

// bind attaches the server that serves d and installs what was set before.
func (d *DynamicGroups) bind(s *Server) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.server = s
	for gv, g := range d.groups {
		built, err := d.build(g.info)
		if err != nil {
			return fmt.Errorf("dynamic group %s: %w", gv, err)
		}
		d.groups[gv] = built
	}
	d.gen++
	return nil
}

// Set serves g, replacing what its group version served before.
func (d *DynamicGroups) Set(g APIGroupInfo) error {
	if g.GroupVersion.Group == "" || g.GroupVersion.Version == "" {
		return fmt.Errorf("dynamic group version %q needs a group and a version", g.GroupVersion)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.server == nil {
		d.groups[g.GroupVersion] = &dynamicGroup{info: g}
		return nil
	}
	built, err := d.build(g)
	if err != nil {
		return err
	}
	d.groups[g.GroupVersion] = built
	d.gen++
	klog.V(2).InfoS("Serving dynamic group version", "groupVersion", g.GroupVersion.String())
	return nil
}

// Remove stops serving gv.
func (d *DynamicGroups) Remove(gv schema.GroupVersion) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.groups[gv]; !ok {
		return
	}
	delete(d.groups, gv)
	d.gen++
	if d.server != nil && d.server.openapi != nil {
		d.server.openapi.RemoveGroupVersion(gv)
	}
	klog.V(2).InfoS("Stopped serving dynamic group version", "groupVersion", gv.String())
}

// build makes the endpoints, routes, discovery document and OpenAPI
// document of g; d.mu is held.
func (d *DynamicGroups) build(g APIGroupInfo) (*dynamicGroup, error) {
	s := d.server
	eps, err := s.endpoints(g)
	if err != nil {
		return nil, err
	}
	out := &dynamicGroup{info: g, list: resourceList(g.GroupVersion, eps)}
	for _, e := range eps {
		routes := e.routes()
		if dw, ok := e.storage.(DeprecationWarner); ok && dw.DeprecationWarning() != "" {
			for i := range routes {
				routes[i].handler = withWarning(routes[i].handler, dw.DeprecationWarning())
			}
		}
		out.routes = append(out.routes, routes...)
	}
	if s.openapi != nil {
		doc := openAPIGroup(g.GroupVersion, eps)
		for _, e := range eps {
			if p, ok := e.storage.(OpenAPISchemaProvider); ok && e.subresource == "" {
				if doc.Custom == nil {
					doc.Custom = map[string]*openapi.Schema{}
				}
				doc.Custom[e.kind.Kind] = p.OpenAPISchema()
			}
		}
		if err := s.openapi.SetGroupVersion(doc); err != nil {
			return nil, fmt.Errorf("openapi of %s: %w", g.GroupVersion, err)
		}
	}
	return out, nil
}

// withWarning adds a Warning header to every answer of h.
func withWarning(h func(w http.ResponseWriter, r *http.Request, ns, name string), warning string) func(w http.ResponseWriter, r *http.Request, ns, name string) {
	return func(w http.ResponseWriter, r *http.Request, ns, name string) {
		addWarnings(w, []string{warning})
		h(w, r, ns, name)
	}
}

// versions lists the served versions of group by priority, the preferred
// one first; none when the group is not served dynamically.
func (d *DynamicGroups) versions(group string) []schema.GroupVersion {
	var out []schema.GroupVersion
	for gv, g := range d.groups {
		if gv.Group == group && g.list != nil {
			out = append(out, gv)
		}
	}
	sort.Slice(out, func(i, j int) bool { return CompareVersions(out[i].Version, out[j].Version) > 0 })
	return out
}

// generation changes whenever the served set does.
func (d *DynamicGroups) generation() uint64 {
	if d == nil {
		return 0
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.gen
}

// discoveryGroups returns the legacy and aggregated discovery entries of
// the dynamic groups, by name, from the same resource lists. The kinds of
// custom resources carry their group and version, as Kubernetes lists
// them.
func (d *DynamicGroups) discoveryGroups() ([]metav1.APIGroup, []apidiscoveryv2.APIGroupDiscovery) {
	if d == nil {
		return nil, nil
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	names := map[string]bool{}
	for gv := range d.groups {
		names[gv.Group] = true
	}
	var legacy []metav1.APIGroup
	var v2 []apidiscoveryv2.APIGroupDiscovery
	for _, name := range sortedNames(names) {
		versions := d.versions(name)
		if len(versions) == 0 {
			continue
		}
		legacy = append(legacy, apiGroup(name, versions))
		g := apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: name}}
		for _, gv := range versions {
			v := versionDiscovery(d.groups[gv].list)
			for i := range v.Resources {
				fullKind(v.Resources[i].ResponseKind, gv)
				for j := range v.Resources[i].Subresources {
					fullKind(v.Resources[i].Subresources[j].ResponseKind, gv)
				}
			}
			g.Versions = append(g.Versions, v)
		}
		v2 = append(v2, g)
	}
	return legacy, v2
}

// fullKind fills the group and version of a kind that has none.
func fullKind(k *metav1.GroupVersionKind, gv schema.GroupVersion) {
	if k != nil && k.Kind != "" && k.Group == "" && k.Version == "" {
		k.Group, k.Version = gv.Group, gv.Version
	}
}

func sortedNames(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// serve answers a request under /apis/<group>[/<version>[/...]] of a
// dynamic group version; it returns false, having written nothing, when
// the path is not one.
func (d *DynamicGroups) serve(w http.ResponseWriter, r *http.Request) bool {
	if d == nil {
		return false
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/apis/")
	if !ok {
		return false
	}
	segs := strings.Split(strings.TrimSuffix(rest, "/"), "/")
	d.mu.RLock()
	if len(segs) == 1 {
		versions := d.versions(segs[0])
		d.mu.RUnlock()
		if len(versions) == 0 {
			return false
		}
		g := apiGroup(segs[0], versions)
		g.TypeMeta = metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}
		staticJSON(&g).ServeHTTP(w, r)
		return true
	}
	g, ok := d.groups[schema.GroupVersion{Group: segs[0], Version: segs[1]}]
	d.mu.RUnlock()
	if !ok || g.list == nil {
		return false
	}
	if len(segs) == 2 {
		staticJSON(g.list).ServeHTTP(w, r)
		return true
	}
	path := "/" + strings.Join(segs[2:], "/")
	matched := false
	for _, rt := range g.routes {
		ns, name, ok := matchRoute(rt.path, path)
		if !ok {
			continue
		}
		matched = true
		if rt.method == r.Method {
			rt.handler(w, r, ns, name)
			return true
		}
	}
	if matched {
		writeError(w, methodNotAllowed())
		return true
	}
	return false
}

// matchRoute matches path against a route pattern, returning the values of
// {namespace} and {name}.
func matchRoute(pattern, path string) (ns, name string, ok bool) {
	ps := strings.Split(strings.Trim(pattern, "/"), "/")
	xs := strings.Split(strings.Trim(path, "/"), "/")
	if len(ps) != len(xs) {
		return "", "", false
	}
	for i, p := range ps {
		switch {
		case xs[i] == "":
			return "", "", false
		case p == "{namespace}":
			ns = xs[i]
		case p == "{name}":
			name = xs[i]
		case p != xs[i]:
			return "", "", false
		}
	}
	return ns, name, true
}

// CompareVersions orders API versions as Kubernetes does: GA before beta
// before alpha before anything else, then higher major and minor numbers
// first; versions that are none of these compare by name. It returns a
// positive number when a comes first.
func CompareVersions(a, b string) int {
	ka, kb := versionKey(a), versionKey(b)
	switch {
	case ka.rank != kb.rank:
		return ka.rank - kb.rank
	case ka.rank == 0:
		return strings.Compare(b, a)
	case ka.major != kb.major:
		return ka.major - kb.major
	}
	return ka.minor - kb.minor
}

type kubeVersion struct {
	// rank: 3 GA, 2 beta, 1 alpha, 0 not a Kubernetes version.
	rank, major, minor int
}

// versionKey parses v<major>[(alpha|beta)<minor>].
func versionKey(v string) kubeVersion {
	rest, ok := strings.CutPrefix(v, "v")
	if !ok {
		return kubeVersion{}
	}
	major, rest := leadingNumber(rest)
	if major <= 0 {
		return kubeVersion{}
	}
	if rest == "" {
		return kubeVersion{rank: 3, major: major}
	}
	for rank, word := range map[int]string{2: "beta", 1: "alpha"} {
		if tail, ok := strings.CutPrefix(rest, word); ok {
			minor, left := leadingNumber(tail)
			if minor > 0 && left == "" {
				return kubeVersion{rank: rank, major: major, minor: minor}
			}
		}
	}
	return kubeVersion{}
}

// leadingNumber splits the decimal number (no leading zero) off s; 0 when
// there is none.
func leadingNumber(s string) (int, string) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 || s[0] == '0' || i > 9 {
		return 0, s
	}
	n := 0
	for _, c := range s[:i] {
		n = n*10 + int(c-'0')
	}
	return n, s[i:]
}
