package e2e

import (
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"kubecore.io/kubecore/test/e2e/framework"
)

func TestVersion(t *testing.T) {
	t.Parallel()
	k := server.Kubectl(t)
	r := k.Run(t, "version", "-o", "json")
	if r.ExitCode != 0 {
		t.Fatalf("%s", r)
	}
	if r.Stderr != "" {
		t.Errorf("kubectl version warned: %s", r.Stderr)
	}
	v := decodeJSON(t, r.Stdout)
	if v.str("serverVersion.major") != "1" || v.str("serverVersion.minor") == "" {
		t.Errorf("server version %v, want major 1 and a minor", v.field("serverVersion"))
	}
	if git := v.str("serverVersion.gitVersion"); !regexp.MustCompile(`^v1\.[0-9]+\.[0-9]+`).MatchString(git) {
		t.Errorf("server gitVersion %q is no semantic version", git)
	}
	if v.str("serverVersion.platform") == "" || v.str("serverVersion.goVersion") == "" {
		t.Errorf("server version lacks platform or goVersion: %v", v.field("serverVersion"))
	}
	expectContains(t, "kubectl version", k.MustRun(t, "version"), "Client Version: v1.32", "Server Version: v1.")
}

func TestAPIResources(t *testing.T) {
	t.Parallel()
	k := server.Kubectl(t)
	tb := parseTable(t, k.MustRun(t, "api-resources"))
	expectHeader(t, "api-resources", tb, "NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND")
	for _, want := range [][]string{
		{"configmaps", "cm", "v1", "true", "ConfigMap"},
		{"namespaces", "ns", "v1", "false", "Namespace"},
		{"nodes", "no", "v1", "false", "Node"},
		{"pods", "po", "v1", "true", "Pod"},
		{"services", "svc", "v1", "true", "Service"},
		{"serviceaccounts", "sa", "v1", "true", "ServiceAccount"},
		{"events", "ev", "v1", "true", "Event"},
		{"persistentvolumeclaims", "pvc", "v1", "true", "PersistentVolumeClaim"},
		{"persistentvolumes", "pv", "v1", "false", "PersistentVolume"},
		{"limitranges", "limits", "v1", "true", "LimitRange"},
		{"resourcequotas", "quota", "v1", "true", "ResourceQuota"},
		{"replicationcontrollers", "rc", "v1", "true", "ReplicationController"},
		{"componentstatuses", "cs", "v1", "false", "ComponentStatus"},
		{"deployments", "deploy", "apps/v1", "true", "Deployment"},
		{"replicasets", "rs", "apps/v1", "true", "ReplicaSet"},
		{"statefulsets", "sts", "apps/v1", "true", "StatefulSet"},
		{"priorityclasses", "pc", "scheduling.k8s.io/v1", "false", "PriorityClass"},
	} {
		found := false
		for _, r := range tb.rows {
			found = found || slices.Equal(r, want)
		}
		if !found {
			t.Errorf("api-resources has no row %q", want)
		}
	}
	// secrets have no short name: the row has an empty cell kubectl pads.
	if !regexp.MustCompile(`(?m)^secrets\s+v1\s+true\s+Secret$`).MatchString(k.MustRun(t, "api-resources")) {
		t.Errorf("api-resources has no secrets row without short names")
	}
	if !regexp.MustCompile(`(?m)^leases\s+coordination\.k8s\.io/v1\s+true\s+Lease$`).MatchString(k.MustRun(t, "api-resources")) {
		t.Errorf("api-resources has no leases row")
	}

	wide := k.MustRun(t, "api-resources", "-o", "wide", "--api-group=")
	if !regexp.MustCompile(`(?m)^pods\s+po\s+v1\s+true\s+Pod\s+create,delete,deletecollection,get,list,patch,update,watch\s+all$`).MatchString(wide) {
		t.Errorf("api-resources -o wide: no pods row with every verb and category all:\n%s", wide)
	}
	if !regexp.MustCompile(`(?m)^bindings\s+v1\s+true\s+Binding\s+create\s*$`).MatchString(wide) {
		t.Errorf("api-resources -o wide: no bindings row with only create:\n%s", wide)
	}
	if !regexp.MustCompile(`(?m)^replicationcontrollers\s+rc\s+v1\s+true\s+ReplicationController\s+create,delete,deletecollection,get,list,patch,update,watch\s+all$`).MatchString(wide) {
		t.Errorf("api-resources -o wide: no replicationcontrollers row in category all:\n%s", wide)
	}
	if !regexp.MustCompile(`(?m)^componentstatuses\s+cs\s+v1\s+false\s+ComponentStatus\s+get,list\s*$`).MatchString(wide) {
		t.Errorf("api-resources -o wide: no read-only componentstatuses row:\n%s", wide)
	}
	if got := k.MustRun(t, "api-resources", "--namespaced=false", "-o", "name"); !strings.Contains(got, "namespaces\n") || strings.Contains(got, "pods\n") {
		t.Errorf("api-resources --namespaced=false -o name:\n%s", got)
	}
	if got := k.MustRun(t, "api-resources", "--api-group=apps", "-o", "name"); !strings.Contains(got, "deployments.apps\n") || strings.Contains(got, "pods") {
		t.Errorf("api-resources --api-group=apps -o name:\n%s", got)
	}
}

func TestAPIVersions(t *testing.T) {
	t.Parallel()
	out := server.Kubectl(t).MustRun(t, "api-versions")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for _, want := range []string{"v1", "apps/v1", "coordination.k8s.io/v1", "policy/v1", "scheduling.k8s.io/v1"} {
		if !slices.Contains(lines, want) {
			t.Errorf("api-versions lacks %q:\n%s", want, out)
		}
	}
	if !slices.IsSorted(lines) {
		t.Errorf("api-versions is not sorted:\n%s", out)
	}
}

func TestExplain(t *testing.T) {
	t.Parallel()
	k := server.Kubectl(t)
	out := k.MustRun(t, "explain", "deployment.spec.strategy")
	for _, re := range []string{
		`(?m)^GROUP:\s+apps$`,
		`(?m)^KIND:\s+Deployment$`,
		`(?m)^VERSION:\s+v1$`,
		`(?m)^FIELD: strategy <DeploymentStrategy>$`,
		`(?m)^DESCRIPTION:$`,
		`(?m)^FIELDS:$`,
		`(?m)^  rollingUpdate\t<RollingUpdateDeployment>$`,
		`(?m)^  type\t<string>$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("explain deployment.spec.strategy does not match %s:\n%s", re, out)
		}
	}
	// Every field has a description under it.
	if !regexp.MustCompile(`(?m)^  type\t<string>\n    \S`).MatchString(out) {
		t.Errorf("explain: field type has no description:\n%s", out)
	}

	out = k.MustRun(t, "explain", "pods.spec.containers")
	expectContains(t, "explain pods.spec.containers", out, "KIND:       Pod", "FIELD: containers <[]Container>", "image\t<string>", "name\t<string> -required-")
	out = k.MustRun(t, "explain", "configmap")
	expectContains(t, "explain configmap", out, "KIND:       ConfigMap", "data\t<map[string]string>", "metadata\t<ObjectMeta>")

	r := k.MustFail(t, "", "explain", "deployment.spec.nosuchfield")
	expectContains(t, "explain of a missing field", r.Stderr, `field "nosuchfield" does not exist`)
}

// TestAuthentication checks that only the health endpoints and /version
// answer a client without a certificate, through kubectl and plain HTTPS.
func TestAuthentication(t *testing.T) {
	t.Parallel()
	anon, err := server.HTTPClient(false)
	if err != nil {
		t.Fatal(err)
	}
	get := func(c *http.Client, path string) (int, string) {
		t.Helper()
		resp, err := c.Get(server.URL + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer func() { _ = resp.Body.Close() }()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		return resp.StatusCode, string(b)
	}
	for _, p := range []string{"/healthz", "/livez", "/readyz"} {
		if code, body := get(anon, p); code != http.StatusOK || body != "ok" {
			t.Errorf("anonymous GET %s: %d %q, want 200 ok", p, code, body)
		}
	}
	code, body := get(anon, "/version")
	if code != http.StatusOK {
		t.Errorf("anonymous GET /version: %d %s", code, body)
	} else if v := decodeJSON(t, body); v.str("gitVersion") == "" {
		t.Errorf("anonymous GET /version: no gitVersion in %s", body)
	}
	for _, p := range []string{"/api", "/apis", "/api/v1/namespaces", "/apis/apps/v1/deployments", "/openapi/v3", "/metrics", "/api/v1/namespaces/default/configmaps?watch=true"} {
		code, body := get(anon, p)
		if code != http.StatusUnauthorized {
			t.Errorf("anonymous GET %s: %d, want 401", p, code)
			continue
		}
		var st struct {
			Kind   string `json:"kind"`
			Status string `json:"status"`
			Reason string `json:"reason"`
			Code   int    `json:"code"`
		}
		if err := json.Unmarshal([]byte(body), &st); err != nil || st.Kind != "Status" || st.Status != "Failure" || st.Reason != "Unauthorized" || st.Code != 401 {
			t.Errorf("anonymous GET %s: body %s is not an Unauthorized Status", p, body)
		}
	}
	admin, err := server.HTTPClient(true)
	if err != nil {
		t.Fatal(err)
	}
	if code, body := get(admin, "/api/v1/namespaces"); code != http.StatusOK {
		t.Errorf("admin GET /api/v1/namespaces: %d %s", code, body)
	}

	// kubectl with a kubeconfig whose user has no client certificate.
	k := server.Kubectl(t)
	raw, err := os.ReadFile(server.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	kc := filepath.Join(t.TempDir(), "anonymous.kubeconfig")
	if err := os.WriteFile(kc, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	k.MustRun(t, "--kubeconfig", kc, "config", "unset", "users.kubecore.client-certificate-data")
	k.MustRun(t, "--kubeconfig", kc, "config", "unset", "users.kubecore.client-key-data")
	// Without any credential kubectl would prompt for a password: present
	// a bearer token the server does not know instead.
	k.MustRun(t, "--kubeconfig", kc, "config", "set-credentials", "kubecore", "--token=not-a-known-token")
	r := k.MustFail(t, "", "--kubeconfig", kc, "get", "namespaces")
	expectContains(t, "anonymous kubectl get", r.Stderr, "You must be logged in to the server")
	expectContains(t, "anonymous kubectl get --raw /readyz", k.MustRun(t, "--kubeconfig", kc, "get", "--raw", "/readyz"), "ok")

	// The request log (at -v 3) names the user of the admin certificate.
	if !framework.WaitFor(t.Context(), 5*time.Second, func() bool {
		b, err := os.ReadFile(server.LogPath)
		return err == nil && regexp.MustCompile(`"HTTP" verb="GET" URI="/api/v1/namespaces" .*user="kubecore-admin" code=200`).Match(b)
	}) {
		t.Errorf("the request log does not name the user kubecore-admin")
	}

	verbose := k.MustRun(t, "get", "--raw", "/readyz?verbose")
	expectContains(t, "readyz?verbose", verbose, "[+]etcd ok", "readyz check passed")
}

// TestAPIResourcesAreKubernetes136 compares `kubectl api-resources -o wide`
// with the resources of a Kubernetes v1.36.3 API server
// (testdata/api-resources-v1.36.txt), and /openapi/v3 with their group
// versions. Custom resources other tests create are left out: only the
// built-in groups are compared.
func TestAPIResourcesAreKubernetes136(t *testing.T) {
	t.Parallel()
	want := map[string]string{} // name apiVersion -> the whole row
	groups := map[string]bool{}
	data, err := os.ReadFile(filepath.Join("testdata", "api-resources-v1.36.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		f := strings.Fields(l)
		if len(f) == 0 || strings.HasPrefix(l, "#") {
			continue
		}
		if len(f) != 7 {
			t.Fatalf("fixture line %q: want 7 fields", l)
		}
		want[f[0]+" "+f[2]] = strings.Join(f, " ")
		groups[groupOf(f[2])] = true
	}

	k := server.Kubectl(t)
	tb := parseTable(t, k.MustRun(t, "api-resources", "-o", "wide"))
	expectHeader(t, "api-resources -o wide", tb, "NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND", "VERBS", "CATEGORIES")
	got := map[string]string{}
	for _, r := range tb.rows {
		if !groups[groupOf(r[2])] {
			continue
		}
		cells := slices.Clone(r)
		for i, c := range cells {
			if c == "" {
				cells[i] = "-"
			}
		}
		got[r[0]+" "+r[2]] = strings.Join(cells, " ")
	}
	for _, key := range slices.Sorted(maps.Keys(want)) {
		switch g, ok := got[key]; {
		case !ok:
			t.Errorf("missing: %s", want[key])
		case g != want[key]:
			t.Errorf("differs:\n got %s\nwant %s", g, want[key])
		}
	}
	for _, key := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[key]; !ok {
			t.Errorf("served but not by Kubernetes v1.36.3: %s", got[key])
		}
	}

	var paths struct {
		Paths map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal([]byte(k.MustRun(t, "get", "--raw", "/openapi/v3")), &paths); err != nil {
		t.Fatal(err)
	}
	gvs := map[string]bool{}
	for key := range want {
		gvs[strings.Fields(key)[1]] = true
	}
	for _, gv := range slices.Sorted(maps.Keys(gvs)) {
		p := "apis/" + gv
		if gv == "v1" {
			p = "api/v1"
		}
		if _, ok := paths.Paths[p]; !ok {
			t.Errorf("/openapi/v3 lists no %s", p)
		}
	}
}

// groupOf returns the group of an apiVersion ("" for the core group).
func groupOf(apiVersion string) string {
	if g, _, ok := strings.Cut(apiVersion, "/"); ok {
		return g
	}
	return ""
}
