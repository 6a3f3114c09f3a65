// Package logs implements `kubectl logs`: the logs of containers, read or
// followed through the pods' log subresource, for a pod, the pods of an
// object (one of them) or of a selector (-l).
package logs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
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
	Container      string
	AllContainers  bool
	Selector       string
	Prefix         bool
	Follow         bool
	Previous       bool
	Timestamps     bool
	Tail           int64
	Since          time.Duration
	MaxLogRequests int

	factory *cmdutil.Factory
	streams cmdutil.IOStreams
}

// NewCommand returns the logs command.
func NewCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	o := &Options{Tail: -1, MaxLogRequests: 5, factory: f, streams: streams}
	cmd := &cobra.Command{
		Use:   "logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER]",
		Short: "Print the logs for a container in a pod",
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Validate(args); err != nil {
				return err
			}
			return o.Run(cmd.Context(), args)
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&o.Container, "container", "c", "", "Print the logs of this container")
	fs.BoolVar(&o.AllContainers, "all-containers", false, "Get all containers' logs in the pod(s).")
	fs.StringVarP(&o.Selector, "selector", "l", "", "Selector (label query) to filter on, supports '=', '==', '!=', 'in', 'notin'.(e.g. -l key1=value1,key2=value2,key3 in (value3)). Matching objects must satisfy all of the specified label constraints.")
	fs.BoolVar(&o.Prefix, "prefix", false, "Prefix each log line with the log source (pod name and container name)")
	fs.BoolVarP(&o.Follow, "follow", "f", false, "Specify if the logs should be streamed.")
	fs.BoolVarP(&o.Previous, "previous", "p", false, "If true, print the logs for the previous instance of the container in a pod if it exists.")
	fs.BoolVar(&o.Timestamps, "timestamps", false, "Include timestamps on each line in the log output")
	fs.Int64Var(&o.Tail, "tail", -1, "Lines of recent log file to display. Defaults to -1 with no selector, showing all log lines otherwise 10, if a selector is provided.")
	fs.DurationVar(&o.Since, "since", 0, "Only return logs newer than a relative duration like 5s, 2m, or 3h. Defaults to all logs.")
	fs.IntVar(&o.MaxLogRequests, "max-log-requests", 5, "Specify maximum number of concurrent logs to follow when using by a selector. Defaults to 5.")
	return cmd
}

// Validate checks the arguments against the flags.
func (o *Options) Validate(args []string) error {
	switch {
	case o.Selector != "" && len(args) > 0:
		return cmdutil.UsageErrorf("kubectl logs", "only a selector (-l) or a POD name is allowed")
	case o.Selector == "" && (len(args) == 0 || len(args) > 2):
		return cmdutil.UsageErrorf("kubectl logs", "expected 'logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER]'.\nPOD or TYPE/NAME is a required argument for the logs command")
	case o.AllContainers && o.Container != "":
		return fmt.Errorf("--all-containers=true should not be specified with container name %s", o.Container)
	case o.MaxLogRequests <= 0:
		return fmt.Errorf("--max-log-requests must be greater than 0")
	case len(args) == 2 && o.Container != "":
		return errors.New("only one of -c or an inline [CONTAINER] arg is allowed")
	case len(args) == 2:
		// The old form: logs POD CONTAINER.
		o.Container = args[1]
	}
	return nil
}

// source is one container log to read.
type source struct {
	pod, container string
}

// Run reads or follows the logs of the containers the arguments name:
// one after another, or all at once when following several.
func (o *Options) Run(ctx context.Context, args []string) error {
	ns, _, err := o.factory.Namespace()
	if err != nil {
		return err
	}
	pods, err := o.pods(ctx, ns, args)
	if err != nil || len(pods) == 0 {
		return err
	}
	var sources []source
	for _, pod := range pods {
		for _, c := range o.containers(pod) {
			sources = append(sources, source{pod: pod.GetName(), container: c})
		}
	}
	dyn, err := o.factory.Dynamic()
	if err != nil {
		return err
	}
	client := dyn.Resource(cmdutil.PodsGVR).Namespace(ns)
	if !o.Follow || len(sources) == 1 {
		for _, s := range sources {
			if err := o.copyLog(ctx, client, s, o.streams.Out); err != nil {
				return err
			}
		}
		return nil
	}
	if len(sources) > o.MaxLogRequests {
		return fmt.Errorf("you are attempting to follow %d log streams, but maximum allowed concurrency is %d, use --max-log-requests to increase the limit", len(sources), o.MaxLogRequests)
	}
	// Followed at once, each line written whole.
	out := &lineWriter{w: o.streams.Out}
	errs := make([]error, len(sources))
	var wg sync.WaitGroup
	for i, s := range sources {
		wg.Go(func() {
			w := &lineBuffer{out: out}
			errs[i] = o.copyLog(ctx, client, s, w)
			w.flush()
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// pods returns the pods to read: those of the selector, or the pod (or
// one of the pods) the argument names.
func (o *Options) pods(ctx context.Context, ns string, args []string) ([]*dynamic.Unstructured, error) {
	if o.Selector != "" {
		dyn, err := o.factory.Dynamic()
		if err != nil {
			return nil, err
		}
		list, err := dyn.Resource(cmdutil.PodsGVR).Namespace(ns).List(ctx, metav1.ListOptions{LabelSelector: o.Selector})
		if err != nil {
			return nil, err
		}
		if len(list.Items()) == 0 {
			fmt.Fprintf(o.streams.ErrOut, "No resources found in %s namespace.\n", ns)
		}
		if o.Tail < 0 {
			o.Tail = 10
		}
		return list.Items(), nil
	}
	pods, err := cmdutil.PodsFor(ctx, o.factory, ns, args[0])
	var noSelector *cmdutil.NoSelectorError
	var status *apierrors.StatusError
	switch {
	case errors.As(err, &noSelector):
		return nil, fmt.Errorf("cannot get the logs from %s: %w", noSelector.Type, err)
	case errors.As(err, &status) && apierrors.IsNotFound(err):
		resource := schema.GroupResource{Group: status.ErrStatus.Details.Group, Resource: status.ErrStatus.Details.Kind}
		return nil, fmt.Errorf("error from server (NotFound): %s %q not found in namespace %q", resource, status.ErrStatus.Details.Name, ns)
	case err != nil:
		return nil, err
	}
	if len(pods) > 1 {
		fmt.Fprintf(o.streams.ErrOut, "Found %d pods, using pod/%s\n", len(pods), pods[0].GetName())
	}
	return pods[:1], nil
}

// containers lists the containers of pod to read: -c, every one with
// --all-containers (init containers first), or the default one.
func (o *Options) containers(pod *dynamic.Unstructured) []string {
	switch {
	case o.Container != "":
		return []string{o.Container}
	case o.AllContainers:
		var names []string
		for _, field := range []string{"initContainers", "containers", "ephemeralContainers"} {
			list, _ := dynamic.NestedField(pod.Object, "spec", field).([]any)
			for _, c := range list {
				m, _ := c.(map[string]any)
				names = append(names, dynamic.NestedString(m, "name"))
			}
		}
		return names
	}
	return []string{cmdutil.DefaultContainer(pod, o.streams.ErrOut)}
}

// copyLog copies one container's log to w, each line prefixed with its
// source under --prefix.
func (o *Options) copyLog(ctx context.Context, client *dynamic.ResourceClient, s source, w io.Writer) error {
	req, err := client.NewRequest("GET", s.pod, "log")
	if err != nil {
		return err
	}
	req.Param("container", s.container)
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
	if o.Prefix {
		w = &prefixWriter{w: w, prefix: fmt.Sprintf("[pod/%s/%s] ", s.pod, s.container), lineStart: true}
	}
	if _, err := io.Copy(w, body); err != nil && ctx.Err() == nil {
		return fmt.Errorf("read the log of %s/%s: %w", s.pod, s.container, err)
	}
	return nil
}

// prefixWriter writes prefix before each line.
type prefixWriter struct {
	w         io.Writer
	prefix    string
	lineStart bool
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	var out []byte
	for _, c := range b {
		if p.lineStart {
			out = append(out, p.prefix...)
		}
		out = append(out, c)
		p.lineStart = c == '\n'
	}
	if _, err := p.w.Write(out); err != nil {
		return 0, err
	}
	return len(b), nil
}

// lineWriter serializes whole lines of several streams.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// lineBuffer holds a stream's partial line until it ends.
type lineBuffer struct {
	out *lineWriter
	buf []byte
}

func (l *lineBuffer) Write(b []byte) (int, error) {
	l.buf = append(l.buf, b...)
	if i := bytes.LastIndexByte(l.buf, '\n'); i >= 0 {
		l.out.mu.Lock()
		_, err := l.out.w.Write(l.buf[:i+1])
		l.out.mu.Unlock()
		if err != nil {
			return 0, err
		}
		l.buf = append(l.buf[:0], l.buf[i+1:]...)
	}
	return len(b), nil
}

// flush writes what is left of the last line.
func (l *lineBuffer) flush() {
	if len(l.buf) > 0 {
		l.out.mu.Lock()
		_, _ = l.out.w.Write(l.buf)
		l.out.mu.Unlock()
	}
}
