package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	apiservercmd "kubecore.io/kubecore/cmd/kubecore/app/apiserver"
	"kubecore.io/kubecore/test/integration/framework"
)

const contentJSON = "application/json"

// object is the JSON of an object, as far as the tests read it.
type object struct {
	Metadata struct {
		Name            string `json:"name"`
		Namespace       string `json:"namespace"`
		UID             string `json:"uid"`
		ResourceVersion string `json:"resourceVersion"`
	} `json:"metadata"`
	Data map[string]string `json:"data"`
}

func decodeObject(t *testing.T, r response) object {
	t.Helper()
	var o object
	if err := json.Unmarshal(r.body, &o); err != nil {
		t.Fatalf("decode object: %v: %s", err, r.body)
	}
	return o
}

// objectList is a List response.
type objectList struct {
	Metadata struct {
		ResourceVersion    string `json:"resourceVersion"`
		Continue           string `json:"continue"`
		RemainingItemCount *int64 `json:"remainingItemCount"`
	} `json:"metadata"`
	Items []object `json:"items"`
}

func decodeList(t *testing.T, r response) objectList {
	t.Helper()
	if r.code != http.StatusOK {
		t.Fatalf("list: %d %s", r.code, r.body)
	}
	var l objectList
	if err := json.Unmarshal(r.body, &l); err != nil {
		t.Fatalf("decode list: %v: %s", err, r.body)
	}
	return l
}

// createConfigMap creates a ConfigMap and returns it as stored.
func createConfigMap(t *testing.T, c *http.Client, s *framework.APIServer, ns, name string, data map[string]string) object {
	t.Helper()
	r := do(t, c, s, request{method: http.MethodPost, path: "/api/v1/namespaces/" + ns + "/configmaps",
		body: strings.NewReader(configMapJSON(ns, name, data)), contentType: contentJSON})
	if r.code != http.StatusCreated {
		t.Fatalf("create configmap %s/%s: %d %s", ns, name, r.code, r.body)
	}
	return decodeObject(t, r)
}

// putConfigMap replaces a ConfigMap, carrying resourceVersion rv.
func putConfigMap(t *testing.T, c *http.Client, s *framework.APIServer, ns, name, rv string, data map[string]string) response {
	t.Helper()
	body := map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name, "namespace": ns, "resourceVersion": rv},
		"data":     data,
	}
	return do(t, c, s, request{method: http.MethodPut, path: "/api/v1/namespaces/" + ns + "/configmaps/" + name,
		body: jsonBody(t, body), contentType: contentJSON})
}

// TestStaleUpdateConflict: an update, patch or delete that carries an old
// resourceVersion (or a wrong uid) is 409 Conflict and changes nothing.
func TestStaleUpdateConflict(t *testing.T) {
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	c := s.HTTPClient(t)
	ns := s.CreateNamespace(t, "conflict")
	item := "/api/v1/namespaces/" + ns + "/configmaps/cm"

	first := createConfigMap(t, c, s, ns, "cm", map[string]string{"v": "1"})
	r := putConfigMap(t, c, s, ns, "cm", first.Metadata.ResourceVersion, map[string]string{"v": "2"})
	if r.code != http.StatusOK {
		t.Fatalf("update with the current resourceVersion: %d %s", r.code, r.body)
	}
	second := decodeObject(t, r)
	if second.Metadata.ResourceVersion == first.Metadata.ResourceVersion {
		t.Fatalf("update kept resourceVersion %s", first.Metadata.ResourceVersion)
	}

	stale := first.Metadata.ResourceVersion
	modified := `Operation cannot be fulfilled on configmaps "cm": the object has been modified; please apply your changes to the latest version and try again`
	cases := []struct {
		name string
		req  request
		msg  string
	}{
		{"put with a stale resourceVersion", request{method: http.MethodPut, path: item, contentType: contentJSON,
			body: jsonBody(t, map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
				"metadata": map[string]any{"name": "cm", "namespace": ns, "resourceVersion": stale}, "data": map[string]string{"v": "3"}})}, modified},
		{"merge patch with a stale resourceVersion", request{method: http.MethodPatch, path: item, contentType: "application/merge-patch+json",
			body: strings.NewReader(`{"metadata":{"resourceVersion":"` + stale + `"},"data":{"v":"3"}}`)}, modified},
		{"strategic merge patch with a stale resourceVersion", request{method: http.MethodPatch, path: item, contentType: "application/strategic-merge-patch+json",
			body: strings.NewReader(`{"metadata":{"resourceVersion":"` + stale + `"},"data":{"v":"3"}}`)}, modified},
		{"json patch setting a stale resourceVersion", request{method: http.MethodPatch, path: item, contentType: "application/json-patch+json",
			body: strings.NewReader(`[{"op":"replace","path":"/metadata/resourceVersion","value":"` + stale + `"},{"op":"replace","path":"/data/v","value":"3"}]`)}, modified},
		{"delete with a stale resourceVersion precondition", request{method: http.MethodDelete, path: item, contentType: contentJSON,
			body: strings.NewReader(`{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"resourceVersion":"` + stale + `"}}`)}, `Operation cannot be fulfilled on configmaps "cm": `},
		{"delete with a wrong uid precondition", request{method: http.MethodDelete, path: item, contentType: contentJSON,
			body: strings.NewReader(`{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"uid":"00000000-0000-0000-0000-000000000000"}}`)}, `Operation cannot be fulfilled on configmaps "cm": `},
	}
	for _, tc := range cases {
		st := wantStatus(t, tc.name, do(t, c, s, tc.req), http.StatusConflict, metav1.StatusReasonConflict, tc.msg)
		if st.Details != nil && (st.Details.Name != "cm" || st.Details.Kind != "configmaps") {
			t.Errorf("%s: details %+v, want name cm kind configmaps", tc.name, st.Details)
		}
	}
	got := decodeObject(t, do(t, c, s, request{method: http.MethodGet, path: item}))
	if got.Metadata.ResourceVersion != second.Metadata.ResourceVersion || got.Data["v"] != "2" {
		t.Errorf("after the refused writes: resourceVersion %s data %v, want %s and v=2", got.Metadata.ResourceVersion, got.Data, second.Metadata.ResourceVersion)
	}
}

// currentRevision is etcd's current revision.
func currentRevision(t *testing.T, cl *clientv3.Client) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := cl.Get(ctx, "/kubecore-integration-probe")
	if err != nil {
		t.Fatal(err)
	}
	return resp.Header.Revision
}

// TestCompactedRevision: after etcd compacts past a revision, a watch from
// it ends with one ERROR event carrying 410 Expired, and so do a continue
// token and an exact list pinned to it.
func TestCompactedRevision(t *testing.T) {
	s1 := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	c1 := s1.HTTPClient(t)
	ns := s1.CreateNamespace(t, "compact")
	base := "/api/v1/namespaces/" + ns + "/configmaps"
	for i := range 3 {
		createConfigMap(t, c1, s1, ns, fmt.Sprintf("cm-%d", i), map[string]string{"i": strconv.Itoa(i)})
	}
	page := decodeList(t, do(t, c1, s1, request{method: http.MethodGet, path: base + "?limit=1"}))
	if page.Metadata.Continue == "" {
		t.Fatalf("limit=1 over 3 objects gave no continue token")
	}
	old := page.Metadata.ResourceVersion
	for i := range 5 {
		r := putConfigMap(t, c1, s1, ns, "cm-0", "", map[string]string{"i": "updated-" + strconv.Itoa(i)})
		if r.code != http.StatusOK {
			t.Fatalf("update: %d %s", r.code, r.body)
		}
	}
	rev := currentRevision(t, testEtcd.Client())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := testEtcd.Client().Compact(ctx, rev, clientv3.WithCompactPhysical()); err != nil {
		t.Fatalf("compact at %d: %v", rev, err)
	}

	// A server started after the compaction (whose watch cache, if any,
	// begins past it) and the one that ran before must both refuse.
	s2 := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	c2 := s2.HTTPClient(t)
	// The old server's watch cache, if any, may still hold the old revision
	// and serve a watch from it, as Kubernetes' does: only the lists bind it.
	for _, srv := range []struct {
		name       string
		s          *framework.APIServer
		c          *http.Client
		checkWatch bool
	}{{"new server", s2, c2, true}, {"old server", s1, c1, false}} {
		t.Run(srv.name, func(t *testing.T) {
			if srv.checkWatch {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				w := openWatch(ctx, t, srv.c, srv.s, base+"?watch=true&resourceVersion="+old)
				ev, err := w.next()
				if err != nil {
					t.Fatalf("watch from compacted %s: %v", old, err)
				}
				if ev.Type != "ERROR" || ev.Object.Kind != "Status" || ev.Object.Code != http.StatusGone || ev.Object.Reason != metav1.StatusReasonExpired {
					t.Fatalf("watch from compacted %s: first event %s %s, want ERROR with a 410 Expired Status", old, ev.Type, ev.Raw)
				}
				if ev, err := w.next(); err != io.EOF {
					t.Errorf("after the ERROR event: %s %s, %v; want the stream to end", ev.Type, ev.Raw, err)
				}
			}
			wantStatus(t, "continue token of a compacted revision",
				do(t, srv.c, srv.s, request{method: http.MethodGet, path: base + "?limit=1&continue=" + url.QueryEscape(page.Metadata.Continue)}),
				http.StatusGone, metav1.StatusReasonExpired, "")
			wantStatus(t, "exact list at a compacted revision",
				do(t, srv.c, srv.s, request{method: http.MethodGet, path: base + "?resourceVersionMatch=Exact&resourceVersion=" + old}),
				http.StatusGone, metav1.StatusReasonExpired, "")
		})
	}
}

// TestListContinueConsistentWhileWriting: the pages of a list form the
// snapshot of the first page's revision while other clients create,
// update and delete objects between the pages.
func TestListContinueConsistentWhileWriting(t *testing.T) {
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	c := s.HTTPClient(t)
	ns := s.CreateNamespace(t, "paging")
	base := "/api/v1/namespaces/" + ns + "/configmaps"
	const n = 120
	initial := map[string]object{}
	for i := range n {
		o := createConfigMap(t, c, s, ns, fmt.Sprintf("cm-%03d", i), map[string]string{"gen": "0"})
		initial[o.Metadata.Name] = o
	}

	first := decodeList(t, do(t, c, s, request{method: http.MethodGet, path: base + "?limit=7"}))
	snapshot := first.Metadata.ResourceVersion
	if first.Metadata.Continue == "" || len(first.Items) != 7 {
		t.Fatalf("first page: %d items, continue %q", len(first.Items), first.Metadata.Continue)
	}

	// Writers change the namespace while the pages are read.
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var mu sync.Mutex
	var writeErrs []string
	writes := 0
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				var r response
				var err error
				switch i % 3 {
				case 0: // create a new object
					r, err = tryDo(ctx, c, s, request{method: http.MethodPost, path: base, contentType: contentJSON,
						body: strings.NewReader(configMapJSON(ns, fmt.Sprintf("new-%d-%d", w, i), map[string]string{"gen": "new"}))})
				case 1: // update an initial object
					name := fmt.Sprintf("cm-%03d", (w*31+i)%n)
					r, err = tryDo(ctx, c, s, request{method: http.MethodPatch, path: base + "/" + name, contentType: "application/merge-patch+json",
						body: strings.NewReader(fmt.Sprintf(`{"data":{"gen":"%d-%d"}}`, w, i))})
				case 2: // delete an initial object (once)
					name := fmt.Sprintf("cm-%03d", (w*37+i*5)%n)
					r, err = tryDo(ctx, c, s, request{method: http.MethodDelete, path: base + "/" + name})
				}
				if r.code == http.StatusNotFound && i%3 != 0 {
					r.code = http.StatusOK // deleted by an earlier write
				}
				if ctx.Err() != nil {
					return
				}
				mu.Lock()
				writes++
				switch {
				case err != nil:
					writeErrs = append(writeErrs, err.Error())
				case r.code >= 300:
					writeErrs = append(writeErrs, fmt.Sprintf("%d %s", r.code, r.body))
				}
				mu.Unlock()
			}
		})
	}
	waitForWrites := func(min int) {
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			mu.Lock()
			n := writes
			mu.Unlock()
			if n >= min {
				return
			}
		}
	}

	seen := map[string]int{}
	pages := 1
	for _, it := range first.Items {
		seen[it.Metadata.Name]++
	}
	for cont := first.Metadata.Continue; cont != ""; {
		waitForWrites(pages * 10)
		page := decodeList(t, do(t, c, s, request{method: http.MethodGet, path: base + "?limit=7&continue=" + url.QueryEscape(cont)}))
		pages++
		if page.Metadata.ResourceVersion != snapshot {
			t.Errorf("page %d: resourceVersion %s, want the first page's %s", pages, page.Metadata.ResourceVersion, snapshot)
		}
		for _, it := range page.Items {
			seen[it.Metadata.Name]++
			want, ok := initial[it.Metadata.Name]
			switch {
			case !ok:
				t.Errorf("page %d holds %s, created after the snapshot", pages, it.Metadata.Name)
			case it.Metadata.ResourceVersion != want.Metadata.ResourceVersion || it.Data["gen"] != "0":
				t.Errorf("page %d: %s at resourceVersion %s data %v, want the snapshot's %s gen=0", pages, it.Metadata.Name,
					it.Metadata.ResourceVersion, it.Data, want.Metadata.ResourceVersion)
			}
		}
		cont = page.Metadata.Continue
		if cont != "" && page.Metadata.RemainingItemCount != nil && *page.Metadata.RemainingItemCount < 0 {
			t.Errorf("page %d: negative remainingItemCount %d", pages, *page.Metadata.RemainingItemCount)
		}
	}
	stop()
	wg.Wait()
	for name := range initial {
		if seen[name] != 1 {
			t.Errorf("%s seen %d times over the pages, want once", name, seen[name])
		}
	}
	if len(seen) != n {
		t.Errorf("the pages hold %d objects, want the %d of the snapshot", len(seen), n)
	}
	if len(writeErrs) > 0 {
		t.Errorf("%d writes failed, first: %s", len(writeErrs), writeErrs[0])
	}
	if writes < pages*5 {
		t.Errorf("only %d writes happened during %d pages", writes, pages)
	}
	t.Logf("%d pages at resourceVersion %s while %d writes went on", pages, snapshot, writes)
}

// TestStorageMediaType: built-in objects are written to etcd in the
// protobuf envelope by default and as JSON with --storage-media-type
// application/json; a server reads what either wrote, and an update
// rewrites an object in the server's own form.
func TestStorageMediaType(t *testing.T) {
	pb := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	js := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd, StorageMediaType: apiservercmd.StorageMediaTypeJSON})
	cpb, cjs := pb.HTTPClient(t), js.HTTPClient(t)
	ns := pb.CreateNamespace(t, "media")
	stored := func(name string) []byte {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		resp, err := testEtcd.Client().Get(ctx, "/registry/configmaps/"+ns+"/"+name)
		if err != nil || len(resp.Kvs) != 1 {
			t.Fatalf("etcd get %s: %v %v", name, err, resp)
		}
		return resp.Kvs[0].Value
	}
	isProtobuf := func(b []byte) bool { return bytes.HasPrefix(b, []byte("k8s\x00")) }

	createConfigMap(t, cpb, pb, ns, "by-protobuf", map[string]string{"v": "1"})
	createConfigMap(t, cjs, js, ns, "by-json", map[string]string{"v": "2"})
	if b := stored("by-protobuf"); !isProtobuf(b) {
		t.Errorf("the default server stored %q, want the protobuf envelope", b)
	}
	if b := stored("by-json"); !json.Valid(b) {
		t.Errorf("the JSON server stored %q, want JSON", b)
	}
	// Each server reads the other's.
	for _, c := range []struct {
		s    *framework.APIServer
		c    *http.Client
		name string
		want string
	}{{pb, cpb, "by-json", "2"}, {js, cjs, "by-protobuf", "1"}} {
		r := do(t, c.c, c.s, request{method: http.MethodGet, path: "/api/v1/namespaces/" + ns + "/configmaps/" + c.name})
		if o := decodeObject(t, r); r.code != http.StatusOK || o.Data["v"] != c.want {
			t.Errorf("get %s: %d %s", c.name, r.code, r.body)
		}
	}
	// An update writes the updating server's form.
	if r := putConfigMap(t, cpb, pb, ns, "by-json", "", map[string]string{"v": "3"}); r.code != http.StatusOK {
		t.Fatalf("update: %d %s", r.code, r.body)
	}
	if b := stored("by-json"); !isProtobuf(b) {
		t.Errorf("after an update by the default server: %q, want protobuf", b)
	}
	if r := putConfigMap(t, cjs, js, ns, "by-protobuf", "", map[string]string{"v": "4"}); r.code != http.StatusOK {
		t.Fatalf("update: %d %s", r.code, r.body)
	}
	if b := stored("by-protobuf"); !json.Valid(b) {
		t.Errorf("after an update by the JSON server: %q, want JSON", b)
	}
}
