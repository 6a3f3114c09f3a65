package apiserver

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
)

// writeRequest is what create, update and patch read before they differ:
// the encoding of the answer, the verb's options from the query (dryRun,
// fieldManager and fieldValidation validated) and the body.
type writeRequest struct {
	ctx        context.Context
	out        output
	validation string // fieldValidation, defaulted
	body       []byte
}

// verbOptions are the query options of a write: *metav1.CreateOptions,
// *metav1.UpdateOptions or *metav1.PatchOptions.
type verbOptions interface {
	FromQuery(url.Values) error
}

var (
	_ verbOptions = (*metav1.CreateOptions)(nil)
	_ verbOptions = (*metav1.UpdateOptions)(nil)
	_ verbOptions = (*metav1.PatchOptions)(nil)
)

// readWrite is the prologue of every write: it negotiates the answer,
// checks the Content-Type with contentType when set, fills opts from the
// query and validates them, and reads the body. When the request is
// refused it writes the error Status and reports false.
func (e *endpoint) readWrite(w http.ResponseWriter, r *http.Request, ns string, opts verbOptions, contentType func(*http.Request) error) (writeRequest, bool) {
	req, err := e.readWriteRequest(r, ns, opts, contentType)
	if err != nil {
		writeError(w, err)
		return writeRequest{}, false
	}
	return req, true
}

func (e *endpoint) readWriteRequest(r *http.Request, ns string, opts verbOptions, contentType func(*http.Request) error) (writeRequest, error) {
	out, err := negotiate(r.Header.Get("Accept"))
	if err != nil {
		return writeRequest{}, err
	}
	if contentType != nil {
		if err := contentType(r); err != nil {
			return writeRequest{}, err
		}
	}
	_ = opts.FromQuery(r.URL.Query())
	kind, dryRun, manager, validation, err := writeOptionFields(opts)
	if err != nil {
		return writeRequest{}, err
	}
	if validation, err = writeOptions(kind, dryRun, manager, validation); err != nil {
		return writeRequest{}, err
	}
	body, err := e.s.readBody(r)
	if err != nil {
		return writeRequest{}, err
	}
	return writeRequest{ctx: requestContext(r, ns), out: out, validation: validation, body: body}, nil
}

// writeOptionFields returns the kind of opts and the fields writeOptions checks.
func writeOptionFields(opts verbOptions) (kind string, dryRun []string, manager, validation string, err error) {
	switch o := opts.(type) {
	case *metav1.CreateOptions:
		return "CreateOptions", o.DryRun, o.FieldManager, o.FieldValidation, nil
	case *metav1.UpdateOptions:
		return "UpdateOptions", o.DryRun, o.FieldManager, o.FieldValidation, nil
	case *metav1.PatchOptions:
		return "PatchOptions", o.DryRun, o.FieldManager, o.FieldValidation, nil
	default:
		return "", nil, "", "", apierrors.NewInternalError(fmt.Errorf("options %T are not those of a write", opts))
	}
}

// checkTarget rejects an object written to another namespace than the
// path's and, when name is set, naming another object than the path.
func (e *endpoint) checkTarget(obj runtime.Object, ns, name string) error {
	if err := e.checkNamespace(obj, ns); err != nil {
		return err
	}
	if name == "" {
		return nil
	}
	return checkName(obj, name)
}
