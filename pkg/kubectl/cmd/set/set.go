// Package set implements `kubectl set image` and `kubectl set env`: change
// container images and environment variables of workloads and pods.
package set

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/dynamic"
	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
	"kubecore.io/kubecore/pkg/kubectl/resource"
)

// NewCommand returns set and its image subcommand.
func NewCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "set SUBCOMMAND",
		Short: "Set specific features on objects",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("unknown command %q for %q", args[0], "kubectl set")
			}
			return cmd.Help()
		},
	}
	cmd.AddCommand(newEnvCommand(f, streams), newImageCommand(f, streams))
	return cmd
}

// ImageOptions are the flags of set image.
type ImageOptions struct {
	Files      resource.FilenameOptions
	Selector   string
	All        bool
	DryRunFlag cmdutil.DryRunFlag

	factory *cmdutil.Factory
	streams cmdutil.IOStreams
}

func newImageCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	o := &ImageOptions{factory: f, streams: streams}
	cmd := &cobra.Command{
		Use:   "image (-f FILENAME | TYPE NAME) CONTAINER_NAME_1=CONTAINER_IMAGE_1 ... CONTAINER_NAME_N=CONTAINER_IMAGE_N",
		Short: "Update the image of a pod template",
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.Run(cmd.Context(), args)
		},
	}
	cmdutil.AddFilenameFlags(cmd.Flags(), &o.Files, "identifying the resource to get from a server.")
	cmd.Flags().StringVarP(&o.Selector, "selector", "l", "", "Selector (label query) to filter on.")
	cmd.Flags().BoolVar(&o.All, "all", false, "Select all resources, in the namespace of the specified resource types")
	cmdutil.AddDryRunFlag(cmd.Flags(), &o.DryRunFlag)
	return cmd
}

// Run sets the images of each object that needs it.
func (o *ImageOptions) Run(ctx context.Context, args []string) error {
	dryRun, err := o.DryRunFlag.Strategy()
	if err != nil {
		return err
	}
	var resArgs []string
	images := map[string]string{}
	var order []string
	for _, a := range args {
		name, image, ok := strings.Cut(a, "=")
		if !ok {
			resArgs = append(resArgs, a)
			continue
		}
		images[name] = image
		order = append(order, name)
	}
	if len(images) == 0 {
		return cmdutil.UsageErrorf("kubectl set image", "at least one image update is required")
	}
	b, err := o.factory.NewBuilder(o.streams)
	if err != nil {
		return err
	}
	r, err := b.Filenames(o.Files).Args(resArgs...).LabelSelector(o.Selector).SelectAll(o.All).RequireNames().Do(ctx)
	if err != nil {
		return err
	}
	infos, err := r.Fetch(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, info := range infos {
		path := containersPath(info.Object.GetKind())
		if path == nil {
			errs = append(errs, fmt.Errorf("%s is not supported", info.ObjectName()))
			continue
		}
		containers, _ := dynamic.NestedField(info.Object.Object, path...).([]any)
		var changed []any
		for _, name := range order {
			found := false
			for _, c := range containers {
				m, _ := c.(map[string]any)
				cname := dynamic.NestedString(m, "name")
				if name != "*" && cname != name {
					continue
				}
				found = true
				if dynamic.NestedString(m, "image") != images[name] {
					changed = append(changed, map[string]any{"name": cname, "image": images[name]})
				}
			}
			if !found {
				errs = append(errs, fmt.Errorf("unable to find container named %q", name))
			}
		}
		if len(changed) == 0 {
			continue
		}
		patchObj := map[string]any{}
		dynamic.SetNestedField(patchObj, changed, path...)
		patch, err := json.Marshal(patchObj)
		if err != nil {
			return err
		}
		if dryRun != cmdutil.DryRunClient {
			if _, err := r.Client(info).Patch(ctx, info.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{DryRun: dryRun.Param()}); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		fmt.Fprintf(o.streams.Out, "%s image updated%s\n", info.ObjectName(), dryRun.Suffix())
	}
	return errors.Join(errs...)
}

// containersPath is where a kind keeps its containers.
func containersPath(kind string) []string {
	switch kind {
	case "Pod":
		return []string{"spec", "containers"}
	case "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "ReplicationController", "Job":
		return []string{"spec", "template", "spec", "containers"}
	}
	return nil
}
