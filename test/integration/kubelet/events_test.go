package kubelet

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// eventQuery names the kubelet Events a test waits for.
type eventQuery struct {
	reason, eventType, fieldPath string
	// message, when set, must be contained in the Event's.
	message string
	// minCount is the least count the one Event must have (repeats folded
	// into it); 1 when zero.
	minCount int32
}

func (q eventQuery) String() string {
	return fmt.Sprintf("%s %s on %q (%q, count >= %d)", q.eventType, q.reason, q.fieldPath, q.message, max(q.minCount, 1))
}

// waitEvent waits for an Event of the kubelet about the named object in ns
// that matches q, and returns it.
func (e *env) waitEvent(ns, kind, name string, q eventQuery, timeout time.Duration) *corev1.Event {
	e.t.Helper()
	var seen []string
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		list, err := e.cs.CoreV1().Events(ns).List(e.ctx, metav1.ListOptions{})
		if err != nil {
			continue
		}
		seen = seen[:0]
		var match *corev1.Event
		for i := range list.Items {
			ev := &list.Items[i]
			ref := ev.InvolvedObject
			if ref.Kind != kind || ref.Name != name || ev.Source.Component != "kubelet" {
				continue
			}
			seen = append(seen, fmt.Sprintf("%s %s %q x%d: %s", ev.Type, ev.Reason, ref.FieldPath, ev.Count, ev.Message))
			if ev.Reason != q.reason || ev.Type != q.eventType || ref.FieldPath != q.fieldPath || !strings.Contains(ev.Message, q.message) {
				continue
			}
			if match != nil {
				e.t.Fatalf("two Events match %s; repeats must fold into one:\n  %s", q, strings.Join(seen, "\n  "))
			}
			match = ev
		}
		if match != nil && match.Count >= max(q.minCount, 1) {
			if match.Source.Host != e.node || match.ReportingController != "kubelet" || match.ReportingInstance != e.node {
				e.t.Errorf("Event %s: source %+v, reporting %s/%s; want kubelet on %s", match.Name, match.Source, match.ReportingController, match.ReportingInstance, e.node)
			}
			return match
		}
	}
	e.t.Fatalf("no kubelet Event %s about %s %s/%s after %s; kubelet Events:\n  %s", q, kind, ns, name, timeout, strings.Join(seen, "\n  "))
	return nil
}

func TestEventsOfARunningPodWithAFailingReadinessProbe(t *testing.T) {
	e := newEnv(t, "process")
	p := e.pod("unready", "exec sleep 1000", func(p *corev1.Pod) {
		p.Spec.Containers[0].ReadinessProbe = &corev1.Probe{
			ProbeHandler:  corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"sh", "-c", "echo not yet; exit 1"}}},
			PeriodSeconds: 1,
		}
		grace := int64(1)
		p.Spec.TerminationGracePeriodSeconds = &grace
	})
	main := "spec.containers{main}"
	wait := func(q eventQuery) *corev1.Event {
		t.Helper()
		return e.waitEvent(e.ns, "Pod", p.Name, q, 30*time.Second)
	}
	wait(eventQuery{reason: "Pulled", eventType: "Normal", fieldPath: main, message: `Container image "busybox" already present on machine`})
	wait(eventQuery{reason: "Created", eventType: "Normal", fieldPath: main, message: "Created container: main"})
	wait(eventQuery{reason: "Started", eventType: "Normal", fieldPath: main, message: "Started container main"})
	ev := wait(eventQuery{reason: "Unhealthy", eventType: "Warning", fieldPath: main, message: "Readiness probe failed: ", minCount: 3})
	if !strings.Contains(ev.Message, "not yet") {
		t.Errorf("Unhealthy message %q lacks the probe's output", ev.Message)
	}
	if ev.InvolvedObject.UID != p.UID || ev.InvolvedObject.APIVersion != "v1" || ev.Namespace != e.ns {
		t.Errorf("Unhealthy Event about %+v in %s, want pod %s", ev.InvolvedObject, ev.Namespace, p.UID)
	}
	if !ev.LastTimestamp.After(ev.FirstTimestamp.Time) {
		t.Errorf("repeated Event: firstTimestamp %s, lastTimestamp %s", ev.FirstTimestamp, ev.LastTimestamp)
	}

	if err := e.cs.CoreV1().Pods(e.ns).Delete(e.ctx, p.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	wait(eventQuery{reason: "Killing", eventType: "Normal", fieldPath: main, message: "Stopping container main"})
}

func TestEventsOfAPodWithAMissingConfigMapVolume(t *testing.T) {
	e := newEnv(t, "fake")
	p := e.pod("no-cm", "exec sleep 1000", func(p *corev1.Pod) {
		p.Spec.Volumes = []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "absent"}}}}}
		p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "config", MountPath: "/etc/config"}}
	})
	// Retried every 2 s, folded into one Event.
	e.waitEvent(e.ns, "Pod", p.Name, eventQuery{reason: "FailedMount", eventType: "Warning",
		message: `MountVolume.SetUp failed for volume "config" : configmap "absent" not found`, minCount: 2}, 30*time.Second)
	if _, err := e.cs.CoreV1().ConfigMaps(e.ns).Create(e.ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "absent"}, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.waitEvent(e.ns, "Pod", p.Name, eventQuery{reason: "Started", eventType: "Normal", fieldPath: "spec.containers{main}"}, 30*time.Second)
}

func TestEventsOfACrashingContainer(t *testing.T) {
	e := newEnv(t, "process")
	p := e.pod("crash", "exit 3", func(p *corev1.Pod) {
		p.Spec.InitContainers = []corev1.Container{{Name: "setup", Image: "busybox", Command: []string{"true"}}}
	})
	wait := func(q eventQuery) *corev1.Event {
		t.Helper()
		return e.waitEvent(e.ns, "Pod", p.Name, q, 60*time.Second)
	}
	wait(eventQuery{reason: "Started", eventType: "Normal", fieldPath: "spec.initContainers{setup}", message: "Started container setup"})
	wait(eventQuery{reason: "BackOff", eventType: "Warning", fieldPath: "spec.containers{main}",
		message: fmt.Sprintf("Back-off restarting failed container main in pod crash_%s(%s)", e.ns, p.UID)})
	// Started again after the first back-off (10 s): one Event, count 2.
	wait(eventQuery{reason: "Started", eventType: "Normal", fieldPath: "spec.containers{main}", message: "Started container main", minCount: 3})
}

func TestEventsOfTheNode(t *testing.T) {
	e := newEnv(t, "fake")
	// Disk pressure is the host's (a nearly full disk under the test's
	// data directory has it): expect the Event the node's condition says.
	disk := "NodeHasNoDiskPressure"
	deadline := time.Now().Add(30 * time.Second)
	for {
		node, err := e.cs.CoreV1().Nodes().Get(e.ctx, e.node, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			node, err = &corev1.Node{}, nil
		}
		if err != nil {
			t.Fatal(err)
		}
		known := false
		for _, c := range node.Status.Conditions {
			if c.Type == corev1.NodeDiskPressure && c.Status != corev1.ConditionUnknown {
				known = true
				if c.Status == corev1.ConditionTrue {
					disk = "NodeHasDiskPressure"
				}
			}
		}
		if known {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("node %s has no DiskPressure condition after 30s", e.node)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, reason := range []string{"Starting", "NodeHasSufficientMemory", disk, "NodeHasSufficientPID", "NodeReady"} {
		msg := "Starting kubelet."
		if reason != "Starting" {
			msg = fmt.Sprintf("Node %s status is now: %s", e.node, reason)
		}
		ev := e.waitEvent(metav1.NamespaceDefault, "Node", e.node, eventQuery{reason: reason, eventType: "Normal", message: msg}, 30*time.Second)
		// kubectl describe node finds the kubelet's Events by this UID.
		if string(ev.InvolvedObject.UID) != e.node {
			t.Errorf("%s Event about %+v, want UID %s", reason, ev.InvolvedObject, e.node)
		}
	}
}
