package apply

import (
	"context"
	"encoding/json"
	"fmt"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/dynamic"

	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
	"kubecore.io/kubecore/pkg/kubectl/resource"
)

// The field managers of apply, as the stock kubectl names them.
const (
	clientSideManager = "kubectl-client-side-apply"
	serverSideManager = "kubectl"
)

// conflictAdvice follows a conflict of a server-side apply, worded as the
// stock kubectl words it.
const conflictAdvice = `Please review the fields above--they currently have other managers. Here
are the ways you can resolve this warning:
* If you intend to manage all of these fields, please re-run the apply
  command with the ` + "`--force-conflicts`" + ` flag.
* If you do not intend to manage all of the fields, please edit your
  manifest to remove references to the fields that should keep their
  current managers.
* You may co-own fields by updating your manifest to match the existing
  value; in this case, you'll become the manager if the other manager(s)
  stop managing the field (remove it from their configuration).
See https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts`

// serverSideApply sends the manifest as an apply patch: the server merges
// it and records the fields as the manager's.
func (o *Options) serverSideApply(ctx context.Context, c *dynamic.ResourceClient, info *resource.Info) (*dynamic.Unstructured, string, error) {
	data, err := json.Marshal(info.Object.Object)
	if err != nil {
		return nil, "", fmt.Errorf("encode %s %s: %w", info.Mapping.Kind.Kind, info.Name, err)
	}
	if o.dryRun == cmdutil.DryRunNone {
		live, err := c.Get(ctx, info.Name, metav1.GetOptions{})
		switch {
		case err == nil:
			if err := upgradeClientSideFields(ctx, c, live, o.FieldManager); err != nil {
				return nil, "", err
			}
		case !apierrors.IsNotFound(err):
			return nil, "", err
		}
	}
	force := o.ForceConflicts
	opts := metav1.PatchOptions{DryRun: o.dryRun.Param(), Force: &force, FieldManager: o.FieldManager, FieldValidation: o.fieldValidation}
	obj, err := c.Patch(ctx, info.Name, types.ApplyPatchType, data, opts)
	if err != nil {
		if apierrors.IsConflict(err) {
			return nil, "", fmt.Errorf("%v\n%s", err, conflictAdvice)
		}
		// The stock kubectl reports these as the server words them.
		return nil, "", err
	}
	return obj, "serverside-applied", nil
}
