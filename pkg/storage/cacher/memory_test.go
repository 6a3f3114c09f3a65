package cacher

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strconv"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	kruntime "kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/protobuf"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/apimachinery/pkg/watch"
)

// scalePod is a pod as `make bench-scale` stores them: a Deployment's
// replica, bound, running, with the service-account volume admission adds
// and the managedFields of its three writers.
func scalePod(i int) *corev1.Pod {
	ts := metav1.NewTime(time.Date(2026, 11, 28, 7, 0, i%60, 0, time.UTC))
	name := fmt.Sprintf("big-%03d-6f9c8d7b5-%05d", i/1000, i)
	node := fmt.Sprintf("hollow-node-%d", i%500)
	ctrl, grace, prio, expiry := true, int64(30), int32(0), int64(3607)
	mode := int32(420)
	fields := func(s string) *metav1.FieldsV1 { return &metav1.FieldsV1{Raw: []byte(s)} }
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, GenerateName: fmt.Sprintf("big-%03d-6f9c8d7b5-", i/1000), Namespace: "bench-scale",
			UID: types.UID(fmt.Sprintf("0b6f2c1e-8d4a-4f7e-9c3b-%012d", i)), ResourceVersion: "1",
			CreationTimestamp: ts,
			Labels:            map[string]string{"app": fmt.Sprintf("big-%03d", i/1000), "pod-template-hash": "6f9c8d7b5"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: fmt.Sprintf("big-%03d-6f9c8d7b5", i/1000),
				UID: "5d1c7a2e-3b4f-4e6a-8f9d-0a1b2c3d4e5f", Controller: &ctrl, BlockOwnerDeletion: &ctrl}},
			ManagedFields: []metav1.ManagedFieldsEntry{
				{Manager: "kube-controller-manager", Operation: "Update", APIVersion: "v1", Time: &ts, FieldsType: "FieldsV1",
					FieldsV1: fields(`{"f:metadata":{"f:generateName":{},"f:labels":{".":{},"f:app":{},"f:pod-template-hash":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"5d1c7a2e-3b4f-4e6a-8f9d-0a1b2c3d4e5f\"}":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"pause\"}":{".":{},"f:command":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:resources":{},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:enableServiceLinks":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}`)},
				{Manager: "kube-scheduler", Operation: "Update", APIVersion: "v1", Time: &ts, FieldsType: "FieldsV1", Subresource: "status",
					FieldsV1: fields(`{"f:status":{"f:conditions":{".":{},"k:{\"type\":\"PodScheduled\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}}}}}`)},
				{Manager: "kubelet", Operation: "Update", APIVersion: "v1", Time: &ts, FieldsType: "FieldsV1", Subresource: "status",
					FieldsV1: fields(`{"f:status":{"f:conditions":{"k:{\"type\":\"ContainersReady\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Initialized\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Ready\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}}},"f:containerStatuses":{},"f:hostIP":{},"f:hostIPs":{},"f:phase":{},"f:podIP":{},"f:podIPs":{".":{},"k:{\"ip\":\"10.244.1.7\"}":{".":{},"f:ip":{}}},"f:startTime":{}}}`)},
			},
		},
		Spec: corev1.PodSpec{
			Volumes: []corev1.Volume{{Name: fmt.Sprintf("kube-api-access-%05d", i), VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
				DefaultMode: &mode,
				Sources: []corev1.VolumeProjection{
					{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: &expiry}},
					{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"}, Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
					{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "namespace", FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
				},
			}}}},
			Containers: []corev1.Container{{
				Name: "pause", Image: "registry.k8s.io/pause:3.10", Command: []string{"/pause"},
				VolumeMounts:           []corev1.VolumeMount{{Name: fmt.Sprintf("kube-api-access-%05d", i), ReadOnly: true, MountPath: "/var/run/secrets/kubernetes.io/serviceaccount"}},
				TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: corev1.TerminationMessageReadFile, ImagePullPolicy: corev1.PullIfNotPresent,
			}},
			RestartPolicy: corev1.RestartPolicyAlways, TerminationGracePeriodSeconds: &grace, DNSPolicy: corev1.DNSClusterFirst,
			ServiceAccountName: "default", NodeName: node, SecurityContext: &corev1.PodSecurityContext{}, SchedulerName: "default-scheduler",
			Tolerations: []corev1.Toleration{
				{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &expiry},
				{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &expiry},
			},
			Priority: &prio,
		},
		Status: corev1.PodStatus{
			Phase: corev1.PodRunning,
			Conditions: []corev1.PodCondition{
				{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: ts},
				{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: ts},
				{Type: corev1.ContainersReady, Status: corev1.ConditionTrue, LastTransitionTime: ts},
				{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: ts},
			},
			HostIP: "10.0.1.7", HostIPs: []corev1.HostIP{{IP: "10.0.1.7"}},
			PodIP: fmt.Sprintf("10.244.%d.%d", i/250, i%250), PodIPs: []corev1.PodIP{{IP: fmt.Sprintf("10.244.%d.%d", i/250, i%250)}},
			StartTime: &ts, QOSClass: corev1.PodQOSBestEffort,
			ContainerStatuses: []corev1.ContainerStatus{{
				Name: "pause", Ready: true, Image: "registry.k8s.io/pause:3.10", ImageID: "registry.k8s.io/pause@sha256:ee6521f290b2168b6e0935a181d4cff9be1ac3f505666ef0e3c98fae8199917a",
				ContainerID: fmt.Sprintf("hollow://%064d", i), State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: ts}},
			}},
		},
	}
}

// cacheMemoryPerPod feeds a cache n pods of scalePod as ADDED events, each
// decoded from its JSON as the etcd storage does, and returns the heap the
// cache retains per pod: as the events leave it (decoded, with attributes
// and indexes, and any encoding made on the way), then with the protobuf
// encoding its watchers of the components get, then with the JSON too.
func cacheMemoryPerPod(t testing.TB, n int) (decoded, withProtobuf, withJSON float64) {
	feed := &feedStorage{events: make(chan watch.Event)}
	heap := func() float64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return float64(m.HeapAlloc)
	}
	c := newTestCacher(t, feed, func(cfg *Config) { cfg.RequestProgress = nil })
	base := heap()
	for i := range n {
		data, err := json.Marshal(scalePod(i))
		if err != nil {
			t.Fatal(err)
		}
		p := &corev1.Pod{}
		if err := json.Unmarshal(data, p); err != nil {
			t.Fatal(err)
		}
		p.ResourceVersion = strconv.Itoa(i + 2)
		feed.events <- watch.Event{Type: watch.Added, Object: p}
	}
	for c.ResourceVersion() < uint64(n+1) {
		time.Sleep(time.Millisecond)
	}
	// The ring's events hold their entries, as they would in a cluster
	// (for the last 1,000 writes): leave them out of the figure.
	c.mu.Lock()
	clear(c.ring)
	c.ringHead, c.ringLen = 0, 0
	entries := c.sorted
	c.mu.Unlock()
	if len(entries) != n {
		t.Fatalf("cached %d pods, want %d", len(entries), n)
	}
	decoded = (heap() - base) / float64(n)
	scheme := kruntime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	pb := protobuf.NewSerializer(scheme)
	encodePB := func(obj kruntime.Object) ([]byte, error) { return kruntime.Encode(pb, obj) }
	for _, e := range entries {
		if _, err := e.enc.Protobuf(encodePB); err != nil {
			t.Fatal(err)
		}
	}
	withProtobuf = (heap() - base) / float64(n)
	for _, e := range entries {
		if _, err := e.enc.JSON(); err != nil {
			t.Fatal(err)
		}
	}
	entries = nil
	withJSON = (heap() - base) / float64(n)
	runtime.KeepAlive(c)
	return decoded, withProtobuf, withJSON
}

// cacheBytesPerPodBudget bounds the heap the watch cache keeps per pod
// with the encoding the components read (protobuf): the decoded object
// (~7 KiB for scalePod), its attributes and that encoding (~2.7 KiB) come
// to ~10 KiB; a JSON encoding made for every event besides (4.8 KiB) would
// not fit.
const cacheBytesPerPodBudget = 12 << 10

// TestCacheMemoryPerPod guards the watch cache's memory per object: one
// decoded copy, compact attributes, an encoding only once someone needs
// it (a cache whose watchers all read protobuf holds no JSON).
func TestCacheMemoryPerPod(t *testing.T) {
	if testing.Short() {
		t.Skip("fills a cache with 3,000 pods")
	}
	decoded, withPB, withJSON := cacheMemoryPerPod(t, 3000)
	t.Logf("figure: watch cache heap per pod: %.0f B decoded, %.0f B with protobuf, %.0f B with JSON too (target: ≤ %d B with protobuf)",
		decoded, withPB, withJSON, cacheBytesPerPodBudget)
	if withPB > cacheBytesPerPodBudget {
		t.Errorf("the watch cache keeps %.0f B per pod with its protobuf encoding, want ≤ %d", withPB, cacheBytesPerPodBudget)
	}
}

// BenchmarkCacheMemoryPerPod reports the watch cache's heap per pod.
func BenchmarkCacheMemoryPerPod(b *testing.B) {
	var decoded, withPB, withJSON float64
	for b.Loop() {
		decoded, withPB, withJSON = cacheMemoryPerPod(b, 5000)
	}
	b.ReportMetric(decoded, "B/pod-decoded")
	b.ReportMetric(withPB, "B/pod-with-protobuf")
	b.ReportMetric(withJSON, "B/pod-with-json")
	b.Logf("figure: watch cache heap per pod: %.0f B decoded, %.0f B with protobuf, %.0f B with JSON too (target: ≤ %d B with protobuf)",
		decoded, withPB, withJSON, cacheBytesPerPodBudget)
}
