package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/protobuf"
)

// Queryer is an options type that travels as query parameters, such as
// metav1.ListOptions.
type Queryer interface {
	ToQuery() url.Values
}

// Request is one API call being built: chain the setters, then call Do,
// Watch or Stream. The first setter error is kept and returned by the call.
type Request struct {
	c    *Client
	verb string
	err  error

	namespace    string
	namespaceSet bool
	resource     string
	name         string
	subresource  string
	suffix       string
	absPath      string

	params    url.Values
	headers   http.Header
	body      []byte
	bodyType  string // the body's media type when not the client's default
	hasBody   bool
	timeout   time.Duration
	decoder   ObjectDecoder
	newObject func() runtime.Object // WatchObject's, for protobuf streams
}

func newRequest(c *Client, verb string) *Request {
	return &Request{c: c, verb: verb, params: url.Values{}, headers: http.Header{}}
}

func (r *Request) setErr(err error) *Request {
	if r.err == nil {
		r.err = err
	}
	return r
}

// checkSegment rejects a path segment that would change the path's meaning.
func checkSegment(what, s string) error {
	switch {
	case s == "":
		return fmt.Errorf("%s may not be empty", what)
	case s == "." || s == "..":
		return fmt.Errorf("%s may not be %q", what, s)
	case strings.ContainsAny(s, "/%"):
		return fmt.Errorf("%s %q may not contain '/' or '%%'", what, s)
	}
	return nil
}

// Namespace scopes the request to a namespace; "" leaves it cluster-wide
// (or across all namespaces for a list).
func (r *Request) Namespace(ns string) *Request {
	if r.namespaceSet {
		return r.setErr(fmt.Errorf("namespace already set to %q, cannot change to %q", r.namespace, ns))
	}
	if ns != "" {
		if err := checkSegment("namespace", ns); err != nil {
			return r.setErr(err)
		}
	}
	r.namespace, r.namespaceSet = ns, true
	return r
}

// Resource sets the resource, e.g. "pods".
func (r *Request) Resource(resource string) *Request {
	if r.resource != "" {
		return r.setErr(fmt.Errorf("resource already set to %q, cannot change to %q", r.resource, resource))
	}
	if err := checkSegment("resource", resource); err != nil {
		return r.setErr(err)
	}
	r.resource = resource
	return r
}

// Name names the object.
func (r *Request) Name(name string) *Request {
	if r.name != "" {
		return r.setErr(fmt.Errorf("resource name already set to %q, cannot change to %q", r.name, name))
	}
	if err := checkSegment("resource name", name); err != nil {
		return r.setErr(err)
	}
	r.name = name
	return r
}

// SubResource sets the subresource, e.g. "status", "scale" or "log".
func (r *Request) SubResource(subresource string) *Request {
	if r.subresource != "" {
		return r.setErr(fmt.Errorf("subresource already set to %q, cannot change to %q", r.subresource, subresource))
	}
	if err := checkSegment("subresource", subresource); err != nil {
		return r.setErr(err)
	}
	r.subresource = subresource
	return r
}

// Suffix appends path segments after the resource path.
func (r *Request) Suffix(segments ...string) *Request {
	r.suffix = path.Join(append([]string{r.suffix}, segments...)...)
	return r
}

// AbsPath makes the request go to an absolute path on the server (under the
// server URL's own prefix), ignoring the group version: /api, /apis/apps,
// /version.
func (r *Request) AbsPath(segments ...string) *Request {
	r.absPath = path.Join(append([]string{"/"}, segments...)...)
	return r
}

// Param adds a query parameter.
func (r *Request) Param(name, value string) *Request {
	r.params.Add(name, value)
	return r
}

// VersionedParams adds the query form of an options object, e.g.
// &metav1.ListOptions{LabelSelector: "app=web"}.
func (r *Request) VersionedParams(opts Queryer) *Request {
	for k, vs := range opts.ToQuery() {
		for _, v := range vs {
			r.params.Add(k, v)
		}
	}
	return r
}

// SetHeader sets a request header.
func (r *Request) SetHeader(name string, values ...string) *Request {
	r.headers.Del(name)
	for _, v := range values {
		r.headers.Add(name, v)
	}
	return r
}

// Body sets the request body: []byte and string are sent as they are, an
// io.Reader is read now, an object of a protobuf kind is encoded in
// protobuf when the client speaks it, anything else (a runtime.Object, an
// options struct) as JSON.
func (r *Request) Body(obj any) *Request {
	if o, ok := obj.(runtime.Object); ok && r.c.protobuf != nil && r.c.protobuf.Supports(o) {
		b, err := runtime.Encode(r.c.protobuf, o)
		if err != nil {
			return r.setErr(fmt.Errorf("encode request body %T: %w", obj, err))
		}
		r.body, r.bodyType, r.hasBody = b, protobuf.ContentType, true
		return r
	}
	switch t := obj.(type) {
	case []byte:
		r.body = t
	case string:
		r.body = []byte(t)
	case io.Reader:
		b, err := io.ReadAll(t)
		if err != nil {
			return r.setErr(fmt.Errorf("read request body: %w", err))
		}
		r.body = b
	default:
		b, err := json.Marshal(t)
		if err != nil {
			return r.setErr(fmt.Errorf("encode request body %T: %w", obj, err))
		}
		r.body = b
	}
	r.hasBody = true
	return r
}

// Timeout bounds the request (retries included) and, for a request that is
// not a watch, asks the server to give up after d too.
func (r *Request) Timeout(d time.Duration) *Request {
	r.timeout = d
	return r
}

// URL returns the URL the request goes to.
func (r *Request) URL() *url.URL {
	u := *r.c.base
	p := u.Path
	if r.absPath != "" {
		p = path.Join(p, r.absPath)
	} else {
		p = path.Join(p, r.c.versioned)
		if r.namespaceSet && r.namespace != "" {
			p = path.Join(p, "namespaces", r.namespace)
		}
		p = path.Join(p, r.resource, r.name, r.subresource, r.suffix)
	}
	if p == "" {
		p = "/"
	}
	u.Path = p
	u.RawPath = ""
	u.RawQuery = r.params.Encode()
	return &u
}

// requestPath is the path and query for error messages.
func (r *Request) requestPath() string {
	u := r.URL()
	if u.RawQuery == "" {
		return u.Path
	}
	return u.Path + "?" + u.RawQuery
}

// check returns the first builder error, and a request made for a resource
// with a namespace but no resource.
func (r *Request) check() error {
	if r.err != nil {
		return r.err
	}
	if r.absPath == "" && r.namespaceSet && r.namespace != "" && r.resource == "" {
		return errors.New("a namespace was set without a resource")
	}
	return nil
}

// Do sends the request and reads the whole response.
func (r *Request) Do(ctx context.Context) Result {
	if err := r.check(); err != nil {
		return Result{err: err}
	}
	ctx, cancel := r.withTimeout(ctx, true)
	defer cancel()
	resp, err := r.send(ctx)
	if err != nil {
		return Result{err: err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return Result{err: r.transportError(ctx, fmt.Errorf("read response body: %w", err))}
	}
	res := Result{body: body, statusCode: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), protobuf: r.c.protobuf}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		res.err = r.responseError(resp, body)
	}
	return res
}

// DoRaw sends the request and returns the response body; an error response
// gives its body too.
func (r *Request) DoRaw(ctx context.Context) ([]byte, error) {
	res := r.Do(ctx)
	return res.body, res.err
}

// Stream sends the request and returns the response body to read as it
// arrives (pod logs). The caller closes it. Timeout and the Config's
// Timeout do not apply: cancel ctx to end the stream.
func (r *Request) Stream(ctx context.Context) (io.ReadCloser, error) {
	if err := r.check(); err != nil {
		return nil, err
	}
	resp, err := r.openStream(ctx)
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

// openStream sends a request whose body is read later; non-2xx responses
// are read and returned as errors.
func (r *Request) openStream(ctx context.Context) (*http.Response, error) {
	resp, err := r.send(ctx)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return nil, r.responseError(resp, body)
	}
	return resp, nil
}

// withTimeout applies the request's timeout, and the client's for requests
// that are read whole.
func (r *Request) withTimeout(ctx context.Context, whole bool) (context.Context, context.CancelFunc) {
	d := r.timeout
	if whole && r.c.timeout > 0 && (d == 0 || r.c.timeout < d) {
		d = r.c.timeout
	}
	if d <= 0 {
		return ctx, func() {}
	}
	if r.timeout > 0 && r.params.Get("timeout") == "" && r.params.Get("watch") == "" {
		r.params.Set("timeout", r.timeout.String())
	}
	return context.WithTimeout(ctx, d)
}

// Result is the response of Do.
type Result struct {
	body        []byte
	statusCode  int
	contentType string
	protobuf    *protobuf.Serializer // decodes a protobuf body
	err         error
}

// Error returns the request's error: a transport error, or an
// *errors.StatusError for a response that is not 2xx.
func (res Result) Error() error { return res.err }

// StatusCode returns the HTTP status code, or 0 when no response came.
func (res Result) StatusCode() int { return res.statusCode }

// ContentType returns the response's Content-Type.
func (res Result) ContentType() string { return res.contentType }

// Raw returns the response body and the request's error.
func (res Result) Raw() ([]byte, error) { return res.body, res.err }

// Into decodes the response body into obj. A 2xx response carrying a
// Failure Status gives that Status as an error; one carrying a Success
// Status (a DELETE that returns no object) leaves obj unchanged unless it is
// itself a *metav1.Status.
func (res Result) Into(obj runtime.Object) error {
	if res.err != nil {
		return res.err
	}
	if len(res.body) == 0 {
		return fmt.Errorf("0-length response with status code: %d and content type: %s", res.statusCode, res.contentType)
	}
	decode, statusOf := res.jsonDecode, decodeStatus
	if res.protobuf != nil && isProtobuf(res.contentType) {
		decode, statusOf = res.protobufDecode, res.protobufStatus
	}
	if status, ok := statusOf(res.body); ok {
		if status.Status == statusFailure {
			return statusError(status, res.statusCode)
		}
		if !isStatusObject(obj) {
			return nil
		}
	}
	if err := decode(obj); err != nil {
		return fmt.Errorf("decode response into %T: %w", obj, err)
	}
	return nil
}

func (res Result) jsonDecode(obj runtime.Object) error { return json.Unmarshal(res.body, obj) }

func (res Result) protobufDecode(obj runtime.Object) error {
	return runtime.DecodeInto(res.protobuf, res.body, obj)
}

// protobufStatus is decodeStatus for a protobuf body.
func (res Result) protobufStatus(body []byte) (*metav1.Status, bool) {
	if kind, err := protobuf.KindOf(body); err != nil || kind.Kind != "Status" {
		return nil, false
	}
	status := &metav1.Status{}
	if err := runtime.DecodeInto(res.protobuf, body, status); err != nil {
		return nil, false
	}
	return status, true
}

// isProtobuf tells whether a Content-Type is Kubernetes' protobuf.
func isProtobuf(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == protobuf.ContentType
}

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 1 << 20

// reader returns a fresh reader of the request body, for each attempt.
func (r *Request) reader() io.Reader {
	if !r.hasBody {
		return nil
	}
	return bytes.NewReader(r.body)
}
