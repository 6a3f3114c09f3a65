package rollout

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/spf13/cobra"

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
	return visitWorkloads(ctx, o.factory, o.streams, o.Files, o.Selector, args, "rollbacker", func(v workloadVisit) error {
		w, name := v.workload, v.info.ObjectName()
		if err := w.undoable(); err != nil {
			return err
		}
		revs, err := w.revisions(ctx, v.dyn)
		if err != nil {
			return err
		}
		rev, ok := find(revs, o.ToRevision)
		switch {
		case !ok && o.ToRevision == 0:
			return w.noPrevious()
		case !ok:
			return fmt.Errorf("unable to find specified revision %d in history", o.ToRevision)
		}
		if w.matches(rev) {
			fmt.Fprintf(o.streams.Out, "%s skipped rollback (current template already matches revision %d)\n", name, rev.number)
			return nil
		}
		if o.dryRun == cmdutil.DryRunClient {
			// kubectl shows the template it would restore.
			var buf bytes.Buffer
			describe.PodTemplate(&buf, &rev.template)
			fmt.Fprintf(o.streams.Out, "%s %s%s%s\n", name, w.dryRunPrefix(), buf.String(), o.dryRun.Suffix())
			return nil
		}
		pt, patch, err := w.rollbackPatch(rev)
		if err != nil {
			return err
		}
		if _, err := v.result.Client(v.info).Patch(ctx, v.info.Name, pt, patch, metav1.PatchOptions{DryRun: o.dryRun.Param()}); err != nil {
			return fmt.Errorf("failed restoring revision %d: %w", rev.number, err)
		}
		fmt.Fprintf(o.streams.Out, "%s rolled back%s\n", name, o.dryRun.Suffix())
		return nil
	})
}

func (d *deployment) undoable() error {
	if d.dep.Spec.Paused {
		return fmt.Errorf("you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again")
	}
	return nil
}

func (d *deployment) noPrevious() error {
	return fmt.Errorf("no rollout history found for deployment %q", d.dep.Name)
}

func (d *deployment) matches(rev revision) bool {
	return reflect.DeepEqual(withoutHash(&rev.template), withoutHash(&d.dep.Spec.Template))
}

func (d *deployment) dryRunPrefix() string { return "" }

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
// back on the deployment.
func (d *deployment) rollbackPatch(rev revision) (types.PatchType, []byte, error) {
	annotations := map[string]string{}
	for k, v := range d.dep.Annotations {
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
	patch, err := json.Marshal([]op{
		{"replace", "/spec/template", withoutHash(&rev.template)},
		{"replace", "/metadata/annotations", annotations},
	})
	return types.JSONPatchType, patch, err
}
