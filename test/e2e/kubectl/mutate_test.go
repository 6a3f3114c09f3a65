package kubectl

import (
	"testing"
)

const appV1 = `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  labels: {app: shop}
data:
  color: blue
  size: large
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop
  labels: {app: shop}
spec:
  replicas: 2
  selector:
    matchLabels: {app: shop}
  template:
    metadata:
      labels: {app: shop}
    spec:
      containers:
      - name: web
        image: nginx:1.25
      - name: cache
        image: redis:7
`

// appV2 changes a value, drops a key and a container.
const appV2 = `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  labels: {app: shop}
data:
  color: red
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop
  labels: {app: shop}
spec:
  replicas: 3
  selector:
    matchLabels: {app: shop}
  template:
    metadata:
      labels: {app: shop}
    spec:
      containers:
      - name: web
        image: nginx:1.26
`

func TestApply(t *testing.T) {
	t.Parallel()
	v1 := suite.writeFile(t, "v1.yaml", appV1)
	v2 := suite.writeFile(t, "v2.yaml", appV2)
	dir := suite.writeFile(t, "dir/a.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: in-dir}\n")
	suite.writeFile(t, "dir/sub/b.json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"in-subdir"}}`)
	suite.writeFile(t, "dir/ignored.txt", "not a manifest")
	_ = dir
	dirPath := suite.dir + "/manifests/" + t.Name() + "/dir"
	suite.pair(t, nil,
		cmd("apply", "-n", "NS", "-f", v1),
		cmd("apply", "-n", "NS", "-f", v1),
		cmd("get", "cm", "settings", "-n", "NS", "-o", "jsonpath={.metadata.annotations}"),
		cmd("apply", "-n", "NS", "-f", v2),
		cmd("get", "cm", "settings", "-n", "NS", "-o", "jsonpath={.data}"),
		cmd("get", "deploy", "shop", "-n", "NS", "-o", "jsonpath={.spec.replicas} {.spec.template.spec.containers[*].image}"),
		cmd("apply", "-n", "NS", "-f", v2),
		// A change made by hand is reverted; a field nobody applied stays.
		cmd("scale", "deploy", "shop", "-n", "NS", "--replicas", "7"),
		cmd("apply", "-n", "NS", "-f", v2),
		cmd("get", "deploy", "shop", "-n", "NS", "-o", "jsonpath={.spec.replicas}"),
		cmd("apply", "-n", "NS", "-f", v1, "--dry-run=client"),
		cmd("apply", "-n", "NS", "-f", v1, "--dry-run=server"),
		cmd("apply", "-n", "NS", "-f", v1, "-o", "name"),
		cmd("apply", "-n", "NS", "-f", dirPath),
		cmd("apply", "-n", "NS", "-f", dirPath, "-R"),
		withStdin("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: from-stdin}\ndata: {k: v}\n", "apply", "-n", "NS", "-f", "-"),
		// List objects, validated by the stock kubectl through /openapi/v2.
		withStdin(`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"l1"}},{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"l2"}}]}`, "apply", "-n", "NS", "-f", "-"),
		cmd("get", "cm", "-n", "NS"),
		// Created by create: apply warns that the annotation is missing.
		cmd("create", "configmap", "plain", "-n", "NS", "--from-literal=a=b"),
		withStdin("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain}\ndata: {a: c}\n", "apply", "-n", "NS", "-f", "-"),
		withStdin("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: elsewhere}\n", "apply", "-n", "NS", "-f", "-"),
		withStdin("apiVersion: v1\nkind: Widget\nmetadata: {name: x}\n", "apply", "-n", "NS", "-f", "-", "--validate=false"),
		cmd("apply", "-n", "NS", "-f", suite.dir+"/does-not-exist.yaml"),
	)
}

func TestCreate(t *testing.T) {
	t.Parallel()
	v1 := suite.writeFile(t, "v1.yaml", appV1)
	suite.pair(t, nil,
		cmd("create", "-n", "NS", "-f", v1),
		cmd("create", "-n", "NS", "-f", v1),
		cmd("get", "cm,deploy", "-n", "NS"),
		cmd("create", "configmap", "lit", "-n", "NS", "--from-literal=a=1", "--from-literal=b=2"),
		cmd("create", "configmap", "lit2", "-n", "NS", "--from-literal=a=1", "-o", "yaml", "--dry-run=client"),
		cmd("get", "cm", "lit", "-n", "NS", "-o", "jsonpath={.data}"),
		cmd("create", "deployment", "api", "-n", "NS", "--image=busybox:1.36", "--replicas=3", "--port=8080"),
		cmd("get", "deploy", "api", "-n", "NS", "-o", "jsonpath={.spec}"),
		cmd("create", "deployment", "runner", "-n", "NS", "--image=busybox", "--", "sleep", "3600"),
		cmd("get", "deploy", "runner", "-n", "NS", "-o", "jsonpath={.spec.template.spec.containers}"),
		cmd("create", "deployment", "api", "-n", "NS", "--image=busybox"),
		cmd("create", "configmap", "lit", "-n", "NS", "--dry-run=server"),
		cmd("create", "secret", "generic", "creds", "-n", "NS", "--from-literal=user=admin", "--type=Opaque"),
		cmd("get", "secret", "creds", "-n", "NS", "-o", "jsonpath={.data.user} {.type}"),
		cmd("create", "secret", "generic", "creds2", "-n", "NS", "--from-literal=a=b", "-o", "yaml", "--dry-run=client"),
		cmd("create", "service", "clusterip", "api", "-n", "NS", "--tcp=80:8080", "--tcp=443:https"),
		cmd("get", "svc", "api", "-n", "NS", "-o", "jsonpath={.spec.ports}"),
		cmd("create", "service", "clusterip", "api2", "-n", "NS", "--tcp=80:8080", "-o", "yaml", "--dry-run=client"),
		cmd("create", "configmap", "noflags", "-o", "yaml", "--dry-run=client"),
		cmd("create", "deployment", "nodash", "--image=nginx", "-o", "yaml", "--dry-run=client"),
	)
	suite.mustRun(t, "", "delete", "namespace", "created-by-test", "--ignore-not-found")
	r := suite.run(t, bundled, "", "create", "namespace", "created-by-stock-bundled")
	if r.ExitCode != 0 || r.Stdout != "namespace/created-by-stock-bundled created\n" {
		t.Errorf("create namespace: %s", r)
	}
	want := suite.run(t, stock, "", "create", "namespace", "created-by-stock-bundled")
	got := suite.run(t, bundled, "", "create", "namespace", "created-by-stock-bundled")
	compareResults(t, want, got, nil)
	suite.mustRun(t, "", "delete", "namespace", "created-by-stock-bundled", "--wait=false")
}

func TestDelete(t *testing.T) {
	t.Parallel()
	v1 := suite.writeFile(t, "v1.yaml", appV1)
	setup := func(ns string) {
		suite.mustRun(t, appV1, "apply", "-n", ns, "-f", "-")
		for _, n := range []string{"a", "b", "c", "d", "e"} {
			suite.mustRun(t, "", "create", "configmap", n, "-n", ns)
		}
		suite.mustRun(t, "", "label", "cm", "b", "c", "-n", ns, "group=bc")
	}
	suite.pair(t, setup,
		cmd("delete", "cm", "a", "-n", "NS"),
		cmd("delete", "cm", "a", "-n", "NS"),
		cmd("delete", "cm", "a", "-n", "NS", "--ignore-not-found"),
		cmd("delete", "cm", "-l", "group=bc", "-n", "NS"),
		cmd("delete", "cm", "-l", "group=none", "-n", "NS"),
		cmd("delete", "configmap/d", "-n", "NS", "--grace-period=0", "--force"),
		cmd("delete", "cm", "e", "-n", "NS", "--dry-run=client"),
		cmd("delete", "cm", "e", "-n", "NS", "--dry-run=server"),
		// Orphan and foreground deletions wait for the garbage collector,
		// which a lone apiserver does not run.
		cmd("delete", "cm", "e", "-n", "NS", "-o", "name", "--cascade=orphan", "--wait=false"),
		cmd("delete", "-f", v1, "-n", "NS", "--cascade=foreground", "--wait=false"),
		cmd("delete", "-f", v1, "-n", "NS"),
		cmd("delete", "cm", "-n", "NS"),
		cmd("delete", "-n", "NS"),
		cmd("delete", "cm", "--all", "-n", "NS"),
		cmd("get", "cm", "-n", "NS"),
		cmd("delete", "cm", "x", "-n", "NS", "--cascade=sideways"),
	)
}

func TestRunExpose(t *testing.T) {
	t.Parallel()
	setup := func(ns string) {
		suite.mustRun(t, "", "create", "deployment", "web", "-n", ns, "--image=nginx", "--port=80")
		suite.mustRun(t, "", "create", "configmap", "conf", "-n", ns)
	}
	suite.pair(t, setup,
		cmd("run", "nginx", "-n", "NS", "--image=nginx", "--port=80", "--labels=a=b,c=d", "--env=X=1"),
		cmd("get", "pod", "nginx", "-n", "NS", "-o", "jsonpath={.metadata.labels} {.spec.containers}"),
		cmd("run", "bb", "-n", "NS", "--image=busybox", "--restart=Never", "-o", "yaml", "--dry-run=client", "--", "sleep", "10"),
		cmd("run", "bb", "-n", "NS", "--image=busybox", "--command", "-o", "name", "--", "sleep", "10"),
		cmd("run", "nginx", "-n", "NS", "--image=nginx"),
		cmd("expose", "deploy", "web", "-n", "NS", "--target-port=8080"),
		cmd("get", "svc", "web", "-n", "NS", "-o", "jsonpath={.spec.ports} {.spec.selector}"),
		cmd("expose", "deploy", "web", "-n", "NS"),
		cmd("expose", "pod", "nginx", "-n", "NS", "--name=nginx-svc", "--port=8080", "-o", "yaml", "--dry-run=client"),
		cmd("expose", "cm", "conf", "-n", "NS", "--port=80"),
	)
}

func TestApplyPrune(t *testing.T) {
	t.Parallel()
	all := suite.writeFile(t, "all.yaml", `apiVersion: v1
kind: ConfigMap
metadata: {name: a, labels: {set: x}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: b, labels: {set: x}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: d, labels: {set: x}}
spec:
  selector: {matchLabels: {app: d}}
  template:
    metadata: {labels: {app: d}}
    spec: {containers: [{name: c, image: nginx}]}
`)
	one := suite.writeFile(t, "one.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, labels: {set: x}}\n")
	allow := []string{"--prune-allowlist=core/v1/ConfigMap", "--prune-allowlist=apps/v1/Deployment"}
	suite.pair(t, nil,
		cmd(append([]string{"apply", "-n", "NS", "-f", all, "-l", "set=x", "--prune"}, allow...)...),
		cmd("create", "configmap", "manual", "-n", "NS"),
		cmd("label", "configmap", "manual", "-n", "NS", "set=x"),
		cmd("apply", "-n", "NS", "-f", one, "--prune"),
		cmd(append([]string{"apply", "-n", "NS", "-f", one, "-l", "set=x", "--prune", "--dry-run=client"}, allow...)...),
		cmd(append([]string{"apply", "-n", "NS", "-f", one, "-l", "set=x", "--prune"}, allow...)...),
		cmd("get", "cm,deploy", "-n", "NS", "-o", "name"),
	)
	// The stock kubectl's default allowlist names kinds kubecore does not
	// serve (ReplicationController, Job, ...) and fails; the bundled CLI
	// prunes the kinds the server has.
	ns := "prune-default"
	suite.mustRun(t, "", "create", "namespace", ns)
	t.Cleanup(func() { suite.run(t, stock, "", "delete", "namespace", ns, "--wait=false") })
	suite.mustRun(t, "", "apply", "-n", ns, "-f", all)
	r := suite.run(t, bundled, "", "apply", "-n", ns, "-f", one, "-l", "set=x", "--prune")
	if r.ExitCode != 0 || r.Stdout != "configmap/a unchanged\nconfigmap/b pruned\ndeployment.apps/d pruned\n" {
		t.Errorf("apply --prune with the default allowlist:\n%s", r)
	}
}
