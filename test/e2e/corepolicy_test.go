package e2e

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"kubecore.io/kubecore/test/e2e/framework"
)

const limitRangeYAML = `apiVersion: v1
kind: LimitRange
metadata:
  name: limits
spec:
  limits:
  - type: Container
    max: {cpu: "1"}
    defaultRequest: {cpu: 100m, memory: 32Mi}
    default: {memory: 64Mi}
`

const webRC = `apiVersion: v1
kind: ReplicationController
metadata:
  name: web
spec:
  replicas: 2
  template:
    metadata:
      labels: {app: web}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: c
        image: busybox:1.36
        command: ["sh", "-c", "while true; do sleep 1; done"]
`

// TestCorePolicyKinds drives limitranges, resourcequotas,
// replicationcontrollers and componentstatuses with the stock kubectl
// against all-in-one: create, get (the columns kubectl prints against
// Kubernetes), describe, patch, scale, delete, and bad input refused with
// Kubernetes' field errors and nothing stored.
func TestCorePolicyKinds(t *testing.T) {
	s := framework.StartAllInOne(t, "")
	k := s.Kubectl(t)
	ns := s.CreateNamespace(t, "policy")
	t.Cleanup(func() {
		k.Run(t, "delete", "rc", "web", "-n", ns, "--cascade=foreground", "--wait", "--timeout=60s")
		k.Run(t, "delete", "pods", "--all", "-n", ns, "--wait", "--timeout=60s")
	})

	// ResourceQuota: kubectl create quota, the table, describe, patch.
	k.MustRun(t, "create", "quota", "q", "-n", ns, "--hard=pods=3,requests.cpu=1,limits.memory=1Gi,configmaps=2")
	eventually(t, 30*time.Second, func() string {
		out := k.MustRun(t, "get", "quota", "q", "-n", ns)
		if !strings.Contains(out, "configmaps: 1/2") {
			return "quota status not computed yet:\n" + out
		}
		return ""
	})
	tb := parseTable(t, k.MustRun(t, "get", "quota", "-n", ns))
	expectHeader(t, "get quota", tb, "NAME", "AGE", "REQUEST", "LIMIT")
	row := tb.row(t, "q")
	if row["REQUEST"] != "configmaps: 1/2, pods: 0/3, requests.cpu: 0/1" || row["LIMIT"] != "limits.memory: 0/1Gi" {
		t.Errorf("quota row %v, want kube-root-ca.crt counted and the limits.* in LIMIT", row)
	}
	expectContains(t, "describe quota", k.MustRun(t, "describe", "quota", "q", "-n", ns),
		"Resource", "Used", "Hard", "requests.cpu", "configmaps     1     2")
	k.MustRun(t, "create", "configmap", "one", "-n", ns)
	r := k.MustFail(t, "", "create", "configmap", "two", "-n", ns)
	expectContains(t, "over-quota configmap", r.Stderr,
		`configmaps "two" is forbidden: exceeded quota: q, requested: configmaps=1, used: configmaps=2, limited: configmaps=2`)
	if r := k.Run(t, "get", "configmap", "two", "-n", ns); r.ExitCode == 0 {
		t.Errorf("refused config map was stored: %s", r)
	}
	k.MustRun(t, "patch", "quota", "q", "-n", ns, "--type=merge", "-p", `{"spec":{"hard":{"configmaps":"5"}}}`)
	eventually(t, 30*time.Second, func() string {
		if out := k.MustRun(t, "get", "quota", "q", "-n", ns, "-o", "jsonpath={.status.hard.configmaps}"); out != "5" {
			return "status.hard.configmaps = " + out
		}
		return ""
	})
	k.MustRun(t, "create", "configmap", "two", "-n", ns)

	// LimitRange: defaults applied, max refused, the table.
	k.MustRunStdin(t, limitRangeYAML, "apply", "-n", ns, "-f", "-")
	tb = parseTable(t, k.MustRun(t, "get", "limits", "-n", ns))
	expectHeader(t, "get limits", tb, "NAME", "CREATED AT")
	if at := tb.row(t, "limits")["CREATED AT"]; !regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`).MatchString(at) {
		t.Errorf("CREATED AT %q, want an RFC 3339 time", at)
	}
	expectContains(t, "describe limits", k.MustRun(t, "describe", "limitrange", "limits", "-n", ns),
		"Type", "Container", "cpu", "100m", "memory")
	eventually(t, 20*time.Second, func() string {
		k.Run(t, "delete", "pod", "defaulted", "-n", ns, "--grace-period=0", "--force", "--wait")
		if r := k.Run(t, "run", "defaulted", "-n", ns, "--image=busybox:1.36", "--restart=Never", "--command", "--", "sleep", "1"); r.ExitCode != 0 {
			return r.String()
		}
		out := k.MustRun(t, "get", "pod", "defaulted", "-n", ns, "-o", "jsonpath={.spec.containers[0].resources}")
		if out != `{"limits":{"cpu":"1","memory":"64Mi"},"requests":{"cpu":"100m","memory":"32Mi"}}` {
			return "resources of the defaulted pod: " + out
		}
		return ""
	})
	r = k.MustFail(t, "", "run", "big", "-n", ns, "--image=busybox:1.36", "--restart=Never",
		`--overrides={"spec":{"containers":[{"name":"big","image":"busybox:1.36","resources":{"limits":{"cpu":"2"}}}]}}`)
	expectContains(t, "pod over the limit range", r.Stderr, `pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2`)
	k.MustRun(t, "patch", "limitrange", "limits", "-n", ns, "--type=json", "-p", `[{"op":"replace","path":"/spec/limits/0/max/cpu","value":"3"}]`)
	k.MustRun(t, "delete", "limitrange", "limits", "-n", ns)

	// The quota asks every pod for a cpu request; the RC's pods have none.
	k.MustRun(t, "delete", "quota", "q", "-n", ns)

	// ReplicationController: created, scaled with kubectl scale, the table.
	k.MustRunStdin(t, webRC, "apply", "-n", ns, "-f", "-")
	eventually(t, 60*time.Second, func() string {
		row := parseTable(t, k.MustRun(t, "get", "rc", "-n", ns)).row(t, "web")
		if row["DESIRED"] != "2" || row["CURRENT"] != "2" {
			return "rc row " + strings.Join([]string{row["DESIRED"], row["CURRENT"]}, "/")
		}
		return ""
	})
	tb = parseTable(t, k.MustRun(t, "get", "rc", "-n", ns, "-o", "wide"))
	expectHeader(t, "get rc -o wide", tb, "NAME", "DESIRED", "CURRENT", "READY", "AGE", "CONTAINERS", "IMAGES", "SELECTOR")
	if row := tb.row(t, "web"); row["SELECTOR"] != "app=web" || row["IMAGES"] != "busybox:1.36" {
		t.Errorf("rc wide row %v", row)
	}
	k.MustRun(t, "scale", "rc", "web", "-n", ns, "--replicas=3")
	eventually(t, 60*time.Second, func() string {
		out := k.MustRun(t, "get", "pods", "-n", ns, "-l", "app=web", "-o", "name")
		if n := len(strings.Fields(out)); n != 3 {
			return "pods of the rc after scale: " + out
		}
		return ""
	})
	expectContains(t, "describe rc", k.MustRun(t, "describe", "rc", "web", "-n", ns), "Selector:     app=web", "Replicas:     3 current / 3 desired")
	expectContains(t, "get all", k.MustRun(t, "get", "all", "-n", ns), "replicationcontroller/web")

	// componentstatuses: etcd is probed, all-in-one's in-process scheduler
	// and controller-manager report that they run; kubectl get cs prints
	// the table.
	tb = parseTable(t, k.MustRun(t, "get", "cs"))
	expectHeader(t, "get cs", tb, "NAME", "STATUS", "MESSAGE", "ERROR")
	if row := tb.row(t, "etcd-0"); row["STATUS"] != "Healthy" || row["MESSAGE"] != `{"health":"true","reason":""}` {
		t.Errorf("etcd-0 row %v", row)
	}
	for _, name := range []string{"scheduler", "controller-manager"} {
		if row := tb.row(t, name); row["STATUS"] != "Healthy" || row["MESSAGE"] != "ok" {
			t.Errorf("%s row %v", name, row)
		}
	}

	// Bad input: Kubernetes' field errors, nothing stored.
	for _, bad := range []struct{ manifest, name, kind, want string }{
		{"apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: bad-quota}\nspec: {hard: {pods: \"-1\"}}\n", "bad-quota", "resourcequota",
			`ResourceQuota "bad-quota" is invalid: spec.hard[pods]: Invalid value: "-1": must be greater than or equal to 0`},
		{"apiVersion: v1\nkind: LimitRange\nmetadata: {name: bad-limits}\nspec:\n  limits:\n  - type: Container\n    min: {cpu: \"2\"}\n    max: {cpu: \"1\"}\n", "bad-limits", "limitrange",
			`spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1`},
		{"apiVersion: v1\nkind: ReplicationController\nmetadata: {name: bad-rc}\nspec:\n  selector: {app: a}\n  template:\n    metadata: {labels: {app: b}}\n    spec: {containers: [{name: c, image: busybox}]}\n", "bad-rc", "rc",
			`ReplicationController "bad-rc" is invalid: spec.template.metadata.labels: Invalid value: {"app":"b"}: ` + "`selector` does not match template `labels`"},
	} {
		r := k.MustFail(t, bad.manifest, "create", "-n", ns, "-f", "-")
		expectContains(t, "create "+bad.name, r.Stderr, bad.want)
		if r := k.Run(t, "get", bad.kind, bad.name, "-n", ns); r.ExitCode == 0 {
			t.Errorf("invalid %s was stored", bad.name)
		}
	}
}

// TestBindingsCollection binds a pod by POSTing a Binding to the
// namespace's bindings collection (kubectl create -f), as schedulers
// before pods/binding did; a binding without a target is refused with
// Kubernetes' field error and binds nothing.
func TestBindingsCollection(t *testing.T) {
	t.Parallel()
	k := server.Kubectl(t)
	ns := server.CreateNamespace(t, "bindings")
	k.MustRun(t, "run", "lonely", "-n", ns, "--image=busybox:1.36", "--restart=Never")
	r := k.MustFail(t, "apiVersion: v1\nkind: Binding\nmetadata: {name: lonely}\ntarget: {kind: Node}\n", "create", "-n", ns, "-f", "-")
	expectContains(t, "binding without a target", r.Stderr, "target.name: Required value")
	if node := k.MustRun(t, "get", "pod", "lonely", "-n", ns, "-o", "jsonpath={.spec.nodeName}"); node != "" {
		t.Fatalf("refused binding bound the pod to %q", node)
	}
	k.MustRunStdin(t, "apiVersion: v1\nkind: Binding\nmetadata: {name: lonely}\ntarget: {apiVersion: v1, kind: Node, name: n1}\n", "create", "-n", ns, "-f", "-")
	if node := k.MustRun(t, "get", "pod", "lonely", "-n", ns, "-o", "jsonpath={.spec.nodeName}"); node != "n1" {
		t.Errorf("pod bound to %q, want n1", node)
	}
	r = k.MustFail(t, "apiVersion: v1\nkind: Binding\nmetadata: {name: lonely}\ntarget: {kind: Node, name: n2}\n", "create", "-n", ns, "-f", "-")
	expectContains(t, "second binding", r.Stderr, `pod lonely is already assigned to node "n1"`)
}
