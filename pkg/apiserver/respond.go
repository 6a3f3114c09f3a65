package apiserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"

	restful "github.com/emicklei/go-restful/v3"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/protobuf"

	"kubecore.io/kubecore/pkg/storage"
)

const contentTypeJSON = "application/json"

// output is the representation a client asked for in its Accept header.
type output int

const (
	outputObject output = iota
	outputTable
	outputPartialMetadata
)

// negotiate picks the first media type in accept that the server can
// produce. Protobuf is served for plain objects (see outputProtobuf).
func negotiate(accept string) (output, error) {
	if strings.TrimSpace(accept) == "" {
		return outputObject, nil
	}
	parts := strings.Split(accept, ",")
	for i, part := range parts {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		if out, ok := negotiateProtobuf(mt, params, parts[i+1:]); ok {
			return out, nil
		}
		switch mt {
		case "application/json", "*/*", "application/*":
		default:
			continue
		}
		switch params["as"] {
		case "":
			return outputObject, nil
		case "Table":
			if params["g"] == metav1.GroupName && params["v"] == "v1" {
				return outputTable, nil
			}
		case "PartialObjectMetadata", "PartialObjectMetadataList":
			if params["g"] == metav1.GroupName && params["v"] == "v1" {
				return outputPartialMetadata, nil
			}
		}
	}
	return 0, apierrors.NewNotAcceptable([]string{contentTypeJSON, "application/json;as=Table;v=v1;g=meta.k8s.io", protobuf.ContentType})
}

// statusOf turns any error into the Status the server answers with.
func statusOf(err error) *metav1.Status {
	var api apierrors.APIStatus
	var st metav1.Status
	if errors.As(err, &api) {
		st = api.Status()
	} else {
		st = apierrors.NewInternalError(err).ErrStatus
	}
	st.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	if st.Status == "" {
		st.Status = metav1.StatusFailure
	}
	if st.Code == 0 {
		st.Code = http.StatusInternalServerError
	}
	return &st
}

// writeError answers err as a Status.
func writeError(w http.ResponseWriter, err error) {
	st := statusOf(err)
	if st.Details != nil && st.Details.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", fmt.Sprint(st.Details.RetryAfterSeconds))
	}
	writeJSON(w, int(st.Code), st)
}

// writeJSON writes v, a type that marshals itself with its TypeMeta.
func writeJSON(w http.ResponseWriter, code int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		code = http.StatusInternalServerError
		data = []byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"encode response","reason":"InternalError","code":500}`)
	}
	w.Header().Set("Content-Type", contentTypeJSON)
	w.WriteHeader(code)
	_, _ = w.Write(append(data, '\n'))
}

// encode returns obj's wire JSON; shared encodings are used as they are.
func (s *Server) encode(obj runtime.Object) ([]byte, error) {
	if e, ok := obj.(*storage.EncodedObject); ok {
		return e.JSON()
	}
	if st, ok := obj.(*metav1.Status); ok {
		c := *st
		c.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
		return json.Marshal(&c)
	}
	var buf bytes.Buffer
	if err := s.serializer.Encode(obj, &buf); err != nil {
		return nil, fmt.Errorf("encode %T: %w", obj, err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// writeObject writes obj in the representation out asks for.
func (s *Server) writeObject(ctx context.Context, w http.ResponseWriter, code int, obj runtime.Object, out output, tc tableConvertor, tableOpts *metav1.TableOptions) {
	if s.writeProtobuf(w, code, obj, out) {
		return
	}
	var data []byte
	var err error
	switch out {
	case outputTable:
		var table *metav1.Table
		table, err = s.toTable(ctx, obj, tc, tableOpts)
		if err == nil {
			data, err = json.Marshal(table)
		}
	case outputPartialMetadata:
		data, err = partialMetadata(storage.Unwrap(obj))
	default:
		data, err = s.encode(obj)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", contentTypeJSON)
	w.WriteHeader(code)
	_, _ = w.Write(append(data, '\n'))
}

// serviceError answers go-restful's own routing failures as Status.
func (s *Server) serviceError(se restful.ServiceError, _ *restful.Request, resp *restful.Response) {
	switch se.Code {
	case http.StatusNotFound:
		writeError(resp.ResponseWriter, notFoundPath())
	case http.StatusMethodNotAllowed:
		writeError(resp.ResponseWriter, methodNotAllowed())
	case http.StatusNotAcceptable:
		writeError(resp.ResponseWriter, apierrors.NewNotAcceptable([]string{contentTypeJSON}))
	case http.StatusUnsupportedMediaType:
		writeError(resp.ResponseWriter, apierrors.NewUnsupportedMediaType([]string{contentTypeJSON, "application/yaml"}))
	default:
		writeJSON(resp.ResponseWriter, se.Code, &metav1.Status{
			TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
			Status:   metav1.StatusFailure, Message: se.Message, Code: int32(se.Code),
		})
	}
}

// notFoundPath is Kubernetes' answer for a path no route serves.
func notFoundPath() error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Message: "the server could not find the requested resource",
		Reason:  metav1.StatusReasonNotFound,
		Details: &metav1.StatusDetails{},
		Code:    http.StatusNotFound,
	}}
}

// writeEncodedList writes list as JSON with the shared encodings of its
// items from the watch cache, instead of encoding thousands of objects
// again: the list's envelope (which has no items of its own) is encoded and
// the items' bytes streamed after it.
func (s *Server) writeEncodedList(w http.ResponseWriter, list runtime.Object, items *storage.EncodedItems) error {
	head, err := s.encode(list)
	if err != nil {
		return err
	}
	head, ok := bytes.CutSuffix(head, []byte(`"items":null}`))
	if !ok {
		head, ok = bytes.CutSuffix(head, []byte(`"items":[]}`))
	}
	if !ok {
		return fmt.Errorf("the encoding of %T does not end with its items", list)
	}
	const open, end = `"items":[`, "]}\n"
	size := len(head) + len(open) + len(end) + max(len(items.Items)-1, 0) // the commas
	bodies := make([][]byte, len(items.Items))
	for i, e := range items.Items {
		body, err := e.ItemBody()
		if err != nil {
			return err
		}
		bodies[i] = body
		size += 1 + len(body) // and its opening brace
	}
	// Streamed, not joined: a list of thousands of pods is megabytes that
	// would otherwise be allocated and copied once more per request.
	w.Header().Set("Content-Type", contentTypeJSON)
	w.Header().Set("Content-Length", strconv.Itoa(size))
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(w, 64<<10)
	_, _ = bw.Write(head)
	_, _ = bw.WriteString(open)
	for i, body := range bodies {
		if i > 0 {
			_ = bw.WriteByte(',')
		}
		_ = bw.WriteByte('{')
		_, _ = bw.Write(body)
	}
	_, _ = bw.WriteString(end)
	_ = bw.Flush()
	return nil
}
