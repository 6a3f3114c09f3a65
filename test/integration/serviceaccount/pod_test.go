package serviceaccount

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/kubelet"
	"kubecore.io/kubecore/pkg/kubelet/runtime/process"
	"kubecore.io/kubecore/test/integration/framework"
)

const mountPath = "/var/run/secrets/kubernetes.io/serviceaccount"

// waitDefaultSA waits for the controller to make ns's default service
// account.
func (s *server) waitDefaultSA(ctx context.Context, ns string) {
	s.t.Helper()
	eventually(s.t, "the default service account of "+ns, func() error {
		_, err := s.admin.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		return err
	})
}

// TestPodAdmission: pods get the API access volume mounted in every
// container (unless they or their service account say not to, or a
// container mounts something there) and the default NoExecute
// tolerations of not-ready and unreachable nodes.
func TestPodAdmission(t *testing.T) {
	s := start(t)
	s.runControllers()
	ctx := context.Background()
	ns := s.s.CreateNamespace(t, "admission")
	s.waitDefaultSA(ctx, ns)
	// Created with automount off in one write: admission reads service
	// accounts from the watch cache (or etcd when the cache has none yet),
	// so an update right before a pod create could still be unseen.
	quiet := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "quiet"}, AutomountServiceAccountToken: ptr(false)}
	if _, err := s.admin.CoreV1().ServiceAccounts(ns).Create(ctx, quiet, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	create := func(name string, mutate func(*corev1.Pod)) *corev1.Pod {
		t.Helper()
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PodSpec{
			InitContainers: []corev1.Container{{Name: "init", Image: "busybox"}},
			Containers:     []corev1.Container{{Name: "a", Image: "busybox"}, {Name: "b", Image: "busybox"}},
		}}
		if mutate != nil {
			mutate(p)
		}
		out, err := s.admin.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create pod %s: %v", name, err)
		}
		return out
	}
	volume := func(p *corev1.Pod) *corev1.Volume {
		for i := range p.Spec.Volumes {
			if strings.HasPrefix(p.Spec.Volumes[i].Name, "kube-api-access-") {
				return &p.Spec.Volumes[i]
			}
		}
		return nil
	}
	mounted := func(c corev1.Container, name string) bool {
		for _, m := range c.VolumeMounts {
			if m.Name == name && m.MountPath == mountPath && m.ReadOnly {
				return true
			}
		}
		return false
	}

	p := create("plain", nil)
	v := volume(p)
	if v == nil || v.Projected == nil || len(v.Projected.Sources) != 3 || len(v.Name) != len("kube-api-access-")+5 {
		t.Fatalf("volumes %+v", p.Spec.Volumes)
	}
	src := v.Projected.Sources
	if tok := src[0].ServiceAccountToken; tok == nil || tok.Path != "token" || *tok.ExpirationSeconds != 3607 ||
		src[1].ConfigMap == nil || src[1].ConfigMap.Name != "kube-root-ca.crt" || src[1].ConfigMap.Items[0].Path != "ca.crt" ||
		src[2].DownwardAPI == nil || src[2].DownwardAPI.Items[0].FieldRef.FieldPath != "metadata.namespace" || *v.Projected.DefaultMode != 0o644 {
		t.Errorf("API access volume %+v", v.Projected)
	}
	for _, c := range append(p.Spec.InitContainers, p.Spec.Containers...) {
		if !mounted(c, v.Name) {
			t.Errorf("container %s mounts %+v", c.Name, c.VolumeMounts)
		}
	}
	if len(p.Spec.Tolerations) != 2 {
		t.Fatalf("tolerations %+v", p.Spec.Tolerations)
	}
	for i, key := range []string{"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"} {
		tol := p.Spec.Tolerations[i]
		if tol.Key != key || tol.Operator != corev1.TolerationOpExists || tol.Effect != corev1.TaintEffectNoExecute || tol.TolerationSeconds == nil || *tol.TolerationSeconds != 300 {
			t.Errorf("toleration %d: %+v", i, tol)
		}
	}

	if v := volume(create("off", func(p *corev1.Pod) { p.Spec.AutomountServiceAccountToken = ptr(false) })); v != nil {
		t.Errorf("automountServiceAccountToken false on the pod: %+v", v)
	}
	if v := volume(create("quiet", func(p *corev1.Pod) { p.Spec.ServiceAccountName = "quiet" })); v != nil {
		t.Errorf("automountServiceAccountToken false on the service account: %+v", v)
	}
	if v := volume(create("quiet-but-asked", func(p *corev1.Pod) {
		p.Spec.ServiceAccountName, p.Spec.AutomountServiceAccountToken = "quiet", ptr(true)
	})); v == nil {
		t.Error("a pod asking for the token over its service account's default got none")
	}
	own := create("own", func(p *corev1.Pod) {
		p.Spec.Volumes = []corev1.Volume{{Name: "mine", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
		p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "mine", MountPath: mountPath}}
		p.Spec.Tolerations = []corev1.Toleration{{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}}
	})
	if v := volume(own); v == nil || mounted(own.Spec.Containers[0], v.Name) || !mounted(own.Spec.Containers[1], v.Name) {
		t.Errorf("a container mounting its own volume at the path: %+v", own.Spec.Containers)
	}
	if len(own.Spec.Tolerations) != 2 || own.Spec.Tolerations[0].TolerationSeconds != nil || own.Spec.Tolerations[1].Key != "node.kubernetes.io/unreachable" {
		t.Errorf("a pod tolerating not-ready forever: %+v", own.Spec.Tolerations)
	}
	cm, err := s.admin.CoreV1().ConfigMaps(ns).Get(ctx, "kube-root-ca.crt", metav1.GetOptions{})
	if err != nil || !strings.HasPrefix(cm.Data["ca.crt"], "-----BEGIN CERTIFICATE-----") {
		t.Errorf("kube-root-ca.crt: %+v, %v", cm, err)
	}
}

// TestProjectedTokenInPod: a kubelet running with its node's certificate
// and the process runtime gives a pod its projected token, CA and
// namespace at the well-known path; the pod's process calls the API
// server with them (curl, verifying the server with the CA) and gets
// 403, then 200 once its service account is bound to view — never 401.
func TestProjectedTokenInPod(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("the process runtime mounts volumes in a private mount namespace, which needs root")
	}
	s := start(t)
	s.runControllers()
	ctx := context.Background()
	ns := s.s.CreateNamespace(t, "projected")
	s.waitDefaultSA(ctx, ns)
	eventually(t, "kube-root-ca.crt", func() error {
		_, err := s.admin.CoreV1().ConfigMaps(ns).Get(ctx, "kube-root-ca.crt", metav1.GetOptions{})
		return err
	})
	const node = "sa-node"
	nodeClient := s.clients(s.config("", "system:node:"+node, "system:nodes"))
	root := t.TempDir()
	rt, err := process.New(process.Options{HostIP: "127.0.0.1", StateDir: filepath.Join(root, "runtime"), ShimCommand: []string{os.Args[0], process.ShimSubcommand}})
	if err != nil {
		t.Fatal(err)
	}
	kl, err := kubelet.New(kubelet.Config{NodeName: node, Client: nodeClient, Runtime: rt, RootDir: root, NodeIP: "127.0.0.1",
		SyncFrequency: time.Second, RelistPeriod: 200 * time.Millisecond, StopPodsOnExit: true})
	if err != nil {
		t.Fatal(err)
	}
	kctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- kl.Run(kctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("kubelet: %v", err)
		}
	})

	u, err := url.Parse(s.s.URL)
	if err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf(`cd %s
echo "ns=$(cat namespace)"
while true; do
  code=$(curl -s --cacert ca.crt -H "Authorization: Bearer $(cat token)" -o /dev/null -w '%%{http_code}' "https://%s/api/v1/namespaces/$(cat namespace)/pods")
  echo "code=$code"
  [ "$code" = 200 ] && exit 0
  sleep 0.2
done`, mountPath, u.Host)
	pod, err := s.admin.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "client"}, Spec: corev1.PodSpec{
		NodeName: node, RestartPolicy: corev1.RestartPolicyNever,
		Containers: []corev1.Container{{Name: "c", Image: "busybox", Command: []string{"sh", "-c", script}}},
	}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	logDir := filepath.Join(root, "logs", "pods", fmt.Sprintf("%s_%s_%s", ns, pod.Name, pod.UID))
	readLog := func() string {
		b, _ := os.ReadFile(filepath.Join(logDir, "c", "0.log"))
		return string(b)
	}
	eventually(t, "the pod's first answer from the API server", func() error {
		if log := readLog(); !strings.Contains(log, "code=403") {
			p, _ := s.admin.CoreV1().Pods(ns).Get(ctx, pod.Name, metav1.GetOptions{})
			return fmt.Errorf("log so far %q; pod %s", log, framework.DescribePod(p))
		}
		return nil
	})
	if log := readLog(); !strings.Contains(log, "ns="+ns) || strings.Contains(log, "code=401") || strings.Contains(log, "code=000") {
		t.Fatalf("log %q: want the namespace and 403s, no 401 nor a TLS failure", log)
	}
	s.bindView(ctx, ns, "default")
	framework.WaitForPod(ctx, t, s.admin, ns, pod.Name, 20*time.Second, "the pod to list pods and exit 0", func(p *corev1.Pod) bool {
		return p.Status.Phase == corev1.PodSucceeded
	})
	if log := readLog(); strings.Contains(log, "code=401") || !strings.Contains(log, "code=200") {
		t.Errorf("log %q", log)
	}
	// The token on the node is bound to the pod and renewed from there.
	matches, _ := filepath.Glob(filepath.Join(root, "pods", string(pod.UID), "volumes", "kubernetes.io~projected", "kube-api-access-*", "token"))
	if len(matches) != 1 {
		t.Fatalf("token files %v", matches)
	}
	tok, err := os.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.canListPods(ctx, string(tok), ns); err != nil {
		t.Errorf("the pod's token: %v", err)
	}
}
