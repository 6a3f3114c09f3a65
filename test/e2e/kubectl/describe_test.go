package kubectl

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

const describeFixtures = `apiVersion: v1
kind: Pod
metadata:
  name: web-1
  labels: {app: web, tier: front}
  annotations: {note: hello, multi: "line one\nline two"}
spec:
  priority: 0
  containers:
  - name: main
    image: nginx:1.25
    command: ["sh", "-c"]
    args: ["sleep 1000"]
    ports: [{containerPort: 80, name: http}]
    env:
    - {name: A, value: "1"}
    - {name: FROM_CM, valueFrom: {configMapKeyRef: {name: conf, key: a}}}
    - {name: FROM_SECRET, valueFrom: {secretKeyRef: {name: creds, key: user, optional: true}}}
    resources: {limits: {cpu: 100m, memory: 64Mi}, requests: {cpu: 50m, memory: 64Mi}}
    volumeMounts: [{name: data, mountPath: /data}, {name: conf, mountPath: /etc/conf, readOnly: true}]
  - name: sidecar
    image: redis
    ports: [{containerPort: 6379}, {containerPort: 6380, protocol: UDP}]
  volumes:
  - {name: data, emptyDir: {}}
  - {name: conf, configMap: {name: conf}}
  - {name: creds, secret: {secretName: creds}}
  nodeSelector: {disk: ssd}
  tolerations:
  - {key: k, operator: Exists, effect: NoSchedule}
  - {key: other, operator: Equal, value: v, effect: NoExecute, tolerationSeconds: 30}
---
apiVersion: v1
kind: Pod
metadata: {name: web-2}
spec:
  containers: [{name: c, image: busybox}]
---
apiVersion: v1
kind: Service
metadata: {name: web, labels: {app: web}}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080, name: http}, {port: 443, targetPort: https, name: tls}]
---
apiVersion: v1
kind: Secret
metadata: {name: creds}
type: Opaque
stringData: {password: s3cr3t}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: conf, labels: {app: web}}
data: {script: "echo hi\necho there\n"}
binaryData: {blob: AAEC}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, labels: {app: api}, annotations: {team: core}}
spec:
  replicas: 3
  selector: {matchLabels: {app: api}}
  strategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 1, maxSurge: 50%}}
  template:
    metadata: {labels: {app: api}, annotations: {scrape: "true"}}
    spec:
      serviceAccountName: api
      containers:
      - name: api
        image: api:2
        ports: [{containerPort: 8080}]
        env: [{name: MODE, value: prod}]
        volumeMounts: [{name: cache, mountPath: /cache}]
      volumes: [{name: cache, emptyDir: {medium: Memory}}]
      nodeSelector: {zone: a}
      tolerations: [{operator: Exists}]
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: api-rs, labels: {app: rs}}
spec:
  replicas: 2
  selector: {matchLabels: {app: rs}}
  template:
    metadata: {labels: {app: rs}}
    spec:
      containers: [{name: c, image: busybox}]
`

// The fixtures give config maps and secrets one key each: the stock
// kubectl describes their keys in Go's random map order.
func TestDescribe(t *testing.T) {
	t.Parallel()
	ns := getNamespace(t)
	suite.mustRun(t, describeFixtures, "apply", "-n", ns, "-f", "-")
	node := "describe-node-" + fmt.Sprint(time.Now().UnixNano()%100000)
	suite.mustRun(t, fmt.Sprintf(`apiVersion: v1
kind: Node
metadata:
  name: %s
  labels: {kubernetes.io/hostname: %s, node-role.kubernetes.io/worker: ""}
spec:
  podCIDR: 10.0.0.0/24
  taints: [{key: dedicated, value: x, effect: NoSchedule}, {key: gpu, effect: NoExecute}]
`, node, node), "apply", "-f", "-")
	t.Cleanup(func() { suite.run(t, stock, "", "delete", "node", node) })
	uid := strings.TrimSpace(suite.mustRun(t, "", "get", "pod", "web-1", "-n", ns, "-o", "jsonpath={.metadata.uid}"))
	now := time.Now().UTC()
	at := func(d time.Duration) string { return now.Add(-d).Format(time.RFC3339) }
	suite.mustRun(t, fmt.Sprintf(`apiVersion: v1
kind: Event
metadata: {name: web-1.a}
involvedObject: {kind: Pod, name: web-1, namespace: %[1]s, uid: "%[2]s", apiVersion: v1}
reason: Scheduled
message: "Successfully assigned %[1]s/web-1 to n1"
source: {component: default-scheduler}
firstTimestamp: "%[3]s"
lastTimestamp: "%[3]s"
count: 1
type: Normal
---
apiVersion: v1
kind: Event
metadata: {name: web-1.b}
involvedObject: {kind: Pod, name: web-1, namespace: %[1]s, uid: "%[2]s", apiVersion: v1}
reason: BackOff
message: "Back-off restarting failed container"
source: {component: kubelet, host: n1}
firstTimestamp: "%[4]s"
lastTimestamp: "%[5]s"
count: 4
type: Warning
`, ns, uid, at(10*time.Minute), at(9*time.Minute), at(5*time.Second)), "apply", "-n", ns, "-f", "-")

	for _, args := range [][]string{
		{"describe", "pod", "web-1"},
		{"describe", "pods"},
		{"describe", "pods", "web"},
		{"describe", "pod/web-2"},
		{"describe", "svc", "web"},
		{"describe", "secret", "creds"},
		{"describe", "cm", "conf"},
		{"describe", "deploy", "api"},
		{"describe", "rs", "api-rs"},
		{"describe", "pods", "-l", "app=web"},
		{"describe", "pod", "nope"},
		{"describe", "podz"},
		{"describe", "pods", "-l", "app=none"},
		{"describe", "pod", "web-1", "--show-events=false"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			suite.same(t, append(args, "-n", ns)...)
		})
	}
	t.Run("node", func(t *testing.T) { suite.same(t, "describe", "node", node) })
	t.Run("get node", func(t *testing.T) {
		suite.same(t, "get", "node", node)
		suite.same(t, "get", "node", node, "-o", "wide", "--show-labels")
	})
	t.Run("namespace", func(t *testing.T) { suite.same(t, "describe", "namespace", ns) })
}
