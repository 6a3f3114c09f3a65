package apiserver

import (
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/openapi"
)

// installOpenAPI serves the OpenAPI v3 documents of every installed
// resource at /openapi/v3 and /openapi/v3/<group version path>, and the
// Swagger 2.0 document of them all at /openapi/v2. The
// resources, kinds, scopes and verbs are discovery's; the documents are
// built on the first request.
func (s *Server) installOpenAPI() error {
	spec := openapi.Spec{Scheme: s.cfg.Scheme}
	for _, g := range s.cfg.Groups {
		eps, err := s.endpoints(g)
		if err != nil {
			return err
		}
		spec.Groups = append(spec.Groups, openAPIGroup(g.GroupVersion, eps))
	}
	h := openapi.NewHandler(spec)
	s.openapi = h
	s.container.Handle("/openapi/v3", h)
	s.container.Handle("/openapi/v3/", h)
	s.container.Handle("/openapi/v2", h)
	return nil
}

// openAPIGroup describes the endpoints of a group version for its OpenAPI
// document.
func openAPIGroup(gv schema.GroupVersion, eps []*endpoint) openapi.GroupVersion {
	out := openapi.GroupVersion{GroupVersion: gv}
	for _, e := range eps {
		path := e.resource
		if e.subresource != "" {
			path += "/" + e.subresource
		}
		out.Resources = append(out.Resources, openapi.Resource{
			Path: path, Kind: e.kind, Namespaced: e.namespaced, Verbs: e.verbs,
		})
	}
	return out
}
