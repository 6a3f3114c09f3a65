package conversion

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"
)

// selectableDefinition is definition with selectable fields: v1's
// spec.hostPort, v2's spec.host and spec.port, which only the webhook
// can compute from what is stored.
func selectableDefinition(g string, cc map[string]any) map[string]any {
	d := definition(g, cc)
	versions := d["spec"].(map[string]any)["versions"].([]any)
	versions[0].(map[string]any)["selectableFields"] = []any{map[string]any{"jsonPath": ".spec.hostPort"}}
	versions[1].(map[string]any)["selectableFields"] = []any{map[string]any{"jsonPath": ".spec.host"}, map[string]any{"jsonPath": ".spec.port"}}
	return d
}

// eventStream reads the events of a watch as "TYPE name" (and keeps the
// objects).
type eventStream struct {
	t      *testing.T
	events chan watchEvent
}

type watchEvent struct {
	Type   string
	Object map[string]any
}

func (e watchEvent) String() string {
	m, _ := e.Object["metadata"].(map[string]any)
	return e.Type + " " + fmtAny(m["name"])
}

func fmtAny(v any) string { s, _ := v.(string); return s }

func (c *client) watch(path, selector string) *eventStream {
	c.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c.t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.s.URL+path+"?watch=true&fieldSelector="+url.QueryEscape(selector), nil)
	if err != nil {
		c.t.Fatal(err)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		c.t.Fatalf("watch %s with %s: %d", path, selector, resp.StatusCode)
	}
	s := &eventStream{t: c.t, events: make(chan watchEvent, 100)}
	go func() {
		defer resp.Body.Close()
		defer close(s.events)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			var ev watchEvent
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				s.events <- ev
			}
		}
	}()
	return s
}

// next returns the next n events.
func (s *eventStream) next(n int) []watchEvent {
	s.t.Helper()
	var out []watchEvent
	timeout := time.After(time.Minute)
	for len(out) < n {
		select {
		case ev, ok := <-s.events:
			if !ok {
				s.t.Fatalf("watch ended after %v", out)
			}
			out = append(out, ev)
		case <-timeout:
			s.t.Fatalf("watch: %d events of %d in a minute: %v", len(out), n, out)
		}
	}
	return out
}

// expect checks that the next events are want, in that order.
func (s *eventStream) expect(name string, want ...string) []watchEvent {
	s.t.Helper()
	evs := s.next(len(want))
	var got []string
	for _, ev := range evs {
		got = append(got, ev.String())
	}
	if !slices.Equal(got, want) {
		s.t.Errorf("%s: events %v, want %v", name, got, want)
	}
	return evs
}

// TestFieldSelectorsAfterConversion: with the Webhook strategy a field
// selector on a version's selectable fields selects by the object
// converted to that version, in lists, deletecollection and watches (the
// conformance spec CustomResourceFieldSelectors): the stored v1 objects
// have no spec.host, which the webhook computes from spec.hostPort.
func TestFieldSelectorsAfterConversion(t *testing.T) {
	const group = "fields.conv.example.com"
	c, ns, _ := startWithConverter(t, group, selectableDefinition)
	v1 := "/apis/" + group + "/v1/namespaces/" + ns + "/endpoints"
	v2 := "/apis/" + group + "/v2/namespaces/" + ns + "/endpoints"

	hostWatch := c.watch(v2, "spec.host=h1")
	hostPortWatch := c.watch(v2, "spec.host=h1,spec.port=80")
	v1Watch := c.watch(v1, "spec.hostPort=h1:80")

	create := func(name, host, port string) {
		t.Helper()
		c.mustDo(http.MethodPost, v2, map[string]any{"apiVersion": group + "/v2", "kind": "Endpoint",
			"metadata": map[string]any{"name": name}, "spec": map[string]any{"host": host, "port": port}}, http.StatusCreated)
	}
	create("a", "h1", "80")
	create("b", "h1", "8080")
	create("c", "h2", "")

	list := func(path, selector string) []string {
		t.Helper()
		l := c.mustDo(http.MethodGet, path+"?fieldSelector="+url.QueryEscape(selector), nil, http.StatusOK).object(t)
		var names []string
		items, _ := l["items"].([]any)
		for _, it := range items {
			m, _ := it.(map[string]any)["metadata"].(map[string]any)
			names = append(names, fmtAny(m["name"]))
		}
		slices.Sort(names)
		return names
	}
	for _, tc := range []struct {
		path, selector string
		want           []string
	}{
		{v2, "spec.host=h1", []string{"a", "b"}},
		{v2, "spec.host=h1,spec.port=80", []string{"a"}},
		{v2, "spec.host!=h1", []string{"c"}},
		{v2, "metadata.name=b,spec.host=h1", []string{"b"}},
		{v1, "spec.hostPort=h1:80", []string{"a"}},
		{v1, "spec.hostPort=h1:8080", []string{"b"}},
	} {
		if got := list(tc.path, tc.selector); !slices.Equal(got, tc.want) {
			t.Errorf("list %s with %s: %v, want %v", tc.path, tc.selector, got, tc.want)
		}
	}
	hostWatch.expect("v2 spec.host=h1", "ADDED a", "ADDED b")
	hostPortWatch.expect("v2 spec.host=h1,spec.port=80", "ADDED a")
	v1Watch.expect("v1 spec.hostPort=h1:80", "ADDED a")

	// A watch opened now knows which objects match already: b leaving
	// the selection is its DELETED.
	lateWatch := c.watch(v2, "spec.host=h1")

	// Deleted by a selection, and moved out of one by an update.
	c.mustDo(http.MethodDelete, v2+"?fieldSelector="+url.QueryEscape("spec.host=h1,spec.port=80"), nil, http.StatusOK)
	b := c.mustDo(http.MethodGet, v2+"/b", nil, http.StatusOK).object(t)
	spec(b)["host"] = "h2"
	updated := c.mustDo(http.MethodPut, v2+"/b", b, http.StatusOK).object(t)
	if got := list(v2, "spec.host=h1"); len(got) != 0 {
		t.Errorf("list spec.host=h1 after the delete and update: %v", got)
	}
	if got := list(v1, "spec.hostPort=h2:8080"); !slices.Equal(got, []string{"b"}) {
		t.Errorf("list spec.hostPort=h2:8080 after the update: %v", got)
	}
	hostWatch.expect("v2 spec.host=h1", "DELETED a", "DELETED b")
	hostPortWatch.expect("v2 spec.host=h1,spec.port=80", "DELETED a")
	v1Watch.expect("v1 spec.hostPort=h1:80", "DELETED a")
	evs := lateWatch.expect("the watch opened after the creates", "DELETED a", "DELETED b")
	// b leaves as it last matched, at the update's resourceVersion.
	if len(evs) == 2 {
		m, _ := evs[1].Object["metadata"].(map[string]any)
		um, _ := updated["metadata"].(map[string]any)
		if spec(evs[1].Object)["host"] != "h1" || m["resourceVersion"] != um["resourceVersion"] || evs[1].Object["apiVersion"] != group+"/v2" {
			t.Errorf("DELETED b: %v; want host h1 at resourceVersion %v in v2", evs[1].Object, um["resourceVersion"])
		}
	}

	// Nothing else came in between: the next event of each is this one.
	create("z", "h1", "80")
	for name, w := range map[string]*eventStream{"v2 spec.host=h1": hostWatch, "v2 spec.host=h1,spec.port=80": hostPortWatch, "v1 spec.hostPort=h1:80": v1Watch, "late": lateWatch} {
		w.expect(name, "ADDED z")
	}
}
