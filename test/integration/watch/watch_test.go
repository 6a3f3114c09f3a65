package watch

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/protobuf"

	"kubecore.io/kubecore/pkg/controlplane"
	"kubecore.io/kubecore/test/integration/framework"
)

// bookmarkInterval is the watch cache's bookmark period
// (cacher.DefaultBookmarkInterval, which the API server uses).
const bookmarkInterval = time.Second

// resource is a top-level resource discovery lists.
type resource struct {
	group, version, name, kind string
	namespaced                 bool
	verbs                      []string
}

func (r resource) groupVersion() string {
	if r.group == "" {
		return r.version
	}
	return r.group + "/" + r.version
}

// path is the collection's path, in ns when it is not "".
func (r resource) path(ns string) string {
	p := "/api/" + r.version
	if r.group != "" {
		p = "/apis/" + r.group + "/" + r.version
	}
	if ns != "" && r.namespaced {
		p += "/namespaces/" + ns
	}
	return p + "/" + r.name
}

func (r resource) String() string { return r.groupVersion() + "/" + r.name }

// key names the resource across versions: "group/name".
func (r resource) key() string { return r.group + "/" + r.name }

func (r resource) can(verb string) bool { return slices.Contains(r.verbs, verb) }

// client sends the test's requests as the admin.
type client struct {
	t    testing.TB
	url  string
	http *http.Client
}

func (c *client) do(ctx context.Context, method, path, contentType string, body []byte, accept string) (int, []byte, http.Header) {
	c.t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, c.url+path, bytes.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp.StatusCode, data, resp.Header
}

// json sends v (nil for none) as JSON and decodes a JSON answer into out
// (when not nil); it fails unless the code is one of codes.
func (c *client) json(method, path string, v, out any, codes ...int) int {
	c.t.Helper()
	var body []byte
	ct := ""
	if v != nil {
		var err error
		if body, err = json.Marshal(v); err != nil {
			c.t.Fatal(err)
		}
		ct = "application/json"
		if method == http.MethodPatch {
			ct = "application/merge-patch+json"
		}
	}
	code, data, _ := c.do(context.Background(), method, path, ct, body, "application/json")
	if !slices.Contains(codes, code) {
		c.t.Fatalf("%s %s: %d %s, want %v", method, path, code, data, codes)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			c.t.Fatalf("%s %s: decode %s: %v", method, path, data, err)
		}
	}
	return code
}

// discover returns every top-level resource that can be watched.
func (c *client) discover() []resource {
	c.t.Helper()
	var api metav1.APIVersions
	c.json(http.MethodGet, "/api", nil, &api, http.StatusOK)
	var groups metav1.APIGroupList
	c.json(http.MethodGet, "/apis", nil, &groups, http.StatusOK)
	gvs := make([]string, 0, 2*len(groups.Groups)+len(api.Versions))
	gvs = append(gvs, api.Versions...)
	for _, g := range groups.Groups {
		for _, v := range g.Versions {
			gvs = append(gvs, v.GroupVersion)
		}
	}
	var out []resource
	for _, gv := range gvs {
		group, version, ok := strings.Cut(gv, "/")
		path := "/apis/" + gv
		if !ok {
			group, version, path = "", gv, "/api/"+gv
		}
		var list metav1.APIResourceList
		c.json(http.MethodGet, path, nil, &list, http.StatusOK)
		for _, r := range list.APIResources {
			if strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "watch") {
				continue
			}
			out = append(out, resource{group: group, version: version, name: r.Name, kind: r.Kind, namespaced: r.Namespaced, verbs: r.Verbs})
		}
	}
	return out
}

// listRV is the resourceVersion of a consistent list of r.
func (c *client) listRV(r resource) string {
	c.t.Helper()
	var list struct {
		Metadata metav1.ListMeta `json:"metadata"`
	}
	c.json(http.MethodGet, r.path("")+"?limit=1", nil, &list, http.StatusOK)
	return list.Metadata.ResourceVersion
}

// event is what a test checks of one watch event.
type event struct {
	typ, apiVersion, kind string
	name, rv              string
	labels, annotations   map[string]string
	deleting              bool
	message               string // of an ERROR's Status
}

func (e event) String() string {
	return fmt.Sprintf("%s %s %s %q rv=%s %s", e.typ, e.apiVersion, e.kind, e.name, e.rv, e.message)
}

// recorder reads one watch stream in the background.
type recorder struct {
	res         resource
	accept      string
	contentType string
	opened      time.Time
	cancel      context.CancelFunc
	done        chan struct{}

	mu     sync.Mutex
	events []event
	err    error // the read error that ended the stream early
}

func (r *recorder) snapshot() ([]event, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events), r.err
}

func (r *recorder) add(e event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

// stop ends the watch and waits for its reader.
func (r *recorder) stop() {
	r.cancel()
	<-r.done
}

const (
	acceptJSON     = "application/json"
	acceptProtobuf = protobuf.ContentType + ", application/json"
)

// openWatch starts a watch of r at path+query, read in the background;
// it fails unless the server answers 200.
func (c *client) openWatch(r resource, query, accept string, ser *protobuf.Serializer) *recorder {
	c.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url+r.path("")+"?"+query, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Accept", accept)
	resp, err := c.http.Do(req)
	if err != nil {
		cancel()
		c.t.Fatalf("watch %s: %v", r, err)
	}
	if resp.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		c.t.Fatalf("watch %s?%s: %d %s", r, query, resp.StatusCode, data)
	}
	rec := &recorder{res: r, accept: accept, contentType: resp.Header.Get("Content-Type"), opened: time.Now(), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(rec.done)
		defer resp.Body.Close()
		err := rec.read(resp.Body, ser)
		if err != nil && ctx.Err() == nil {
			rec.mu.Lock()
			rec.err = err
			rec.mu.Unlock()
		}
	}()
	return rec
}

// read decodes the stream until it ends.
func (r *recorder) read(body io.Reader, ser *protobuf.Serializer) error {
	mt, _, _ := mime.ParseMediaType(r.contentType)
	if mt == protobuf.ContentType {
		br := bufio.NewReader(body)
		for {
			ev, err := ser.ReadWatchEvent(br)
			if err != nil {
				return err
			}
			e, err := protobufEvent(ser, ev)
			if err != nil {
				return err
			}
			r.add(e)
		}
	}
	dec := json.NewDecoder(body)
	for {
		var ev struct {
			Type   string          `json:"type"`
			Object json.RawMessage `json:"object"`
		}
		if err := dec.Decode(&ev); err != nil {
			return err
		}
		var o struct {
			APIVersion string            `json:"apiVersion"`
			Kind       string            `json:"kind"`
			Metadata   metav1.ObjectMeta `json:"metadata"`
			Message    string            `json:"message"`
		}
		if err := json.Unmarshal(ev.Object, &o); err != nil {
			return fmt.Errorf("decode the object of a %s event: %w: %s", ev.Type, err, ev.Object)
		}
		r.add(event{
			typ: ev.Type, apiVersion: o.APIVersion, kind: o.Kind, name: o.Metadata.Name, rv: o.Metadata.ResourceVersion,
			labels: o.Metadata.Labels, annotations: o.Metadata.Annotations, deleting: o.Metadata.DeletionTimestamp != nil, message: o.Message,
		})
	}
}

// protobufEvent decodes one protobuf watch event: the envelope's kind and
// the object's metadata.
func protobufEvent(ser *protobuf.Serializer, ev metav1.WatchEvent) (event, error) {
	gvk, err := protobuf.KindOf(ev.Object)
	if err != nil {
		return event{}, fmt.Errorf("%s event: %w", ev.Type, err)
	}
	e := event{typ: ev.Type, apiVersion: gvk.GroupVersion().String(), kind: gvk.Kind}
	var into runtime.Object
	if gvk.Kind == "Status" {
		into = &metav1.Status{}
	}
	obj, _, err := ser.Decode(ev.Object, nil, into)
	if err != nil {
		return event{}, fmt.Errorf("decode the object of a %s event: %w", ev.Type, err)
	}
	if st, ok := obj.(*metav1.Status); ok {
		e.message = st.Message
		return e, nil
	}
	a, ok := obj.(metav1.ObjectMetaAccessor)
	if !ok {
		return event{}, fmt.Errorf("%s event: %T has no metadata", ev.Type, obj)
	}
	m := a.GetObjectMeta()
	e.name, e.rv, e.labels, e.annotations, e.deleting = m.GetName(), m.GetResourceVersion(), m.GetLabels(), m.GetAnnotations(), m.GetDeletionTimestamp() != nil
	return e, nil
}

// testServer is an API server serving the two-version custom resource.
type testServer struct {
	*framework.APIServer
	c    *client
	ser  *protobuf.Serializer
	ns   string
	etcd *framework.Etcd
}

// startServer starts a server serving the two-version custom resource on
// the package's etcd, which earlier tests' servers wrote: its watch caches
// start at a revision others reached.
func startServer(t testing.TB) *testServer {
	t.Helper()
	return startServerOn(t, testEtcd)
}

// startServerOn starts the server on etcd.
func startServerOn(t testing.TB, etcd *framework.Etcd) *testServer {
	t.Helper()
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: etcd})
	c := &client{t: t, url: s.URL, http: s.HTTPClient(t)}
	scheme, err := controlplane.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	ts := &testServer{APIServer: s, c: c, ser: protobuf.NewSerializer(scheme), ns: s.CreateNamespace(t, "watch"), etcd: etcd}
	// Pods need their service account; no controller makes it here.
	c.json(http.MethodPost, "/api/v1/namespaces/"+ts.ns+"/serviceaccounts", obj{"metadata": obj{"name": "default"}}, nil, http.StatusCreated, http.StatusConflict)
	ts.createCRD(crd(crdPlural, crdKind, crdGroup, "v1", "v1beta1"))
	return ts
}

// createCRD creates a definition and waits until each of its versions
// answers.
func (s *testServer) createCRD(def obj) {
	s.c.t.Helper()
	s.c.json(http.MethodPost, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", def, nil, http.StatusCreated, http.StatusConflict)
	spec := def["spec"].(obj)
	for _, v := range spec["versions"].([]any) {
		path := "/apis/" + spec["group"].(string) + "/" + v.(obj)["name"].(string) + "/" + spec["names"].(obj)["plural"].(string)
		deadline := time.Now().Add(30 * time.Second)
		for {
			code, body, _ := s.c.do(context.Background(), http.MethodGet, path, "", nil, acceptJSON)
			if code == http.StatusOK {
				break
			}
			if time.Now().After(deadline) {
				s.c.t.Fatalf("%s not served after 30s: %d %s", path, code, body)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// mutation is what the test did to its object of one resource.
type mutation struct {
	name string
	gone bool // deleted at once; otherwise finalizers hold it, deleting
}

// mutate creates, updates (a label) and deletes one object of each
// resource that has the verbs, once per resource across versions.
func (s *testServer) mutate(t *testing.T, resources []resource) map[string]mutation {
	fx := fixtures(t, s.ns)
	out := map[string]mutation{}
	for _, r := range resources {
		if _, done := out[r.key()]; done || !r.can("create") || !r.can("delete") || !r.can("patch") {
			continue
		}
		body, ok := fx[r.key()]
		if !ok {
			t.Errorf("no fixture to create a %s", r)
			continue
		}
		o := obj{"apiVersion": r.groupVersion(), "kind": r.kind}
		for k, v := range body {
			o[k] = v
		}
		meta, _ := o["metadata"].(obj)
		if meta == nil {
			meta = obj{"name": "watch-test-" + strings.ToLower(r.kind)}
			o["metadata"] = meta
		}
		name := meta["name"].(string)
		path := r.path(s.ns)
		s.c.json(http.MethodPost, path, o, nil, http.StatusCreated)
		s.c.json(http.MethodPatch, path+"/"+name, obj{"metadata": obj{"labels": obj{"watch-test": "updated"}}}, nil, http.StatusOK)
		s.c.json(http.MethodDelete, path+"/"+name, obj{"gracePeriodSeconds": 0}, nil, http.StatusOK, http.StatusAccepted)
		code := s.c.json(http.MethodGet, path+"/"+name, nil, nil, http.StatusOK, http.StatusNotFound)
		out[r.key()] = mutation{name: name, gone: code == http.StatusNotFound}
	}
	return out
}

// nudgeBookmarks moves etcd's revision past every resource's last change
// and makes every watch cache catch up with it (a consistent list asks
// etcd for a progress notification), so that every watch gets a bookmark.
func (s *testServer) nudgeBookmarks(t *testing.T, resources []resource) uint64 {
	t.Helper()
	put, err := s.etcd.Client().Put(context.Background(), "/watch-test/bump", time.Now().String())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range resources {
		s.c.listRV(r)
	}
	return uint64(put.Header.Revision)
}

// TestWatchEveryResource opens a watch with bookmarks on every resource
// discovery lists (built-in, and the custom resource in both served
// versions), in JSON and in protobuf, keeps them open past two bookmark
// intervals while one object of each resource is created, updated and
// deleted, and checks every event: no ERROR, the served apiVersion and
// kind, the object's three changes in order, and bookmarks.
func TestWatchEveryResource(t *testing.T) {
	s := startServer(t)
	resources := s.c.discover()
	var names []string
	for _, r := range resources {
		names = append(names, r.String())
	}
	for _, want := range []string{"v1/pods", "apps/v1/deployments", "apiextensions.k8s.io/v1/customresourcedefinitions", crdGroup + "/v1/" + crdPlural, crdGroup + "/v1beta1/" + crdPlural} {
		if !slices.Contains(names, want) {
			t.Fatalf("discovery lists %v, not %s", names, want)
		}
	}
	t.Logf("Watching %d resources: %v", len(resources), names)

	var recs []*recorder
	for _, r := range resources {
		rv := s.c.listRV(r)
		for _, accept := range []string{acceptJSON, acceptProtobuf} {
			recs = append(recs, s.c.openWatch(r, "watch=1&allowWatchBookmarks=true&resourceVersion="+rv, accept, s.ser))
		}
	}
	defer func() {
		for _, rec := range recs {
			rec.stop()
		}
	}()

	muts := s.mutate(t, resources)
	bumped := s.nudgeBookmarks(t, resources)

	// Every watch gets a bookmark at or past the bumped revision, and
	// stays open for more than two bookmark intervals.
	deadline := time.Now().Add(30 * time.Second)
	for _, rec := range recs {
		for {
			evs, err := rec.snapshot()
			if err != nil {
				t.Fatalf("watch %s (%s) ended: %v", rec.res, rec.accept, err)
			}
			if slices.ContainsFunc(evs, func(e event) bool {
				rv, _ := strconv.ParseUint(e.rv, 10, 64)
				return e.typ == "BOOKMARK" && rv >= bumped
			}) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("watch %s (%s): no bookmark at %d or later after 30s; events: %v", rec.res, rec.accept, bumped, evs)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if wait := 2*bookmarkInterval + bookmarkInterval/2 - time.Since(recs[len(recs)-1].opened); wait > 0 {
		time.Sleep(wait)
	}

	for _, rec := range recs {
		evs, err := rec.snapshot()
		what := fmt.Sprintf("watch %s (%s)", rec.res, rec.accept)
		if err != nil {
			t.Errorf("%s ended: %v", what, err)
		}
		if rec.accept == acceptProtobuf && !noProtobuf[rec.res.group] && !strings.HasPrefix(rec.contentType, protobuf.WatchContentType) {
			t.Errorf("%s answered %s, want %s", what, rec.contentType, protobuf.WatchContentType)
		}
		for _, e := range evs {
			switch {
			case e.typ == "ERROR":
				t.Errorf("%s: %s", what, e)
			case e.apiVersion != rec.res.groupVersion() || e.kind != rec.res.kind:
				t.Errorf("%s: %s, want apiVersion %s kind %s", what, e, rec.res.groupVersion(), rec.res.kind)
			case e.typ == "BOOKMARK" && (e.name != "" || e.rv == ""):
				t.Errorf("%s: bookmark %s, want an empty object with a resourceVersion", what, e)
			}
		}
		m, ok := muts[rec.res.key()]
		if !ok {
			continue
		}
		var seq []string
		for _, e := range evs {
			if e.name != m.name {
				continue
			}
			switch {
			case e.typ == "MODIFIED" && e.deleting:
				seq = append(seq, "DELETING")
			case e.typ == "MODIFIED" && e.labels["watch-test"] == "updated":
				seq = append(seq, "UPDATED")
			default:
				seq = append(seq, e.typ)
			}
		}
		seq = slices.Compact(seq)
		want := []string{"ADDED", "UPDATED"}
		if !m.gone {
			want = append(want, "DELETING")
		}
		if !isSubsequence(want, seq) || m.gone && (len(seq) == 0 || seq[len(seq)-1] != "DELETED") {
			t.Errorf("%s: events of %s: %v, want %v then DELETED (when gone: %v)", what, m.name, seq, want, m.gone)
		}
	}
}

// noProtobuf are the groups whose objects have no protobuf encoding:
// their watches answer JSON to a client that accepts both.
var noProtobuf = map[string]bool{crdGroup: true}

// isSubsequence reports whether want appears in got in order.
func isSubsequence(want, got []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}

// TestWatchListEveryResource opens a streaming list on every resource, in
// JSON and protobuf, from resourceVersion "", "0" and a listed one: the
// current objects come as ADDED events, then a BOOKMARK annotated
// k8s.io/initial-events-end, then the watch goes on.
func TestWatchListEveryResource(t *testing.T) {
	s := startServer(t)
	resources := s.c.discover()
	for _, r := range resources {
		listed := s.c.listRV(r)
		for _, rv := range []string{"", "0", listed} {
			for _, accept := range []string{acceptJSON, acceptProtobuf} {
				what := fmt.Sprintf("streaming list of %s from %q (%s)", r, rv, accept)
				rec := s.c.openWatch(r, "watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion="+rv, accept, s.ser)
				end := waitInitialEventsEnd(t, rec, what)
				rec.stop()
				evs, _ := rec.snapshot()
				for _, e := range evs[:end] {
					if e.typ != "ADDED" && e.typ != "BOOKMARK" || e.apiVersion != r.groupVersion() || e.kind != r.kind {
						t.Errorf("%s: initial event %s, want ADDED %s %s", what, e, r.groupVersion(), r.kind)
					}
				}
				bm := evs[end]
				got, _ := strconv.ParseUint(bm.rv, 10, 64)
				min, _ := strconv.ParseUint(listed, 10, 64)
				if rv != "0" && got < min || bm.apiVersion != r.groupVersion() || bm.kind != r.kind {
					t.Errorf("%s: end bookmark %s, want %s %s at %d or later", what, bm, r.groupVersion(), r.kind, min)
				}
			}
		}
	}
}

// waitInitialEventsEnd waits for the annotated bookmark and returns its
// index.
func waitInitialEventsEnd(t *testing.T, rec *recorder, what string) int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		evs, err := rec.snapshot()
		for i, e := range evs {
			if e.typ == "ERROR" {
				t.Fatalf("%s: %s", what, e)
			}
			if e.typ == "BOOKMARK" && e.annotations[metav1.InitialEventsAnnotationKey] == "true" {
				return i
			}
		}
		if err != nil {
			t.Fatalf("%s ended: %v", what, err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: no bookmark annotated %s after 30s; events: %v", what, metav1.InitialEventsAnnotationKey, evs)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestWatchListOptions checks the answers to streaming list parameters
// Kubernetes refuses, and sendInitialEvents=false.
func TestWatchListOptions(t *testing.T) {
	s := startServer(t)
	path := "/api/v1/namespaces/" + s.ns + "/configmaps"
	invalid := []struct{ query, message string }{
		{"watch=1&sendInitialEvents=true", "resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"},
		{"watch=1&resourceVersionMatch=NotOlderThan&resourceVersion=1", "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"},
		{"watch=1&sendInitialEvents=true&resourceVersionMatch=Exact&resourceVersion=1", `resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"`},
		{"sendInitialEvents=true", "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list"},
	}
	for _, tt := range invalid {
		var st metav1.Status
		s.c.json(http.MethodGet, path+"?"+tt.query, nil, &st, http.StatusUnprocessableEntity)
		if st.Reason != metav1.StatusReasonInvalid || !strings.Contains(st.Message, tt.message) {
			t.Errorf("%s: %s %q, want Invalid with %q", tt.query, st.Reason, st.Message, tt.message)
		}
	}

	// sendInitialEvents=false: no initial events, changes from now on.
	s.c.json(http.MethodPost, path, obj{"metadata": obj{"name": "before"}}, nil, http.StatusCreated)
	r := resource{version: "v1", name: "configmaps", kind: "ConfigMap", namespaced: true}
	rec := s.c.openWatch(r, "watch=1&sendInitialEvents=false&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true", acceptJSON, s.ser)
	defer rec.stop()
	s.c.json(http.MethodPost, path, obj{"metadata": obj{"name": "after"}}, nil, http.StatusCreated)
	deadline := time.Now().Add(30 * time.Second)
	for {
		evs, err := rec.snapshot()
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range evs {
			if e.typ != "BOOKMARK" {
				got = append(got, e.typ+" "+e.name)
			}
		}
		if slices.Contains(got, "ADDED before") {
			t.Fatalf("sendInitialEvents=false sent the initial state: %v", got)
		}
		if slices.Contains(got, "ADDED after") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no ADDED after within 30s: %v", got)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
