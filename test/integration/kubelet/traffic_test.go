package kubelet

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/rest"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/pkg/kubelet"
	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
	"kubecore.io/kubecore/test/integration/framework"
)

// requestCounter counts a client's requests by "VERB resource[/sub]",
// VERB being get, list, watch, create, update, patch or delete.
type requestCounter struct {
	mu     sync.Mutex
	counts map[string]int
}

func (c *requestCounter) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		c.mu.Lock()
		c.counts[requestKind(r)]++
		c.mu.Unlock()
		return rt.RoundTrip(r)
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// requestKind is "VERB resource[/subresource]" of an API request.
func requestKind(r *http.Request) string {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(parts) > 0 && parts[0] == "apis" && len(parts) > 1 {
		parts = parts[1:]
	}
	if len(parts) > 2 {
		parts = parts[2:] // api|group, version
	}
	if len(parts) > 2 && parts[0] == "namespaces" {
		parts = parts[2:]
	}
	resource, named := "", len(parts) > 1
	if len(parts) > 0 {
		resource = parts[0]
	}
	if len(parts) > 2 {
		resource += "/" + parts[2]
	}
	verb := map[string]string{http.MethodPost: "create", http.MethodPut: "update", http.MethodPatch: "patch", http.MethodDelete: "delete"}[r.Method]
	if r.Method == http.MethodGet {
		switch q := r.URL.Query(); {
		case q.Get("watch") == "true" || q.Get("watch") == "1":
			verb = "watch"
		case named:
			verb = "get"
		default:
			verb = "list"
		}
	}
	return verb + " " + resource
}

// take returns the counts so far and starts again from zero.
func (c *requestCounter) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.counts
	c.counts = map[string]int{}
	return out
}

// countingClient is a clientset of the API server's admin whose requests
// are counted.
func countingClient(t testing.TB, e *env) (*typed.Clientset, *requestCounter) {
	t.Helper()
	c := &requestCounter{counts: map[string]int{}}
	rc := rest.CopyConfig(e.api.Config)
	rc.WrapTransport = c.wrap
	cs, err := typed.NewForConfig(rc)
	if err != nil {
		t.Fatal(err)
	}
	return cs, c
}

// switchableRuntime is a runtime whose health the test turns off.
type switchableRuntime struct {
	kruntime.Runtime
	down atomic.Bool
}

func (r *switchableRuntime) Status(ctx context.Context) error {
	if r.down.Load() {
		return errors.New("switched off by the test")
	}
	return r.Runtime.Status(ctx)
}

// TestIdleNodeWritesStatusOnlyWhenItChanges: a node whose conditions stay
// the same computes its status often (every 100 ms here) but writes
// nothing and reads no Node while its report frequency (1 h) has not
// passed — only its Lease; when a condition changes it sends one PATCH of
// nodes/status, without a GET first.
func TestIdleNodeWritesStatusOnlyWhenItChanges(t *testing.T) {
	e := newAPIEnv(t)
	cs, counter := countingClient(t, e)
	var rt *switchableRuntime
	e.configure = func(c *kubelet.Config) {
		c.Client = cs
		rt = &switchableRuntime{Runtime: c.Runtime}
		c.Runtime = rt
		c.NodeStatusUpdateFrequency, c.NodeStatusReportFrequency = 100*time.Millisecond, time.Hour
		c.DisableEvents = true // the node's events are not what is counted
	}
	e.startKubelet("fake", true)
	framework.WaitForNodeReady(e.ctx, t, e.cs, e.node, 20*time.Second)
	// Start-up is over once the lease was renewed (not just created) and
	// the pod watch is open.
	framework.WaitUntil(t, 20*time.Second, "a lease renewal and the pod watch", func() bool {
		counter.mu.Lock()
		defer counter.mu.Unlock()
		return counter.counts["update leases"] >= 1 && counter.counts["watch pods"] >= 1
	})
	counter.take()
	framework.WaitUntil(t, 20*time.Second, "three lease renewals", func() bool {
		counter.mu.Lock()
		defer counter.mu.Unlock()
		return counter.counts["update leases"] >= 3
	})
	idle := counter.take()
	for k, n := range idle {
		if k != "update leases" {
			t.Errorf("idle node sent %d %q requests; want only lease updates (all: %v)", n, k, idle)
		}
	}

	rt.down.Store(true)
	framework.WaitFor(t, 20*time.Second, "the node to report Ready=False", func() (bool, error) {
		n, err := e.cs.CoreV1().Nodes().Get(e.ctx, e.node, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady {
				return c.Status == corev1.ConditionFalse && c.Reason == "KubeletNotReady", nil
			}
		}
		return false, nil
	})
	changed := counter.take()
	if changed["patch nodes/status"] != 1 || changed["get nodes"] != 0 || changed["update nodes/status"] != 0 {
		t.Errorf("after a condition changed: %v; want one patch of nodes/status and no node read", changed)
	}
}

// TestConfigMapUpdateReachesVolumeWithoutGet: the kubelet watches the
// config map a pod's volume refers to; an update reaches the volume
// without the kubelet reading the config map with a GET, and the watch
// ends when the pod is gone.
func TestConfigMapUpdateReachesVolumeWithoutGet(t *testing.T) {
	e := newAPIEnv(t)
	cs, counter := countingClient(t, e)
	e.configure = func(c *kubelet.Config) { c.Client = cs }
	e.startKubelet("fake", true)
	cms := e.cs.CoreV1().ConfigMaps(e.ns)
	if _, err := cms.Create(e.ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "conf"}, Data: map[string]string{"k": "one"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := e.pod("reader", "sleep 1000", func(p *corev1.Pod) {
		p.Spec.Volumes = []corev1.Volume{{Name: "conf", VolumeSource: corev1.VolumeSource{
			Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{{ConfigMap: &corev1.ConfigMapProjection{
				LocalObjectReference: corev1.LocalObjectReference{Name: "conf"}}}}}}}}
		p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "conf", MountPath: "/conf"}}
	})
	file := filepath.Join(e.rootDir, "pods", string(pod.UID), "volumes", "kubernetes.io~projected", "conf", "k")
	waitFile := func(want string) {
		t.Helper()
		framework.WaitFor(t, 30*time.Second, fmt.Sprintf("%s to hold %q", file, want), func() (bool, error) {
			b, err := os.ReadFile(file)
			return err == nil && string(b) == want, nil
		})
	}
	waitFile("one")
	if _, err := cms.Update(e.ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "conf"}, Data: map[string]string{"k": "two"}}, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFile("two")
	counts := counter.take()
	if counts["get configmaps"] != 0 || counts["watch configmaps"] == 0 {
		t.Errorf("kubelet requests %v: want config map watches and no config map GET", counts)
	}
	if n := e.kl.ObjectWatches(); n != 1 {
		t.Errorf("kubelet watches %d objects, want 1", n)
	}
	if err := e.cs.CoreV1().Pods(e.ns).Delete(e.ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatal(err)
	}
	e.waitGone(pod.Name, 30*time.Second)
	framework.WaitUntil(t, 30*time.Second, "the kubelet to stop watching the config map", func() bool {
		return e.kl.ObjectWatches() == 0
	})
}
