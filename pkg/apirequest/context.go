// Package apirequest carries what the apiserver learned about a request (its
// namespace, user and parsed path) through the context to the registry.
package apirequest

import (
	"context"
)

type contextKey int

const (
	namespaceKey contextKey = iota
	userKey
	requestInfoKey
	warningKey
	subpathKey
	userAgentKey
	auditAnnotationsKey
	priorityKey
)

// UserInfo is the authenticated identity of a request.
type UserInfo struct {
	Name   string
	UID    string
	Groups []string
	Extra  map[string][]string
}

// RequestInfo is what the path and verb of an API request say.
type RequestInfo struct {
	// IsResourceRequest is false for /healthz, /version, discovery, ...
	IsResourceRequest bool
	Path              string
	// Verb is the Kubernetes verb: get, list, watch, create, update, patch,
	// delete, deletecollection (or the lower-case HTTP method for others).
	Verb        string
	APIPrefix   string // "api" or "apis"
	APIGroup    string
	APIVersion  string
	Namespace   string
	Resource    string
	Subresource string
	Name        string
	Parts       []string
}

// WithNamespace returns ctx carrying the request's namespace.
func WithNamespace(ctx context.Context, ns string) context.Context {
	return context.WithValue(ctx, namespaceKey, ns)
}

// NamespaceFrom returns the request's namespace, if any.
func NamespaceFrom(ctx context.Context) (string, bool) {
	ns, ok := ctx.Value(namespaceKey).(string)
	return ns, ok
}

// NamespaceValue returns the request's namespace, or "".
func NamespaceValue(ctx context.Context) string {
	ns, _ := NamespaceFrom(ctx)
	return ns
}

// WithUser returns ctx carrying the authenticated user.
func WithUser(ctx context.Context, u *UserInfo) context.Context {
	return context.WithValue(ctx, userKey, u)
}

// UserFrom returns the authenticated user, if any.
func UserFrom(ctx context.Context) (*UserInfo, bool) {
	u, ok := ctx.Value(userKey).(*UserInfo)
	return u, ok
}

// WithRequestInfo returns ctx carrying the parsed request.
func WithRequestInfo(ctx context.Context, info *RequestInfo) context.Context {
	return context.WithValue(ctx, requestInfoKey, info)
}

// RequestInfoFrom returns the parsed request, if any.
func RequestInfoFrom(ctx context.Context) (*RequestInfo, bool) {
	info, ok := ctx.Value(requestInfoKey).(*RequestInfo)
	return info, ok
}

// WarningRecorder collects the warnings a request produces; the HTTP layer
// sends them as `Warning: 299 - "..."` headers.
type WarningRecorder func(message string)

// WithWarningRecorder returns ctx carrying a recorder for warnings.
func WithWarningRecorder(ctx context.Context, rec WarningRecorder) context.Context {
	return context.WithValue(ctx, warningKey, rec)
}

// AddWarning records a warning on the request, if it has a recorder.
func AddWarning(ctx context.Context, message string) {
	if rec, ok := ctx.Value(warningKey).(WarningRecorder); ok && rec != nil {
		rec(message)
	}
}

// WithSubpath returns ctx carrying the path below a proxy subresource
// (".../pods/web/proxy/metrics" carries "metrics").
func WithSubpath(ctx context.Context, path string) context.Context {
	return context.WithValue(ctx, subpathKey, path)
}

// SubpathFrom returns the path below a proxy subresource, "" for none.
func SubpathFrom(ctx context.Context) string {
	p, _ := ctx.Value(subpathKey).(string)
	return p
}

// WithUserAgent returns ctx carrying the request's User-Agent, from which
// the registry names the field manager of a write without fieldManager.
func WithUserAgent(ctx context.Context, userAgent string) context.Context {
	return context.WithValue(ctx, userAgentKey, userAgent)
}

// UserAgentValue returns the request's User-Agent, or "".
func UserAgentValue(ctx context.Context) string {
	ua, _ := ctx.Value(userAgentKey).(string)
	return ua
}

// AuditAnnotator records annotations of a request's audit events.
type AuditAnnotator func(key, value string)

// WithAuditAnnotator returns ctx carrying an annotator for audit events.
func WithAuditAnnotator(ctx context.Context, a AuditAnnotator) context.Context {
	return context.WithValue(ctx, auditAnnotationsKey, a)
}

// AddAuditAnnotation annotates the request's audit events (admission
// webhooks' auditAnnotations), if the request is audited; the first value
// of a key is kept.
func AddAuditAnnotation(ctx context.Context, key, value string) {
	if a, ok := ctx.Value(auditAnnotationsKey).(AuditAnnotator); ok && a != nil {
		a(key, value)
	}
}

// Priority says how urgently a request's writes must reach storage; a
// higher one goes first.
type Priority int8

const (
	// PriorityNormal is every request's priority unless told otherwise.
	PriorityNormal Priority = iota
	// PriorityNode writes keep nodes alive (node Leases and status).
	PriorityNode
	// PriorityLeader writes keep the control plane's leaders (their
	// Leases) and exempt traffic: they go before every other.
	PriorityLeader
)

// WithPriority returns ctx carrying the request's storage priority.
func WithPriority(ctx context.Context, p Priority) context.Context {
	return context.WithValue(ctx, priorityKey, p)
}

// PriorityFrom returns the request's storage priority, PriorityNormal when
// none was set.
func PriorityFrom(ctx context.Context) Priority {
	p, _ := ctx.Value(priorityKey).(Priority)
	return p
}
