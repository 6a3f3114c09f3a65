package rollout

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/dynamic"
	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
	"kubecore.io/kubecore/pkg/kubectl/resource"
)

// patchVerb is a rollout subcommand that patches the workload: restart,
// pause or resume.
type patchVerb struct {
	name, short, done string
	// patch returns the patch for obj, or an error saying why it does not
	// apply (already paused, not supported).
	patch func(obj *dynamic.Unstructured, m string, now time.Time) ([]byte, error)
}

// isWorkload reports whether rollout restart handles kind.
func isWorkload(kind string) bool {
	return kind == "Deployment" || kind == "StatefulSet" || kind == "DaemonSet"
}

func restartVerb() patchVerb {
	return patchVerb{name: "restart", short: "Restart a resource", done: "restarted",
		patch: func(obj *dynamic.Unstructured, what string, now time.Time) ([]byte, error) {
			if !isWorkload(obj.GetKind()) {
				return nil, fmt.Errorf("%s restarting is not supported", what)
			}
			return fmt.Appendf(nil, `{"spec":{"template":{"metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":%q}}}}}`, now.Format(time.RFC3339)), nil
		}}
}

func pauseVerb(pause bool) patchVerb {
	v, verbing := patchVerb{name: "resume", short: "Resume a paused resource", done: "resumed"}, "resuming"
	if pause {
		v, verbing = patchVerb{name: "pause", short: "Mark the provided resource as paused", done: "paused"}, "pausing"
	}
	v.patch = func(obj *dynamic.Unstructured, what string, _ time.Time) ([]byte, error) {
		if obj.GetKind() != "Deployment" {
			return nil, fmt.Errorf("%s %s is not supported", what, verbing)
		}
		paused, _ := dynamic.NestedField(obj.Object, "spec", "paused").(bool)
		switch {
		case pause && paused:
			return nil, fmt.Errorf("%s is already paused", what)
		case !pause && !paused:
			return nil, fmt.Errorf("%s is not paused", what)
		}
		if pause {
			return []byte(`{"spec":{"paused":true}}`), nil
		}
		return []byte(`{"spec":{"paused":null}}`), nil
	}
	return v
}

func newPatchCommand(f *cmdutil.Factory, streams cmdutil.IOStreams, v patchVerb) *cobra.Command {
	var files resource.FilenameOptions
	var selector string
	cmd := &cobra.Command{
		Use:   v.name + " RESOURCE",
		Short: v.short,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPatch(cmd.Context(), f, streams, v, files, selector, args)
		},
	}
	cmdutil.AddFilenameFlags(cmd.Flags(), &files, "identifying the resource to get from a server.")
	cmd.Flags().StringVarP(&selector, "selector", "l", "", "Selector (label query) to filter on.")
	return cmd
}

func runPatch(ctx context.Context, f *cmdutil.Factory, streams cmdutil.IOStreams, v patchVerb, files resource.FilenameOptions, selector string, args []string) error {
	b, err := f.NewBuilder(streams)
	if err != nil {
		return err
	}
	r, err := b.Filenames(files).Args(args...).LabelSelector(selector).RequireNames().Do(ctx)
	if err != nil {
		return err
	}
	infos, err := r.Fetch(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, info := range infos {
		what := fmt.Sprintf("%s %q", info.Mapping.GroupResource(), info.Name)
		patch, err := v.patch(info.Object, what, time.Now())
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if _, err := r.Client(info).Patch(ctx, info.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}); err != nil {
			errs = append(errs, err)
			continue
		}
		fmt.Fprintf(streams.Out, "%s %s\n", info.ObjectName(), v.done)
	}
	return errors.Join(errs...)
}
