package servicenet

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/tools/clientcmd"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/test/e2e/framework"
)

// TestAllInOneWithoutRoot: all-in-one started as an unprivileged user
// (nobody, through setpriv) with its defaults comes up in the host-network
// mode and says so: the Node's kubecore.io/pod-network annotation is host,
// a pod gets the HostNetwork Event, and neither the service proxy (no
// table) nor the cluster DNS (no kube-dns Service) runs, each with a log
// line saying why.
func TestAllInOneWithoutRoot(t *testing.T) {
	bin, err := framework.Binary()
	if err != nil {
		t.Fatal(err)
	}
	names, ips := hosts(t, 1)
	// Reachable by nobody: t.TempDir's parents are root's alone.
	dir, err := os.MkdirTemp("", "servicenet-nonroot")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	server := start(t, "setpriv", names[0], filepath.Join(t.TempDir(), "allinone.log"),
		"--reuid=65534", "--regid=65534", "--clear-groups", bin, "all-in-one", "-v", "2",
		"--data-dir", data, "--bind-address", ips[0], "--secure-port", apiPort, "--kubelet-port", "0",
		"--node-name", "node0", "--node-ip", ips[0])
	awaitAllInOne(t, server)
	admin := filepath.Join(t.TempDir(), "admin.kubeconfig")
	run(t, bin, "certs", "kubeconfig", "--data-dir", data, "--user", "e2e-admin", "--groups", "system:masters",
		"--server", "https://"+ips[0]+":"+apiPort, "--out", admin)
	rc, err := clientcmd.BuildConfigFromFlags("", admin)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := typed.NewForConfig(rc)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	waitFor(t, 120*time.Second, "node0 ready in host-network mode", func() error {
		n, err := cs.CoreV1().Nodes().Get(ctx, "node0", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if got := n.Annotations["kubecore.io/pod-network"]; got != "host" {
			return fmt.Errorf("annotation kubecore.io/pod-network = %q, want host", got)
		}
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
				return nil
			}
		}
		return errors.New("not ready")
	})
	// Logged as each component starts, before the Node registers.
	for _, line := range []string{
		`"The service proxy is off: cluster IPs are not routed on this node" reason="the proxy programs nftables and needs root; the kubelet runs as uid 65534"`,
		`"The cluster DNS is off: pods get the node's resolv.conf"`,
		`"Pods share the host's network: the pod network needs root, ip and nsenter" reason="the kubelet runs as uid 65534, not root"`,
	} {
		if !server.logHas(line) {
			t.Errorf("the log lacks %s", line)
		}
	}
	if _, err := cs.CoreV1().Pods("default").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "sleeper"},
		Spec: corev1.PodSpec{TerminationGracePeriodSeconds: new(int64), Containers: []corev1.Container{{Name: "sleep", Image: "busybox", Command: []string{"sleep", "300"}}}}},
		metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 120*time.Second, "the pod's HostNetwork Event", func() error {
		evs, err := cs.CoreV1().Events("default").List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=sleeper,reason=HostNetwork"})
		if err != nil {
			return err
		}
		if len(evs.Items) == 0 {
			return errors.New("no event")
		}
		return nil
	})
	if _, err := cs.CoreV1().Services("kube-system").Get(ctx, "kube-dns", metav1.GetOptions{}); err == nil {
		t.Error("kube-system/kube-dns exists: the cluster DNS ran without root")
	}
	if tableExists(t, names[0]) {
		t.Error("the proxy's table is in node0's namespace: the proxy ran without root")
	}
	// The pod goes before the all-in-one stops.
	if err := cs.CoreV1().Pods("default").Delete(ctx, "sleeper", metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 60*time.Second, "the pod gone", func() error {
		if _, err := cs.CoreV1().Pods("default").Get(ctx, "sleeper", metav1.GetOptions{}); err == nil {
			return errors.New("still there")
		}
		return nil
	})
}
