// Package exec implements `kubectl exec`: a command run in a container of
// a pod through the pod's exec subresource, over a WebSocket of the
// v5.channel.k8s.io protocol, with stdin (-i) and a terminal (-t) when
// asked for.
package exec

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
)

// Options are the flags of exec.
type Options struct {
	Container string
	Stdin     bool
	TTY       bool
	Quiet     bool

	target  string
	command []string

	factory *cmdutil.Factory
	streams cmdutil.IOStreams
}

// NewCommand returns the exec command.
func NewCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	o := &Options{factory: f, streams: streams}
	cmd := &cobra.Command{
		Use:   "exec (POD | TYPE/NAME) [-c CONTAINER] [flags] -- COMMAND [args...]",
		Short: "Execute a command in a container",
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(args, cmd.ArgsLenAtDash()); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&o.Container, "container", "c", "", "Container name. If omitted, use the kubectl.kubernetes.io/default-container annotation for selecting the container to be attached or the first container in the pod will be chosen")
	fs.BoolVarP(&o.Stdin, "stdin", "i", false, "Pass stdin to the container")
	fs.BoolVarP(&o.TTY, "tty", "t", false, "Stdin is a TTY")
	fs.BoolVarP(&o.Quiet, "quiet", "q", false, "Only print output from the remote session")
	return cmd
}

// Complete splits the arguments at "--" into the target and the command.
func (o *Options) Complete(args []string, dash int) error {
	switch {
	case len(args) == 0:
		return cmdutil.Errorf("pod, type/name or --filename must be specified")
	case dash < 0 && len(args) > 1:
		return cmdutil.UsageErrorf("kubectl exec", "exec [POD] [COMMAND] is not supported anymore. Use exec [POD] -- [COMMAND] instead")
	case dash > 1:
		return cmdutil.UsageErrorf("kubectl exec", "exec [POD] [COMMAND] is not supported anymore. Use exec [POD] -- [COMMAND] instead")
	}
	o.target = args[0]
	if dash >= 0 {
		o.command = args[dash:]
	}
	if len(o.command) == 0 {
		return cmdutil.Errorf("you must specify at least one command for the container")
	}
	return nil
}

// Run finds the pod and its container and runs the command.
func (o *Options) Run(ctx context.Context) error {
	ns, pod, err := cmdutil.TargetPod(ctx, o.factory, o.target)
	if err != nil {
		return err
	}
	container, err := cmdutil.StreamContainer(pod, o.Container, "exec into a container", o.Quiet, o.streams.ErrOut)
	if err != nil {
		return err
	}
	opts := streamOptions{stdout: o.streams.Out, stderr: o.streams.ErrOut}
	if o.Stdin {
		opts.stdin = o.streams.In
	}
	if o.TTY {
		restore, resizes, ok := o.setupTerminal(ctx)
		if ok {
			defer restore()
			opts.tty, opts.stderr, opts.resizes = true, nil, resizes
		}
	}
	cfg, err := o.factory.RESTConfig()
	if err != nil {
		return err
	}
	server, err := cfg.ServerURL()
	if err != nil {
		return err
	}
	return stream(ctx, cfg, execURL(server, ns, pod.GetName(), container, o.command, opts), opts)
}

// setupTerminal puts the local terminal in raw mode for a -it exec and
// watches its size; without a terminal on stdin (or without -i) the exec
// has none, as with kubectl.
func (o *Options) setupTerminal(ctx context.Context) (restore func(), resizes <-chan terminalSize, ok bool) {
	if !o.Stdin {
		return nil, nil, false
	}
	in, isFile := o.streams.In.(*os.File)
	if !isFile || !term.IsTerminal(int(in.Fd())) {
		if !o.Quiet {
			fmt.Fprintln(o.streams.ErrOut, "Unable to use a TTY - input is not a terminal or the right kind of file")
		}
		return nil, nil, false
	}
	state, err := term.MakeRaw(int(in.Fd()))
	if err != nil {
		fmt.Fprintf(o.streams.ErrOut, "Unable to use a TTY: %v\n", err)
		return nil, nil, false
	}
	ctx, cancel := context.WithCancel(ctx)
	sizes := watchSize(ctx, int(in.Fd()))
	return func() {
		cancel()
		_ = term.Restore(int(in.Fd()), state)
	}, sizes, true
}

// size reads the terminal's size, if it has one.
func size(fd int) (terminalSize, bool) {
	w, h, err := term.GetSize(fd)
	if err != nil || w <= 0 || h <= 0 {
		return terminalSize{}, false
	}
	return terminalSize{Width: uint16(w), Height: uint16(h)}, true
}

// execURL is the exec subresource of the pod with the command and the
// streams as query parameters.
func execURL(server *url.URL, ns, pod, container string, command []string, o streamOptions) *url.URL {
	return streamURL(server, ns, pod, "exec", url.Values{"command": command, "container": {container}}, o)
}

// streamURL is the streaming subresource (exec, attach) of the pod, with
// query and the streams o asks for as query parameters: stdout always,
// stdin when given, a tty or stderr.
func streamURL(server *url.URL, ns, pod, subresource string, query url.Values, o streamOptions) *url.URL {
	u := *server
	u.Path = strings.TrimSuffix(u.Path, "/") + "/api/v1/namespaces/" + url.PathEscape(ns) + "/pods/" + url.PathEscape(pod) + "/" + subresource
	query.Set("stdout", "true")
	if o.stdin != nil {
		query.Set("stdin", "true")
	}
	if o.tty {
		query.Set("tty", "true")
	} else {
		query.Set("stderr", "true")
	}
	u.RawQuery = query.Encode()
	return &u
}
