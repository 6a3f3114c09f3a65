package runtime

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"kubecore.io/apimachinery/pkg/runtime/schema"
)

// notRegisteredErr says a kind, type or resource is unknown to a scheme.
type notRegisteredErr struct {
	schemeName string
	gvk        schema.GroupVersionKind
	gvr        schema.GroupVersionResource
	t          reflect.Type
}

func (e *notRegisteredErr) Error() string {
	switch {
	case e.t != nil:
		return fmt.Sprintf("no kind is registered for the type %v in scheme %q", e.t, e.schemeName)
	case e.gvr.Resource != "":
		return fmt.Sprintf("no resource %q is registered for version %q in scheme %q", e.gvr.Resource, e.gvr.GroupVersion().String(), e.schemeName)
	case e.gvk.Kind == "":
		return fmt.Sprintf("no version %q has been registered in scheme %q", e.gvk.GroupVersion().String(), e.schemeName)
	}
	return fmt.Sprintf("no kind %q is registered for version %q in scheme %q", e.gvk.Kind, e.gvk.GroupVersion().String(), e.schemeName)
}

// NewNotRegisteredErrForKind reports a kind unknown to the named scheme.
func NewNotRegisteredErrForKind(schemeName string, gvk schema.GroupVersionKind) error {
	return &notRegisteredErr{schemeName: schemeName, gvk: gvk}
}

// NewNotRegisteredErrForType reports a Go type unknown to the named scheme.
func NewNotRegisteredErrForType(schemeName string, t reflect.Type) error {
	return &notRegisteredErr{schemeName: schemeName, t: t}
}

// IsNotRegisteredError reports whether err says a kind, type or resource is
// not registered.
func IsNotRegisteredError(err error) bool {
	var e *notRegisteredErr
	return errors.As(err, &e)
}

type missingKindErr struct{ data string }

func (e *missingKindErr) Error() string {
	return fmt.Sprintf("Object 'Kind' is missing in '%s'", e.data)
}

// NewMissingKindErr reports data that names no kind.
func NewMissingKindErr(data string) error { return &missingKindErr{data: data} }

// IsMissingKind reports whether err says the data names no kind.
func IsMissingKind(err error) bool {
	var e *missingKindErr
	return errors.As(err, &e)
}

type missingVersionErr struct{ data string }

func (e *missingVersionErr) Error() string {
	return fmt.Sprintf("Object 'apiVersion' is missing in '%s'", e.data)
}

// NewMissingVersionErr reports data that names no apiVersion.
func NewMissingVersionErr(data string) error { return &missingVersionErr{data: data} }

// IsMissingVersion reports whether err says the data names no apiVersion.
func IsMissingVersion(err error) bool {
	var e *missingVersionErr
	return errors.As(err, &e)
}

// StrictDecodingError lists the unknown and duplicate fields of data that
// was nevertheless decoded. An API server answers it with 400 under
// fieldValidation=Strict, or turns each error into a warning under Warn.
type StrictDecodingError struct {
	errs []error
}

// NewStrictDecodingError wraps the strict errors of one decoding.
func NewStrictDecodingError(errs []error) *StrictDecodingError {
	return &StrictDecodingError{errs: errs}
}

func (e *StrictDecodingError) Error() string {
	var b strings.Builder
	b.WriteString("strict decoding error: ")
	for i, err := range e.errs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(err.Error())
	}
	return b.String()
}

// Errors returns the individual problems, e.g. `unknown field "spec.foo"`.
func (e *StrictDecodingError) Errors() []error { return e.errs }

// AsStrictDecodingError returns the *StrictDecodingError in err's chain.
func AsStrictDecodingError(err error) (*StrictDecodingError, bool) {
	var e *StrictDecodingError
	ok := errors.As(err, &e)
	return e, ok
}

// IsStrictDecodingError reports whether err is (or wraps) a
// *StrictDecodingError.
func IsStrictDecodingError(err error) bool {
	_, ok := AsStrictDecodingError(err)
	return ok
}
