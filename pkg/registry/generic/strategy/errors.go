package strategy

import (
	"errors"
	"fmt"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/storage"
)

// StorageError turns an error of a direct storage write of the named
// object into an API error; API errors pass through.
func StorageError(err error, gr schema.GroupResource, name string) error {
	var status apierrors.APIStatus
	switch {
	case err == nil:
		return nil
	case errors.As(err, &status):
		return err
	case storage.IsNotFound(err):
		return apierrors.NewNotFound(gr, name)
	case storage.IsConflict(err):
		return apierrors.NewConflict(gr, name, errors.New("the object has been modified; please apply your changes to the latest version and try again"))
	case storage.IsUnreachable(err):
		return apierrors.NewServiceUnavailable(err.Error())
	}
	return apierrors.NewInternalError(fmt.Errorf("%s %q: %w", gr, name, err))
}
