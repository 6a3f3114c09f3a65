package apiserver

import (
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
		gv := openapi.GroupVersion{GroupVersion: g.GroupVersion}
		for _, e := range eps {
			path := e.resource
			if e.subresource != "" {
				path += "/" + e.subresource
			}
			gv.Resources = append(gv.Resources, openapi.Resource{
				Path: path, Kind: e.kind, Namespaced: e.namespaced, Verbs: e.verbs,
			})
		}
		spec.Groups = append(spec.Groups, gv)
	}
	h := openapi.NewHandler(spec)
	s.container.Handle("/openapi/v3", h)
	s.container.Handle("/openapi/v3/", h)
	s.container.Handle("/openapi/v2", h)
	return nil
}
