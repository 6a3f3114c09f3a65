package apply

import (
	"net/http"
	"strings"
	"testing"

	"kubecore.io/kubecore/test/integration/framework"
)

// deployment is an apply configuration of the Deployment "web" with the
// given spec lines (indented under spec:).
func deployment(spec string) string {
	return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n" + spec
}

const baseSpec = `  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: app
        image: nginx:1
        ports:
        - containerPort: 80
`

func TestApplyDeploymentTwoManagers(t *testing.T) {
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	c := newClient(t, s)
	ns := s.CreateNamespace(t, "apply")
	path := "/apis/apps/v1/namespaces/" + ns + "/deployments/web"

	// a creates on apply.
	obj := c.apply(path, "fieldManager=a", deployment(baseSpec)).expect(t, http.StatusCreated).object(t)
	a := managers(obj)["a/Apply"]
	if a == nil || !owns(a, `"f:replicas"`, `"k:{\"name\":\"app\"}"`, `"k:{\"containerPort\":80,\"protocol\":\"TCP\"}"`) {
		t.Fatalf("a's entry does not own what it applied: %v", managers(obj))
	}
	if a["apiVersion"] != "apps/v1" || a["fieldsType"] != "FieldsV1" || a["time"] == nil {
		t.Errorf("entry = %v", a)
	}

	// b applies disjoint fields: a second container and a second port
	// of a's container, merged by their keys.
	obj = c.apply(path, "fieldManager=b", deployment(`  template:
    spec:
      containers:
      - name: app
        ports:
        - containerPort: 443
      - name: sidecar
        image: busybox:1
`)).expect(t, http.StatusOK).object(t)
	containers := get(obj, "spec", "template", "spec", "containers").([]any)
	if len(containers) != 2 || get(containers, 0, "name") != "app" || get(containers, 1, "name") != "sidecar" {
		t.Fatalf("containers not merged by name: %v", containers)
	}
	if ports := get(containers, 0, "ports").([]any); len(ports) != 2 {
		t.Fatalf("ports not merged by containerPort+protocol: %v", ports)
	}
	if get(obj, "spec", "replicas") != float64(2) || get(containers, 0, "image") != "nginx:1" {
		t.Fatalf("b's apply changed a's fields: %v", obj["spec"])
	}

	// b applies a field a owns with another value: 409 naming both.
	st := c.apply(path, "fieldManager=b", deployment("  replicas: 3\n")).expect(t, http.StatusConflict).status(t)
	if st.Reason != "Conflict" || !strings.Contains(st.Message, `Apply failed with 1 conflict: conflict with "a": .spec.replicas`) {
		t.Fatalf("conflict status = %+v", st)
	}
	if st.Details == nil || len(st.Details.Causes) != 1 || st.Details.Causes[0].Field != ".spec.replicas" ||
		string(st.Details.Causes[0].Type) != "FieldManagerConflict" || !strings.Contains(st.Details.Causes[0].Message, `conflict with "a"`) {
		t.Fatalf("conflict causes = %+v", st.Details)
	}

	// force takes it over.
	obj = c.apply(path, "fieldManager=b&force=true", deployment("  replicas: 3\n")).expect(t, http.StatusOK).object(t)
	if get(obj, "spec", "replicas") != float64(3) {
		t.Fatalf("replicas = %v", get(obj, "spec", "replicas"))
	}
	ms := managers(obj)
	if !owns(ms["b/Apply"], `"f:replicas"`) || owns(ms["a/Apply"], `"f:replicas"`) {
		t.Fatalf("force did not move ownership: %v", ms)
	}
	// b's forced apply left out its container and port: they are removed
	// (b alone owned them).
	containers = get(obj, "spec", "template", "spec", "containers").([]any)
	if len(containers) != 1 || len(get(containers, 0, "ports").([]any)) != 1 {
		t.Fatalf("fields b stopped applying were kept: %v", containers)
	}

	// a leaves out replicas, which b owns now: kept. a also drops its
	// port, which it alone owns: removed.
	obj = c.apply(path, "fieldManager=a", deployment(strings.Replace(strings.Replace(baseSpec, "  replicas: 2\n", "", 1),
		"        ports:\n        - containerPort: 80\n", "", 1))).expect(t, http.StatusOK).object(t)
	if get(obj, "spec", "replicas") != float64(3) {
		t.Fatalf("a dropping replicas owned by b removed it: %v", get(obj, "spec", "replicas"))
	}
	if p := get(obj, "spec", "template", "spec", "containers", 0, "ports"); p != nil {
		t.Fatalf("a's dropped port is still there: %v", p)
	}

	// Both own a label with the same value; a drops it: it stays.
	labels := "  template:\n    metadata:\n      labels: {app: web, tier: front}\n"
	c.apply(path, "fieldManager=b", deployment("  replicas: 3\n"+labels)).expect(t, http.StatusOK)
	withTier := strings.Replace(strings.Replace(baseSpec, "      labels: {app: web}\n", "      labels: {app: web, tier: front}\n", 1), "  replicas: 2\n", "", 1)
	c.apply(path, "fieldManager=a", deployment(withTier)).expect(t, http.StatusOK)
	obj = c.apply(path, "fieldManager=a", deployment(strings.Replace(baseSpec, "  replicas: 2\n", "", 1))).expect(t, http.StatusOK).object(t)
	if get(obj, "spec", "template", "metadata", "labels", "tier") != "front" {
		t.Fatalf("a shared label was removed: %v", get(obj, "spec", "template", "metadata", "labels"))
	}
	// b drops it too: now nobody owns it, it goes.
	obj = c.apply(path, "fieldManager=b", deployment("  replicas: 3\n")).expect(t, http.StatusOK).object(t)
	if v := get(obj, "spec", "template", "metadata", "labels", "tier"); v != nil {
		t.Fatalf("label owned by nobody kept: %v", v)
	}
}

func TestApplySubresources(t *testing.T) {
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	c := newClient(t, s)
	ns := s.CreateNamespace(t, "apply-sub")
	path := "/apis/apps/v1/namespaces/" + ns + "/deployments/web"

	// Apply to /status of a missing object: 404, never a create.
	statusCfg := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nstatus:\n  observedGeneration: 1\n"
	c.apply(path+"/status", "fieldManager=ctrl", statusCfg).expect(t, http.StatusNotFound)

	c.apply(path, "fieldManager=a", deployment(baseSpec)).expect(t, http.StatusCreated)
	obj := c.apply(path+"/status", "fieldManager=ctrl", statusCfg).expect(t, http.StatusOK).object(t)
	if get(obj, "status", "observedGeneration") != float64(1) {
		t.Fatalf("status = %v", obj["status"])
	}
	e := managers(obj)["ctrl/Apply/status"]
	if e == nil || !owns(e, `"f:observedGeneration"`) || owns(e, `"f:spec"`) {
		t.Fatalf("status entry = %v", managers(obj))
	}
	// Spec in a status apply is reset: not changed, not owned.
	obj = c.apply(path+"/status", "fieldManager=ctrl", statusCfg+"spec:\n  replicas: 7\n").expect(t, http.StatusOK).object(t)
	if get(obj, "spec", "replicas") != float64(2) || owns(managers(obj)["ctrl/Apply/status"], `"f:spec"`) {
		t.Fatalf("status apply changed or owned spec: %v %v", obj["spec"], managers(obj))
	}

	// Scale: the Scale's spec.replicas is the Deployment's.
	scaleCfg := "apiVersion: autoscaling/v1\nkind: Scale\nmetadata:\n  name: web\nspec:\n  replicas: 4\n"
	st := c.apply(path+"/scale", "fieldManager=hpa", scaleCfg).expect(t, http.StatusConflict).status(t)
	if !strings.Contains(st.Message, `conflict with "a": .spec.replicas`) {
		t.Fatalf("scale conflict = %s", st.Message)
	}
	scale := c.apply(path+"/scale", "fieldManager=hpa&force=true", scaleCfg).expect(t, http.StatusOK).object(t)
	if scale["kind"] != "Scale" || get(scale, "spec", "replicas") != float64(4) {
		t.Fatalf("scale = %v", scale)
	}
	obj = c.do(http.MethodGet, path, "", "").expect(t, http.StatusOK).object(t)
	if get(obj, "spec", "replicas") != float64(4) || !owns(managers(obj)["hpa/Apply/scale"], `"f:replicas"`) {
		t.Fatalf("deployment after scale apply: %v %v", get(obj, "spec", "replicas"), managers(obj))
	}
	st = c.apply(path, "fieldManager=a", deployment(baseSpec)).expect(t, http.StatusConflict).status(t)
	if !strings.Contains(st.Message, `conflict with "hpa" with subresource "scale": .spec.replicas`) {
		t.Fatalf("conflict with the scale applier = %s", st.Message)
	}

	// A PUT of the scale records an Update at /scale.
	put := `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"web"},"spec":{"replicas":5}}`
	c.do(http.MethodPut, path+"/scale?fieldManager=scaler", "application/json", put).expect(t, http.StatusOK)
	obj = c.do(http.MethodGet, path, "", "").expect(t, http.StatusOK).object(t)
	if !owns(managers(obj)["scaler/Update/scale"], `"f:replicas"`) {
		t.Fatalf("scale update entry: %v", managers(obj))
	}
}

func TestWritesRecordManagedFields(t *testing.T) {
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	c := newClient(t, s)
	ns := s.CreateNamespace(t, "apply-upd")
	base := "/api/v1/namespaces/" + ns + "/configmaps"

	// Create: the manager is the User-Agent's first segment.
	obj := c.do(http.MethodPost, base, "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"1"}}`).expect(t, http.StatusCreated).object(t)
	if !owns(managers(obj)["apply-test/Update"], `"f:data"`, `"f:a"`) {
		t.Fatalf("create entry: %v", managers(obj))
	}
	// Merge patch with fieldManager.
	obj = c.do(http.MethodPatch, base+"/cm?fieldManager=patcher", "application/merge-patch+json", `{"data":{"b":"2"}}`).expect(t, http.StatusOK).object(t)
	if e := managers(obj)["patcher/Update"]; !owns(e, `"f:b"`) || owns(e, `"f:a"`) {
		t.Fatalf("merge patch entry: %v", managers(obj))
	}
	// JSON patch and strategic merge patch.
	obj = c.do(http.MethodPatch, base+"/cm?fieldManager=jp", "application/json-patch+json", `[{"op":"add","path":"/data/c","value":"3"}]`).expect(t, http.StatusOK).object(t)
	if !owns(managers(obj)["jp/Update"], `"f:c"`) {
		t.Fatalf("json patch entry: %v", managers(obj))
	}
	obj = c.do(http.MethodPatch, base+"/cm?fieldManager=smp", "application/strategic-merge-patch+json", `{"data":{"d":"4"}}`).expect(t, http.StatusOK).object(t)
	if !owns(managers(obj)["smp/Update"], `"f:d"`) {
		t.Fatalf("strategic patch entry: %v", managers(obj))
	}
	// PUT takes a's field from the creator.
	obj["data"].(map[string]any)["a"] = "9"
	delete(obj["metadata"].(map[string]any), "managedFields")
	c.do(http.MethodPut, base+"/cm?fieldManager=putter", "application/json", mustJSON(t, obj)).expect(t, http.StatusOK)
	obj = c.do(http.MethodGet, base+"/cm", "", "").expect(t, http.StatusOK).object(t)
	ms := managers(obj)
	if !owns(ms["putter/Update"], `"f:a"`) || owns(ms["apply-test/Update"], `"f:a"`) {
		t.Fatalf("put entry: %v", ms)
	}
	// An invalid fieldManager is refused.
	st := c.do(http.MethodPatch, base+"/cm?fieldManager=%01x", "application/merge-patch+json", `{}`).expect(t, http.StatusUnprocessableEntity).status(t)
	if !strings.Contains(st.Message, "fieldManager") {
		t.Fatalf("status = %s", st.Message)
	}
	// force is for apply only.
	c.do(http.MethodPatch, base+"/cm?force=true", "application/merge-patch+json", `{}`).expect(t, http.StatusUnprocessableEntity)
}

func TestApplyBadRequests(t *testing.T) {
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	c := newClient(t, s)
	ns := s.CreateNamespace(t, "apply-bad")
	path := "/api/v1/namespaces/" + ns + "/configmaps/cm"
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: \"1\"\n"

	notStored := func(t *testing.T) {
		t.Helper()
		c.do(http.MethodGet, path, "", "").expect(t, http.StatusNotFound)
	}
	for _, tc := range []struct {
		name, query, body string
		code              int
		message           string
	}{
		{"no field manager", "", cm, 422, "fieldManager: Required value"},
		{"bad yaml", "fieldManager=m", "apiVersion: v1\nkind: [\n", 400, "error decoding YAML"},
		{"wrong kind", "fieldManager=m", strings.Replace(cm, "ConfigMap", "Secret", 1), 400, "invalid object type: v1, Kind=Secret"},
		{"wrong apiVersion", "fieldManager=m", strings.Replace(cm, "apiVersion: v1", "apiVersion: apps/v1", 1), 400, "invalid object type: apps/v1, Kind=ConfigMap"},
		{"missing name", "fieldManager=m", strings.Replace(cm, "  name: cm\n", "  labels: {a: b}\n", 1), 422, "metadata.name: Required value"},
		{"other name", "fieldManager=m", strings.Replace(cm, "name: cm", "name: other", 1), 400, "does not match the name on the URL"},
		{"other namespace", "fieldManager=m", strings.Replace(cm, "name: cm", "name: cm\n  namespace: elsewhere", 1), 400, "namespace"},
		{"unknown field", "fieldManager=m&fieldValidation=Strict", cm + "bogus: 1\n", 500, `.bogus: field not declared in schema`},
		{"unknown field, Ignore", "fieldManager=m&fieldValidation=Ignore", cm + "bogus: 1\n", 500, `.bogus: field not declared in schema`},
		{"nested unknown field", "fieldManager=m", strings.Replace(cm, "metadata:\n", "metadata:\n  nope: x\n", 1), 500, `.metadata.nope: field not declared in schema`},
		{"strict duplicate field", "fieldManager=m&fieldValidation=Strict", strings.Replace(cm, "\ndata:\n", "\ndata:\n  b: one\n  b: two\n", 1), 400, `unmarshal errors:
  line 7: key "b" already set in map`},
		{"managedFields set", "fieldManager=m", strings.Replace(cm, "metadata:\n", "metadata:\n  managedFields: [{manager: x}]\n", 1), 400, "metadata.managedFields must be nil"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := c.apply(path, tc.query, tc.body).expect(t, tc.code).status(t)
			if !strings.Contains(st.Message, tc.message) {
				t.Errorf("message %q does not contain %q", st.Message, tc.message)
			}
			notStored(t)
		})
	}

	// dryRun answers the object and stores nothing.
	obj := c.apply(path, "fieldManager=m&dryRun=All", cm).expect(t, http.StatusCreated).object(t)
	if get(obj, "data", "a") != "1" || managers(obj)["m/Apply"] == nil {
		t.Fatalf("dry run answer: %v", obj)
	}
	notStored(t)

	// A duplicate field is a warning under Warn (the default), the last
	// one winning; Ignore lets it through silently.
	dup := strings.Replace(cm, "\ndata:\n", "\ndata:\n  b: one\n  b: two\n", 1)
	r := c.apply(path, "fieldManager=m", dup).expect(t, http.StatusCreated)
	if w := r.header.Get("Warning"); !strings.Contains(w, `key \"b\" already set in map`) {
		t.Errorf("warning = %q", w)
	}
	if v := get(r.object(t), "data", "b"); v != "two" {
		t.Errorf("duplicate field: b = %v, want the last value", v)
	}
	r = c.apply(path, "fieldManager=m&fieldValidation=Ignore", dup).expect(t, http.StatusOK)
	if w := r.header.Get("Warning"); w != "" {
		t.Errorf("Ignore warned %q", w)
	}
	// dryRun of a change leaves the stored object as it was.
	c.apply(path, "fieldManager=m&dryRun=All", strings.Replace(cm, `a: "1"`, `a: "2"`, 1)).expect(t, http.StatusOK)
	if v := get(c.do(http.MethodGet, path, "", "").object(t), "data", "a"); v != "1" {
		t.Fatalf("dry run changed the object: %v", v)
	}
}
