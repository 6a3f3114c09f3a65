package apiserver

import (
	"net/http"
	"strings"

	"kubecore.io/apimachinery/pkg/fields"

	"kubecore.io/kubecore/pkg/apirequest"
)

// parseRequestInfo reads what an API path and method say, the way
// Kubernetes' request info resolver does.
func parseRequestInfo(r *http.Request) *apirequest.RequestInfo {
	info := &apirequest.RequestInfo{Path: r.URL.Path, Verb: strings.ToLower(r.Method)}
	parts := splitPath(r.URL.Path)
	if len(parts) < 2 || (parts[0] != "api" && parts[0] != "apis") {
		return info
	}
	info.APIPrefix = parts[0]
	parts = parts[1:]
	if info.APIPrefix == "apis" {
		if len(parts) < 2 {
			return info
		}
		info.APIGroup = parts[0]
		parts = parts[1:]
	}
	info.APIVersion = parts[0]
	parts = parts[1:]
	if len(parts) == 0 {
		return info
	}
	info.IsResourceRequest = true
	switch r.Method {
	case http.MethodPost:
		info.Verb = "create"
	case http.MethodGet, http.MethodHead:
		info.Verb = "get"
	case http.MethodPut:
		info.Verb = "update"
	case http.MethodPatch:
		info.Verb = "patch"
	case http.MethodDelete:
		info.Verb = "delete"
	}
	if parts[0] == "namespaces" {
		if len(parts) > 1 {
			info.Namespace = parts[1]
			if len(parts) > 2 && !isNamespaceSubresource(parts[2]) {
				parts = parts[2:]
			}
		}
	}
	info.Parts = parts
	if len(parts) > 0 {
		info.Resource = parts[0]
	}
	if len(parts) > 1 {
		info.Name = parts[1]
	}
	if len(parts) > 2 {
		info.Subresource = parts[2]
	}
	if info.Name == "" && info.Verb == "get" {
		info.Verb = "list"
		if isWatch(r) {
			info.Verb = "watch"
		}
		// A list or watch of one object by name (fieldSelector
		// metadata.name=NAME) is authorized as that object's, as in
		// Kubernetes: the Node authorizer lets a kubelet watch the config
		// maps and secrets of its pods this way.
		if sel, err := fields.ParseSelector(r.URL.Query().Get("fieldSelector")); err == nil {
			if name, ok := sel.RequiresExactMatch("metadata.name"); ok {
				info.Name = name
			}
		}
	}
	if info.Name == "" && info.Verb == "delete" {
		info.Verb = "deletecollection"
	}
	return info
}

func isWatch(r *http.Request) bool {
	v := r.URL.Query().Get("watch")
	return v == "true" || v == "1"
}

func splitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// isNamespaceSubresource: a namespace's own subresources follow its name
// directly (/api/v1/namespaces/{name}/status).
func isNamespaceSubresource(s string) bool { return s == "status" || s == "finalize" }
