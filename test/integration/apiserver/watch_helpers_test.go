package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/test/integration/framework"
)

// watchStream reads the events of one raw watch request.
type watchStream struct {
	resp *http.Response
	dec  *json.Decoder
}

// openWatch starts a watch (path must carry watch=true); the stream closes
// when ctx ends or the test does.
func openWatch(ctx context.Context, t *testing.T, c *http.Client, s *framework.APIServer, path string) *watchStream {
	t.Helper()
	w, err := startWatch(ctx, c, s, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.close)
	return w
}

func startWatch(ctx context.Context, c *http.Client, s *framework.APIServer, path string) (*watchStream, error) {
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(r)
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		return nil, fmt.Errorf("watch %s: %d %s", path, resp.StatusCode, b)
	}
	return &watchStream{resp: resp, dec: json.NewDecoder(resp.Body)}, nil
}

// watchedObject is what the tests read from an event's object.
type watchedObject struct {
	metav1.TypeMeta
	Metadata struct {
		Name            string `json:"name"`
		Namespace       string `json:"namespace"`
		ResourceVersion string `json:"resourceVersion"`
	} `json:"metadata"`
	Data map[string]string `json:"data"`
	// Status fields, for ERROR events.
	Code   int32               `json:"code"`
	Reason metav1.StatusReason `json:"reason"`
	Status string              `json:"status"`
	Msg    string              `json:"message"`
}

// event is one decoded watch event.
type event struct {
	Type   string
	Object watchedObject
	Raw    json.RawMessage
}

// next returns the next event, or io.EOF when the server ended the stream.
func (w *watchStream) next() (event, error) {
	var we metav1.WatchEvent
	if err := w.dec.Decode(&we); err != nil {
		return event{}, err
	}
	ev := event{Type: we.Type, Raw: we.Object}
	if err := json.Unmarshal(we.Object, &ev.Object); err != nil {
		return ev, fmt.Errorf("decode %s event object: %w: %s", we.Type, err, we.Object)
	}
	return ev, nil
}

func (w *watchStream) close() { _ = w.resp.Body.Close() }
