// Package attach implements `kubectl attach`: the standard streams of a
// container's running process, through the pod's attach subresource.
package attach

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"kubecore.io/client/dynamic"
	"kubecore.io/kubecore/pkg/kubectl/cmd/exec"
	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
)

// Options are the flags of attach.
type Options struct {
	Container         string
	Stdin             bool
	TTY               bool
	Quiet             bool
	PodRunningTimeout time.Duration
	target            string
	factory           *cmdutil.Factory
	streams           cmdutil.IOStreams
}

// NewCommand returns the attach command.
func NewCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	o := &Options{factory: f, streams: streams}
	cmd := &cobra.Command{
		Use:   "attach (POD | TYPE/NAME) -c CONTAINER",
		Short: "Attach to a running container",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return cmdutil.UsageErrorf("kubectl attach", "expected POD, TYPE/NAME, or TYPE NAME, (at most 2 arguments) saw %d: %v", len(args), args)
			}
			o.target = args[0]
			return o.Run(cmd.Context())
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&o.Container, "container", "c", "", "Container name. If omitted, use the kubectl.kubernetes.io/default-container annotation for selecting the container to be attached or the first container in the pod will be chosen")
	fs.BoolVarP(&o.Stdin, "stdin", "i", false, "Pass stdin to the container")
	fs.BoolVarP(&o.TTY, "tty", "t", false, "Stdin is a TTY")
	fs.BoolVarP(&o.Quiet, "quiet", "q", false, "Only print output from the remote session")
	fs.DurationVar(&o.PodRunningTimeout, "pod-running-timeout", time.Minute, "The length of time (like 5s, 2m, or 3h, higher than zero) to wait until at least one pod is running")
	return cmd
}

// Run finds the pod, waits for it to run and attaches.
func (o *Options) Run(ctx context.Context) error {
	ns, target, err := cmdutil.TargetPod(ctx, o.factory, o.target)
	if err != nil {
		return err
	}
	pod, err := WaitForRunning(ctx, o.factory, ns, target.GetName(), o.PodRunningTimeout)
	if err != nil {
		return err
	}
	container, err := cmdutil.StreamContainer(pod, o.Container, "attach a container", o.Quiet, o.streams.ErrOut)
	if err != nil {
		return err
	}
	return exec.Attach(ctx, o.factory, o.streams, exec.AttachOptions{
		Namespace: ns, Pod: pod.GetName(), Container: container, Stdin: o.Stdin, TTY: o.TTY, Quiet: o.Quiet,
	})
}

// WaitForRunning waits up to timeout for the pod to leave Pending.
func WaitForRunning(ctx context.Context, f *cmdutil.Factory, ns, name string, timeout time.Duration) (*dynamic.Unstructured, error) {
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	pod, err := cmdutil.WaitForPod(wctx, f, ns, name, func(p *dynamic.Unstructured) (bool, error) {
		return dynamic.NestedString(p.Object, "status", "phase") != "Pending", nil
	})
	if err != nil && wctx.Err() != nil && ctx.Err() == nil {
		return nil, fmt.Errorf("timed out waiting for the condition")
	}
	return pod, err
}
