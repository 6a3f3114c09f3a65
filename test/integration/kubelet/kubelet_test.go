package kubelet

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
	"kubecore.io/kubecore/test/integration/framework"
)

func TestNodeRegistersAndRenewsLease(t *testing.T) {
	e := newEnv(t, "process")
	var node *corev1.Node
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		n, err := e.cs.CoreV1().Nodes().Get(e.ctx, e.node, metav1.GetOptions{})
		if err == nil {
			node = n
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if node == nil {
		t.Fatalf("node %s was not registered", e.node)
	}
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage, corev1.ResourcePods} {
		q, ok := node.Status.Capacity[r]
		if !ok || q.Sign() <= 0 {
			t.Errorf("capacity %s = %v, want positive", r, node.Status.Capacity[r])
		}
		if _, ok := node.Status.Allocatable[r]; !ok {
			t.Errorf("allocatable has no %s", r)
		}
	}
	if q := node.Status.Capacity[corev1.ResourcePods]; q.Value() != 110 {
		t.Errorf("pods capacity = %s, want 110", q.String())
	}
	for k, v := range map[string]string{corev1.LabelHostname: e.node, corev1.LabelOSStable: "linux", "kubecore.io/test": "yes"} {
		if node.Labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, node.Labels[k], v)
		}
	}
	if len(node.Spec.Taints) != 1 || node.Spec.Taints[0].Key != "test" {
		t.Errorf("taints = %+v, want the registered one", node.Spec.Taints)
	}
	if node.Status.DaemonEndpoints.KubeletEndpoint.Port != 10250 {
		t.Errorf("kubelet port = %d", node.Status.DaemonEndpoints.KubeletEndpoint.Port)
	}
	if ni := node.Status.NodeInfo; ni.KubeletVersion == "" || ni.KernelVersion == "" || ni.ContainerRuntimeVersion == "" || !strings.HasPrefix(ni.ContainerRuntimeVersion, "process://") {
		t.Errorf("nodeInfo = %+v", ni)
	}
	addrs := map[corev1.NodeAddressType]string{}
	for _, a := range node.Status.Addresses {
		addrs[a.Type] = a.Address
	}
	if addrs[corev1.NodeInternalIP] != "127.0.0.1" || addrs[corev1.NodeHostName] != e.node {
		t.Errorf("addresses = %+v", node.Status.Addresses)
	}
	conds := map[corev1.NodeConditionType]corev1.ConditionStatus{}
	for _, c := range node.Status.Conditions {
		conds[c.Type] = c.Status
	}
	if conds[corev1.NodeReady] != corev1.ConditionTrue || conds[corev1.NodeMemoryPressure] == "" || conds[corev1.NodeDiskPressure] == "" || conds[corev1.NodePIDPressure] == "" {
		t.Errorf("conditions = %v", conds)
	}

	leases := e.cs.CoordinationV1().Leases(corev1.NamespaceNodeLease)
	var first time.Time
	deadline = time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		l, err := leases.Get(e.ctx, e.node, metav1.GetOptions{})
		if err == nil && l.Spec.RenewTime != nil {
			if len(l.OwnerReferences) != 1 || l.OwnerReferences[0].Kind != "Node" || l.OwnerReferences[0].UID != node.UID {
				t.Fatalf("lease owners = %+v, want the node", l.OwnerReferences)
			}
			if *l.Spec.HolderIdentity != e.node {
				t.Fatalf("lease holder = %q", *l.Spec.HolderIdentity)
			}
			if first.IsZero() {
				first = l.Spec.RenewTime.Time
			} else if l.Spec.RenewTime.After(first) {
				// Renewed; the node status heartbeat must move too.
				waitHeartbeat(t, e, node)
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("lease %s was not renewed (first renewTime %v)", e.node, first)
}

// waitHeartbeat waits for the Ready condition's heartbeat to pass the one
// of node (NodeStatusReportFrequency is 2 s in these tests).
func waitHeartbeat(t *testing.T, e *env, node *corev1.Node) {
	t.Helper()
	var before metav1.Time
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			before = c.LastHeartbeatTime
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		n, err := e.cs.CoreV1().Nodes().Get(e.ctx, e.node, metav1.GetOptions{})
		if err == nil {
			for _, c := range n.Status.Conditions {
				if c.Type == corev1.NodeReady && c.LastHeartbeatTime.After(before.Time) {
					if !c.LastTransitionTime.Equal(&before) && c.LastTransitionTime.After(before.Time) {
						t.Errorf("Ready lastTransitionTime moved without a transition: %v", c.LastTransitionTime)
					}
					return
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("node %s: Ready heartbeat did not advance past %v", e.node, before)
}

func TestPodRunsWithEnvAndBecomesReady(t *testing.T) {
	e := newEnv(t, "process")
	if _, err := e.cs.CoreV1().ConfigMaps(e.ns).Create(e.ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "cfg"}, Data: map[string]string{"color": "blue"},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "env.txt")
	p := e.pod("env", `echo "$PLAIN|$POD_NAME|$COLOR|$1|$NODE" > "$OUT.tmp" && mv "$OUT.tmp" "$OUT"; exec sleep 1000`, func(p *corev1.Pod) {
		c := &p.Spec.Containers[0]
		c.Args = []string{"arg", "$(PLAIN)-expanded"}
		c.Env = []corev1.EnvVar{
			{Name: "OUT", Value: out},
			{Name: "PLAIN", Value: "hello"},
			{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
			{Name: "NODE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}},
			{Name: "COLOR", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}, Key: "color"}}},
		}
		c.ReadinessProbe = &corev1.Probe{
			ProbeHandler:  corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"test", "-f", out}}},
			PeriodSeconds: 1,
		}
	})
	start := time.Now()
	got := e.waitFor(p.Name, 20*time.Second, "Running and Ready", func(p *corev1.Pod) bool {
		return p.Status.Phase == corev1.PodRunning && isReady(p)
	})
	t.Logf("pod Ready %s after create", time.Since(start).Round(time.Millisecond))
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if want := "hello|env|blue|hello-expanded|" + e.node; strings.TrimSpace(string(b)) != want {
		t.Errorf("the process saw %q, want %q", strings.TrimSpace(string(b)), want)
	}
	cs := containerStatus(got)
	if cs == nil || !cs.Ready || cs.Started == nil || !*cs.Started || !strings.HasPrefix(cs.ContainerID, "process://") || cs.State.Running == nil {
		t.Errorf("container status = %+v", cs)
	}
	if got.Status.PodIP != "127.0.0.1" || got.Status.HostIP != "127.0.0.1" || got.Status.StartTime == nil || got.Status.QOSClass != corev1.PodQOSBestEffort {
		t.Errorf("pod status = podIP %q hostIP %q startTime %v qos %q", got.Status.PodIP, got.Status.HostIP, got.Status.StartTime, got.Status.QOSClass)
	}
	for _, c := range []corev1.PodConditionType{corev1.PodScheduled, corev1.PodInitialized, corev1.ContainersReady, corev1.PodReadyToStartContainers} {
		if condition(got, c) != corev1.ConditionTrue {
			t.Errorf("condition %s = %q", c, condition(got, c))
		}
	}
}

func TestFailingReadinessProbeKeepsPodUnready(t *testing.T) {
	e := newEnv(t, "process")
	p := e.pod("unready", "exec sleep 1000", func(p *corev1.Pod) {
		p.Spec.Containers[0].ReadinessProbe = &corev1.Probe{
			ProbeHandler:  corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"sh", "-c", "exit 1"}}},
			PeriodSeconds: 1,
		}
	})
	e.waitFor(p.Name, 20*time.Second, "Running", func(p *corev1.Pod) bool {
		cs := containerStatus(p)
		return p.Status.Phase == corev1.PodRunning && cs != nil && cs.State.Running != nil
	})
	// Several probe periods later it is still running and not ready.
	time.Sleep(3 * time.Second)
	got := e.waitFor(p.Name, time.Second, "read", func(*corev1.Pod) bool { return true })
	cs := containerStatus(got)
	if isReady(got) || cs.Ready || cs.State.Running == nil || cs.RestartCount != 0 {
		t.Fatalf("pod with a failing readiness probe: %s", describe(got))
	}
	if condition(got, corev1.ContainersReady) != corev1.ConditionFalse {
		t.Errorf("ContainersReady = %q", condition(got, corev1.ContainersReady))
	}
}

func TestFailingLivenessProbeRestartsContainer(t *testing.T) {
	e := newEnv(t, "process")
	p := e.pod("unhealthy", "exec sleep 1000", func(p *corev1.Pod) {
		p.Spec.Containers[0].LivenessProbe = &corev1.Probe{
			ProbeHandler:     corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"false"}}},
			PeriodSeconds:    1,
			FailureThreshold: 2,
		}
		grace := int64(1)
		p.Spec.TerminationGracePeriodSeconds = &grace
	})
	got := e.waitFor(p.Name, 30*time.Second, "restarted", func(p *corev1.Pod) bool {
		cs := containerStatus(p)
		return cs != nil && cs.RestartCount >= 1
	})
	cs := containerStatus(got)
	if cs.LastTerminationState.Terminated == nil {
		t.Errorf("restarted container has no lastState.terminated: %s", describe(got))
	}
}

func TestCrashLoopBackOff(t *testing.T) {
	e := newEnv(t, "process")
	p := e.pod("crash", "echo crashing; exit 3")
	got := e.waitFor(p.Name, 30*time.Second, "in CrashLoopBackOff", func(p *corev1.Pod) bool {
		cs := containerStatus(p)
		return cs != nil && cs.State.Waiting != nil && cs.State.Waiting.Reason == "CrashLoopBackOff"
	})
	cs := containerStatus(got)
	if cs.RestartCount < 1 {
		t.Errorf("restartCount = %d, want at least 1", cs.RestartCount)
	}
	if lt := cs.LastTerminationState.Terminated; lt == nil || lt.ExitCode != 3 || lt.Reason != "Error" {
		t.Errorf("lastState = %+v, want exit code 3, reason Error", cs.LastTerminationState)
	}
	if got.Status.Phase != corev1.PodRunning || isReady(got) {
		t.Errorf("crash-looping pod: %s", describe(got))
	}
}

func TestGracefulDeletionKillsAfterGracePeriod(t *testing.T) {
	e := newEnv(t, "process")
	pidFile := filepath.Join(t.TempDir(), "pid")
	// $$ in a command is the escape of a literal $, as in Kubernetes: the
	// shell sees echo $$.
	p := e.pod("stubborn", `trap '' TERM; echo $$$$ > "`+pidFile+`"; while :; do sleep 0.2; done`)
	e.waitFor(p.Name, 20*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	var pid int
	deadline := time.Now().Add(5 * time.Second)
	for pid == 0 && time.Now().Before(deadline) {
		b, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		time.Sleep(20 * time.Millisecond)
	}
	if pid == 0 {
		t.Fatal("the container never wrote its pid")
	}
	grace := int64(3)
	start := time.Now()
	if err := e.cs.CoreV1().Pods(e.ns).Delete(e.ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &grace}); err != nil {
		t.Fatal(err)
	}
	e.waitGone(p.Name, 20*time.Second)
	took := time.Since(start)
	t.Logf("pod ignoring SIGTERM removed %s after deletion with a 3s grace period", took.Round(time.Millisecond))
	if took < 2500*time.Millisecond || took > 8*time.Second {
		t.Errorf("pod removed after %s, want about 3s", took)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("process %d still exists after the pod was removed (kill 0: %v)", pid, err)
	}
}

func TestContainerWithoutCommandFails(t *testing.T) {
	e := newEnv(t, "process")
	p := e.pod("nocmd", "", func(p *corev1.Pod) {
		p.Spec.Containers[0].Image = "example.com/team/unknown:1.0"
		p.Spec.Containers[0].Command = nil
	})
	got := e.waitFor(p.Name, 20*time.Second, "failing with ProcessRuntimeNeedsCommand", func(p *corev1.Pod) bool {
		cs := containerStatus(p)
		return cs != nil && cs.State.Waiting != nil && cs.State.Waiting.Reason == "ProcessRuntimeNeedsCommand"
	})
	if msg := containerStatus(got).State.Waiting.Message; !strings.Contains(msg, "command") || !strings.Contains(msg, "--image-entrypoints") {
		t.Errorf("message %q does not say what to do", msg)
	}
	if got.Status.Phase != corev1.PodPending {
		t.Errorf("phase = %s, want Pending", got.Status.Phase)
	}
}

// TestArgsRunWithTheImageEntrypoint: args without a command run after the
// image's entrypoint, as `kubectl run x --image=busybox -- sh -c ...` asks.
func TestArgsRunWithTheImageEntrypoint(t *testing.T) {
	e := newEnv(t, "process")
	marker := filepath.Join(t.TempDir(), "ran")
	p := e.pod("argsonly", "", func(p *corev1.Pod) {
		p.Spec.Containers[0].Command = nil
		p.Spec.Containers[0].Args = []string{"sh", "-c", "echo hi from args > " + marker + "; exec sleep 3600"}
	})
	e.waitFor(p.Name, 20*time.Second, "running", func(p *corev1.Pod) bool {
		cs := containerStatus(p)
		return cs != nil && cs.State.Running != nil
	})
	framework.WaitFor(t, 10*time.Second, "the args' output", func() (bool, error) {
		b, err := os.ReadFile(marker)
		return err == nil && strings.Contains(string(b), "hi from args"), nil
	})

	// An image whose program the host lacks waits with a reason naming it.
	missing := e.pod("missing", "", func(p *corev1.Pod) {
		p.Spec.Containers[0].Image = "redis:7"
		p.Spec.Containers[0].Command = nil
		p.Spec.Containers[0].Args = []string{"kubecore-no-such-program-xyz"}
	})
	got := e.waitFor(missing.Name, 20*time.Second, "failing with ProcessRuntimeProgramNotFound", func(p *corev1.Pod) bool {
		cs := containerStatus(p)
		return cs != nil && cs.State.Waiting != nil && cs.State.Waiting.Reason == "ProcessRuntimeProgramNotFound"
	})
	if msg := containerStatus(got).State.Waiting.Message; !strings.Contains(msg, `"kubecore-no-such-program-xyz"`) {
		t.Errorf("message %q does not name the program", msg)
	}
}

func TestFakeRuntimeRunsManyPods(t *testing.T) {
	e := newEnv(t, "fake")
	const n = 20
	start := time.Now()
	for i := range n {
		e.pod(fmt.Sprintf("fake-%d", i), "exec sleep 1000")
	}
	for i := range n {
		e.waitFor(fmt.Sprintf("fake-%d", i), 30*time.Second, "Running and Ready", func(p *corev1.Pod) bool {
			return p.Status.Phase == corev1.PodRunning && isReady(p)
		})
	}
	t.Logf("%d pods Running and Ready on the fake runtime %s after the first create", n, time.Since(start).Round(time.Millisecond))
}

func TestMissingConfigMapWaitsThenStarts(t *testing.T) {
	e := newEnv(t, "process")
	p := e.pod("needs-cm", "exec sleep 1000", func(p *corev1.Pod) {
		p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "X", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: "later"}, Key: "x"}}}}
	})
	e.waitFor(p.Name, 20*time.Second, "waiting with CreateContainerConfigError", func(p *corev1.Pod) bool {
		cs := containerStatus(p)
		return cs != nil && cs.State.Waiting != nil && cs.State.Waiting.Reason == "CreateContainerConfigError" &&
			strings.Contains(cs.State.Waiting.Message, `configmap "later" not found`)
	})
	if _, err := e.cs.CoreV1().ConfigMaps(e.ns).Create(e.ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "later"}, Data: map[string]string{"x": "1"},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.waitFor(p.Name, 20*time.Second, "Running once the ConfigMap exists", func(p *corev1.Pod) bool {
		return p.Status.Phase == corev1.PodRunning && isReady(p)
	})
}

func TestUnreachableAPIServerLeavesPodsRunning(t *testing.T) {
	e := newAPIEnv(t)
	e.startKubelet("process", true)
	p := e.pod("survivor", "exec sleep 1000")
	got := e.waitFor(p.Name, 20*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	before := containerStatus(got)
	if err := e.api.Stop(); err != nil {
		t.Fatal(err)
	}
	// Relists, syncs, status updates and lease renewals fail meanwhile.
	time.Sleep(5 * time.Second)
	c, err := e.kl.Container(e.ctx, e.ns, p.Name, "main", false)
	if err != nil {
		t.Fatalf("the kubelet lost its container: %v", err)
	}
	if c.State != kruntime.ContainerRunning || !strings.HasSuffix(before.ContainerID, "://"+c.ID) {
		t.Errorf("container %s is %s; before the apiserver went away it was %s", c.ID, c.State, before.ContainerID)
	}
	if c.PID <= 0 || syscall.Kill(c.PID, 0) != nil {
		t.Errorf("the container's process %d is gone", c.PID)
	}
}
