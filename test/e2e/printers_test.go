package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestTables checks that `kubectl get` prints each resource with the
// columns, in the order, that it shows against Kubernetes, and a few cells.
func TestTables(t *testing.T) {
	t.Parallel()
	k := server.Kubectl(t)
	ns := server.CreateNamespace(t, "tables")
	node := fmt.Sprintf("e2e-node-%s", ns)
	pv := fmt.Sprintf("e2e-pv-%s", ns)
	pc := fmt.Sprintf("e2e-pc-%s", ns)
	manifests := fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata: {name: cfg}
data: {a: "1", b: "2"}
---
apiVersion: v1
kind: Secret
metadata: {name: creds}
stringData: {password: hunter2}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: robot}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports:
  - {port: 80, protocol: TCP, targetPort: 8080}
---
apiVersion: v1
kind: Service
metadata: {name: headless}
spec:
  clusterIP: None
  selector: {app: db}
  ports:
  - {port: 5432}
---
apiVersion: v1
kind: Endpoints
metadata: {name: web}
subsets:
- addresses: [{ip: 10.1.2.3}]
  ports: [{port: 8080}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: nginx, image: "nginx:1.27"}]
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web-rs}
spec:
  replicas: 2
  selector: {matchLabels: {app: rs}}
  template:
    metadata: {labels: {app: rs}}
    spec:
      containers: [{name: nginx, image: "nginx:1.27"}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 2
  serviceName: headless
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: pg, image: "postgres:16"}]
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      nodeSelector: {kubernetes.io/os: linux}
      containers: [{name: agent, image: "agent:1"}]
---
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {name: lock}
spec: {holderIdentity: me}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec:
  minAvailable: 2
  selector: {matchLabels: {app: web}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: Pod
metadata: {name: solo}
spec:
  containers: [{name: a, image: busybox}, {name: b, image: busybox}]
---
apiVersion: v1
kind: Node
metadata:
  name: %s
  labels: {node-role.kubernetes.io/worker: ""}
status:
  nodeInfo: {kubeletVersion: v1.32.0, osImage: Debian 12, kernelVersion: 6.1.0, containerRuntimeVersion: "containerd://1.6.20"}
  addresses: [{type: InternalIP, address: 192.0.2.7}]
  conditions:
  - {type: Ready, status: "True", reason: KubeletReady}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: %s}
spec:
  capacity: {storage: 5Gi}
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  hostPath: {path: /tmp/pv}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: %s}
value: 1000
`, node, pv, pc)
	k.MustRunStdin(t, manifests, "create", "-n", ns, "-f", "-")

	cases := []struct {
		args   []string
		header []string
		name   string
		cells  map[string]string
	}{
		{[]string{"configmaps"}, []string{"NAME", "DATA", "AGE"}, "cfg", map[string]string{"DATA": "2"}},
		{[]string{"secrets"}, []string{"NAME", "TYPE", "DATA", "AGE"}, "creds", map[string]string{"TYPE": "Opaque", "DATA": "1"}},
		{[]string{"serviceaccounts"}, []string{"NAME", "SECRETS", "AGE"}, "robot", map[string]string{"SECRETS": "0"}},
		{[]string{"services"}, []string{"NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"}, "web", map[string]string{"TYPE": "ClusterIP", "EXTERNAL-IP": "<none>", "PORT(S)": "80/TCP"}},
		{[]string{"services", "-o", "wide"}, []string{"NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"}, "headless", map[string]string{"CLUSTER-IP": "None", "PORT(S)": "5432/TCP", "SELECTOR": "app=db"}},
		{[]string{"endpoints"}, []string{"NAME", "ENDPOINTS", "AGE"}, "web", map[string]string{"ENDPOINTS": "10.1.2.3:8080"}},
		{[]string{"deployments"}, []string{"NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"}, "web", map[string]string{"READY": "0/3", "UP-TO-DATE": "0", "AVAILABLE": "0"}},
		{[]string{"deployments", "-o", "wide"}, []string{"NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"}, "web", map[string]string{"CONTAINERS": "nginx", "IMAGES": "nginx:1.27", "SELECTOR": "app=web"}},
		{[]string{"replicasets"}, []string{"NAME", "DESIRED", "CURRENT", "READY", "AGE"}, "web-rs", map[string]string{"DESIRED": "2", "CURRENT": "0", "READY": "0"}},
		{[]string{"replicasets", "-o", "wide"}, []string{"NAME", "DESIRED", "CURRENT", "READY", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"}, "web-rs", map[string]string{"SELECTOR": "app=rs"}},
		{[]string{"statefulsets"}, []string{"NAME", "READY", "AGE"}, "db", map[string]string{"READY": "0/2"}},
		{[]string{"statefulsets", "-o", "wide"}, []string{"NAME", "READY", "AGE", "CONTAINERS", "IMAGES"}, "db", map[string]string{"CONTAINERS": "pg", "IMAGES": "postgres:16"}},
		{[]string{"daemonsets"}, []string{"NAME", "DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE", "NODE SELECTOR", "AGE"}, "agent", map[string]string{"DESIRED": "0", "NODE SELECTOR": "kubernetes.io/os=linux"}},
		{[]string{"leases"}, []string{"NAME", "HOLDER", "AGE"}, "lock", map[string]string{"HOLDER": "me"}},
		{[]string{"poddisruptionbudgets"}, []string{"NAME", "MIN AVAILABLE", "MAX UNAVAILABLE", "ALLOWED DISRUPTIONS", "AGE"}, "web", map[string]string{"MIN AVAILABLE": "2", "MAX UNAVAILABLE": "N/A", "ALLOWED DISRUPTIONS": "0"}},
		{[]string{"pvc"}, []string{"NAME", "STATUS", "VOLUME", "CAPACITY", "ACCESS MODES", "STORAGECLASS", "VOLUMEATTRIBUTESCLASS", "AGE"}, "data", map[string]string{"STATUS": "Pending", "VOLUME": "", "CAPACITY": "", "VOLUMEATTRIBUTESCLASS": "<unset>"}},
		{[]string{"pods"}, []string{"NAME", "READY", "STATUS", "RESTARTS", "AGE"}, "solo", map[string]string{"READY": "0/2", "STATUS": "Pending", "RESTARTS": "0"}},
		{[]string{"pods", "-o", "wide"}, []string{"NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE", "READINESS GATES"}, "solo", map[string]string{"IP": "<none>", "NODE": "<none>"}},
		{[]string{"namespaces", ns}, []string{"NAME", "STATUS", "AGE"}, ns, map[string]string{"STATUS": "Active"}},
		{[]string{"nodes", node}, []string{"NAME", "STATUS", "ROLES", "AGE", "VERSION"}, node, map[string]string{"STATUS": "Ready", "ROLES": "worker", "VERSION": "v1.32.0"}},
		{[]string{"nodes", node, "-o", "wide"}, []string{"NAME", "STATUS", "ROLES", "AGE", "VERSION", "INTERNAL-IP", "EXTERNAL-IP", "OS-IMAGE", "KERNEL-VERSION", "CONTAINER-RUNTIME"}, node, map[string]string{"INTERNAL-IP": "192.0.2.7", "EXTERNAL-IP": "<none>", "OS-IMAGE": "Debian 12", "KERNEL-VERSION": "6.1.0", "CONTAINER-RUNTIME": "containerd://1.6.20"}},
		{[]string{"pv", pv}, []string{"NAME", "CAPACITY", "ACCESS MODES", "RECLAIM POLICY", "STATUS", "CLAIM", "STORAGECLASS", "VOLUMEATTRIBUTESCLASS", "REASON", "AGE"}, pv, map[string]string{"CAPACITY": "5Gi", "ACCESS MODES": "RWO", "RECLAIM POLICY": "Retain", "STATUS": "Pending", "CLAIM": "", "STORAGECLASS": "", "VOLUMEATTRIBUTESCLASS": "<unset>", "REASON": ""}},
		{[]string{"priorityclasses", pc}, []string{"NAME", "VALUE", "GLOBAL-DEFAULT", "AGE", "PREEMPTIONPOLICY"}, pc, map[string]string{"VALUE": "1000", "GLOBAL-DEFAULT": "false", "PREEMPTIONPOLICY": "PreemptLowerPriority"}},
	}
	for _, c := range cases {
		what := "get " + strings.Join(c.args, " ")
		out := k.MustRun(t, append([]string{"get", "-n", ns}, c.args...)...)
		tb := parseTable(t, out)
		expectHeader(t, what, tb, c.header...)
		if len(tb.header) != len(c.header) {
			continue
		}
		row := tb.row(t, c.name)
		if !isAge(row["AGE"]) && row["AGE"] != "" {
			t.Errorf("%s: AGE %q", what, row["AGE"])
		}
		for col, want := range c.cells {
			if row[col] != want {
				t.Errorf("%s: %s is %q, want %q\n%s", what, col, row[col], want, out)
			}
		}
	}

	// The cluster IP comes from the service CIDR.
	ip := k.MustRun(t, "get", "svc", "web", "-n", ns, "-o", "jsonpath={.spec.clusterIP}")
	if row := parseTable(t, k.MustRun(t, "get", "svc", "web", "-n", ns)).row(t, "web"); row["CLUSTER-IP"] != ip || !strings.HasPrefix(ip, "10.") {
		t.Errorf("service cluster IP %q, printed %q", ip, row["CLUSTER-IP"])
	}

	// The `all` category lists workloads and services, not configmaps.
	all := k.MustRun(t, "get", "all", "-n", ns, "-o", "name")
	for _, want := range []string{"pod/solo", "service/web", "deployment.apps/web", "replicaset.apps/web-rs", "statefulset.apps/db", "daemonset.apps/agent"} {
		if !strings.Contains(all, want+"\n") {
			t.Errorf("get all lacks %s:\n%s", want, all)
		}
	}
	if strings.Contains(all, "configmap/") || strings.Contains(all, "secret/") {
		t.Errorf("get all lists configmaps or secrets:\n%s", all)
	}
	// Several kinds at once print one table per kind, each with its header.
	out := k.MustRun(t, "get", "cm,deploy", "-n", ns)
	for _, re := range []string{`(?m)^NAME\s+DATA\s+AGE\nconfigmap/cfg\s+2\s`, `(?m)^\nNAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\ndeployment\.apps/web\s+0/3\s`} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("get cm,deploy does not match %s:\n%s", re, out)
		}
	}

	// Tear the cluster-scoped objects down again.
	k.MustRun(t, "delete", "node/"+node, "pv/"+pv, "priorityclass/"+pc)
}
