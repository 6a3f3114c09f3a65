package e2e

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"kubecore.io/kubecore/test/e2e/framework"
)

const podManifest = `apiVersion: v1
kind: Pod
metadata:
  name: %s
  namespace: %s
  labels:
    app: web
spec:
  containers:
  - name: main
    image: %s
`

const deploymentManifest = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: %s
  namespace: %s
  labels:
    tier: %s
spec:
  replicas: %d
  selector:
    matchLabels:
      app: %[1]s
  template:
    metadata:
      labels:
        app: %[1]s
    spec:
      containers:
      - name: main
        image: nginx:1.27
`

func TestCreateGet(t *testing.T) {
	t.Parallel()
	k := server.Kubectl(t)
	ns := server.CreateNamespace(t, "create-get")

	if out := k.MustRun(t, "create", "configmap", "settings", "-n", ns, "--from-literal=color=blue", "--from-literal=size=3"); out != "configmap/settings created\n" {
		t.Errorf("create configmap printed %q", out)
	}

	y := decodeYAML(t, k.MustRun(t, "get", "configmap", "settings", "-n", ns, "-o", "yaml"))
	j := decodeJSON(t, k.MustRun(t, "get", "cm", "settings", "-n", ns, "-o", "json"))
	for name, o := range map[string]object{"yaml": y, "json": j} {
		if o.str("apiVersion") != "v1" || o.str("kind") != "ConfigMap" {
			t.Errorf("-o %s: apiVersion %q kind %q", name, o.str("apiVersion"), o.str("kind"))
		}
		if o.str("metadata.name") != "settings" || o.str("metadata.namespace") != ns {
			t.Errorf("-o %s: metadata %v", name, o.field("metadata"))
		}
		if _, err := strconv.ParseUint(o.str("metadata.resourceVersion"), 10, 64); err != nil {
			t.Errorf("-o %s: resourceVersion %q is not a decimal", name, o.str("metadata.resourceVersion"))
		}
		if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`).MatchString(o.str("metadata.uid")) {
			t.Errorf("-o %s: uid %q", name, o.str("metadata.uid"))
		}
		if ts, err := time.Parse(time.RFC3339, o.str("metadata.creationTimestamp")); err != nil || time.Since(ts) > time.Minute || time.Until(ts) > 5*time.Second {
			t.Errorf("-o %s: creationTimestamp %q", name, o.str("metadata.creationTimestamp"))
		}
		if o.str("data.color") != "blue" || o.str("data.size") != "3" {
			t.Errorf("-o %s: data %v", name, o.field("data"))
		}
	}
	if y.str("metadata.resourceVersion") != j.str("metadata.resourceVersion") || y.str("metadata.uid") != j.str("metadata.uid") {
		t.Errorf("-o yaml and -o json disagree: %v / %v", y.field("metadata"), j.field("metadata"))
	}

	if out := k.MustRun(t, "get", "cm", "settings", "-n", ns, "-o", "jsonpath={.data.color}/{.metadata.name}"); out != "blue/settings" {
		t.Errorf("-o jsonpath printed %q", out)
	}
	if out := k.MustRun(t, "get", "cm", "-n", ns, "-o", "name"); out != "configmap/settings\n" {
		t.Errorf("-o name printed %q", out)
	}
	out := k.MustRun(t, "get", "cm", "settings", "-n", ns, "-o", "custom-columns=NAME:.metadata.name,COLOR:.data.color")
	if tb := parseTable(t, out); !equalRows(tb, [][]string{{"NAME", "COLOR"}, {"settings", "blue"}}) {
		t.Errorf("-o custom-columns printed %q", out)
	}
	tb := parseTable(t, k.MustRun(t, "get", "configmaps", "-n", ns))
	expectHeader(t, "get configmaps", tb, "NAME", "DATA", "AGE")
	if r := tb.row(t, "settings"); r["DATA"] != "2" || !isAge(r["AGE"]) {
		t.Errorf("get configmaps: row %v", r)
	}
	tb = parseTable(t, k.MustRun(t, "get", "configmaps", "-n", ns, "-o", "wide"))
	expectHeader(t, "get configmaps -o wide", tb, "NAME", "DATA", "AGE")

	// A pod from a manifest on stdin, with the defaults Kubernetes sets.
	if out := k.MustRunStdin(t, fmt.Sprintf(podManifest, "web-0", ns, "busybox"), "create", "-f", "-"); out != "pod/web-0 created\n" {
		t.Errorf("create -f - printed %q", out)
	}
	k.MustRunStdin(t, fmt.Sprintf(podManifest, "web-1", ns, "busybox:1.36"), "create", "-f", "-")
	pod := decodeJSON(t, k.MustRun(t, "get", "pod", "web-0", "-n", ns, "-o", "json"))
	for path, want := range map[string]any{
		"spec.restartPolicy":                 "Always",
		"spec.dnsPolicy":                     "ClusterFirst",
		"spec.terminationGracePeriodSeconds": float64(30),
		"spec.schedulerName":                 "default-scheduler",
		"status.phase":                       "Pending",
	} {
		if got := pod.field(path); got != want {
			t.Errorf("pod %s = %v, want %v", path, got, want)
		}
	}
	c0 := k.MustRun(t, "get", "pod", "web-0", "-n", ns, "-o", "jsonpath={.spec.containers[0].imagePullPolicy} {.spec.containers[0].terminationMessagePath} {.spec.containers[0].terminationMessagePolicy}")
	if c0 != "Always /dev/termination-log File" {
		t.Errorf("container defaults of an untagged image: %q", c0)
	}
	if got := k.MustRun(t, "get", "pod", "web-1", "-n", ns, "-o", "jsonpath={.spec.containers[0].imagePullPolicy}"); got != "IfNotPresent" {
		t.Errorf("imagePullPolicy of a tagged image: %q", got)
	}

	tb = parseTable(t, k.MustRun(t, "get", "pods", "-n", ns))
	expectHeader(t, "get pods", tb, "NAME", "READY", "STATUS", "RESTARTS", "AGE")
	if r := tb.row(t, "web-0"); r["READY"] != "0/1" || r["STATUS"] != "Pending" || r["RESTARTS"] != "0" || !isAge(r["AGE"]) {
		t.Errorf("get pods: row %v", r)
	}
	tb = parseTable(t, k.MustRun(t, "get", "pods", "-n", ns, "-o", "wide"))
	expectHeader(t, "get pods -o wide", tb, "NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE", "READINESS GATES")
	if r := tb.row(t, "web-1"); r["IP"] != "<none>" || r["NODE"] != "<none>" || r["NOMINATED NODE"] != "<none>" || r["READINESS GATES"] != "<none>" {
		t.Errorf("get pods -o wide: row %v", r)
	}

	// Selectors, sorting and several kinds at once.
	k.MustRun(t, "create", "configmap", "another", "-n", ns)
	if out := k.MustRun(t, "get", "cm", "-n", ns, "--field-selector", "metadata.name=another", "-o", "name"); out != "configmap/another\n" {
		t.Errorf("--field-selector metadata.name printed %q", out)
	}
	if out := k.MustRun(t, "get", "pods", "-n", ns, "-l", "app=web", "-o", "name"); out != "pod/web-0\npod/web-1\n" {
		t.Errorf("-l app=web printed %q", out)
	}
	if r := k.Run(t, "get", "pods", "-n", ns, "-l", "app=nothing"); r.ExitCode != 0 || r.Stdout != "" || !strings.Contains(r.Stderr, "No resources found in "+ns+" namespace.") {
		t.Errorf("get with a selector matching nothing: %s", r)
	}
	if out := k.MustRun(t, "get", "pods", "-n", ns, "--sort-by=.metadata.name", "-o", "name"); out != "pod/web-0\npod/web-1\n" {
		t.Errorf("--sort-by printed %q", out)
	}
	out = k.MustRun(t, "get", "cm,pods", "-n", ns, "-o", "name")
	for _, want := range []string{"configmap/settings", "configmap/another", "pod/web-0", "pod/web-1"} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("get cm,pods -o name lacks %s:\n%s", want, out)
		}
	}
	if out := k.MustRun(t, "get", "cm", "-A", "--field-selector", "metadata.namespace="+ns, "-o", "name"); strings.Count(out, "\n") != 2 {
		t.Errorf("get -A with a namespace field selector printed %q", out)
	}
	tb = parseTable(t, k.MustRun(t, "get", "cm", "-A", "--field-selector", "metadata.name=settings"))
	expectHeader(t, "get configmaps -A", tb, "NAMESPACE", "NAME", "DATA", "AGE")

	r := k.MustFail(t, "", "get", "cm", "nosuch", "-n", ns)
	expectContains(t, "get of a missing object", r.Stderr, `Error from server (NotFound): configmaps "nosuch" not found`)
}

func TestApply(t *testing.T) {
	t.Parallel()
	k := server.Kubectl(t)
	ns := server.CreateNamespace(t, "apply")
	manifest := func(tier string, replicas int) string {
		return writeFile(t, "deploy.yaml", fmt.Sprintf(deploymentManifest, "web", ns, tier, replicas))
	}

	if out := k.MustRun(t, "apply", "-f", manifest("front", 2)); out != "deployment.apps/web created\n" {
		t.Errorf("first apply printed %q", out)
	}
	d := decodeJSON(t, k.MustRun(t, "get", "deploy", "web", "-n", ns, "-o", "json"))
	if d.str("metadata.annotations.kubectl\\.kubernetes\\.io/last-applied-configuration") == "" {
		if a, _ := d.field("metadata.annotations").(map[string]any); a["kubectl.kubernetes.io/last-applied-configuration"] == nil {
			t.Errorf("apply did not store the last applied configuration: %v", d.field("metadata.annotations"))
		}
	}
	for path, want := range map[string]any{
		"spec.replicas":                              float64(2),
		"spec.revisionHistoryLimit":                  float64(10),
		"spec.progressDeadlineSeconds":               float64(600),
		"spec.strategy.type":                         "RollingUpdate",
		"spec.strategy.rollingUpdate.maxSurge":       "25%",
		"spec.strategy.rollingUpdate.maxUnavailable": "25%",
		"metadata.generation":                        float64(1),
	} {
		if got := d.field(path); got != want {
			t.Errorf("deployment %s = %v, want %v", path, got, want)
		}
	}
	rv := d.str("metadata.resourceVersion")

	if out := k.MustRun(t, "apply", "-f", manifest("front", 2)); out != "deployment.apps/web unchanged\n" {
		t.Errorf("second apply printed %q", out)
	}
	if got := k.MustRun(t, "get", "deploy", "web", "-n", ns, "-o", "jsonpath={.metadata.resourceVersion}"); got != rv {
		t.Errorf("an unchanged apply moved resourceVersion %s to %s", rv, got)
	}

	if out := k.MustRun(t, "apply", "-f", manifest("back", 3)); out != "deployment.apps/web configured\n" {
		t.Errorf("apply of a change printed %q", out)
	}
	got := k.MustRun(t, "get", "deploy", "web", "-n", ns, "-o", "jsonpath={.spec.replicas} {.metadata.labels.tier} {.metadata.generation}")
	if got != "3 back 2" {
		t.Errorf("after apply: replicas, tier label, generation = %q, want \"3 back 2\"", got)
	}

	// A label added behind apply's back survives; one dropped from the
	// manifest goes (the three-way merge).
	k.MustRun(t, "label", "deploy", "web", "-n", ns, "extra=kept")
	noTier := strings.Replace(fmt.Sprintf(deploymentManifest, "web", ns, "x", 3), "    tier: x\n", "    owner: me\n", 1)
	if out := k.MustRunStdin(t, noTier, "apply", "-f", "-"); out != "deployment.apps/web configured\n" {
		t.Errorf("apply without the tier label printed %q", out)
	}
	got = k.MustRun(t, "get", "deploy", "web", "-n", ns, "-o", "jsonpath={.metadata.labels}")
	labels := decodeJSON(t, got)
	if labels.str("extra") != "kept" || labels.str("owner") != "me" || labels.field("tier") != nil {
		t.Errorf("labels after a three-way apply: %s", got)
	}

	// A change of lists and of the strategy type: kubectl sends a
	// strategic patch with $setElementOrder and $retainKeys directives,
	// and the defaulted rollingUpdate must go with RollingUpdate.
	k.MustRunStdin(t, fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: lists, namespace: %s}
spec:
  selector: {matchLabels: {app: lists}}
  template:
    metadata: {labels: {app: lists}}
    spec:
      containers:
      - name: main
        image: nginx:1.27
        env: [{name: A, value: "1"}, {name: B, value: "2"}]
        ports: [{containerPort: 80}, {containerPort: 443}]
`, ns), "apply", "-f", "-")
	if out := k.MustRunStdin(t, fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: lists, namespace: %s}
spec:
  strategy: {type: Recreate}
  selector: {matchLabels: {app: lists}}
  template:
    metadata: {labels: {app: lists}}
    spec:
      containers:
      - name: sidecar
        image: busybox:1.36
      - name: main
        image: nginx:1.27
        env: [{name: B, value: "3"}, {name: C, value: "4"}]
        ports: [{containerPort: 443}]
`, ns), "apply", "-f", "-"); out != "deployment.apps/lists configured\n" {
		t.Errorf("apply of list and strategy changes printed %q", out)
	}
	got = k.MustRun(t, "get", "deploy", "lists", "-n", ns, "-o", `jsonpath={.spec.strategy} {range .spec.template.spec.containers[*]}{.name}:{.env}:{.ports} {end}`)
	if want := `{"type":"Recreate"} sidecar:: main:[{"name":"B","value":"3"},{"name":"C","value":"4"}]:[{"containerPort":443,"protocol":"TCP"}] `; got != want {
		t.Errorf("after apply of list and strategy changes:\n got %s\nwant %s", got, want)
	}

	// kubectl diff asks the server for a dry-run patch.
	r := k.Run(t, "diff", "-f", manifest("back", 5))
	if r.ExitCode != 1 || !strings.Contains(r.Stdout, "+  replicas: 5") {
		t.Errorf("kubectl diff: %s", r)
	}
	if got := k.MustRun(t, "get", "deploy", "web", "-n", ns, "-o", "jsonpath={.spec.replicas}"); got != "3" {
		t.Errorf("kubectl diff changed replicas to %s", got)
	}
}

func TestPatch(t *testing.T) {
	t.Parallel()
	k := server.Kubectl(t)
	ns := server.CreateNamespace(t, "patch")
	k.MustRun(t, "create", "configmap", "cfg", "-n", ns, "--from-literal=a=1", "--from-literal=b=2")

	if out := k.MustRun(t, "patch", "cm", "cfg", "-n", ns, "--type=json", "-p", `[{"op":"add","path":"/data/c","value":"3"},{"op":"remove","path":"/data/a"},{"op":"replace","path":"/data/b","value":"two"}]`); out != "configmap/cfg patched\n" {
		t.Errorf("json patch printed %q", out)
	}
	if got := k.MustRun(t, "get", "cm", "cfg", "-n", ns, "-o", "jsonpath={.data}"); got != `{"b":"two","c":"3"}` {
		t.Errorf("after a json patch data = %s", got)
	}
	r := k.MustFail(t, "", "patch", "cm", "cfg", "-n", ns, "--type=json", "-p", `[{"op":"test","path":"/data/b","value":"nope"}]`)
	expectContains(t, "failed json patch test", r.Stderr, "The request is invalid")

	if out := k.MustRun(t, "patch", "cm", "cfg", "-n", ns, "--type=merge", "-p", `{"data":{"c":null,"d":"4"},"metadata":{"labels":{"l":"v"}}}`); out != "configmap/cfg patched\n" {
		t.Errorf("merge patch printed %q", out)
	}
	if got := k.MustRun(t, "get", "cm", "cfg", "-n", ns, "-o", "jsonpath={.data} {.metadata.labels.l}"); got != `{"b":"two","d":"4"} v` {
		t.Errorf("after a merge patch: %s", got)
	}
	if out := k.MustRun(t, "patch", "cm", "cfg", "-n", ns, "--type=merge", "-p", `{"data":{"d":"4"}}`); out != "configmap/cfg patched (no change)\n" {
		t.Errorf("a patch changing nothing printed %q", out)
	}

	// Strategic merge: containers merge by name.
	k.MustRun(t, "apply", "-f", writeFile(t, "d.yaml", fmt.Sprintf(deploymentManifest, "app", ns, "t", 1)))
	if out := k.MustRun(t, "patch", "deploy", "app", "-n", ns, "--type=strategic", "-p", `{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"busybox:1.36"}]}}}}`); out != "deployment.apps/app patched\n" {
		t.Errorf("strategic patch printed %q", out)
	}
	if got := k.MustRun(t, "get", "deploy", "app", "-n", ns, "-o", "jsonpath={.spec.template.spec.containers[*].name}"); got != "sidecar main" && got != "main sidecar" {
		t.Errorf("a strategic patch of containers left %q, want main and sidecar", got)
	}
	k.MustRun(t, "patch", "deploy", "app", "-n", ns, "-p", `{"spec":{"template":{"spec":{"containers":[{"name":"main","image":"nginx:1.28"}]}}}}`)
	if got := k.MustRun(t, "get", "deploy", "app", "-n", ns, "-o", `jsonpath={range .spec.template.spec.containers[*]}{.name}={.image} {end}`); !strings.Contains(got, "main=nginx:1.28") || !strings.Contains(got, "sidecar=busybox:1.36") {
		t.Errorf("a default (strategic) patch of one container's image left %q", got)
	}
	k.MustRun(t, "patch", "deploy", "app", "-n", ns, "--type=strategic", "-p", `{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","$patch":"delete"}]}}}}`)
	if got := k.MustRun(t, "get", "deploy", "app", "-n", ns, "-o", "jsonpath={.spec.template.spec.containers[*].name}"); got != "main" {
		t.Errorf("a strategic $patch: delete left containers %q", got)
	}
	// A merge patch replaces the list.
	k.MustRun(t, "patch", "deploy", "app", "-n", ns, "--type=merge", "-p", `{"spec":{"template":{"spec":{"containers":[{"name":"only","image":"busybox:1.36"}]}}}}`)
	if got := k.MustRun(t, "get", "deploy", "app", "-n", ns, "-o", "jsonpath={.spec.template.spec.containers[*].name}"); got != "only" {
		t.Errorf("a merge patch of containers left %q, want only", got)
	}
	if got := k.MustRun(t, "get", "deploy", "app", "-n", ns, "-o", "jsonpath={.metadata.generation}"); got != "5" {
		t.Errorf("generation after four spec patches = %s, want 5", got)
	}

	// The selector of a Deployment is immutable.
	r = k.MustFail(t, "", "patch", "deploy", "app", "-n", ns, "--type=merge", "-p", `{"spec":{"selector":{"matchLabels":{"app":"other"}},"template":{"metadata":{"labels":{"app":"other"}}}}}`)
	expectContains(t, "patch of an immutable selector", r.Stderr, `The Deployment "app" is invalid`, "spec.selector", "field is immutable")
}

func TestLabelAnnotate(t *testing.T) {
	t.Parallel()
	k := server.Kubectl(t)
	ns := server.CreateNamespace(t, "label")
	k.MustRun(t, "create", "configmap", "one", "-n", ns)
	k.MustRun(t, "create", "configmap", "two", "-n", ns)

	if out := k.MustRun(t, "label", "cm", "one", "-n", ns, "env=prod", "team=core"); out != "configmap/one labeled\n" {
		t.Errorf("label printed %q", out)
	}
	k.MustRun(t, "label", "cm", "two", "-n", ns, "env=dev")
	if out := k.MustRun(t, "get", "cm", "-n", ns, "-l", "env=prod", "-o", "name"); out != "configmap/one\n" {
		t.Errorf("-l env=prod printed %q", out)
	}
	if out := k.MustRun(t, "get", "cm", "-n", ns, "-l", "env in (prod,dev),team!=other", "-o", "name"); out != "configmap/one\nconfigmap/two\n" {
		t.Errorf("a set-based selector printed %q", out)
	}
	if out := k.MustRun(t, "get", "cm", "-n", ns, "-l", "!team", "-o", "name"); out != "configmap/two\n" {
		t.Errorf("-l !team printed %q", out)
	}
	r := k.MustFail(t, "", "label", "cm", "one", "-n", ns, "env=test")
	expectContains(t, "label without --overwrite", r.Stderr, "already has a value (prod)")
	k.MustRun(t, "label", "cm", "one", "-n", ns, "env=test", "--overwrite")
	if out := k.MustRun(t, "label", "cm", "one", "-n", ns, "team-"); out != "configmap/one unlabeled\n" {
		t.Errorf("removing a label printed %q", out)
	}
	if got := k.MustRun(t, "get", "cm", "one", "-n", ns, "-o", "jsonpath={.metadata.labels}"); got != `{"env":"test"}` {
		t.Errorf("labels = %s", got)
	}
	tb := parseTable(t, k.MustRun(t, "get", "cm", "-n", ns, "--show-labels"))
	expectHeader(t, "get --show-labels", tb, "NAME", "DATA", "AGE", "LABELS")
	if r := tb.row(t, "one"); r["LABELS"] != "env=test" {
		t.Errorf("--show-labels row %v", r)
	}
	tb = parseTable(t, k.MustRun(t, "get", "cm", "-n", ns, "-L", "env"))
	expectHeader(t, "get -L env", tb, "NAME", "DATA", "AGE", "ENV")
	if r := tb.row(t, "two"); r["ENV"] != "dev" {
		t.Errorf("-L env row %v", r)
	}

	if out := k.MustRun(t, "label", "cm", "--all", "-n", ns, "batch=yes"); !strings.Contains(out, "configmap/one labeled") || !strings.Contains(out, "configmap/two labeled") {
		t.Errorf("label --all printed %q", out)
	}

	if out := k.MustRun(t, "annotate", "cm", "one", "-n", ns, "owner=alice", "note=a b c"); out != "configmap/one annotated\n" {
		t.Errorf("annotate printed %q", out)
	}
	if got := k.MustRun(t, "get", "cm", "one", "-n", ns, "-o", "jsonpath={.metadata.annotations.note}"); got != "a b c" {
		t.Errorf("annotation note = %q", got)
	}
	k.MustRun(t, "annotate", "cm", "one", "-n", ns, "owner=bob", "--overwrite")
	if out := k.MustRun(t, "annotate", "cm", "one", "-n", ns, "note-"); out != "configmap/one annotated\n" {
		t.Errorf("removing an annotation printed %q", out)
	}
	if got := k.MustRun(t, "get", "cm", "one", "-n", ns, "-o", "jsonpath={.metadata.annotations}"); got != `{"owner":"bob"}` {
		t.Errorf("annotations = %s", got)
	}
}

func TestReplaceConflict(t *testing.T) {
	t.Parallel()
	k := server.Kubectl(t)
	ns := server.CreateNamespace(t, "replace")
	k.MustRun(t, "create", "configmap", "cfg", "-n", ns, "--from-literal=k=v1")
	stale := k.MustRun(t, "get", "cm", "cfg", "-n", ns, "-o", "yaml")
	k.MustRun(t, "label", "cm", "cfg", "-n", ns, "changed=yes")
	before := k.MustRun(t, "get", "cm", "cfg", "-n", ns, "-o", "jsonpath={.metadata.resourceVersion}")

	r := k.MustFail(t, strings.Replace(stale, "k: v1", "k: v2", 1), "replace", "-f", "-")
	expectContains(t, "replace with a stale resourceVersion", r.Stderr,
		`Error from server (Conflict)`,
		`Operation cannot be fulfilled on configmaps "cfg": the object has been modified; please apply your changes to the latest version and try again`)
	if got := k.MustRun(t, "get", "cm", "cfg", "-n", ns, "-o", "jsonpath={.data.k} {.metadata.resourceVersion}"); got != "v1 "+before {
		t.Errorf("a conflicting replace changed the object: %q", got)
	}

	current := k.MustRun(t, "get", "cm", "cfg", "-n", ns, "-o", "yaml")
	if out := k.MustRunStdin(t, strings.Replace(current, "k: v1", "k: v2", 1), "replace", "-f", "-"); out != "configmap/cfg replaced\n" {
		t.Errorf("replace printed %q", out)
	}
	if got := k.MustRun(t, "get", "cm", "cfg", "-n", ns, "-o", "jsonpath={.data.k}"); got != "v2" {
		t.Errorf("after replace data.k = %q", got)
	}
	// Without a resourceVersion, replace overwrites unconditionally.
	plain := fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  namespace: %s\ndata:\n  k: v3\n", ns)
	k.MustRunStdin(t, plain, "replace", "-f", "-")
	if got := k.MustRun(t, "get", "cm", "cfg", "-n", ns, "-o", "jsonpath={.data.k} {.metadata.labels}"); got != "v3 " {
		t.Errorf("after an unconditional replace: %q", got)
	}
	// replace --force deletes and creates: a new uid.
	uid := k.MustRun(t, "get", "cm", "cfg", "-n", ns, "-o", "jsonpath={.metadata.uid}")
	k.MustRunStdin(t, plain, "replace", "--force", "-f", "-")
	if got := k.MustRun(t, "get", "cm", "cfg", "-n", ns, "-o", "jsonpath={.metadata.uid}"); got == uid || got == "" {
		t.Errorf("replace --force kept uid %q", got)
	}
}

func TestDelete(t *testing.T) {
	t.Parallel()
	k := server.Kubectl(t)
	ns := server.CreateNamespace(t, "delete")
	for _, n := range []string{"a", "b", "c", "d"} {
		k.MustRun(t, "create", "configmap", n, "-n", ns)
	}
	k.MustRun(t, "label", "cm", "b", "c", "-n", ns, "group=bc")

	if out := k.MustRun(t, "delete", "cm", "a", "-n", ns); out != "configmap \"a\" deleted\n" {
		t.Errorf("delete printed %q", out)
	}
	r := k.MustFail(t, "", "get", "cm", "a", "-n", ns)
	expectContains(t, "get after delete", r.Stderr, `Error from server (NotFound): configmaps "a" not found`)
	r = k.MustFail(t, "", "delete", "cm", "a", "-n", ns)
	expectContains(t, "delete of a missing object", r.Stderr, `Error from server (NotFound): configmaps "a" not found`)
	if out := k.MustRun(t, "delete", "cm", "a", "-n", ns, "--ignore-not-found"); out != "" {
		t.Errorf("delete --ignore-not-found printed %q", out)
	}

	if out := k.MustRun(t, "delete", "cm", "-n", ns, "-l", "group=bc"); out != "configmap \"b\" deleted\nconfigmap \"c\" deleted\n" {
		t.Errorf("delete -l printed %q", out)
	}
	if out := k.MustRun(t, "get", "cm", "-n", ns, "-o", "name"); out != "configmap/d\n" {
		t.Errorf("left after delete -l: %q", out)
	}

	// An object with a finalizer is only marked; it goes when the last
	// finalizer is removed.
	k.MustRunStdin(t, fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: held\n  namespace: %s\n  finalizers: [example.com/hold]\n", ns), "create", "-f", "-")
	if out := k.MustRun(t, "delete", "cm", "held", "-n", ns, "--wait=false"); out != "configmap \"held\" deleted\n" {
		t.Errorf("delete of a held object printed %q", out)
	}
	if got := k.MustRun(t, "get", "cm", "held", "-n", ns, "-o", "jsonpath={.metadata.deletionTimestamp}"); got == "" {
		t.Errorf("an object with a finalizer has no deletionTimestamp after delete")
	}
	k.MustRun(t, "patch", "cm", "held", "-n", ns, "--type=merge", "-p", `{"metadata":{"finalizers":null}}`)
	r = k.MustFail(t, "", "get", "cm", "held", "-n", ns)
	expectContains(t, "get after the last finalizer went", r.Stderr, "NotFound")

	// delete -f of a manifest, and --all.
	manifest := writeFile(t, "p.yaml", fmt.Sprintf(podManifest, "victim", ns, "busybox"))
	k.MustRun(t, "create", "-f", manifest)
	if out := k.MustRun(t, "delete", "-f", manifest, "--grace-period=0", "--force"); !strings.Contains(out, `pod "victim" force deleted`) {
		t.Errorf("delete -f --force printed %q", out)
	}
	k.MustRun(t, "delete", "cm", "--all", "-n", ns)
	if r := k.Run(t, "get", "cm,pods", "-n", ns); r.ExitCode != 0 || r.Stdout != "" || !strings.Contains(r.Stderr, "No resources found") {
		t.Errorf("after delete --all: %s", r)
	}
}

func TestChunkedList(t *testing.T) {
	t.Parallel()
	k := server.Kubectl(t)
	ns := server.CreateNamespace(t, "chunks")
	const n = 60
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-%03d\n  namespace: %s\ndata:\n  i: %q\n", i, ns, strconv.Itoa(i))
	}
	k.MustRunStdin(t, b.String(), "create", "-f", "-")

	r := k.Run(t, "get", "cm", "-n", ns, "--chunk-size=7", "-v=6")
	if r.ExitCode != 0 {
		t.Fatalf("%s", r)
	}
	tb := parseTable(t, r.Stdout)
	expectHeader(t, "chunked get", tb, "NAME", "DATA", "AGE")
	if len(tb.rows) != n {
		t.Fatalf("chunked get printed %d rows, want %d:\n%s", len(tb.rows), n, r.Stdout)
	}
	for i, row := range tb.rows {
		if want := fmt.Sprintf("cm-%03d", i); row[0] != want {
			t.Errorf("row %d is %q, want %q", i, row[0], want)
		}
	}
	pages := regexp.MustCompile(`GET https://\S+/configmaps\?\S*limit=7\S* 200 OK`).FindAllString(r.Stderr, -1)
	continued := 0
	for _, p := range pages {
		if strings.Contains(p, "continue=") {
			continued++
		}
	}
	if want := (n + 6) / 7; len(pages) != want || continued != want-1 {
		t.Errorf("chunked get made %d requests (%d with continue), want %d (%d):\n%s", len(pages), continued, want, want-1, strings.Join(pages, "\n"))
	}

	for _, args := range [][]string{{"-o", "name"}, {"-o", "json"}} {
		r := k.Run(t, append([]string{"get", "cm", "-n", ns, "--chunk-size=11"}, args...)...)
		if r.ExitCode != 0 {
			t.Fatalf("%s", r)
		}
		if got := strings.Count(r.Stdout, "cm-0"); got != n {
			t.Errorf("get --chunk-size=11 %v lists %d objects, want %d", args, got, n)
		}
	}
}

func TestServerDryRun(t *testing.T) {
	t.Parallel()
	k := server.Kubectl(t)
	ns := server.CreateNamespace(t, "dry-run")

	if out := k.MustRun(t, "create", "configmap", "ghost", "-n", ns, "--from-literal=a=b", "--dry-run=server"); out != "configmap/ghost created (server dry run)\n" {
		t.Errorf("create --dry-run=server printed %q", out)
	}
	r := k.MustFail(t, "", "get", "cm", "ghost", "-n", ns)
	expectContains(t, "get after a dry-run create", r.Stderr, "NotFound")
	o := decodeYAML(t, k.MustRun(t, "create", "configmap", "ghost", "-n", ns, "--dry-run=server", "-o", "yaml"))
	if o.str("metadata.name") != "ghost" || o.str("metadata.uid") == "" || o.str("metadata.creationTimestamp") == "" {
		t.Errorf("a dry-run create returned metadata %v, want a uid and a creation time as the server would set", o.field("metadata"))
	}
	// A dry run still validates.
	r = k.MustFail(t, "", "create", "configmap", "Not_Valid", "-n", ns, "--dry-run=server")
	expectContains(t, "an invalid dry-run create", r.Stderr, "is invalid", "metadata.name")

	k.MustRun(t, "create", "configmap", "real", "-n", ns, "--from-literal=a=b")
	rv := k.MustRun(t, "get", "cm", "real", "-n", ns, "-o", "jsonpath={.metadata.resourceVersion}")
	if out := k.MustRun(t, "label", "cm", "real", "-n", ns, "x=y", "--dry-run=server"); out != "configmap/real labeled (server dry run)\n" {
		t.Errorf("label --dry-run=server printed %q", out)
	}
	k.MustRun(t, "patch", "cm", "real", "-n", ns, "-p", `{"data":{"a":"changed"}}`, "--dry-run=server")
	manifest := fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: real\n  namespace: %s\ndata:\n  a: applied\n", ns)
	k.MustRunStdin(t, manifest, "apply", "-f", "-", "--dry-run=server")
	if out := k.MustRun(t, "delete", "cm", "real", "-n", ns, "--dry-run=server"); out != "configmap \"real\" deleted (server dry run)\n" {
		t.Errorf("delete --dry-run=server printed %q", out)
	}
	if got := k.MustRun(t, "get", "cm", "real", "-n", ns, "-o", "jsonpath={.metadata.resourceVersion} {.data.a} {.metadata.labels}"); got != rv+" b " {
		t.Errorf("after dry-run label/patch/apply/delete: %q, want %q", got, rv+" b ")
	}
}

func TestUnknownFields(t *testing.T) {
	t.Parallel()
	k := server.Kubectl(t)
	ns := server.CreateNamespace(t, "fields")
	withUnknown := strings.Replace(fmt.Sprintf(deploymentManifest, "web", ns, "t", 1), "  replicas: 1\n", "  replicas: 1\n  replicaz: 2\n", 1)

	r := k.MustFail(t, withUnknown, "apply", "-f", "-")
	expectContains(t, "apply with an unknown field", r.Stderr, "Error from server (BadRequest)", `unknown field "spec.replicaz"`)
	r = k.MustFail(t, "", "get", "deploy", "web", "-n", ns)
	expectContains(t, "get after a rejected apply", r.Stderr, "NotFound")

	// Unknown fields in a patch of an existing object fail too.
	k.MustRunStdin(t, fmt.Sprintf(deploymentManifest, "web", ns, "t", 1), "apply", "-f", "-")
	r = k.MustFail(t, withUnknown, "apply", "-f", "-")
	expectContains(t, "apply of a change with an unknown field", r.Stderr, "Error from server (BadRequest)", "replicaz")

	// --validate=warn stores the object and prints the server's warning;
	// --validate=false drops the field silently.
	other := strings.ReplaceAll(withUnknown, "web", "warned")
	r = k.RunStdin(t, other, "create", "-f", "-", "--validate=warn")
	if r.ExitCode != 0 || !strings.Contains(r.Stderr, `Warning: unknown field "spec.replicaz"`) {
		t.Errorf("create --validate=warn: %s", r)
	}
	r = k.RunStdin(t, strings.ReplaceAll(withUnknown, "web", "ignored"), "create", "-f", "-", "--validate=false")
	if r.ExitCode != 0 || r.Stderr != "" {
		t.Errorf("create --validate=false: %s", r)
	}
}

func TestWatch(t *testing.T) {
	t.Parallel()
	k := server.Kubectl(t)
	ns := server.CreateNamespace(t, "watch")
	k.MustRun(t, "create", "configmap", "before", "-n", ns)

	table := k.Start(t, "get", "cm", "-n", ns, "-w", "--output-watch-events")
	events := k.Start(t, "get", "cm", "-n", ns, "-w", "--output-watch-events", "-o", "json", "-l", "watched=yes", "-v=6")
	waitOutput(t, table, `(?m)^ADDED\s+before\s+0\s+\S+$`)
	waitStderr(t, events, `watch=true 200 OK`)

	k.MustRun(t, "create", "configmap", "w", "-n", ns, "--from-literal=a=b")
	k.MustRun(t, "label", "cm", "w", "-n", ns, "watched=yes")
	k.MustRun(t, "patch", "cm", "w", "-n", ns, "-p", `{"data":{"c":"d"}}`)
	k.MustRun(t, "delete", "cm", "w", "-n", ns)

	out := waitOutput(t, table, `(?m)^DELETED\s+w\s`)
	want := []string{`EVENT\s+NAME\s+DATA\s+AGE`, `ADDED\s+before\s+0`, `ADDED\s+w\s+1`, `MODIFIED\s+w\s+1`, `MODIFIED\s+w\s+2`, `DELETED\s+w\s+2`}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(want) {
		t.Errorf("watch printed %d lines, want %d:\n%s", len(lines), len(want), out)
	}
	for i := range min(len(lines), len(want)) {
		if !regexp.MustCompile(`^` + want[i] + `\s`).MatchString(lines[i] + " ") {
			t.Errorf("watch line %d is %q, want %s", i, lines[i], want[i])
		}
	}

	// The JSON watch with a label selector sees the object enter the
	// selection (as ADDED) and leave it.
	jout := waitOutput(t, events, `"type":\s*"DELETED"`)
	var types []string
	for _, m := range regexp.MustCompile(`"type":\s*"(ADDED|MODIFIED|DELETED)"`).FindAllStringSubmatch(jout, -1) {
		types = append(types, m[1])
	}
	if strings.Join(types, ",") != "ADDED,MODIFIED,DELETED" {
		t.Errorf("a label-selected JSON watch saw %v, want ADDED,MODIFIED,DELETED:\n%s", types, jout)
	}
	if table.Exited() || events.Exited() {
		t.Errorf("a watch ended by itself: %s / %s", table.Stderr(), events.Stderr())
	}
}

// waitOutput waits up to 20 s for a background kubectl to print a match of
// re and returns everything it printed.
func waitOutput(t *testing.T, b *framework.Background, re string) string {
	t.Helper()
	return waitStream(t, b, b.Stdout, re)
}

// waitStderr is waitOutput for stderr: with -v=6 kubectl logs each
// response there, which tells when its watch is established.
func waitStderr(t *testing.T, b *framework.Background, re string) string {
	t.Helper()
	return waitStream(t, b, b.Stderr, re)
}

func waitStream(t *testing.T, b *framework.Background, stream func() string, re string) string {
	t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if out := stream(); rx.MatchString(out) {
			return out
		}
		if b.Exited() {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no output matching %s; stdout:\n%s\nstderr:\n%s", re, b.Stdout(), b.Stderr())
	return ""
}

func equalRows(tb table, want [][]string) bool {
	got := append([][]string{tb.header}, tb.rows...)
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if strings.Join(got[i], "\x00") != strings.Join(want[i], "\x00") {
			return false
		}
	}
	return true
}

// isAge reports whether s is an age as kubectl prints it (0s, 5m3s, 2d).
func isAge(s string) bool {
	return regexp.MustCompile(`^([0-9]+[smhdy])+$`).MatchString(s)
}
