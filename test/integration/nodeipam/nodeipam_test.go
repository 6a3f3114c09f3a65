package nodeipam

import (
	"context"
	"net/netip"
	"sync"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/fields"
	"kubecore.io/client/informers"
	"kubecore.io/client/tools/record"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/pkg/controller/nodeipam"
	"kubecore.io/kubecore/test/integration/framework"
)

// runController runs a node IPAM controller over a cluster CIDR of two
// /24s until the returned stop is called.
func runController(t *testing.T, client *typed.Clientset) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	factory := informers.NewSharedInformerFactory(client)
	broadcaster := record.NewBroadcaster(ctx, record.ClientSink(func(ns string) record.EventClient { return client.CoreV1().Events(ns) }), record.Options{})
	scheme, err := typed.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	c, err := nodeipam.New(client, factory, nodeipam.Options{
		ClusterCIDR:      netip.MustParsePrefix("10.250.0.0/23"),
		NodeCIDRMaskSize: 24,
		Recorder:         broadcaster.NewRecorder(scheme, corev1.EventSource{Component: "node-controller"}),
	})
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := c.Run(ctx, 2); err != nil {
			t.Error(err)
		}
	})
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			c.ShutDown()
			wg.Wait()
		})
	}
	t.Cleanup(stop)
	return stop
}

func createNode(t *testing.T, client *typed.Clientset, name string) {
	t.Helper()
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := client.CoreV1().Nodes().Create(context.Background(), n, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.CoreV1().Nodes().Delete(context.Background(), name, metav1.DeleteOptions{}) })
}

func deleteNode(t *testing.T, client *typed.Clientset, name string) {
	t.Helper()
	if err := client.CoreV1().Nodes().Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}

// waitCIDR waits for the Node's pod CIDR and checks podCIDRs agrees.
func waitCIDR(t *testing.T, client *typed.Clientset, name string) string {
	t.Helper()
	var got *corev1.Node
	framework.WaitUntil(t, 30*time.Second, "node "+name+" gets a pod CIDR", func() bool {
		n, err := client.CoreV1().Nodes().Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return false
		}
		got = n
		return n.Spec.PodCIDR != ""
	})
	if len(got.Spec.PodCIDRs) != 1 || got.Spec.PodCIDRs[0] != got.Spec.PodCIDR {
		t.Fatalf("node %s: podCIDR %q, podCIDRs %q", name, got.Spec.PodCIDR, got.Spec.PodCIDRs)
	}
	return got.Spec.PodCIDR
}

// waitEvent waits for a CIDRNotAvailable Event of the Node.
func waitEvent(t *testing.T, client *typed.Clientset, name string) {
	t.Helper()
	framework.WaitUntil(t, 30*time.Second, "a "+nodeipam.ReasonCIDRNotAvailable+" Event on node "+name, func() bool {
		evs, err := client.CoreV1().Events("default").List(context.Background(), metav1.ListOptions{
			FieldSelector: fields.OneTermEqualSelector("involvedObject.name", name).String()})
		if err != nil {
			return false
		}
		for _, e := range evs.Items {
			if e.Reason == nodeipam.ReasonCIDRNotAvailable && e.InvolvedObject.Kind == "Node" {
				return true
			}
		}
		return false
	})
}

// TestAllocateReleaseRestart fills a cluster CIDR of two ranges, sees the
// third Node told there is no range, frees one by deleting its Node, and
// restarts the controller to check it rebuilds what is taken from the
// Nodes rather than handing a range out twice.
func TestAllocateReleaseRestart(t *testing.T) {
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	client := s.Clientset(t)
	stop := runController(t, client)

	createNode(t, client, "a")
	createNode(t, client, "b")
	a, b := waitCIDR(t, client, "a"), waitCIDR(t, client, "b")
	if a == b {
		t.Fatalf("nodes a and b were both given %s", a)
	}
	for _, c := range []string{a, b} {
		if c != "10.250.0.0/24" && c != "10.250.1.0/24" {
			t.Fatalf("pod CIDR %s is not a /24 of 10.250.0.0/23", c)
		}
	}

	createNode(t, client, "c")
	waitEvent(t, client, "c")
	deleteNode(t, client, "a")
	if c := waitCIDR(t, client, "c"); c != a {
		t.Fatalf("node c got %s, want the range %s freed by node a", c, a)
	}

	// A new controller knows only what the Nodes say: b and c hold both
	// ranges, so d waits until b goes.
	stop()
	runController(t, client)
	createNode(t, client, "d")
	waitEvent(t, client, "d")
	n, err := client.CoreV1().Nodes().Get(context.Background(), "d", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n.Spec.PodCIDR != "" {
		t.Fatalf("node d was given %s while both ranges are taken", n.Spec.PodCIDR)
	}
	deleteNode(t, client, "b")
	if d := waitCIDR(t, client, "d"); d != b {
		t.Fatalf("node d got %s, want the range %s freed by node b", d, b)
	}
}
