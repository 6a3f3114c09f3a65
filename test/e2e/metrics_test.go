package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"kubecore.io/kubecore/test/e2e/framework"
)

// metricsServerBinary builds the stock metrics-server through the module
// proxy (hack/metrics-server.sh, cached in _output/bin). It fails, never
// skips, when it cannot be built.
func metricsServerBinary(t *testing.T) string {
	t.Helper()
	p, err := framework.BuildTool("metrics-server.sh")
	if err != nil {
		t.Fatalf("build metrics-server: %v", err)
	}
	return p
}

// syncBuf is a log buffer written by a child process and read by the test.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startLogged starts cmd, a program the test runs beside the cluster, with
// its output in the returned log; done closes when it exits. When the
// test ends it kills that process (only it) and, if the test failed,
// shows the log under name.
func startLogged(t *testing.T, name string, cmd *exec.Cmd) (*syncBuf, <-chan struct{}) {
	t.Helper()
	log := &syncBuf{}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
		if t.Failed() {
			t.Logf("%s log:\n%s", name, log.String())
		}
	})
	return log, done
}

// metricsServer is a running stock metrics-server.
type metricsServer struct {
	port int
	log  *syncBuf
	http *http.Client
	done <-chan struct{} // closed when the process exits
}

// exited says whether metrics-server has exited (a bad flag, a crash).
func (m *metricsServer) exited() bool {
	select {
	case <-m.done:
		return true
	default:
		return false
	}
}

// startMetricsServer runs metrics-server on the host against s with the
// admin credentials (a client certificate of the cluster CA, which the
// kubelet accepts and authorizes with a SubjectAccessReview), scraping
// every 15 s, until the test ends.
func startMetricsServer(t *testing.T, s *framework.APIServer) *metricsServer {
	t.Helper()
	bin := metricsServerBinary(t)
	port, err := framework.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin,
		"--kubeconfig", s.Kubeconfig, "--authentication-kubeconfig", s.Kubeconfig, "--authorization-kubeconfig", s.Kubeconfig,
		"--client-ca-file", filepath.Join(s.DataDir, "pki", "ca.crt"),
		"--bind-address", "127.0.0.1", "--secure-port", strconv.Itoa(port), "--cert-dir", t.TempDir(),
		"--kubelet-insecure-tls", "--kubelet-use-node-status-port", "--kubelet-preferred-address-types", "InternalIP,Hostname",
		"--metric-resolution", "15s", "-v", "2")
	log, done := startLogged(t, "metrics-server", cmd)
	client, err := s.HTTPClient(true)
	if err != nil {
		t.Fatal(err)
	}
	// metrics-server serves a self-signed certificate of its own.
	client.Transport.(*http.Transport).TLSClientConfig.InsecureSkipVerify = true //nolint:gosec // test against a local self-signed server
	return &metricsServer{port: port, log: log, http: client, done: done}
}

// get GETs path on metrics-server directly (not through the API server).
func (m *metricsServer) get(path string) (int, []byte, error) {
	resp, err := m.http.Get(fmt.Sprintf("https://127.0.0.1:%d%s", m.port, path))
	if err != nil {
		return 0, nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

type metricsList struct {
	Items []struct {
		Metadata struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
		Usage      map[string]string `json:"usage"`
		Containers []struct {
			Name  string            `json:"name"`
			Usage map[string]string `json:"usage"`
		} `json:"containers"`
	} `json:"items"`
}

const burnerManifest = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: burner
spec:
  replicas: 1
  selector:
    matchLabels: {app: burner}
  template:
    metadata:
      labels: {app: burner}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: burn
        image: busybox
        # Burns a CPU for 45 s after it starts, then idles.
        command: ["sh", "-c", "end=$(( $(date +%s) + 45 )); while [ $(date +%s) -lt $end ]; do :; done; exec sleep 100000"]
        resources:
          requests: {cpu: 100m, memory: 16Mi}
`

// TestMetricsServerScrapesKubelet: the stock metrics-server scrapes the
// kubelet's /metrics/resource over its HTTPS port with no scrape error and
// serves the node's and a CPU-burning pod's usage (asked of
// metrics-server directly: the API server's aggregation layer is not
// needed for this part).
func TestMetricsServerScrapesKubelet(t *testing.T) {
	s := framework.StartAllInOne(t, "")
	k := s.Kubectl(t)
	ns := s.CreateNamespace(t, "metrics")
	ms := startMetricsServer(t, s)
	k.MustRunStdin(t, burnerManifest, "apply", "-n", ns, "-f", "-")
	t.Cleanup(func() { k.Run(t, "delete", "namespace", ns, "--wait=true", "--timeout=60s") })
	k.MustRun(t, "rollout", "status", "-n", ns, "deployment/burner", "--timeout=120s")

	ctx := context.Background()
	var nodes, pods metricsList
	ok := framework.WaitFor(ctx, 90*time.Second, func() bool {
		time.Sleep(time.Second)
		if ms.exited() {
			return true
		}
		code, body, err := ms.get("/apis/metrics.k8s.io/v1beta1/nodes")
		if err != nil || code != http.StatusOK || json.Unmarshal(body, &nodes) != nil || len(nodes.Items) == 0 {
			return false
		}
		code, body, err = ms.get("/apis/metrics.k8s.io/v1beta1/namespaces/" + ns + "/pods")
		if err != nil || code != http.StatusOK || json.Unmarshal(body, &pods) != nil || len(pods.Items) == 0 {
			return false
		}
		return true
	})
	if ms.exited() {
		t.Fatal("metrics-server exited")
	}
	if !ok {
		t.Fatalf("metrics-server served no node and pod metrics; last: nodes %+v pods %+v", nodes, pods)
	}
	if nodes.Items[0].Usage["cpu"] == "" || nodes.Items[0].Usage["memory"] == "" {
		t.Errorf("node usage = %v", nodes.Items[0].Usage)
	}
	p := pods.Items[0]
	if len(p.Containers) != 1 || p.Containers[0].Name != "burn" || p.Containers[0].Usage["cpu"] == "" {
		t.Fatalf("pod metrics = %+v", p)
	}
	t.Logf("node %s usage %v; pod %s usage %v", nodes.Items[0].Metadata.Name, nodes.Items[0].Usage, p.Metadata.Name, p.Containers[0].Usage)
	if log := ms.log.String(); strings.Contains(log, "Failed to scrape node") || strings.Contains(log, "Failed probe") {
		t.Errorf("metrics-server reported scrape errors:\n%s", log)
	}

	// The kubelet's own endpoints, through the API server's node proxy.
	node := nodes.Items[0].Metadata.Name
	out := k.MustRun(t, "get", "--raw", "/api/v1/nodes/"+node+"/proxy/metrics/resource")
	for _, want := range []string{"node_cpu_usage_seconds_total ", "container_cpu_usage_seconds_total{container=\"burn\",namespace=\"" + ns + "\"", "resource_scrape_error 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("/metrics/resource lacks %q:\n%s", want, out)
		}
	}
	var summary struct {
		Node struct {
			NodeName string `json:"nodeName"`
		} `json:"node"`
		Pods []struct {
			PodRef struct{ Name, Namespace string } `json:"podRef"`
		} `json:"pods"`
	}
	if err := json.Unmarshal([]byte(k.MustRun(t, "get", "--raw", "/api/v1/nodes/"+node+"/proxy/stats/summary")), &summary); err != nil || summary.Node.NodeName != node {
		t.Errorf("stats summary = %+v, %v", summary, err)
	}
}

const hpaManifest = `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: burner
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: burner}
  minReplicas: 1
  maxReplicas: 3
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
  behavior:
    scaleDown:
      stabilizationWindowSeconds: 20
`

// metricsAPIService registers metrics-server, a process on the host, as
// Kubernetes' manifests do, with a Service without selector and manual
// Endpoints to its port (the API server resolves Services through
// Endpoints; Kubernetes mirrors them into EndpointSlices).
func metricsAPIService(port int) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Service
metadata: {name: metrics-server, namespace: kube-system}
spec:
  ports: [{name: https, port: 443, targetPort: %[1]d, protocol: TCP}]
---
apiVersion: v1
kind: Endpoints
metadata: {name: metrics-server, namespace: kube-system}
subsets: [{addresses: [{ip: 127.0.0.1}], ports: [{name: https, port: %[1]d, protocol: TCP}]}]
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1beta1.metrics.k8s.io}
spec:
  group: metrics.k8s.io
  version: v1beta1
  service: {name: metrics-server, namespace: kube-system, port: 443}
  insecureSkipTLSVerify: true
  groupPriorityMinimum: 100
  versionPriority: 100
`, port)
}

// TestKubectlTopAndHPA: metrics-server registered through an APIService,
// `kubectl top` of both CLIs shows live figures, and the HPA controller
// scales a CPU-burning Deployment up and, once the pods idle and the
// 20 s window has passed, down again.
func TestKubectlTopAndHPA(t *testing.T) {
	s := framework.StartAllInOne(t, "")
	k := s.Kubectl(t)
	bin, err := framework.Binary()
	if err != nil {
		t.Fatal(err)
	}
	bundled := s.CLI(bin, "kubectl")
	ns := s.CreateNamespace(t, "hpa")
	// Without the metrics API both CLIs say so and fail.
	for _, cli := range []*framework.Kubectl{k, bundled} {
		if r := cli.Run(t, "top", "nodes"); r.ExitCode == 0 || !strings.Contains(r.Stderr, "Metrics API not available") {
			t.Errorf("%s top nodes without metrics-server: %s", cli.Path, r)
		}
	}
	ms := startMetricsServer(t, s)
	k.MustRunStdin(t, metricsAPIService(ms.port), "apply", "-f", "-")
	k.MustRunStdin(t, burnerManifest, "apply", "-n", ns, "-f", "-")
	t.Cleanup(func() { k.Run(t, "delete", "namespace", ns, "--wait=true", "--timeout=60s") })
	k.MustRun(t, "rollout", "status", "-n", ns, "deployment/burner", "--timeout=120s")

	ctx := context.Background()
	for _, cli := range []*framework.Kubectl{k, bundled} {
		var last string
		if !framework.WaitFor(ctx, 90*time.Second, func() bool {
			time.Sleep(time.Second)
			r := cli.Run(t, "top", "nodes")
			last = r.String()
			return r.ExitCode == 0 && strings.Contains(r.Stdout, "CPU(cores)")
		}) {
			t.Fatalf("%s top nodes: %s\nthe APIService:\n%s", cli.Path, last, k.Run(t, "get", "apiservice", "v1beta1.metrics.k8s.io", "-o", "yaml"))
		}
		if !framework.WaitFor(ctx, 60*time.Second, func() bool {
			time.Sleep(time.Second)
			r := cli.Run(t, "top", "pods", "-A")
			last = r.String()
			return r.ExitCode == 0 && strings.Contains(r.Stdout, "burner-")
		}) {
			t.Fatalf("%s top pods -A: %s", cli.Path, last)
		}
	}

	k.MustRunStdin(t, hpaManifest, "apply", "-n", ns, "-f", "-")
	replicas := func() string {
		time.Sleep(time.Second) // one kubectl a second
		return strings.TrimSpace(k.MustRun(t, "get", "deployment", "burner", "-n", ns, "-o", "jsonpath={.spec.replicas}"))
	}
	if !framework.WaitFor(ctx, 120*time.Second, func() bool { return replicas() != "1" }) {
		t.Fatalf("the HPA did not scale the burner up:\n%s", k.MustRun(t, "describe", "hpa", "burner", "-n", ns))
	}
	// Every pod stops burning 45 s after its start; then the HPA scales
	// down after its 20 s window.
	if !framework.WaitFor(ctx, 240*time.Second, func() bool { return replicas() == "1" }) {
		t.Fatalf("the HPA did not scale the burner down:\n%s", k.MustRun(t, "describe", "hpa", "burner", "-n", ns))
	}
	events := k.MustRun(t, "get", "events", "-n", ns, "--field-selector", "reason=SuccessfulRescale", "-o", "jsonpath={.items[*].message}")
	if !strings.Contains(events, "above target") || !strings.Contains(events, "All metrics below target") {
		t.Errorf("SuccessfulRescale events = %q", events)
	}
}
