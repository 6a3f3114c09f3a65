package generic

import (
	"errors"
	"fmt"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/storage"
)

// verb names the operation an error happened in, for messages.
type verb string

const (
	verbGet    verb = "get"
	verbList   verb = "list"
	verbWatch  verb = "watch"
	verbCreate verb = "create"
	verbUpdate verb = "update"
	verbDelete verb = "delete"
)

// interpretStorageError turns a *storage.StorageError into the API error
// Kubernetes answers for it; API errors pass through unchanged and any
// other error becomes an internal error.
func interpretStorageError(err error, op verb, gr schema.GroupResource, name string) error {
	if err == nil {
		return nil
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return err
	}
	var se *storage.StorageError
	if !errors.As(err, &se) {
		return apierrors.NewInternalError(err)
	}
	switch se.Code {
	case storage.ErrCodeKeyNotFound:
		return apierrors.NewNotFound(gr, name)
	case storage.ErrCodeKeyExists:
		if op == verbCreate {
			return apierrors.NewAlreadyExists(gr, name)
		}
		return apierrors.NewConflict(gr, name, se)
	case storage.ErrCodeResourceVersionConflicts:
		return apierrors.NewConflict(gr, name, se)
	case storage.ErrCodeInvalidObj:
		if op == verbUpdate || op == verbDelete {
			return apierrors.NewConflict(gr, name, se)
		}
		return apierrors.NewInternalError(se)
	case storage.ErrCodeUnreachable:
		return apierrors.NewServerTimeout(gr, string(op), 2)
	case storage.ErrCodeExpired:
		if se.Detail != "" {
			return apierrors.NewResourceExpired(se.Detail)
		}
		return apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d", se.ResourceVersion))
	case storage.ErrCodeInvalidContinue:
		msg := "invalid continue token"
		if se.Detail != "" {
			msg += ": " + se.Detail
		}
		return apierrors.NewBadRequest(msg)
	case storage.ErrCodeTooLargeResourceVersion:
		e := apierrors.NewTimeoutError(fmt.Sprintf("Too large resource version: %d", se.ResourceVersion), 1)
		e.ErrStatus.Details.Causes = []metav1.StatusCause{{
			Type:    metav1.CauseTypeResourceVersionTooLarge,
			Message: "Too large resource version",
		}}
		return e
	}
	return apierrors.NewInternalError(se)
}
