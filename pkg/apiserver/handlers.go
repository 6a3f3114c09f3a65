package apiserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/fields"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/registry/rest"
	"kubecore.io/kubecore/pkg/storage"
)

// requestContext returns the request's context carrying its namespace.
func requestContext(r *http.Request, ns string) context.Context {
	return apirequest.WithUserAgent(apirequest.WithNamespace(r.Context(), ns), r.UserAgent())
}

func (e *endpoint) get(w http.ResponseWriter, r *http.Request, ns, name string) {
	out, err := negotiate(r.Header.Get("Accept"))
	if err != nil {
		writeError(w, err)
		return
	}
	var opts metav1.GetOptions
	_ = opts.FromQuery(r.URL.Query())
	if err := validateResourceVersion(opts.ResourceVersion); err != nil {
		writeError(w, err)
		return
	}
	ctx := requestContext(r, ns)
	obj, err := e.storage.(rest.Getter).Get(ctx, name, &opts)
	if err != nil {
		writeError(w, err)
		return
	}
	e.s.writeObject(ctx, w, http.StatusOK, obj, out, e.table, tableOptions(r))
}

func tableOptions(r *http.Request) *metav1.TableOptions {
	var o metav1.TableOptions
	_ = o.FromQuery(r.URL.Query())
	return &o
}

// listOptions parses a list or watch request's query.
func listOptions(r *http.Request) (*rest.ListOptions, error) {
	var q metav1.ListOptions
	if err := q.FromQuery(r.URL.Query()); err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	opts := &rest.ListOptions{
		ResourceVersion:      q.ResourceVersion,
		ResourceVersionMatch: q.ResourceVersionMatch,
		Limit:                q.Limit,
		Continue:             q.Continue,
		Watch:                q.Watch,
		AllowWatchBookmarks:  q.AllowWatchBookmarks,
		SendInitialEvents:    q.SendInitialEvents,
		TimeoutSeconds:       q.TimeoutSeconds,
		LabelSelector:        labels.Everything(),
		FieldSelector:        fields.Everything(),
	}
	if v := r.URL.Query().Get("watch"); v == "1" {
		opts.Watch = true
	}
	var err error
	if q.LabelSelector != "" {
		if opts.LabelSelector, err = labels.Parse(q.LabelSelector); err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
	}
	if q.FieldSelector != "" {
		if opts.FieldSelector, err = fields.ParseSelector(q.FieldSelector); err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid field selector: %v", err))
		}
	}
	if err := validateResourceVersion(opts.ResourceVersion); err != nil {
		return nil, err
	}
	if err := validateListOptions(opts); err != nil {
		return nil, err
	}
	if opts.Limit < 0 {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid limit %d: must not be negative", opts.Limit))
	}
	return opts, nil
}

// validateResourceVersion accepts "" or a decimal revision.
func validateResourceVersion(rv string) error {
	if rv == "" {
		return nil
	}
	if _, err := strconv.ParseUint(rv, 10, 64); err != nil {
		return apierrors.NewBadRequest(fmt.Sprintf("invalid resource version %q: %v", rv, err))
	}
	return nil
}

func (e *endpoint) list(w http.ResponseWriter, r *http.Request, ns, _ string) {
	out, err := negotiate(r.Header.Get("Accept"))
	if err != nil {
		writeError(w, err)
		return
	}
	opts, err := listOptions(r)
	if err != nil {
		writeError(w, err)
		return
	}
	ctx := requestContext(r, ns)
	if opts.Watch {
		wt, ok := e.storage.(rest.Watcher)
		if !ok {
			writeError(w, apierrors.NewMethodNotSupported(e.groupResource(), "watch"))
			return
		}
		e.serveWatch(ctx, w, r, wt, opts, out)
		return
	}
	l, ok := e.storage.(rest.Lister)
	if !ok {
		writeError(w, apierrors.NewMethodNotSupported(e.groupResource(), "list"))
		return
	}
	// A JSON list served from the watch cache is written from the items'
	// shared encodings.
	var items *storage.EncodedItems
	if out == outputObject && e.custom == nil {
		items = &storage.EncodedItems{}
		ctx = storage.WithEncodedItems(ctx, items)
	}
	obj, err := l.List(ctx, opts)
	if err != nil {
		writeError(w, err)
		return
	}
	if items != nil && items.Complete {
		if err := e.s.writeEncodedList(w, obj, items); err != nil {
			writeError(w, apierrors.NewInternalError(err))
		}
		return
	}
	e.s.writeObject(ctx, w, http.StatusOK, obj, out, e.table, tableOptions(r))
}

// readBody reads the request body, answering oversize bodies with 413.
func (s *Server) readBody(r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	data, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d", mbe.Limit))
		}
		return nil, apierrors.NewBadRequest(fmt.Sprintf("read request body: %v", err))
	}
	return data, nil
}

// decode reads an object of the endpoint's kind from data, applying
// defaults. Under Warn it returns the unknown/duplicate fields as warnings.
func (e *endpoint) decode(data []byte, validation string) (runtime.Object, []string, error) {
	if len(data) == 0 {
		return nil, nil, apierrors.NewBadRequest("the request body is empty")
	}
	var dec runtime.Decoder = e.s.strict
	switch {
	case e.custom != nil:
		dec = e.custom
	case validation == fieldValidationIgnore:
		dec = e.s.serializer
	}
	gvk := e.kind
	obj, got, err := dec.Decode(data, &gvk, e.storage.New())
	var warnings []string
	if err != nil {
		sde, isStrict := runtime.AsStrictDecodingError(err)
		switch {
		case isStrict && validation == fieldValidationWarn:
			for _, se := range sde.Errors() {
				warnings = append(warnings, se.Error())
			}
		case isStrict && validation == fieldValidationIgnore:
		default:
			return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v",
				e.kind.Kind, e.kind.Version, e.kind.Kind, err))
		}
	}
	if got != nil && *got != e.kind {
		if got.GroupVersion() != e.kind.GroupVersion() {
			return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)",
				got.GroupVersion().String(), e.kind.GroupVersion().String()))
		}
		return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("the kind in the data (%s) does not match the expected kind (%s)", got.Kind, e.kind.Kind))
	}
	e.s.cfg.Scheme.Default(obj)
	return obj, warnings, nil
}

// checkNamespace fills an empty namespace from the path and rejects a
// different one.
func (e *endpoint) checkNamespace(obj runtime.Object, ns string) error {
	m, err := objectMeta(obj)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	if !e.namespaced {
		return nil
	}
	switch m.GetNamespace() {
	case "":
		m.SetNamespace(ns)
	case ns:
	default:
		return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	return nil
}

// addWarnings sends each warning as a Warning header.
func addWarnings(w http.ResponseWriter, warnings []string) {
	for _, msg := range warnings {
		w.Header().Add("Warning", "299 - "+strconv.Quote(msg))
	}
}

func (e *endpoint) create(w http.ResponseWriter, r *http.Request, ns, name string) {
	var opts metav1.CreateOptions
	req, ok := e.readWrite(w, r, ns, &opts, nil)
	if !ok {
		return
	}
	obj, warnings, err := e.decodeBody(r, req.body, req.validation)
	if err == nil {
		// A named create is a subresource's (binding, eviction): its body
		// may name another object than the path.
		err = e.checkTarget(obj, ns, "")
	}
	if err != nil {
		writeError(w, err)
		return
	}
	ctx := req.ctx
	var created runtime.Object
	if nc, ok := e.storage.(rest.NamedCreater); ok && e.subresource != "" {
		created, err = nc.Create(ctx, name, obj, nil, &opts)
	} else {
		created, err = e.storage.(rest.Creater).Create(ctx, obj, nil, &opts)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	addWarnings(w, warnings)
	e.s.writeObject(ctx, w, http.StatusCreated, created, req.out, e.table, tableOptions(r))
}

// bodyObject is the UpdatedObjectInfo of a PUT: the decoded body.
type bodyObject struct{ obj runtime.Object }

var _ rest.UpdatedObjectInfo = bodyObject{}

func (b bodyObject) Preconditions() *metav1.Preconditions { return nil }

func (b bodyObject) UpdatedObject(context.Context, runtime.Object) (runtime.Object, error) {
	return b.obj.DeepCopyObject(), nil
}

func (e *endpoint) update(w http.ResponseWriter, r *http.Request, ns, name string) {
	var opts metav1.UpdateOptions
	req, ok := e.readWrite(w, r, ns, &opts, nil)
	if !ok {
		return
	}
	obj, warnings, err := e.decodeBody(r, req.body, req.validation)
	if err == nil {
		err = e.checkTarget(obj, ns, name)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	ctx := req.ctx
	updated, created, err := e.storage.(rest.Updater).Update(ctx, name, bodyObject{obj}, nil, nil, false, &opts)
	if err != nil {
		writeError(w, err)
		return
	}
	addWarnings(w, warnings)
	code := http.StatusOK
	if created {
		code = http.StatusCreated
	}
	e.s.writeObject(ctx, w, code, updated, req.out, e.table, tableOptions(r))
}

// checkName rejects a body naming another object than the path.
func checkName(obj runtime.Object, name string) error {
	m, err := objectMeta(obj)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	if m.GetName() != name {
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", m.GetName(), name))
	}
	return nil
}

func (e *endpoint) delete(w http.ResponseWriter, r *http.Request, ns, name string) {
	out, err := negotiate(r.Header.Get("Accept"))
	if err != nil {
		writeError(w, err)
		return
	}
	opts, err := e.s.deleteOptions(r)
	if err != nil {
		writeError(w, err)
		return
	}
	ctx := requestContext(r, ns)
	obj, deleted, err := e.storage.(rest.GracefulDeleter).Delete(ctx, name, nil, opts)
	if err != nil {
		writeError(w, err)
		return
	}
	code := http.StatusOK
	if !deleted && opts.OrphanDependents != nil && !*opts.OrphanDependents {
		code = http.StatusAccepted
	}
	if obj == nil {
		obj = &metav1.Status{
			Status:  metav1.StatusSuccess,
			Code:    int32(code),
			Details: &metav1.StatusDetails{Name: name, Group: e.gv.Group, Kind: e.resource},
		}
	}
	e.s.writeObject(ctx, w, code, obj, out, e.table, tableOptions(r))
}

// deleteOptions reads DeleteOptions from the body, or the query when the
// body is empty.
func (s *Server) deleteOptions(r *http.Request) (*metav1.DeleteOptions, error) {
	body, err := s.readBody(r)
	if err != nil {
		return nil, err
	}
	opts := &metav1.DeleteOptions{}
	if len(body) > 0 {
		if err := s.decodeDeleteOptions(r, body, opts); err != nil {
			return nil, err
		}
	} else if err := opts.FromQuery(r.URL.Query()); err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	if err := validateDeleteOptions(opts); err != nil {
		return nil, err
	}
	return opts, nil
}

func (e *endpoint) deleteCollection(w http.ResponseWriter, r *http.Request, ns, _ string) {
	out, err := negotiate(r.Header.Get("Accept"))
	if err != nil {
		writeError(w, err)
		return
	}
	listOpts, err := listOptions(r)
	if err != nil {
		writeError(w, err)
		return
	}
	opts, err := e.s.deleteOptions(r)
	if err != nil {
		writeError(w, err)
		return
	}
	ctx := requestContext(r, ns)
	obj, err := e.storage.(rest.CollectionDeleter).DeleteCollection(ctx, nil, opts, listOpts)
	if err != nil {
		writeError(w, err)
		return
	}
	e.s.writeObject(ctx, w, http.StatusOK, obj, out, e.table, tableOptions(r))
}
