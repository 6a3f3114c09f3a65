package apiserver

import (
	"fmt"
	"mime"
	"net/http"
	"strings"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/protobuf"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/watch"
	"sigs.k8s.io/yaml"

	"kubecore.io/kubecore/pkg/storage"
)

// Flags negotiate adds to outputObject when the client prefers protobuf
// (application/vnd.kubernetes.protobuf before any JSON type in Accept).
// Tables and metadata-only answers are always JSON, as in Kubernetes.
// Objects without a protobuf encoding (custom resources) are answered in
// JSON when Accept also lists JSON, and with 406 NotAcceptable otherwise.
const (
	outputProtobuf output = 1 << 4
	// outputProtobufOnly: Accept lists no JSON to fall back on.
	outputProtobufOnly output = 1 << 5
)

const contentTypeYAML = "application/yaml"

// negotiateProtobuf returns the output for an Accept header whose entry
// (mediaType, params) is the first the server can produce, when that entry
// asks for protobuf objects. rest holds the entries after it. Table and
// metadata-only protobuf entries are passed over (ok is false).
func negotiateProtobuf(mediaType string, params map[string]string, rest []string) (out output, ok bool) {
	if mediaType != protobuf.ContentType || params["as"] != "" {
		return 0, false
	}
	for _, part := range rest {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil || params["as"] != "" {
			continue
		}
		switch mt {
		case contentTypeJSON, "*/*", "application/*":
			return outputObject | outputProtobuf, true
		}
	}
	return outputObject | outputProtobuf | outputProtobufOnly, true
}

// protobufOnlyError is the answer to a client that accepts only protobuf
// for an object that has no protobuf encoding.
func protobufOnlyError() error {
	return apierrors.NewNotAcceptable([]string{contentTypeJSON, "application/json;as=Table;v=v1;g=meta.k8s.io"})
}

// servesProtobuf tells whether out asks for protobuf and obj can be
// answered in it.
func (s *Server) servesProtobuf(out output, obj runtime.Object) bool {
	return out&outputProtobuf != 0 && s.protobuf.Supports(storage.Unwrap(obj))
}

// withStatusKind gives a Status its kind, which handlers leave out.
func withStatusKind(obj runtime.Object) runtime.Object {
	if st, ok := obj.(*metav1.Status); ok {
		c := *st
		c.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
		return &c
	}
	return obj
}

// writeProtobuf answers obj in protobuf when out asks for it and obj's type
// has a protobuf encoding. It returns false, having written nothing,
// otherwise.
func (s *Server) writeProtobuf(w http.ResponseWriter, code int, obj runtime.Object, out output) bool {
	if !s.servesProtobuf(out, obj) {
		if out&outputProtobufOnly != 0 {
			writeError(w, protobufOnlyError())
			return true
		}
		return false
	}
	data, err := runtime.Encode(s.protobuf, withStatusKind(storage.Unwrap(obj)))
	if err != nil {
		writeError(w, apierrors.NewInternalError(err))
		return true
	}
	w.Header().Set("Content-Type", protobuf.ContentType)
	w.WriteHeader(code)
	_, _ = w.Write(data)
	return true
}

// appendProtobufEvent appends one frame of a protobuf watch stream to buf;
// an object that cannot be encoded becomes an ERROR event with its Status.
// A shared object is encoded once for all its watchers.
func (s *Server) appendProtobufEvent(buf []byte, ev watch.Event) ([]byte, error) {
	var out []byte
	var err error
	if e, ok := ev.Object.(*storage.EncodedObject); ok {
		var object []byte
		if object, err = e.Protobuf(s.encodeProtobuf); err == nil {
			out, err = s.protobuf.AppendEncodedWatchEvent(buf, string(ev.Type), object)
		}
	} else {
		out, err = s.protobuf.AppendWatchEvent(buf, string(ev.Type), withStatusKind(ev.Object))
	}
	if err != nil {
		return s.protobuf.AppendWatchEvent(buf, string(watch.Error), statusOf(err))
	}
	return out, nil
}

// encodeProtobuf encodes obj in its protobuf envelope.
func (s *Server) encodeProtobuf(obj runtime.Object) ([]byte, error) {
	return runtime.Encode(s.protobuf, obj)
}

// requestMediaType is the media type of the request body; none means JSON.
func requestMediaType(r *http.Request) string {
	ct := r.Header.Get("Content-Type")
	if strings.TrimSpace(ct) == "" {
		return contentTypeJSON
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return ct
	}
	return mt
}

// decodeBody decodes the object of a create or update in the encoding its
// Content-Type names: JSON, YAML, or protobuf for the kinds that have it.
// A protobuf body is defaulted like a JSON one; it has no unknown or
// duplicate fields for field validation to report.
func (e *endpoint) decodeBody(r *http.Request, body []byte, validation string) (runtime.Object, []string, error) {
	switch mt := requestMediaType(r); {
	case mt == contentTypeJSON || mt == contentTypeYAML:
		return e.decode(body, validation)
	case mt == protobuf.ContentType && e.s.protobuf.Supports(e.storage.New()):
		obj, err := e.decodeProtobuf(body)
		return obj, nil, err
	}
	accepted := []string{contentTypeJSON, contentTypeYAML}
	if e.s.protobuf.Supports(e.storage.New()) {
		accepted = append(accepted, protobuf.ContentType)
	}
	return nil, nil, apierrors.NewUnsupportedMediaType(accepted)
}

// decodeProtobuf reads an object of the endpoint's kind from a protobuf
// body, applying defaults.
func (e *endpoint) decodeProtobuf(body []byte) (runtime.Object, error) {
	if len(body) == 0 {
		return nil, apierrors.NewBadRequest("the request body is empty")
	}
	gvk := e.kind
	obj, got, err := e.s.protobuf.Decode(body, &gvk, e.storage.New())
	if got != nil && *got != e.kind {
		return nil, kindMismatch(*got, e.kind)
	}
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v",
			e.kind.Kind, e.kind.Version, e.kind.Kind, err))
	}
	e.s.cfg.Scheme.Default(obj)
	return obj, nil
}

// kindMismatch is the error for a body of another kind than the endpoint's.
func kindMismatch(got, want schema.GroupVersionKind) error {
	if got.GroupVersion() != want.GroupVersion() {
		return apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)",
			got.GroupVersion().String(), want.GroupVersion().String()))
	}
	return apierrors.NewBadRequest(fmt.Sprintf("the kind in the data (%s) does not match the expected kind (%s)", got.Kind, want.Kind))
}

// decodeDeleteOptions reads DeleteOptions from a JSON, YAML or protobuf
// body; client-go's typed clients send them in protobuf.
func (s *Server) decodeDeleteOptions(r *http.Request, body []byte, opts *metav1.DeleteOptions) error {
	switch mt := requestMediaType(r); mt {
	case contentTypeJSON, contentTypeYAML:
		if err := yaml.Unmarshal(body, opts); err != nil {
			return apierrors.NewBadRequest(fmt.Sprintf("decode DeleteOptions: %v", err))
		}
		return nil
	case protobuf.ContentType:
		if err := runtime.DecodeInto(s.protobuf, body, opts); err != nil {
			return apierrors.NewBadRequest(fmt.Sprintf("decode DeleteOptions: %v", err))
		}
		return nil
	}
	return apierrors.NewUnsupportedMediaType([]string{contentTypeJSON, contentTypeYAML, protobuf.ContentType})
}
