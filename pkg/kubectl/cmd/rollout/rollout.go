// Package rollout implements `kubectl rollout`: status follows a
// deployment's (or stateful set's) rollout until it completes; history and
// undo read and restore a deployment's revisions from its replica sets;
// restart, pause and resume patch the workload.
package rollout

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/dynamic"
	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
	"kubecore.io/kubecore/pkg/kubectl/resource"
)

// NewCommand returns rollout and its subcommands.
func NewCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rollout SUBCOMMAND",
		Short: "Manage the rollout of a resource",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("unknown command %q for %q", args[0], "kubectl rollout")
			}
			return cmd.Help()
		},
	}
	cmd.AddCommand(
		newHistoryCommand(f, streams),
		newStatusCommand(f, streams),
		newUndoCommand(f, streams),
		newPatchCommand(f, streams, restartVerb()),
		newPatchCommand(f, streams, pauseVerb(true)),
		newPatchCommand(f, streams, pauseVerb(false)),
	)
	return cmd
}

// StatusOptions are the flags of rollout status.
type StatusOptions struct {
	Files    resource.FilenameOptions
	Selector string
	Watch    bool
	Timeout  time.Duration

	factory *cmdutil.Factory
	streams cmdutil.IOStreams
}

func newStatusCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	o := &StatusOptions{Watch: true, factory: f, streams: streams}
	cmd := &cobra.Command{
		Use:   "status (TYPE NAME | TYPE/NAME) [flags]",
		Short: "Show the status of the rollout",
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.Run(cmd.Context(), args)
		},
	}
	cmdutil.AddFilenameFlags(cmd.Flags(), &o.Files, "identifying the resource to get from a server.")
	cmd.Flags().StringVarP(&o.Selector, "selector", "l", "", "Selector (label query) to filter on.")
	cmd.Flags().BoolVarP(&o.Watch, "watch", "w", true, "Watch the status of the rollout until it's done.")
	cmd.Flags().DurationVar(&o.Timeout, "timeout", 0, "The length of time to wait before ending watch, zero means never. Any other values should contain a corresponding time unit (e.g. 1s, 2m, 3h).")
	return cmd
}

// errTimeout is what an unfinished rollout reports when --timeout passes.
var errTimeout = errors.New("timed out waiting for the condition")

// Run follows each object's rollout.
func (o *StatusOptions) Run(ctx context.Context, args []string) error {
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
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	for _, info := range infos {
		if err := o.follow(ctx, r.Client(info), info); err != nil {
			return err
		}
	}
	return nil
}

// follow prints the rollout's progress, each message once, until done.
func (o *StatusOptions) follow(ctx context.Context, c *dynamic.ResourceClient, info *resource.Info) error {
	last := ""
	report := func(obj *dynamic.Unstructured) (bool, error) {
		msg, done, err := status(obj)
		if err != nil {
			return false, err
		}
		if msg != last {
			fmt.Fprint(o.streams.Out, msg)
			last = msg
		}
		return done, nil
	}
	done, err := report(info.Object)
	if done || err != nil || !o.Watch {
		return err
	}
	w, err := c.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + info.Name, ResourceVersion: info.Object.GetResourceVersion()})
	if err != nil {
		return err
	}
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return errTimeout
		case ev, ok := <-w.ResultChan():
			if !ok {
				return errTimeout
			}
			obj, _ := ev.Object.(*dynamic.Unstructured)
			if obj == nil {
				continue
			}
			if done, err := report(obj); done || err != nil {
				return err
			}
		}
	}
}

func num(obj *dynamic.Unstructured, path ...string) int64 {
	n, _ := dynamic.NestedField(obj.Object, path...).(json.Number)
	v, _ := n.Int64()
	return v
}

// statefulSetStatus says where a StatefulSet's rolling update stands.
func statefulSetStatus(obj *dynamic.Unstructured) (string, bool, error) {
	if t := dynamic.NestedString(obj.Object, "spec", "updateStrategy", "type"); t != "RollingUpdate" {
		return "", true, fmt.Errorf("rollout status is only available for RollingUpdate strategy type")
	}
	if observed := num(obj, "status", "observedGeneration"); observed == 0 || num(obj, "metadata", "generation") > observed {
		return "Waiting for statefulset spec update to be observed...\n", false, nil
	}
	_, hasReplicas := dynamic.NestedField(obj.Object, "spec", "replicas").(json.Number)
	want := num(obj, "spec", "replicas")
	if ready := num(obj, "status", "readyReplicas"); hasReplicas && ready < want {
		return fmt.Sprintf("Waiting for %d pods to be ready...\n", want-ready), false, nil
	}
	updated := num(obj, "status", "updatedReplicas")
	if dynamic.NestedField(obj.Object, "spec", "updateStrategy", "rollingUpdate") != nil {
		_, hasPartition := dynamic.NestedField(obj.Object, "spec", "updateStrategy", "rollingUpdate", "partition").(json.Number)
		partition := num(obj, "spec", "updateStrategy", "rollingUpdate", "partition")
		if hasReplicas && hasPartition && updated < want-partition {
			return fmt.Sprintf("Waiting for partitioned roll out to finish: %d out of %d new pods have been updated...\n", updated, want-partition), false, nil
		}
		return fmt.Sprintf("partitioned roll out complete: %d new pods have been updated...\n", updated), true, nil
	}
	if update := dynamic.NestedString(obj.Object, "status", "updateRevision"); update != dynamic.NestedString(obj.Object, "status", "currentRevision") {
		return fmt.Sprintf("waiting for statefulset rolling update to complete %d pods at revision %s...\n", updated, update), false, nil
	}
	return fmt.Sprintf("statefulset rolling update complete %d pods at revision %s...\n", num(obj, "status", "currentReplicas"), dynamic.NestedString(obj.Object, "status", "currentRevision")), true, nil
}

// daemonSetStatus says where a DaemonSet's rolling update stands.
func daemonSetStatus(obj *dynamic.Unstructured) (string, bool, error) {
	name := obj.GetName()
	if t := dynamic.NestedString(obj.Object, "spec", "updateStrategy", "type"); t != "RollingUpdate" {
		return "", true, fmt.Errorf("rollout status is only available for RollingUpdate strategy type")
	}
	if num(obj, "metadata", "generation") > num(obj, "status", "observedGeneration") {
		return "Waiting for daemon set spec update to be observed...\n", false, nil
	}
	desired := num(obj, "status", "desiredNumberScheduled")
	if updated := num(obj, "status", "updatedNumberScheduled"); updated < desired {
		return fmt.Sprintf("Waiting for daemon set %q rollout to finish: %d out of %d new pods have been updated...\n", name, updated, desired), false, nil
	}
	if available := num(obj, "status", "numberAvailable"); available < desired {
		return fmt.Sprintf("Waiting for daemon set %q rollout to finish: %d of %d updated pods are available...\n", name, available, desired), false, nil
	}
	return fmt.Sprintf("daemon set %q successfully rolled out\n", name), true, nil
}

// status says where a rollout stands, as kubectl words it.
func status(obj *dynamic.Unstructured) (string, bool, error) {
	name := obj.GetName()
	switch obj.GetKind() {
	case "Deployment":
		if num(obj, "metadata", "generation") > num(obj, "status", "observedGeneration") {
			return "Waiting for deployment spec update to be observed...\n", false, nil
		}
		conds, _ := dynamic.NestedField(obj.Object, "status", "conditions").([]any)
		for _, c := range conds {
			m, _ := c.(map[string]any)
			if dynamic.NestedString(m, "type") == "Progressing" && dynamic.NestedString(m, "reason") == "ProgressDeadlineExceeded" {
				return "", false, fmt.Errorf("deployment %q exceeded its progress deadline", name)
			}
		}
		want := int64(1)
		if _, ok := dynamic.NestedField(obj.Object, "spec", "replicas").(json.Number); ok {
			want = num(obj, "spec", "replicas")
		}
		updated, total, available := num(obj, "status", "updatedReplicas"), num(obj, "status", "replicas"), num(obj, "status", "availableReplicas")
		switch {
		case updated < want:
			return fmt.Sprintf("Waiting for deployment %q rollout to finish: %d out of %d new replicas have been updated...\n", name, updated, want), false, nil
		case total > updated:
			return fmt.Sprintf("Waiting for deployment %q rollout to finish: %d old replicas are pending termination...\n", name, total-updated), false, nil
		case available < updated:
			return fmt.Sprintf("Waiting for deployment %q rollout to finish: %d of %d updated replicas are available...\n", name, available, updated), false, nil
		}
		return fmt.Sprintf("deployment %q successfully rolled out\n", name), true, nil
	case "StatefulSet":
		return statefulSetStatus(obj)
	case "DaemonSet":
		return daemonSetStatus(obj)
	}
	return "", false, fmt.Errorf("no status viewer has been implemented for %s", obj.GetKind())
}
