package watch

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"

	"kubecore.io/apimachinery/pkg/runtime"
)

// Decoder reads watch events from a stream, such as the chunked JSON body of
// a WATCH response.
type Decoder interface {
	// Decode blocks for the next event; io.EOF ends the stream cleanly.
	Decode() (EventType, runtime.Object, error)
	// Close releases the stream and unblocks Decode.
	Close()
}

// Reporter turns a decoding error into the object of an Error event,
// typically a *metav1.Status (api/errors.NewClientErrorReporter).
type Reporter interface {
	AsObject(err error) runtime.Object
}

// StreamWatcher is a watch fed by a Decoder.
type StreamWatcher struct {
	source   Decoder
	reporter Reporter
	result   chan Event
	done     chan struct{}
	once     sync.Once
}

var _ Interface = (*StreamWatcher)(nil)

// NewStreamWatcher starts decoding d. When the stream ends or the
// connection is cut the watch ends quietly; any other decoding error is sent
// as one Error event made by r, then the watch ends.
func NewStreamWatcher(d Decoder, r Reporter) *StreamWatcher {
	sw := &StreamWatcher{source: d, reporter: r, result: make(chan Event), done: make(chan struct{})}
	go sw.receive()
	return sw
}

// ResultChan returns the events.
func (sw *StreamWatcher) ResultChan() <-chan Event { return sw.result }

// Stop closes the decoder and ends the watch.
func (sw *StreamWatcher) Stop() {
	sw.once.Do(func() {
		close(sw.done)
		sw.source.Close()
	})
}

func (sw *StreamWatcher) stopping() bool {
	select {
	case <-sw.done:
		return true
	default:
		return false
	}
}

func (sw *StreamWatcher) receive() {
	defer close(sw.result)
	defer sw.Stop()
	for {
		action, obj, err := sw.source.Decode()
		if err != nil {
			if sw.stopping() || isEndOfStream(err) {
				return
			}
			ev := Event{Type: Error, Object: sw.reporter.AsObject(fmt.Errorf("unable to decode an event from the watch stream: %w", err))}
			select {
			case sw.result <- ev:
			case <-sw.done:
			}
			return
		}
		select {
		case sw.result <- Event{Type: action, Object: obj}:
		case <-sw.done:
			return
		}
	}
}

// isEndOfStream reports whether err means the connection ended (cleanly,
// cut, or timed out) rather than that the data was bad; the client then
// simply watches again.
func isEndOfStream(err error) bool {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.ECONNRESET) {
		return true
	}
	if te, ok := errors.AsType[interface {
		error
		Timeout() bool
	}](err); ok && te.Timeout() {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "http2: response body closed") ||
		strings.Contains(msg, "stream error") ||
		strings.Contains(msg, "connection reset by peer")
}
