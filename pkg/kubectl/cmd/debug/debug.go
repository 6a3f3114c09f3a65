// Package debug implements `kubectl debug` for pods: an ephemeral
// container added to a running pod through its ephemeralcontainers
// subresource, then attached to, or a copy of the pod with a debugging
// container.
package debug

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/dynamic"
	"kubecore.io/kubecore/pkg/kubectl/cmd/exec"
	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
)

// Options are the flags of debug.
type Options struct {
	Image       string
	Container   string
	Target      string
	Stdin, TTY  bool
	Attach      bool
	Quiet       bool
	CopyTo      string
	SameNode    bool
	ArgsOnly    bool
	target      string
	command     []string
	factory     *cmdutil.Factory
	streams     cmdutil.IOStreams
	attachIsSet bool
}

// NewCommand returns the debug command.
func NewCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	o := &Options{factory: f, streams: streams}
	cmd := &cobra.Command{
		Use:   "debug (POD | TYPE[[.VERSION].GROUP]/NAME) [ -- COMMAND [args...] ]",
		Short: "Create debugging sessions for troubleshooting workloads and nodes",
		RunE: func(cmd *cobra.Command, args []string) error {
			if dash := cmd.ArgsLenAtDash(); dash >= 0 {
				args, o.command = args[:dash], args[dash:]
			}
			if len(args) != 1 {
				return cmdutil.UsageErrorf("kubectl debug", "exactly one pod is required, got %d", len(args))
			}
			o.target = args[0]
			o.attachIsSet = cmd.Flags().Changed("attach")
			return o.Run(cmd.Context())
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.Image, "image", "", "Container image to use for debug container.")
	fs.StringVarP(&o.Container, "container", "c", "", "Container name to use for debug container.")
	fs.StringVar(&o.Target, "target", "", "When using an ephemeral container, target processes in this container name.")
	fs.BoolVarP(&o.Stdin, "stdin", "i", false, "Keep stdin open on the container(s) in the pod, even if nothing is attached.")
	fs.BoolVarP(&o.TTY, "tty", "t", false, "Allocate a TTY for the debugging container.")
	fs.BoolVar(&o.Attach, "attach", false, "If true, wait for the container to start running, and then attach as if 'kubectl attach ...' were called.  Default false, unless '-i/--stdin' is set, in which case the default is true.")
	fs.BoolVarP(&o.Quiet, "quiet", "q", false, "If true, suppress informational messages.")
	fs.StringVar(&o.CopyTo, "copy-to", "", "Create a copy of the target Pod with this name.")
	fs.BoolVar(&o.SameNode, "same-node", false, "When used with '--copy-to', schedule the copy of target Pod on the same node.")
	fs.BoolVar(&o.ArgsOnly, "arguments-only", false, "If specified, everything after -- will be passed to the new container as Args instead of Command.")
	return cmd
}

// Run adds the debugging container and attaches to it when asked.
func (o *Options) Run(ctx context.Context) error {
	if o.Image == "" {
		return errors.New("--image is required")
	}
	if o.TTY && !o.Stdin {
		return errors.New("-i/--stdin is required for containers with -t/--tty=true")
	}
	if !o.attachIsSet {
		o.Attach = o.Stdin
	}
	ns, _, err := o.factory.Namespace()
	if err != nil {
		return err
	}
	name := strings.TrimPrefix(strings.TrimPrefix(o.target, "pod/"), "pods/")
	dyn, err := o.factory.Dynamic()
	if err != nil {
		return err
	}
	pods := dyn.Resource(cmdutil.PodsGVR).Namespace(ns)
	pod, err := pods.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	container := o.Container
	if container == "" {
		container = "debugger-" + suffix()
		if !o.Quiet {
			fmt.Fprintf(o.streams.ErrOut, "Defaulting debug container name to %s.\n", container)
		}
	}
	spec := map[string]any{"name": container, "image": o.Image, "terminationMessagePolicy": "File"}
	if len(o.command) > 0 {
		list := make([]any, len(o.command))
		for i, a := range o.command {
			list[i] = a
		}
		if o.ArgsOnly {
			spec["args"] = list
		} else {
			spec["command"] = list
		}
	}
	if o.Stdin {
		spec["stdin"] = true
	}
	if o.TTY {
		spec["tty"] = true
	}
	target := name
	if o.CopyTo != "" {
		target = o.CopyTo
		if err := o.createCopy(ctx, pods, pod, spec); err != nil {
			return err
		}
	} else {
		if o.Target != "" {
			spec["targetContainerName"] = o.Target
		}
		patch, _ := json.Marshal(map[string]any{"spec": map[string]any{"ephemeralContainers": []any{spec}}})
		if _, err := pods.Patch(ctx, name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "ephemeralcontainers"); err != nil {
			if apierrors.IsNotFound(err) {
				return errors.New("ephemeral containers are disabled for this cluster (error from server: \"the server could not find the requested resource\")")
			}
			return fmt.Errorf("error adding ephemeral container: %w", err)
		}
	}
	if !o.Attach {
		return nil
	}
	return o.attach(ctx, ns, target, container)
}

// createCopy creates the copy of pod named --copy-to with the debugging
// container added.
func (o *Options) createCopy(ctx context.Context, pods *dynamic.ResourceClient, pod *dynamic.Unstructured, debugContainer map[string]any) error {
	spec, _ := dynamic.NestedField(pod.Object, "spec").(map[string]any)
	if spec == nil {
		return errors.New("the pod has no spec")
	}
	if !o.SameNode {
		delete(spec, "nodeName")
	}
	delete(spec, "ephemeralContainers")
	containers, _ := spec["containers"].([]any)
	spec["containers"] = append(containers, debugContainer)
	copyPod := &dynamic.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": o.CopyTo},
		"spec":     spec,
	}}
	if _, err := pods.Create(ctx, copyPod, metav1.CreateOptions{}); err != nil {
		return err
	}
	return nil
}

// attach waits for the container to run and attaches to it, or prints
// the log of a container that already finished.
func (o *Options) attach(ctx context.Context, ns, pod, container string) error {
	wctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	var state map[string]any
	_, err := cmdutil.WaitForPod(wctx, o.factory, ns, pod, func(p *dynamic.Unstructured) (bool, error) {
		state = containerState(p, container)
		return state["running"] != nil || state["terminated"] != nil, nil
	})
	if err != nil {
		return err
	}
	if state["terminated"] == nil {
		err = exec.Attach(ctx, o.factory, o.streams, exec.AttachOptions{
			Namespace: ns, Pod: pod, Container: container, Stdin: o.Stdin, TTY: o.TTY, Quiet: o.Quiet,
		})
		if err == nil {
			return nil
		}
		fmt.Fprintf(o.streams.ErrOut, "warning: couldn't attach to pod/%s, falling back to streaming logs: %v\n", pod, err)
	}
	return cmdutil.CopyLog(ctx, o.factory, o.streams.Out, ns, pod, container)
}

// containerState is the state of the named container, ephemeral or not.
func containerState(pod *dynamic.Unstructured, name string) map[string]any {
	for _, field := range []string{"ephemeralContainerStatuses", "containerStatuses"} {
		list, _ := dynamic.NestedField(pod.Object, "status", field).([]any)
		for _, c := range list {
			m, _ := c.(map[string]any)
			if dynamic.NestedString(m, "name") == name {
				st, _ := m["state"].(map[string]any)
				return st
			}
		}
	}
	return nil
}

// suffix is five random lower-case letters and digits.
func suffix() string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	var b [5]byte
	_, _ = rand.Read(b[:])
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b[:])
}
