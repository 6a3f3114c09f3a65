package kubelet

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/kubelet"
	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
	"kubecore.io/kubecore/pkg/kubelet/runtime/process"
)

func manifest(ns, name, script string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata:
  name: %s
  namespace: %s
spec:
  containers:
  - name: main
    image: busybox
    command: ["sh", "-c", %q]
`, name, ns, script)
}

func TestStaticPodsGetMirrorPods(t *testing.T) {
	e := newAPIEnv(t)
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("web.yaml", manifest(e.ns, "web", "echo v1; exec sleep 1000"))
	write("broken.yaml", "apiVersion: v1\nkind: Pod\nmetadata: [not, a, map\n")
	write("notes.txt", "not a manifest")
	e.configure = func(c *kubelet.Config) {
		c.StaticPodPath, c.FileCheckFrequency = dir, 200*time.Millisecond
	}
	e.startKubelet("process", true)

	name := "web-" + e.node
	mirror := e.waitFor(name, 20*time.Second, "a Running mirror pod", func(p *corev1.Pod) bool {
		return p.Annotations["kubernetes.io/config.mirror"] != "" && p.Status.Phase == corev1.PodRunning && isReady(p)
	})
	if mirror.Spec.NodeName != e.node || mirror.Annotations["kubernetes.io/config.source"] != "file" ||
		mirror.Annotations["kubernetes.io/config.mirror"] != mirror.Annotations["kubernetes.io/config.hash"] {
		t.Errorf("mirror pod: node %q annotations %v", mirror.Spec.NodeName, mirror.Annotations)
	}
	if len(mirror.OwnerReferences) != 1 || mirror.OwnerReferences[0].Kind != "Node" {
		t.Errorf("mirror pod owners = %+v, want the node", mirror.OwnerReferences)
	}
	firstID := containerStatus(mirror).ContainerID

	// A mirror pod deleted through the API comes back; the pod keeps running.
	if err := e.cs.CoreV1().Pods(e.ns).Delete(e.ctx, name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatal(err)
	}
	e.waitFor(name, 20*time.Second, "re-created", func(p *corev1.Pod) bool {
		cs := containerStatus(p)
		return p.UID != mirror.UID && cs != nil && cs.ContainerID == firstID && p.Status.Phase == corev1.PodRunning
	})

	// A changed manifest is a new pod: new hash, new container.
	write("web.yaml", manifest(e.ns, "web", "echo v2; exec sleep 1000"))
	e.waitFor(name, 30*time.Second, "the new version Running", func(p *corev1.Pod) bool {
		cs := containerStatus(p)
		return p.Annotations["kubernetes.io/config.mirror"] != mirror.Annotations["kubernetes.io/config.mirror"] &&
			p.Status.Phase == corev1.PodRunning && cs != nil && cs.ContainerID != firstID
	})

	// A removed manifest removes the pod and its mirror.
	if err := os.Remove(filepath.Join(dir, "web.yaml")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, err := e.cs.CoreV1().Pods(e.ns).Get(e.ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("mirror pod still there after its manifest was removed: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if pods := e.kl.Pods(); len(pods) != 0 {
		t.Errorf("kubelet still runs %d pods", len(pods))
	}
}

func TestStandaloneKubeletRunsStaticPods(t *testing.T) {
	dir, root := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "solo.json"), []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"solo"},
"spec":{"containers":[{"name":"main","image":"busybox","command":["sh","-c","exec sleep 1000"]}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	rt, err := process.New(process.Options{HostIP: "127.0.0.1", StateDir: filepath.Join(root, "runtime"), ShimCommand: shimCommand()})
	if err != nil {
		t.Fatal(err)
	}
	kl, err := kubelet.New(kubelet.Config{NodeName: "solo-node", Runtime: rt, RootDir: root, NodeIP: "127.0.0.1",
		StaticPodPath: dir, FileCheckFrequency: 200 * time.Millisecond, RelistPeriod: 200 * time.Millisecond, StopPodsOnExit: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- kl.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	deadline := time.Now().Add(20 * time.Second)
	for {
		list, _ := rt.ListContainers(ctx, "")
		if len(list) == 1 && list[0].State == kruntime.ContainerRunning {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("standalone static pod not running: %+v", list)
		}
		time.Sleep(50 * time.Millisecond)
	}
	pods := kl.Pods()
	if len(pods) != 1 || pods[0].Name != "solo-solo-node" || pods[0].Namespace != "default" || !strings.HasPrefix(string(pods[0].UID), "") {
		t.Errorf("pods = %+v", pods)
	}
}
