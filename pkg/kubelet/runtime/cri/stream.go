package cri

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"

	"k8s.io/streaming/pkg/httpstream"
	"k8s.io/streaming/pkg/httpstream/spdy"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// The exec streaming protocol the runtime's streaming server speaks over
// SPDY: one stream per standard stream, an error stream that carries the
// outcome as a Status, and a resize stream of JSON terminal sizes.
const (
	streamProtocolV4 = "v4.channel.k8s.io"
	headerStreamType = "streamType"
)

// streamExec runs an exec the runtime prepared at rawURL, copying the
// streams until the command exits or ctx ends; it returns the exit code.
func streamExec(ctx context.Context, rawURL string, s kruntime.ExecStreams) (int32, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return 0, fmt.Errorf("streaming URL %q: %w", rawURL, err)
	}
	rt, err := spdy.NewRoundTripperWithConfig(spdy.RoundTripperConfig{
		Proxier: func(*http.Request) (*url.URL, error) { return nil, nil },
	})
	if err != nil {
		return 0, fmt.Errorf("streaming client: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), nil)
	if err != nil {
		return 0, fmt.Errorf("streaming request: %w", err)
	}
	req.Header.Add(httpstream.HeaderProtocolVersion, streamProtocolV4)
	resp, err := rt.RoundTrip(req)
	if err != nil {
		return 0, fmt.Errorf("connect to the streaming server: %w", err)
	}
	conn, err := rt.NewConnection(resp)
	if err != nil {
		return 0, fmt.Errorf("upgrade to SPDY: %w", err)
	}
	defer func() { _ = conn.Close() }()
	if p := resp.Header.Get(httpstream.HeaderProtocolVersion); p != streamProtocolV4 {
		return 0, fmt.Errorf("the streaming server speaks %q, not %s", p, streamProtocolV4)
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()

	create := func(kind string) (httpstream.Stream, error) {
		h := http.Header{}
		h.Set(headerStreamType, kind)
		st, err := conn.CreateStream(h)
		if err != nil {
			return nil, fmt.Errorf("create %s stream: %w", kind, err)
		}
		return st, nil
	}
	// The error stream comes first; its writes are closed at once.
	errStream, err := create("error")
	if err != nil {
		return 0, err
	}
	_ = errStream.Close()
	outcome := make(chan error, 1)
	go func() { outcome <- readOutcome(errStream) }()

	var copies sync.WaitGroup
	if s.Stdin != nil {
		in, err := create("stdin")
		if err != nil {
			return 0, err
		}
		// Not waited for: the reader may block after the command exits.
		go func() {
			_, _ = io.Copy(in, s.Stdin)
			_ = in.Close() // end of stdin
		}()
	}
	for kind, w := range map[string]io.Writer{"stdout": s.Stdout, "stderr": s.Stderr} {
		if w == nil || (kind == "stderr" && s.TTY) {
			continue
		}
		st, err := create(kind)
		if err != nil {
			return 0, err
		}
		_ = st.Close()
		copies.Go(func() { _, _ = io.Copy(w, st) })
	}
	if s.TTY {
		// The server waits for a resize stream whenever there is a
		// terminal, even one that never changes size.
		resize, err := create("resize")
		if err != nil {
			return 0, err
		}
		go func() {
			enc := json.NewEncoder(resize)
			for {
				select {
				case <-ctx.Done():
					return
				case <-conn.CloseChan():
					return
				case sz, ok := <-s.Resize:
					if !ok {
						return
					}
					if enc.Encode(map[string]uint16{"Width": sz.Width, "Height": sz.Height}) != nil {
						return
					}
				}
			}
		}()
	}
	copies.Wait()
	err = <-outcome
	if ctx.Err() != nil {
		return 0, ctx.Err()
	}
	var exit exitError
	if errors.As(err, &exit) {
		return int32(exit), nil
	}
	return 0, err
}

// exitError is a command's non-zero exit code.
type exitError int32

func (e exitError) Error() string { return "command exited with " + strconv.Itoa(int(e)) }

// readOutcome reads the error stream: nothing or a Success Status means
// exit 0, a NonZeroExitCode Status carries the exit code, any other Status
// or text is an error.
func readOutcome(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("read error stream: %w", err)
	}
	if len(b) == 0 {
		return nil
	}
	var st metav1.Status
	if err := json.Unmarshal(b, &st); err != nil {
		return fmt.Errorf("exec: %s", b)
	}
	if st.Status == metav1.StatusSuccess {
		return nil
	}
	if st.Reason == "NonZeroExitCode" && st.Details != nil {
		for _, c := range st.Details.Causes {
			if c.Type == "ExitCode" {
				n, err := strconv.Atoi(c.Message)
				if err == nil {
					return exitError(n)
				}
			}
		}
	}
	return fmt.Errorf("exec: %s", st.Message)
}
