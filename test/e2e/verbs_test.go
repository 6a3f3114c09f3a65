package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestWorkloadVerbs covers the kubectl verbs built on the scale subresource
// and on patches of a Deployment: scale, set image, rollout restart,
// describe.
func TestWorkloadVerbs(t *testing.T) {
	t.Parallel()
	k := server.Kubectl(t)
	ns := server.CreateNamespace(t, "workload")
	if out := k.MustRun(t, "create", "deployment", "web", "-n", ns, "--image=nginx:1.27", "--replicas=3"); out != "deployment.apps/web created\n" {
		t.Errorf("create deployment printed %q", out)
	}

	if out := k.MustRun(t, "scale", "deployment", "web", "-n", ns, "--replicas=5"); out != "deployment.apps/web scaled\n" {
		t.Errorf("scale printed %q", out)
	}
	scale := decodeJSON(t, k.MustRun(t, "get", "--raw", "/apis/apps/v1/namespaces/"+ns+"/deployments/web/scale"))
	if scale.str("kind") != "Scale" || scale.str("apiVersion") != "autoscaling/v1" || scale.field("spec.replicas") != float64(5) || scale.str("status.selector") != "app=web" {
		t.Errorf("deployments/web/scale = %v", scale)
	}
	r := k.MustFail(t, "", "scale", "deployment", "web", "-n", ns, "--current-replicas=3", "--replicas=6")
	expectContains(t, "scale with a wrong --current-replicas", r.Stderr, "Expected replicas to be 3, was 5")
	if got := k.MustRun(t, "get", "deploy", "web", "-n", ns, "-o", "jsonpath={.spec.replicas}"); got != "5" {
		t.Errorf("replicas = %s after a refused scale", got)
	}

	if out := k.MustRun(t, "set", "image", "deployment/web", "-n", ns, "nginx=nginx:1.28"); out != "deployment.apps/web image updated\n" {
		t.Errorf("set image printed %q", out)
	}
	if out := k.MustRun(t, "rollout", "restart", "deployment/web", "-n", ns); out != "deployment.apps/web restarted\n" {
		t.Errorf("rollout restart printed %q", out)
	}
	got := k.MustRun(t, "get", "deploy", "web", "-n", ns, "-o", `jsonpath={.spec.template.spec.containers[0].image} {.metadata.generation}`)
	if got != "nginx:1.28 4" {
		t.Errorf("image and generation after scale, set image and restart: %q, want \"nginx:1.28 4\"", got)
	}

	out := k.MustRun(t, "describe", "deployment", "web", "-n", ns)
	for _, re := range []string{
		`(?m)^Name:\s+web$`,
		`(?m)^Namespace:\s+` + ns + `$`,
		`(?m)^Selector:\s+app=web$`,
		`(?m)^Replicas:\s+5 desired \| 0 updated \| 0 total \| 0 available \| 0 unavailable$`,
		`(?m)^StrategyType:\s+RollingUpdate$`,
		`(?m)^RollingUpdateStrategy:\s+25% max unavailable, 25% max surge$`,
		`(?m)^\s+Image:\s+nginx:1\.28$`,
		`kubectl\.kubernetes\.io/restartedAt: `,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("describe deployment does not match %s:\n%s", re, out)
		}
	}

	// StatefulSets scale too.
	k.MustRunStdin(t, fmt.Sprintf(`apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: %s}
spec:
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: pg, image: "postgres:16"}]
`, ns), "create", "-f", "-")
	k.MustRun(t, "scale", "statefulset", "db", "-n", ns, "--replicas=3")
	if got := k.MustRun(t, "get", "sts", "db", "-n", ns, "-o", "jsonpath={.spec.replicas} {.spec.podManagementPolicy} {.spec.updateStrategy.type} {.spec.updateStrategy.rollingUpdate.partition}"); got != "3 OrderedReady RollingUpdate 0" {
		t.Errorf("statefulset after scale: %q", got)
	}
}

// TestPodLifecycle drives a pod through its subresources as the scheduler
// and kubelet would, with kubectl: status, binding, graceful deletion,
// and a Table watch of the changes.
func TestPodLifecycle(t *testing.T) {
	t.Parallel()
	k := server.Kubectl(t)
	ns := server.CreateNamespace(t, "pod-life")
	if out := k.MustRun(t, "run", "job", "-n", ns, "--image=busybox", "--restart=Never"); out != "pod/job created\n" {
		t.Errorf("kubectl run printed %q", out)
	}
	watch := k.Start(t, "get", "pods", "-n", ns, "-w", "-o", "wide")
	waitOutput(t, watch, `(?m)^job\s+0/1\s+Pending\s+0\s+\S+\s+<none>\s+<none>`)

	// status only changes through /status.
	if out := k.MustRun(t, "patch", "pod", "job", "-n", ns, "--type=merge", "-p", `{"status":{"phase":"Failed"}}`); out != "pod/job patched (no change)\n" {
		t.Errorf("a status patch of the main resource printed %q", out)
	}
	k.MustRun(t, "patch", "pod", "job", "-n", ns, "--subresource=status", "--type=merge", "-p", `{"status":{"phase":"Running","podIP":"10.244.0.9","podIPs":[{"ip":"10.244.0.9"}]}}`)
	if got := k.MustRun(t, "get", "pod", "job", "-n", ns, "-o", "jsonpath={.status.phase} {.status.podIP}"); got != "Running 10.244.0.9" {
		t.Errorf("after a status patch: %q", got)
	}

	// Binding sets spec.nodeName once.
	bind := `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"job"},"target":{"kind":"Node","name":"node-a"}}`
	k.MustRunStdin(t, bind, "create", "--raw", "/api/v1/namespaces/"+ns+"/pods/job/binding", "-f", "-")
	r := k.MustFail(t, strings.Replace(bind, "node-a", "node-b", 1), "create", "--raw", "/api/v1/namespaces/"+ns+"/pods/job/binding", "-f", "-")
	expectContains(t, "a second binding", r.Stderr, "Error from server (Conflict)", `pods/binding "job"`, "already assigned")
	tb := parseTable(t, k.MustRun(t, "get", "pods", "-n", ns, "-o", "wide"))
	if row := tb.row(t, "job"); row["STATUS"] != "Running" || row["IP"] != "10.244.0.9" || row["NODE"] != "node-a" {
		t.Errorf("get pods -o wide after binding: %v", row)
	}
	if out := k.MustRun(t, "get", "pods", "-A", "--field-selector", "spec.nodeName=node-a,status.phase=Running", "-o", "name"); out != "pod/job\n" {
		t.Errorf("pods on node-a: %q", out)
	}
	if out := k.MustRun(t, "get", "pods", "-A", "--field-selector", "spec.nodeName=node-b", "-o", "name"); out != "" {
		t.Errorf("pods on node-b: %q", out)
	}

	// A pod bound to a node is deleted gracefully: it shows Terminating
	// until the kubelet (or a forced delete) finishes it.
	k.MustRun(t, "delete", "pod", "job", "-n", ns, "--wait=false")
	if got := k.MustRun(t, "get", "pod", "job", "-n", ns, "-o", "jsonpath={.metadata.deletionGracePeriodSeconds}"); got != "30" {
		t.Errorf("deletionGracePeriodSeconds = %q, want 30", got)
	}
	if row := parseTable(t, k.MustRun(t, "get", "pods", "-n", ns)).row(t, "job"); row["STATUS"] != "Terminating" {
		t.Errorf("a pod being deleted shows %v", row)
	}
	r = k.Run(t, "delete", "pod", "job", "-n", ns, "--grace-period=0", "--force")
	if r.ExitCode != 0 || r.Stdout != "pod \"job\" force deleted\n" {
		t.Errorf("delete --force: %s", r)
	}

	out := waitOutput(t, watch, `(?m)^job\s+0/1\s+Terminating\s+0\s+\S+\s+10\.244\.0\.9\s+node-a\s`)
	if !regexp.MustCompile(`(?m)^job\s+0/1\s+Running\s+0\s+\S+\s+10\.244\.0\.9\s+node-a\s`).MatchString(out) {
		t.Errorf("the pod watch did not show the pod running on node-a:\n%s", out)
	}

	// Eviction (policy/v1) deletes a pod that is not bound at once.
	k.MustRun(t, "run", "evictee", "-n", ns, "--image=busybox", "--restart=Never")
	k.MustRunStdin(t, `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"evictee"}}`, "create", "--raw", "/api/v1/namespaces/"+ns+"/pods/evictee/eviction", "-f", "-")
	r = k.MustFail(t, "", "get", "pod", "evictee", "-n", ns)
	expectContains(t, "get of an evicted pod", r.Stderr, "NotFound")
}

func TestNamespaceLifecycle(t *testing.T) {
	t.Parallel()
	k := server.Kubectl(t)
	ns := server.CreateNamespace(t, "doomed")
	k.MustRun(t, "create", "configmap", "left", "-n", ns)
	if got := k.MustRun(t, "get", "ns", ns, "-o", "jsonpath={.status.phase} {.metadata.labels.kubernetes\\.io/metadata\\.name}"); got != "Active "+ns {
		t.Errorf("a new namespace: %q", got)
	}
	if out := k.MustRun(t, "delete", "namespace", ns, "--wait=false"); out != "namespace \""+ns+"\" deleted\n" {
		t.Errorf("delete namespace printed %q", out)
	}
	// No namespace controller runs here, so the namespace stays Terminating.
	if row := parseTable(t, k.MustRun(t, "get", "ns", ns)).row(t, ns); row["STATUS"] != "Terminating" {
		t.Errorf("a deleted namespace shows %v", row)
	}
	r := k.MustFail(t, "", "create", "configmap", "late", "-n", ns)
	expectContains(t, "create in a terminating namespace", r.Stderr, "forbidden", "because it is being terminated")
	if out := k.MustRun(t, "get", "cm", "-n", ns, "-o", "name"); out != "configmap/left\n" {
		t.Errorf("a terminating namespace holds %q", out)
	}
}

func TestNodes(t *testing.T) {
	t.Parallel()
	k := server.Kubectl(t)
	name := fmt.Sprintf("node-%d", time.Now().UnixNano())
	k.MustRunStdin(t, fmt.Sprintf(`apiVersion: v1
kind: Node
metadata: {name: %s}
status:
  conditions: [{type: Ready, status: "True"}]
  nodeInfo: {kubeletVersion: v1.32.0}
`, name), "create", "-f", "-")
	t.Cleanup(func() { k.Run(t, "delete", "node", name) })

	if out := k.MustRun(t, "cordon", name); out != "node/"+name+" cordoned\n" {
		t.Errorf("cordon printed %q", out)
	}
	if row := parseTable(t, k.MustRun(t, "get", "node", name)).row(t, name); row["STATUS"] != "Ready,SchedulingDisabled" || row["ROLES"] != "<none>" {
		t.Errorf("a cordoned node shows %v", row)
	}
	if out := k.MustRun(t, "get", "nodes", "--field-selector", "spec.unschedulable=true", "-o", "name"); !strings.Contains(out, "node/"+name+"\n") {
		t.Errorf("unschedulable nodes: %q", out)
	}
	if out := k.MustRun(t, "uncordon", name); out != "node/"+name+" uncordoned\n" {
		t.Errorf("uncordon printed %q", out)
	}
	if out := k.MustRun(t, "get", "nodes", "--field-selector", "spec.unschedulable=true", "-o", "name"); strings.Contains(out, name) {
		t.Errorf("an uncordoned node is still unschedulable: %q", out)
	}
}

// TestEventsAndDescribe creates an Event about a pod and finds it in
// `get events` and in `describe pod`, which selects events by the fields
// of involvedObject.
func TestEventsAndDescribe(t *testing.T) {
	t.Parallel()
	k := server.Kubectl(t)
	ns := server.CreateNamespace(t, "events")
	k.MustRunStdin(t, fmt.Sprintf(podManifest, "web", ns, "nginx:1.27"), "create", "-f", "-")
	uid := k.MustRun(t, "get", "pod", "web", "-n", ns, "-o", "jsonpath={.metadata.uid}")
	now := time.Now().UTC().Format(time.RFC3339)
	k.MustRunStdin(t, fmt.Sprintf(`apiVersion: v1
kind: Event
metadata: {name: web.1, namespace: %[1]s}
involvedObject: {kind: Pod, namespace: %[1]s, name: web, uid: %[2]s, apiVersion: v1}
reason: Scheduled
message: Successfully assigned %[1]s/web to node-a
type: Normal
source: {component: default-scheduler}
firstTimestamp: %[3]q
lastTimestamp: %[3]q
count: 1
`, ns, uid, now), "create", "-f", "-")

	tb := parseTable(t, k.MustRun(t, "get", "events", "-n", ns))
	expectHeader(t, "get events", tb, "LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE")
	if len(tb.rows) != 1 || tb.rows[0][1] != "Normal" || tb.rows[0][2] != "Scheduled" || tb.rows[0][3] != "pod/web" || tb.rows[0][4] != "Successfully assigned "+ns+"/web to node-a" {
		t.Errorf("get events rows %q", tb.rows)
	}
	if out := k.MustRun(t, "get", "events", "-n", ns, "--field-selector", "involvedObject.kind=Pod,involvedObject.name=web,reason=Scheduled", "-o", "name"); out != "event/web.1\n" {
		t.Errorf("events selected by involvedObject: %q", out)
	}

	out := k.MustRun(t, "describe", "pod", "web", "-n", ns)
	for _, re := range []string{
		`(?m)^Name:\s+web$`,
		`(?m)^Status:\s+Pending$`,
		`(?m)^\s+Image:\s+nginx:1\.27$`,
		`(?m)^QoS Class:\s+BestEffort$`,
		`(?m)^Events:$`,
		`(?m)^\s+Normal\s+Scheduled\s+\S+\s+default-scheduler\s+Successfully assigned ` + ns + `/web to node-a$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("describe pod does not match %s:\n%s", re, out)
		}
	}
}

// TestEditAndWait covers kubectl edit (a GET, then a patch of what the
// editor changed) and kubectl wait (a watch for a condition).
func TestEditAndWait(t *testing.T) {
	t.Parallel()
	k := server.Kubectl(t)
	ns := server.CreateNamespace(t, "edit")
	k.MustRun(t, "create", "configmap", "cfg", "-n", ns, "--from-literal=mode=slow")

	editor := k.With("KUBE_EDITOR=sed -i s/mode:\\ slow/mode:\\ fast/", "EDITOR=")
	if out := editor.MustRun(t, "edit", "configmap", "cfg", "-n", ns); out != "configmap/cfg edited\n" {
		t.Errorf("edit printed %q", out)
	}
	if got := k.MustRun(t, "get", "cm", "cfg", "-n", ns, "-o", "jsonpath={.data.mode}"); got != "fast" {
		t.Errorf("after edit mode = %q", got)
	}

	if out := k.MustRun(t, "wait", "--for=jsonpath={.data.mode}=fast", "configmap/cfg", "-n", ns, "--timeout=10s"); out != "configmap/cfg condition met\n" {
		t.Errorf("wait for a met condition printed %q", out)
	}
	waiter := k.Start(t, "wait", "--for=delete", "configmap/cfg", "-n", ns, "--timeout=20s", "-v=6")
	waitStderr(t, waiter, `watch=true 200 OK`)
	k.MustRun(t, "delete", "configmap", "cfg", "-n", ns, "--wait=false")
	out := waitOutput(t, waiter, `condition met`)
	if out != "configmap/cfg condition met\n" {
		t.Errorf("wait --for=delete printed %q", out)
	}
}

func TestMetrics(t *testing.T) {
	t.Parallel()
	out := server.Kubectl(t).MustRun(t, "get", "--raw", "/metrics")
	for _, re := range []string{
		`(?m)^# TYPE apiserver_request_total counter$`,
		`(?m)^apiserver_request_total\{.*code="200".*\} [0-9]+`,
		`(?m)^# TYPE apiserver_request_duration_seconds histogram$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("/metrics does not match %s", re)
		}
	}
}
