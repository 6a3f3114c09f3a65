package rollout

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
	"kubecore.io/kubecore/pkg/kubectl/describe"
	"kubecore.io/kubecore/pkg/kubectl/resource"
)

// HistoryOptions are the flags of rollout history.
type HistoryOptions struct {
	Files    resource.FilenameOptions
	Selector string
	Revision int64

	factory *cmdutil.Factory
	streams cmdutil.IOStreams
}

func newHistoryCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	o := &HistoryOptions{factory: f, streams: streams}
	cmd := &cobra.Command{
		Use:   "history (TYPE NAME | TYPE/NAME) [flags]",
		Short: "View rollout history",
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context(), args)
		},
	}
	cmdutil.AddFilenameFlags(cmd.Flags(), &o.Files, "identifying the resource to get from a server.")
	cmd.Flags().StringVarP(&o.Selector, "selector", "l", "", "Selector (label query) to filter on.")
	cmd.Flags().Int64Var(&o.Revision, "revision", 0, "See the details, including podTemplate of the revision specified")
	return cmd
}

// Validate checks the flags.
func (o *HistoryOptions) Validate() error {
	if o.Revision < 0 {
		return fmt.Errorf("revision must be a positive integer: %v", o.Revision)
	}
	return nil
}

// Run prints the history of each object, or one revision's template.
func (o *HistoryOptions) Run(ctx context.Context, args []string) error {
	return visitWorkloads(ctx, o.factory, o.streams, o.Files, o.Selector, args, "history", func(v workloadVisit) error {
		revs, err := v.workload.revisions(ctx, v.dyn)
		if err != nil {
			return err
		}
		text, err := o.view(revs)
		if err != nil {
			return err
		}
		if o.Revision > 0 {
			fmt.Fprintf(o.streams.Out, "%s with revision #%d\n%s\n", v.info.ObjectName(), o.Revision, text)
		} else {
			fmt.Fprintf(o.streams.Out, "%s \n%s\n", v.info.ObjectName(), text)
		}
		return nil
	})
}

// view lays out the table of revisions, or the template of --revision.
func (o *HistoryOptions) view(revs []revision) (string, error) {
	var buf bytes.Buffer
	if o.Revision > 0 {
		rev, ok := find(revs, o.Revision)
		if !ok {
			return "", errors.New("unable to find the specified revision")
		}
		describe.PodTemplate(&buf, rev.described)
		return buf.String(), nil
	}
	if len(revs) == 0 {
		return "No rollout history found.", nil
	}
	w := tabwriter.NewWriter(&buf, 0, 8, 2, ' ', 0)
	fmt.Fprintf(w, "REVISION\tCHANGE-CAUSE\n")
	for _, r := range revs {
		cause := r.changeCause
		if cause == "" {
			cause = "<none>"
		}
		fmt.Fprintf(w, "%d\t%s\n", r.number, cause)
	}
	err := w.Flush()
	return buf.String(), err
}
