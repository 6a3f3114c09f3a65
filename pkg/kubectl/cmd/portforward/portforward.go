// Package portforward implements `kubectl port-forward`: local ports
// forwarded to a pod's ports through the API server's pods/portforward,
// over SPDY/3.1 with the portforward.k8s.io protocol.
package portforward

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/spf13/cobra"
	"k8s.io/streaming/pkg/httpstream"
	"k8s.io/streaming/pkg/httpstream/spdy"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/dynamic"
	"kubecore.io/client/rest"

	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
)

// protocol is the SPDY subprotocol of port forwarding.
const protocol = "portforward.k8s.io"

// Options are the flags and arguments of port-forward.
type Options struct {
	Addresses []string

	factory *cmdutil.Factory
	streams cmdutil.IOStreams
	target  string
	ports   []string
}

// NewCommand returns the port-forward command.
func NewCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	o := &Options{factory: f, streams: streams, Addresses: []string{"localhost"}}
	cmd := &cobra.Command{
		Use:   "port-forward TYPE/NAME [options] [LOCAL_PORT:]REMOTE_PORT [...[LOCAL_PORT_N:]REMOTE_PORT_N]",
		Short: "Forward one or more local ports to a pod",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) < 2 {
				return cmdutil.UsageErrorf("kubectl port-forward", "TYPE/NAME and list of ports are required for port-forward")
			}
			o.target, o.ports = args[0], args[1:]
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			return o.Run(ctx)
		},
	}
	cmd.Flags().StringSliceVar(&o.Addresses, "address", o.Addresses, "Addresses to listen on (comma separated). Only accepts IP addresses or localhost as a value. When localhost is supplied, kubectl will try to bind on both 127.0.0.1 and ::1 and will fail if neither of these addresses are available to bind.")
	return cmd
}

// forward is one LOCAL:REMOTE pair.
type forward struct {
	local, remote uint16
}

// Run finds the pod, listens on the local ports and forwards each
// connection until ctx ends.
func (o *Options) Run(ctx context.Context) error {
	ns, _, err := o.factory.Namespace()
	if err != nil {
		return err
	}
	pods, err := cmdutil.PodsFor(ctx, o.factory, ns, o.target)
	if err != nil {
		return err
	}
	pod := pods[0]
	if phase := dynamic.NestedString(pod.Object, "status", "phase"); phase != "Running" {
		return fmt.Errorf("unable to forward port because pod is not running. Current status=%s", phase)
	}
	forwards, err := o.resolvePorts(ctx, ns, pod)
	if err != nil {
		return err
	}
	cfg, err := o.factory.RESTConfig()
	if err != nil {
		return err
	}
	server, err := cfg.ServerURL()
	if err != nil {
		return err
	}
	u := *server
	u.Path = strings.TrimSuffix(u.Path, "/") + "/api/v1/namespaces/" + url.PathEscape(ns) + "/pods/" + url.PathEscape(pod.GetName()) + "/portforward"
	conn, err := dial(ctx, o.factory, &u)
	if err != nil {
		return err
	}
	// Deferred calls run last first: the listeners close, then the
	// connection (which ends the forwarded streams), then the wait.
	var wg sync.WaitGroup
	defer wg.Wait()
	defer func() { _ = conn.Close() }()

	type listener struct {
		net.Listener
		fw forward
	}
	var listeners []listener
	defer func() {
		for _, l := range listeners {
			_ = l.Close()
		}
	}()
	for _, fw := range forwards {
		ls, err := o.listen(fw)
		if err != nil {
			return err
		}
		for _, l := range ls {
			fw.local = uint16(l.Addr().(*net.TCPAddr).Port)
			listeners = append(listeners, listener{l, fw})
			_, _ = fmt.Fprintf(o.streams.Out, "Forwarding from %s -> %d\n", l.Addr(), fw.remote)
		}
	}
	lost := make(chan struct{}, 1)
	var requests atomic.Int64
	for _, l := range listeners {
		fw := l.fw
		wg.Go(func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				_, _ = fmt.Fprintf(o.streams.Out, "Handling connection for %d\n", fw.local)
				wg.Go(func() {
					if err := handle(conn, c, fw, strconv.FormatInt(requests.Add(1), 10)); err != nil {
						// As kubectl: an error on one connection ends the
						// whole port-forward.
						_, _ = fmt.Fprintf(o.streams.ErrOut, "%v\n", err)
						select {
						case lost <- struct{}{}:
						default:
						}
					}
				})
			}
		})
	}
	select {
	case <-ctx.Done():
		return nil
	case <-lost:
	case <-conn.CloseChan():
	}
	return errors.New("lost connection to pod")
}

// listen binds the local port of fw on each address.
func (o *Options) listen(fw forward) ([]net.Listener, error) {
	var hosts []string
	for _, a := range o.Addresses {
		if a == "localhost" {
			hosts = append(hosts, "127.0.0.1", "::1")
			continue
		}
		if net.ParseIP(a) == nil {
			return nil, fmt.Errorf("%s is not a valid IP", a)
		}
		hosts = append(hosts, a)
	}
	var out []net.Listener
	var errs []error
	port := fw.local
	for _, h := range hosts {
		l, err := net.Listen("tcp", net.JoinHostPort(h, strconv.Itoa(int(port))))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		// A random local port (":REMOTE") is the same on every address.
		port = uint16(l.Addr().(*net.TCPAddr).Port)
		out = append(out, l)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("unable to listen on any of the requested ports: %w", errors.Join(errs...))
	}
	return out, nil
}

// resolvePorts parses [LOCAL:]REMOTE arguments; a remote port may be a
// container port's name, and for a Service target it is the Service's
// port, forwarded to its targetPort.
func (o *Options) resolvePorts(ctx context.Context, ns string, pod *dynamic.Unstructured) ([]forward, error) {
	var svc *dynamic.Unstructured
	if typ, name, ok := strings.Cut(o.target, "/"); ok && (typ == "svc" || typ == "service" || typ == "services") {
		dyn, err := o.factory.Dynamic()
		if err != nil {
			return nil, err
		}
		svc, err = dyn.Resource(cmdutil.ServicesGVR).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
	}
	var out []forward
	for _, spec := range o.ports {
		local, remote, ok := strings.Cut(spec, ":")
		if !ok {
			local, remote = spec, spec
		}
		r, err := remotePort(pod, svc, remote)
		if err != nil {
			return nil, err
		}
		fw := forward{remote: r}
		if n, err := strconv.ParseUint(local, 10, 16); err == nil {
			fw.local = uint16(n)
		} else if ok && local != "" {
			return nil, fmt.Errorf("error parsing local port '%s': %w", local, err)
		} else if !ok {
			fw.local = r // a named port listens on its number
		}
		out = append(out, fw)
	}
	return out, nil
}

// remotePort is the pod's port number a REMOTE argument names.
func remotePort(pod, svc *dynamic.Unstructured, remote string) (uint16, error) {
	if svc != nil {
		ports, _ := dynamic.NestedField(svc.Object, "spec", "ports").([]any)
		for _, p := range ports {
			m, _ := p.(map[string]any)
			if fmt.Sprint(m["port"]) == remote || m["name"] == remote {
				if tp, ok := m["targetPort"]; ok && tp != nil {
					remote = fmt.Sprint(tp)
				} else {
					remote = fmt.Sprint(m["port"])
				}
				break
			}
		}
	}
	if n, err := strconv.ParseUint(remote, 10, 16); err == nil {
		if n == 0 {
			return 0, fmt.Errorf("remote port must be > 0")
		}
		return uint16(n), nil
	}
	containers, _ := dynamic.NestedField(pod.Object, "spec", "containers").([]any)
	for _, c := range containers {
		cm, _ := c.(map[string]any)
		ports, _ := cm["ports"].([]any)
		for _, p := range ports {
			pm, _ := p.(map[string]any)
			if pm["name"] == remote {
				n, err := strconv.ParseUint(fmt.Sprint(pm["containerPort"]), 10, 16)
				if err == nil && n > 0 {
					return uint16(n), nil
				}
			}
		}
	}
	return 0, fmt.Errorf("pod '%s' does not have a named port '%s'", pod.GetName(), remote)
}

// dial upgrades a POST to pods/portforward to SPDY/3.1.
func dial(ctx context.Context, f *cmdutil.Factory, u *url.URL) (httpstream.Connection, error) {
	cfg, err := f.RESTConfig()
	if err != nil {
		return nil, err
	}
	tlsConfig, err := rest.TLSConfigFor(cfg)
	if err != nil {
		return nil, err
	}
	header, err := cmdutil.RequestHeader(cfg)
	if err != nil {
		return nil, err
	}
	rt, err := spdy.NewRoundTripperWithConfig(spdy.RoundTripperConfig{TLS: tlsConfig, Proxier: http.ProxyFromEnvironment})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header = header
	req.Header.Set(httpstream.HeaderConnection, httpstream.HeaderUpgrade)
	req.Header.Set(httpstream.HeaderUpgrade, spdy.HeaderSpdy31)
	req.Header.Set(httpstream.HeaderProtocolVersion, protocol)
	resp, err := rt.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		return nil, cmdutil.UpgradeError(resp, fmt.Errorf("upgrade refused: %s", resp.Status))
	}
	conn, err := rt.NewConnection(resp)
	if err != nil {
		return nil, err
	}
	if got := resp.Header.Get(httpstream.HeaderProtocolVersion); got != protocol {
		_ = conn.Close()
		return nil, fmt.Errorf("unable to negotiate the %s protocol (the server answered %q)", protocol, got)
	}
	return conn, nil
}

// handle forwards one local connection over a new pair of streams.
func handle(conn httpstream.Connection, local net.Conn, fw forward, requestID string) error {
	port := fw.remote
	defer func() { _ = local.Close() }()
	h := http.Header{}
	h.Set("streamType", "error")
	h.Set("port", strconv.Itoa(int(port)))
	h.Set("requestID", requestID)
	errStream, err := conn.CreateStream(h)
	if err != nil {
		return fmt.Errorf("error creating error stream for port %d: %w", port, err)
	}
	// The client only reads the error stream.
	_ = errStream.Close()
	defer conn.RemoveStreams(errStream)
	failed := make(chan error, 1)
	go func() {
		msg, err := io.ReadAll(errStream)
		switch {
		case err != nil:
			failed <- fmt.Errorf("error reading from error stream for port %d: %w", port, err)
		case len(msg) > 0:
			failed <- fmt.Errorf("an error occurred forwarding %d -> %d: %s", fw.local, port, msg)
		}
		close(failed)
	}()
	h.Set("streamType", "data")
	data, err := conn.CreateStream(h)
	if err != nil {
		return fmt.Errorf("error creating forwarding stream for port %d: %w", port, err)
	}
	defer conn.RemoveStreams(data)
	back := make(chan struct{})
	go func() {
		_, _ = io.Copy(local, data)
		close(back)
	}()
	go func() {
		_, _ = io.Copy(data, local)
		_ = data.Close() // the pod's side sees the end of what we send
	}()
	select {
	case <-back:
	case err := <-failed:
		if err != nil {
			_ = data.Reset()
			return err
		}
		<-back
	}
	return nil
}
