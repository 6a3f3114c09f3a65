// Package logs implements `kubectl logs`: a container's log, read or
// followed through the pod's log subresource.
package logs

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/client/dynamic"
	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
)

// Options are the flags of logs.
type Options struct {
	Container  string
	Follow     bool
	Previous   bool
	Timestamps bool
	Tail       int64
	Since      time.Duration

	factory *cmdutil.Factory
	streams cmdutil.IOStreams
}

// NewCommand returns the logs command.
func NewCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	o := &Options{Tail: -1, factory: f, streams: streams}
	cmd := &cobra.Command{
		Use:   "logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER]",
		Short: "Print the logs for a container in a pod",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return cmdutil.UsageErrorf("kubectl logs", "expected POD or TYPE/NAME is a required argument for the logs command")
			}
			return o.Run(cmd.Context(), args[0])
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&o.Container, "container", "c", "", "Print the logs of this container")
	fs.BoolVarP(&o.Follow, "follow", "f", false, "Specify if the logs should be streamed.")
	fs.BoolVarP(&o.Previous, "previous", "p", false, "If true, print the logs for the previous instance of the container in a pod if it exists.")
	fs.BoolVar(&o.Timestamps, "timestamps", false, "Include timestamps on each line in the log output")
	fs.Int64Var(&o.Tail, "tail", -1, "Lines of recent log file to display. Defaults to -1 with no selector, showing all log lines otherwise 10, if a selector is provided.")
	fs.DurationVar(&o.Since, "since", 0, "Only return logs newer than a relative duration like 5s, 2m, or 3h. Defaults to all logs.")
	return cmd
}

var podsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// Run streams the log of one container of the pod.
func (o *Options) Run(ctx context.Context, arg string) error {
	typ, name, hasType := strings.Cut(arg, "/")
	if !hasType {
		typ, name = "pods", arg
	}
	mapper, err := o.factory.Mapper()
	if err != nil {
		return err
	}
	if m, err := mapper.ResourceFor(ctx, typ); err != nil {
		return err
	} else if m.Resource != podsGVR {
		return fmt.Errorf("cannot get the logs from %s: only pods are supported", m.Resource.GroupResource())
	}
	ns, _, err := o.factory.Namespace()
	if err != nil {
		return err
	}
	dyn, err := o.factory.Dynamic()
	if err != nil {
		return err
	}
	pods := dyn.Resource(podsGVR).Namespace(ns)
	pod, err := pods.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("error from server (NotFound): pods %q not found in namespace %q", name, ns)
	}
	if err != nil {
		return err
	}
	container := o.Container
	if container == "" {
		container = o.defaultContainer(pod)
	}
	req, err := pods.NewRequest("GET", name, "log")
	if err != nil {
		return err
	}
	req.Param("container", container)
	if o.Follow {
		req.Param("follow", "true")
	}
	if o.Previous {
		req.Param("previous", "true")
	}
	if o.Timestamps {
		req.Param("timestamps", "true")
	}
	if o.Tail >= 0 {
		req.Param("tailLines", strconv.FormatInt(o.Tail, 10))
	}
	if o.Since > 0 {
		req.Param("sinceSeconds", strconv.FormatInt(int64(o.Since.Seconds()), 10))
	}
	body, err := req.Stream(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = body.Close() }()
	if _, err := io.Copy(o.streams.Out, body); err != nil && ctx.Err() == nil {
		return fmt.Errorf("read the log of %s/%s: %w", name, container, err)
	}
	return nil
}

// defaultContainer picks the first container, saying so when there are
// several.
func (o *Options) defaultContainer(pod *dynamic.Unstructured) string {
	containers, _ := dynamic.NestedField(pod.Object, "spec", "containers").([]any)
	var names []string
	for _, c := range containers {
		m, _ := c.(map[string]any)
		names = append(names, dynamic.NestedString(m, "name"))
	}
	if len(names) == 0 {
		return ""
	}
	if len(names) > 1 {
		fmt.Fprintf(o.streams.ErrOut, "Defaulted container %q out of: %s\n", names[0], strings.Join(names, ", "))
	}
	return names[0]
}
