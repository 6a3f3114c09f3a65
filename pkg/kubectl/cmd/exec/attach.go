package exec

import (
	"context"
	"fmt"
	"net/url"

	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
)

// AttachOptions say how to attach to a container's own process.
type AttachOptions struct {
	Namespace, Pod, Container string
	// Stdin passes the local stdin; TTY asks for a terminal (used only
	// when stdin is a local terminal, as kubectl does); Quiet drops the
	// notices on stderr.
	Stdin, TTY, Quiet bool
}

// Attach attaches the local streams to the container's process through
// the pod's attach subresource until the process exits or ctx ends; it
// shares the transport of exec.
func Attach(ctx context.Context, f *cmdutil.Factory, streams cmdutil.IOStreams, a AttachOptions) error {
	o := &Options{Stdin: a.Stdin, TTY: a.TTY, Quiet: a.Quiet, factory: f, streams: streams}
	opts := streamOptions{stdout: streams.Out, stderr: streams.ErrOut}
	if a.Stdin {
		opts.stdin = streams.In
	}
	if a.TTY {
		restore, resizes, ok := o.setupTerminal(ctx)
		if ok {
			defer restore()
			opts.tty, opts.stderr, opts.resizes = true, nil, resizes
			if !a.Quiet {
				fmt.Fprintln(streams.ErrOut, "If you don't see a command prompt, try pressing enter.")
			}
		}
	}
	cfg, err := f.RESTConfig()
	if err != nil {
		return err
	}
	server, err := cfg.ServerURL()
	if err != nil {
		return err
	}
	return stream(ctx, cfg, attachURL(server, a, opts), opts)
}

// attachURL is the attach subresource of the pod with the streams as
// query parameters.
func attachURL(server *url.URL, a AttachOptions, o streamOptions) *url.URL {
	return streamURL(server, a.Namespace, a.Pod, "attach", url.Values{"container": {a.Container}}, o)
}
