package fieldmanager

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
	"sigs.k8s.io/yaml"
)

// createCPU is the CPU one small pod create costs end to end in the
// in-process API server of the integration tests (client, server and
// embedded etcd; 5,000 creates by 16 writers, 2026-11-27, 2 shared cores):
// managedFields may add at most 15 % of it.
const createCPU = 1000 * time.Microsecond

func target() float64 { return 0.15 * float64(createCPU.Microseconds()) }

const benchPod = `
apiVersion: v1
kind: Pod
metadata:
  name: web-0
  namespace: default
  uid: 9b1c3c5e-2d4e-4f0a-9a53-7a0e8e7d2f10
  resourceVersion: "1234"
  creationTimestamp: "2026-11-27T10:00:00Z"
  labels: {app: web, tier: frontend, pod-template-hash: 7d9f8c6b5}
  annotations: {kubectl.kubernetes.io/restartedAt: "2026-11-27T09:00:00Z"}
  ownerReferences:
  - {apiVersion: apps/v1, kind: ReplicaSet, name: web-7d9f8c6b5, uid: 1f2e3d4c-5b6a-4978-8a9b-0c1d2e3f4a5b, controller: true, blockOwnerDeletion: true}
spec:
  restartPolicy: Always
  terminationGracePeriodSeconds: 30
  dnsPolicy: ClusterFirst
  serviceAccountName: default
  schedulerName: default-scheduler
  nodeName: node-1
  tolerations:
  - {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300}
  - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 300}
  volumes:
  - name: data
    emptyDir: {}
  containers:
  - name: app
    image: nginx:1.27
    imagePullPolicy: IfNotPresent
    args: [--port, "8080"]
    ports: [{name: http, containerPort: 8080, protocol: TCP}]
    env:
    - {name: MODE, value: production}
    - {name: LOG_LEVEL, value: info}
    resources:
      requests: {cpu: 100m, memory: 128Mi}
      limits: {cpu: "1", memory: 256Mi}
    volumeMounts: [{name: data, mountPath: /data}]
    readinessProbe:
      httpGet: {path: /healthz, port: 8080}
      periodSeconds: 5
    terminationMessagePath: /dev/termination-log
    terminationMessagePolicy: File
status:
  phase: Running
  podIP: 10.0.0.12
  hostIP: 192.168.1.10
  conditions:
  - {type: Ready, status: "True", lastTransitionTime: "2026-11-27T10:00:05Z"}
  - {type: PodScheduled, status: "True", lastTransitionTime: "2026-11-27T10:00:00Z"}
`

func benchObject[T runtime.Object](b *testing.B, text string, obj T) T {
	b.Helper()
	data, err := yaml.YAMLToJSON([]byte(text))
	if err != nil {
		b.Fatal(err)
	}
	if err := json.Unmarshal(data, obj); err != nil {
		b.Fatal(err)
	}
	return obj
}

// deployment30 is a Deployment of 30 containers, each with ports, env and
// resources.
func deployment30(replicas int) string {
	s := fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: big, namespace: default, labels: {app: big}}
spec:
  replicas: %d
  selector: {matchLabels: {app: big}}
  template:
    metadata: {labels: {app: big}}
    spec:
      containers:
`, replicas)
	for i := range 30 {
		s += fmt.Sprintf(`      - name: c%02d
        image: registry.example/app-%02d:v1
        args: [--id, "%d"]
        ports: [{containerPort: %d, protocol: TCP}, {containerPort: %d, protocol: UDP}]
        env: [{name: A, value: "1"}, {name: B, value: "2"}, {name: C, value: "3"}]
        resources: {requests: {cpu: 10m, memory: 16Mi}, limits: {cpu: 100m, memory: 64Mi}}
        volumeMounts: [{name: data, mountPath: /data/%02d}]
`, i, i, i, 8000+i, 9000+i, i)
	}
	return s + "      volumes: [{name: data, emptyDir: {}}]\n"
}

func podManager(b *testing.B) *FieldManager {
	b.Helper()
	f, err := New(Options{Kind: podKind, TypeConverter: builtin(b), New: func() runtime.Object { return &corev1.Pod{} }})
	if err != nil {
		b.Fatal(err)
	}
	return f
}

// rounds is how many operations one benchmark iteration runs, so that
// `make bench` (-benchtime 1x) still measures more than one.
const rounds = 50

// perOp is the CPU µs per operation since start (the process's CPU time,
// GC included), or the wall time where CPU time is not measured.
func perOp(b *testing.B, start time.Duration, ops int) float64 {
	if end := cpuTime(); end > 0 {
		return float64((end - start).Nanoseconds()) / float64(b.N*ops) / 1000
	}
	return float64(b.Elapsed().Nanoseconds()) / float64(b.N*ops) / 1000
}

// BenchmarkUpdatePodCreate is what a pod create adds: managedFields for
// one manager, from an empty live object.
func BenchmarkUpdatePodCreate(b *testing.B) {
	f := podManager(b)
	pod := benchObject(b, benchPod, &corev1.Pod{})
	if _, err := f.Update(nil, pod, "kube-controller-manager"); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		for range rounds {
			pod.ManagedFields = nil
			if _, err := f.Update(nil, pod, "kube-controller-manager"); err != nil {
				b.Fatal(err)
			}
		}
	}
	us := perOp(b, start, rounds)
	b.ReportMetric(us, "cpu-µs/op")
	b.Logf("figure: managedFields on a full pod create (probes, resources, status) %.1f µs CPU (target: ≤ %.0f µs; this pod's own create costs more than the small one's)", us, target())
}

// BenchmarkUpdateSmallPodCreate is the pod the integration create
// benchmark writes (two labels, a node, one container), whose whole create
// costs createCPU.
func BenchmarkUpdateSmallPodCreate(b *testing.B) {
	f := podManager(b)
	pod := benchObject(b, `
apiVersion: v1
kind: Pod
metadata: {name: pod-00001, namespace: bench, labels: {app: app-1, tier: web}}
spec:
  nodeName: node-1
  containers: [{name: main, image: "registry.example/app:v1"}]
`, &corev1.Pod{})
	if _, err := f.Update(nil, pod, "informer.test"); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		for range rounds {
			pod.ManagedFields = nil
			if _, err := f.Update(nil, pod, "informer.test"); err != nil {
				b.Fatal(err)
			}
		}
	}
	us := perOp(b, start, rounds)
	b.ReportMetric(us, "cpu-µs/op")
	b.Logf("figure: managedFields on a small pod create %.1f µs CPU (target: ≤ %.0f µs, 15 %% of the %v CPU of its create end to end)", us, target(), createCPU)
}

// BenchmarkUpdatePod is a status-like change of a live pod that already
// has managedFields.
func BenchmarkUpdatePod(b *testing.B) {
	f := podManager(b)
	live := benchObject(b, benchPod, &corev1.Pod{})
	out, err := f.Update(nil, live, "kube-controller-manager")
	if err != nil {
		b.Fatal(err)
	}
	live = out.(*corev1.Pod)
	next := live.DeepCopy()
	next.Labels["extra"] = "x"
	next.Status.Phase = "Succeeded"
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		for range rounds {
			next.ManagedFields = nil
			if _, err := f.Update(live, next, "kubelet"); err != nil {
				b.Fatal(err)
			}
		}
	}
	us := perOp(b, start, rounds)
	b.ReportMetric(us, "cpu-µs/op")
	b.Logf("figure: managedFields on a pod update %.1f µs CPU (target: ≤ %.0f µs)", us, target())
}

// BenchmarkUpdateDeployment30 changes one image of a 30-container
// Deployment.
func BenchmarkUpdateDeployment30(b *testing.B) {
	c := newClock()
	f := deploymentManager(b, c, "", nil)
	live := benchObject(b, deployment30(3), &appsv1.Deployment{})
	out, err := f.Update(nil, live, "kubectl-create")
	if err != nil {
		b.Fatal(err)
	}
	live = out.(*appsv1.Deployment)
	next := live.DeepCopy()
	next.Spec.Template.Spec.Containers[7].Image = "registry.example/app-07:v2"
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		for range rounds / 5 {
			next.ManagedFields = nil
			if _, err := f.Update(live, next, "kubectl-edit"); err != nil {
				b.Fatal(err)
			}
		}
	}
	us := perOp(b, start, rounds/5)
	b.ReportMetric(us, "cpu-µs/op")
	b.Logf("figure: managedFields on a 30-container Deployment update %.1f µs CPU (target: none; 30x a pod's fields)", us)
}

// BenchmarkApplyDeployment30 applies a changed replica count and image to
// a 30-container Deployment another manager also writes.
func BenchmarkApplyDeployment30(b *testing.B) {
	c := newClock()
	f := deploymentManager(b, c, "", nil)
	first := config(b, deployment30(3))
	live, err := f.Apply(nil, first, "helm", false)
	if err != nil {
		b.Fatal(err)
	}
	cfg := config(b, deployment30(5))
	containers := cfg["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)
	containers[7].(map[string]any)["image"] = "registry.example/app-07:v2"
	var samples []time.Duration
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		for range 20 {
			start := time.Now()
			if _, err := f.Apply(live, cfg, "helm", false); err != nil {
				b.Fatal(err)
			}
			samples = append(samples, time.Since(start))
		}
	}
	cpu := perOp(b, start, 20)
	slices.Sort(samples)
	p50, p99 := samples[len(samples)/2], samples[len(samples)*99/100]
	b.ReportMetric(cpu, "cpu-µs/op")
	b.ReportMetric(float64(p50.Microseconds()), "p50-µs")
	b.ReportMetric(float64(p99.Microseconds()), "p99-µs")
	b.Logf("figure: apply of a 30-container Deployment p50 %v p99 %v wall, %.0f µs CPU each, over %d applies (target: p50 ≤ 5 ms)", p50, p99, cpu, len(samples))
}

// BenchmarkToTyped compares reading a typed object by reflection (what
// Update does) with a JSON round trip to a map first.
func BenchmarkToTyped(b *testing.B) {
	c := newClock()
	f := deploymentManager(b, c, "", nil)
	d := benchObject(b, deployment30(3), &appsv1.Deployment{})
	b.Run("reflect", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			tv, err := f.toTyped(d, true)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := tv.ToFieldSet(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			data, err := json.Marshal(d)
			if err != nil {
				b.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(data, &m); err != nil {
				b.Fatal(err)
			}
			tv, err := f.typ.FromUnstructured(m, typed.AllowDuplicates)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := tv.ToFieldSet(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
