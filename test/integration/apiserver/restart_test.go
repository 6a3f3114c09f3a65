package apiserver

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/test/integration/framework"
)

// manifests the restart test stores, by collection path ({ns} is replaced).
var restartManifests = []struct{ path, body string }{
	{"/api/v1/namespaces/{ns}/configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings","labels":{"app":"web"}},"data":{"mode":"fast"}}`},
	{"/api/v1/namespaces/{ns}/configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"doomed"},"data":{"x":"y"}}`},
	{"/api/v1/namespaces/{ns}/secrets", `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"creds"},"stringData":{"password":"hunter2"}}`},
	{"/api/v1/namespaces/{ns}/pods", `{"apiVersion":"v1","kind":"Pod","metadata":{"generateName":"web-"},"spec":{"containers":[{"name":"web","image":"nginx:1.27"}]}}`},
	{"/api/v1/namespaces/{ns}/services", `{"apiVersion":"v1","kind":"Service","metadata":{"name":"web"},"spec":{"selector":{"app":"web"},"ports":[{"port":80}]}}`},
	{"/apis/apps/v1/namespaces/{ns}/deployments", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx"}]}}}}`},
	{"/apis/coordination.k8s.io/v1/namespaces/{ns}/leases", `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"leader"},"spec":{"holderIdentity":"a"}}`},
	{"/api/v1/nodes", `{"apiVersion":"v1","kind":"Node","metadata":{"name":"restart-node","labels":{"zone":"a"}}}`},
	{"/apis/scheduling.k8s.io/v1/priorityclasses", `{"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"restart-high"},"value":1000}`},
}

// TestRestartKeepsObjects: `kubecore apiserver` with its embedded etcd,
// stopped and started again on the same data dir, serves every object
// byte for byte with the same resourceVersion, reuses its PKI, and goes on
// with resourceVersions above the old ones.
func TestRestartKeepsObjects(t *testing.T) {
	dir := t.TempDir()
	s1 := framework.StartAPIServer(t, framework.APIServerOptions{DataDir: dir})
	c1 := s1.HTTPClient(t)
	ns := s1.CreateNamespace(t, "restart")
	for _, m := range restartManifests {
		r := do(t, c1, s1, request{method: http.MethodPost, path: strings.ReplaceAll(m.path, "{ns}", ns),
			body: strings.NewReader(m.body), contentType: contentJSON})
		if r.code != http.StatusCreated {
			t.Fatalf("create %s: %d %s", m.path, r.code, r.body)
		}
	}
	for _, p := range []request{
		{method: http.MethodPatch, path: "/apis/apps/v1/namespaces/" + ns + "/deployments/web/scale", contentType: "application/merge-patch+json", body: strings.NewReader(`{"spec":{"replicas":3}}`)},
		{method: http.MethodPatch, path: "/api/v1/namespaces/" + ns + "/configmaps/settings", contentType: "application/strategic-merge-patch+json", body: strings.NewReader(`{"data":{"mode":"slow"}}`)},
		{method: http.MethodDelete, path: "/api/v1/namespaces/" + ns + "/configmaps/doomed"},
	} {
		if r := do(t, c1, s1, p); r.code != http.StatusOK {
			t.Fatalf("%s %s: %d %s", p.method, p.path, r.code, r.body)
		}
	}
	before := snapshotObjects(t, c1, s1)
	pkiBefore := readDir(t, filepath.Join(dir, "pki"))
	if err := s1.Stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}

	s2 := framework.StartAPIServer(t, framework.APIServerOptions{DataDir: dir})
	c2 := s2.HTTPClient(t)
	after := snapshotObjects(t, c2, s2)
	for key, b := range before {
		switch a, ok := after[key]; {
		case ok && movesWithServer(key):
			// The server lists its new port there (kubernetes_service_test.go).
		case !ok:
			t.Errorf("%s is gone after the restart", key)
		case a != b:
			t.Errorf("%s changed over the restart:\nbefore %s\nafter  %s", key, b, a)
		}
	}
	for key := range after {
		if _, ok := before[key]; !ok {
			t.Errorf("%s appeared over the restart", key)
		}
	}
	if _, ok := before["v1/configmaps/"+ns+"/settings"]; !ok {
		t.Errorf("the snapshot misses the test's own configmap; keys: %v", slices.Sorted(maps.Keys(before)))
	}
	if !maps.Equal(pkiBefore, readDir(t, filepath.Join(dir, "pki"))) {
		t.Errorf("the restart changed DIR/pki")
	}

	// Writes go on above every old resourceVersion.
	var newest uint64
	for _, b := range before {
		var o object
		_ = json.Unmarshal([]byte(b), &o)
		var rv uint64
		_, _ = fmt.Sscan(o.Metadata.ResourceVersion, &rv)
		newest = max(newest, rv)
	}
	o := createConfigMap(t, c2, s2, ns, "after-restart", nil)
	var rv uint64
	_, _ = fmt.Sscan(o.Metadata.ResourceVersion, &rv)
	if rv <= newest {
		t.Errorf("a create after the restart got resourceVersion %d, not above the newest before it (%d)", rv, newest)
	}
}

// snapshotObjects lists every listable resource of every group version the
// server announces, across namespaces: "gv/resource/ns/name" -> object JSON.
func snapshotObjects(t *testing.T, c *http.Client, s *framework.APIServer) map[string]string {
	t.Helper()
	roots := []string{"/api/v1"}
	var groups metav1.APIGroupList
	if err := json.Unmarshal(do(t, c, s, request{method: http.MethodGet, path: "/apis"}).body, &groups); err != nil {
		t.Fatalf("discovery /apis: %v", err)
	}
	for _, g := range groups.Groups {
		for _, v := range g.Versions {
			roots = append(roots, "/apis/"+v.GroupVersion)
		}
	}
	out := map[string]string{}
	resources := 0
	for _, root := range roots {
		var rl metav1.APIResourceList
		if err := json.Unmarshal(do(t, c, s, request{method: http.MethodGet, path: root}).body, &rl); err != nil {
			t.Fatalf("discovery %s: %v", root, err)
		}
		for _, res := range rl.APIResources {
			if strings.Contains(res.Name, "/") || !slices.Contains(res.Verbs, "list") {
				continue
			}
			resources++
			r := do(t, c, s, request{method: http.MethodGet, path: root + "/" + res.Name})
			if r.code != http.StatusOK {
				t.Fatalf("list %s/%s: %d %s", root, res.Name, r.code, r.body)
			}
			var l struct {
				Items []json.RawMessage `json:"items"`
			}
			if err := json.Unmarshal(r.body, &l); err != nil {
				t.Fatalf("list %s/%s: %v", root, res.Name, err)
			}
			for _, raw := range l.Items {
				var o object
				if err := json.Unmarshal(raw, &o); err != nil {
					t.Fatal(err)
				}
				out[rl.GroupVersion+"/"+res.Name+"/"+o.Metadata.Namespace+"/"+o.Metadata.Name] = string(raw)
			}
		}
	}
	if resources < 15 {
		t.Fatalf("discovery announced only %d listable resources", resources)
	}
	return out
}

func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
