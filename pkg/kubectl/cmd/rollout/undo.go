package rollout

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/spf13/cobra"

	appsv1 "kubecore.io/api/apps/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
	"kubecore.io/kubecore/pkg/kubectl/describe"
	"kubecore.io/kubecore/pkg/kubectl/resource"
)

// UndoOptions are the flags of rollout undo.
type UndoOptions struct {
	Files      resource.FilenameOptions
	Selector   string
	ToRevision int64
	DryRunFlag cmdutil.DryRunFlag

	dryRun  cmdutil.DryRun
	factory *cmdutil.Factory
	streams cmdutil.IOStreams
}

func newUndoCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	o := &UndoOptions{factory: f, streams: streams}
	cmd := &cobra.Command{
		Use:   "undo (TYPE NAME | TYPE/NAME) [flags]",
		Short: "Undo a previous rollout",
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context(), args)
		},
	}
	cmdutil.AddFilenameFlags(cmd.Flags(), &o.Files, "identifying the resource to get from a server.")
	cmd.Flags().StringVarP(&o.Selector, "selector", "l", "", "Selector (label query) to filter on.")
	cmd.Flags().Int64Var(&o.ToRevision, "to-revision", 0, "The revision to rollback to. Default to 0 (last revision).")
	cmdutil.AddDryRunFlag(cmd.Flags(), &o.DryRunFlag)
	return cmd
}

// Complete resolves the dry-run strategy.
func (o *UndoOptions) Complete() error {
	var err error
	o.dryRun, err = o.DryRunFlag.Strategy()
	return err
}

// Validate checks the flags.
func (o *UndoOptions) Validate() error {
	if o.ToRevision < 0 {
		return fmt.Errorf("revision must be a positive integer: %v", o.ToRevision)
	}
	return nil
}

// Run rolls each object back.
func (o *UndoOptions) Run(ctx context.Context, args []string) error {
	b, err := o.factory.NewBuilder(o.streams)
	if err != nil {
		return err
	}
	r, err := b.Filenames(o.Files).Args(args...).LabelSelector(o.Selector).RequireNames().Do(ctx)
	if err != nil {
		return err
	}
	infos, err := r.Fetch(ctx)
	if err != nil {
		return err
	}
	dyn, err := o.factory.Dynamic()
	if err != nil {
		return err
	}
	var errs []error
	for _, info := range infos {
		if info.Mapping.Kind.GroupKind() != deploymentKind {
			errs = append(errs, noVisitorError("rollbacker", info.Mapping.Kind.GroupKind()))
			continue
		}
		var dep appsv1.Deployment
		if err := fromUnstructured(info.Object, &dep); err != nil {
			return err
		}
		if dep.Spec.Paused {
			errs = append(errs, fmt.Errorf("you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again"))
			continue
		}
		revs, err := deploymentRevisions(ctx, dyn, &dep)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		rev, ok := find(revs, o.ToRevision)
		switch {
		case !ok && o.ToRevision == 0:
			errs = append(errs, fmt.Errorf("no rollout history found for deployment %q", dep.Name))
			continue
		case !ok:
			errs = append(errs, fmt.Errorf("unable to find specified revision %d in history", o.ToRevision))
			continue
		}
		if reflect.DeepEqual(withoutHash(&rev.template), withoutHash(&dep.Spec.Template)) {
			fmt.Fprintf(o.streams.Out, "%s skipped rollback (current template already matches revision %d)\n", info.ObjectName(), rev.number)
			continue
		}
		if o.dryRun == cmdutil.DryRunClient {
			// kubectl shows the template it would restore.
			var buf bytes.Buffer
			describe.PodTemplate(&buf, &rev.template)
			fmt.Fprintf(o.streams.Out, "%s %s%s\n", info.ObjectName(), buf.String(), o.dryRun.Suffix())
			continue
		}
		patch, err := rollbackPatch(&dep, rev)
		if err != nil {
			return err
		}
		if _, err := r.Client(info).Patch(ctx, info.Name, types.JSONPatchType, patch, metav1.PatchOptions{DryRun: o.dryRun.Param()}); err != nil {
			errs = append(errs, fmt.Errorf("failed restoring revision %d: %w", rev.number, err))
			continue
		}
		fmt.Fprintf(o.streams.Out, "%s rolled back%s\n", info.ObjectName(), o.dryRun.Suffix())
	}
	return errors.Join(errs...)
}

// rollbackKeepAnnotations are the deployment's own annotations a rollback
// keeps; every other annotation comes from the revision's replica set.
var rollbackKeepAnnotations = map[string]bool{
	"kubectl.kubernetes.io/last-applied-configuration": true,
	revisionAnnotation:                          true,
	"deployment.kubernetes.io/revision-history": true,
	"deployment.kubernetes.io/desired-replicas": true,
	"deployment.kubernetes.io/max-replicas":     true,
	"deprecated.deployment.rollback.to":         true,
}

// rollbackPatch is the JSON patch that puts rev's template and annotations
// back on dep.
func rollbackPatch(dep *appsv1.Deployment, rev revision) ([]byte, error) {
	annotations := map[string]string{}
	for k, v := range dep.Annotations {
		if rollbackKeepAnnotations[k] {
			annotations[k] = v
		}
	}
	for k, v := range rev.annotations {
		if !rollbackKeepAnnotations[k] {
			annotations[k] = v
		}
	}
	type op struct {
		Op    string `json:"op"`
		Path  string `json:"path"`
		Value any    `json:"value"`
	}
	return json.Marshal([]op{
		{"replace", "/spec/template", withoutHash(&rev.template)},
		{"replace", "/metadata/annotations", annotations},
	})
}
