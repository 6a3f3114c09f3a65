package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"kubecore.io/kubecore/test/integration/framework"
)

// write is one successful write of the property test.
type write struct {
	typ  string // the event it must cause: ADDED, MODIFIED or DELETED
	name string
	rv   uint64 // the resulting resourceVersion (0 for a delete)
}

// seenEvent is one event as a watcher saw it.
type seenEvent struct {
	typ  string
	name string
	rv   uint64
}

// TestConcurrentWritersAndWatchers is the watch property test: 8 writers
// make 5,000 changes through the HTTP API while 50 watchers, all started at
// the same resourceVersion, read them. Every watcher must see every change
// exactly once, in resourceVersion order, and all watchers the same
// sequence. A watcher whose stream ends early resumes from the last
// resourceVersion it saw, as a reflector does.
func TestConcurrentWritersAndWatchers(t *testing.T) {
	const (
		writers      = 8
		watchers     = 50
		objsPerWrite = 125 // each object: create, 3 updates, delete
		total        = writers * objsPerWrite * 5
	)
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	writeClient, watchClient := s.HTTPClient(t), s.HTTPClient(t)
	ns := s.CreateNamespace(t, "property")
	base := "/api/v1/namespaces/" + ns + "/configmaps"
	start := decodeList(t, do(t, writeClient, s, request{method: http.MethodGet, path: base})).Metadata.ResourceVersion

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	began := time.Now()

	// Watchers.
	seen := make([][]seenEvent, watchers)
	resumes := make([]int, watchers)
	watchErrs := make([]error, watchers)
	var watchersReady, watchersDone sync.WaitGroup
	watchersReady.Add(watchers)
	for i := range watchers {
		watchersDone.Go(func() {
			seen[i], resumes[i], watchErrs[i] = collectEvents(ctx, watchClient, s, base, start, total, watchersReady.Done)
		})
	}
	watchersReady.Wait()

	// Writers.
	writes := make([][]write, writers)
	writeErrs := make([]error, writers)
	var writersDone sync.WaitGroup
	for w := range writers {
		writersDone.Go(func() {
			writes[w], writeErrs[w] = writeObjects(ctx, writeClient, s, ns, w, objsPerWrite)
		})
	}
	writersDone.Wait()
	wrote := time.Since(began)
	for w, err := range writeErrs {
		if err != nil {
			t.Fatalf("writer %d: %v", w, err)
		}
	}
	watchersDone.Wait()
	t.Logf("%d writes by %d writers in %v; %d watchers had every event after %v (%d resumed streams)",
		total, writers, wrote.Round(time.Millisecond), watchers, time.Since(began).Round(time.Millisecond), sum(resumes))

	// What the watchers must see: the creates and updates at the
	// resourceVersions the writes returned; each delete after its object's
	// last update.
	byRV := map[uint64]write{}
	lastRV := map[string]uint64{}
	deleted := map[string]bool{}
	for _, ws := range writes {
		for _, wr := range ws {
			if wr.typ == "DELETED" {
				deleted[wr.name] = true
				continue
			}
			byRV[wr.rv] = wr
			lastRV[wr.name] = max(lastRV[wr.name], wr.rv)
		}
	}
	for i := range watchers {
		if watchErrs[i] != nil {
			t.Errorf("watcher %d: %v", i, watchErrs[i])
			continue
		}
		if err := checkSequence(seen[i], byRV, lastRV, deleted, total); err != nil {
			t.Errorf("watcher %d: %v", i, err)
			continue
		}
		if i > 0 && !slices.Equal(seen[i], seen[0]) {
			t.Errorf("watcher %d saw another sequence than watcher 0", i)
		}
	}
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// checkSequence checks one watcher's events against the writes.
func checkSequence(evs []seenEvent, byRV map[uint64]write, lastRV map[string]uint64, deleted map[string]bool, total int) error {
	if len(evs) != total {
		return fmt.Errorf("saw %d events, want %d", len(evs), total)
	}
	gone := map[string]bool{}
	for j, ev := range evs {
		if j > 0 && ev.rv <= evs[j-1].rv {
			return fmt.Errorf("event %d (%s %s) at resourceVersion %d after %d: out of order or repeated", j, ev.typ, ev.name, ev.rv, evs[j-1].rv)
		}
		if ev.typ == "DELETED" {
			switch {
			case !deleted[ev.name]:
				return fmt.Errorf("event %d: DELETED %s, which no writer deleted", j, ev.name)
			case gone[ev.name]:
				return fmt.Errorf("event %d: %s deleted twice", j, ev.name)
			case ev.rv <= lastRV[ev.name]:
				return fmt.Errorf("event %d: %s deleted at %d, before its last update at %d", j, ev.name, ev.rv, lastRV[ev.name])
			}
			gone[ev.name] = true
			continue
		}
		want, ok := byRV[ev.rv]
		if !ok || want.typ != ev.typ || want.name != ev.name {
			return fmt.Errorf("event %d: %s %s at %d, but the write at %d was %+v", j, ev.typ, ev.name, ev.rv, ev.rv, want)
		}
	}
	if len(gone) != len(deleted) {
		return fmt.Errorf("saw %d deletions, want %d", len(gone), len(deleted))
	}
	return nil
}

// collectEvents watches base from rv until it has n events, resuming from
// the last seen resourceVersion when the server ends the stream. started is
// called once the first watch is established.
func collectEvents(ctx context.Context, c *http.Client, s *framework.APIServer, base, rv string, n int, started func()) ([]seenEvent, int, error) {
	evs := make([]seenEvent, 0, n)
	resumes := 0
	once := sync.OnceFunc(started)
	defer once()
	for len(evs) < n {
		if resumes > 100 {
			return evs, resumes, fmt.Errorf("stream ended %d times", resumes)
		}
		w, err := startWatch(ctx, c, s, base+"?watch=true&resourceVersion="+rv)
		if err != nil {
			return evs, resumes, err
		}
		once()
		for len(evs) < n {
			ev, err := w.next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				w.close()
				return evs, resumes, fmt.Errorf("after %d events: %w", len(evs), err)
			}
			if ev.Type == "ERROR" {
				w.close()
				return evs, resumes, fmt.Errorf("after %d events: ERROR event %s", len(evs), ev.Raw)
			}
			if ev.Type == "BOOKMARK" {
				rv = ev.Object.Metadata.ResourceVersion
				continue
			}
			got, err := strconv.ParseUint(ev.Object.Metadata.ResourceVersion, 10, 64)
			if err != nil {
				w.close()
				return evs, resumes, fmt.Errorf("event %s %s: resourceVersion: %w", ev.Type, ev.Object.Metadata.Name, err)
			}
			evs = append(evs, seenEvent{typ: ev.Type, name: ev.Object.Metadata.Name, rv: got})
			rv = ev.Object.Metadata.ResourceVersion
		}
		w.close()
		if len(evs) < n {
			resumes++
		}
	}
	return evs, resumes, nil
}

// writeObjects runs one writer: per object a create (POST), a merge patch,
// a strategic merge patch, a replace (PUT) and a delete.
func writeObjects(ctx context.Context, c *http.Client, s *framework.APIServer, ns string, w, objects int) ([]write, error) {
	base := "/api/v1/namespaces/" + ns + "/configmaps"
	out := make([]write, 0, objects*5)
	for k := range objects {
		name := fmt.Sprintf("w%d-%d", w, k)
		item := base + "/" + name
		steps := []struct {
			typ  string
			req  request
			code int
		}{
			{"ADDED", request{method: http.MethodPost, path: base, contentType: contentJSON,
				body: strings.NewReader(configMapJSON(ns, name, map[string]string{"step": "0"}))}, http.StatusCreated},
			{"MODIFIED", request{method: http.MethodPatch, path: item, contentType: "application/merge-patch+json",
				body: strings.NewReader(`{"data":{"step":"1"}}`)}, http.StatusOK},
			{"MODIFIED", request{method: http.MethodPatch, path: item, contentType: "application/strategic-merge-patch+json",
				body: strings.NewReader(`{"data":{"step":"2"}}`)}, http.StatusOK},
			{"MODIFIED", request{method: http.MethodPut, path: item, contentType: contentJSON,
				body: strings.NewReader(configMapJSON(ns, name, map[string]string{"step": "3"}))}, http.StatusOK},
			{"DELETED", request{method: http.MethodDelete, path: item}, http.StatusOK},
		}
		for _, st := range steps {
			r, err := tryDo(ctx, c, s, st.req)
			if err != nil {
				return out, err
			}
			if r.code != st.code {
				return out, fmt.Errorf("%s %s: %d %s", st.req.method, st.req.path, r.code, r.body)
			}
			wr := write{typ: st.typ, name: name}
			if st.typ != "DELETED" {
				var o object
				if err := json.Unmarshal(r.body, &o); err != nil {
					return out, fmt.Errorf("%s %s: decode: %w", st.req.method, st.req.path, err)
				}
				if wr.rv, err = strconv.ParseUint(o.Metadata.ResourceVersion, 10, 64); err != nil {
					return out, fmt.Errorf("%s %s: resourceVersion %q: %w", st.req.method, st.req.path, o.Metadata.ResourceVersion, err)
				}
			}
			out = append(out, wr)
		}
	}
	return out, nil
}
