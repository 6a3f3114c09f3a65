package kubelet

import (
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// fixedProbes answers readiness and startup from maps (true when absent).
type fixedProbes struct{ unready, unstarted map[string]bool }

func (f fixedProbes) ready(_, name, _ string) bool   { return !f.unready[name] }
func (f fixedProbes) started(_, name, _ string) bool { return !f.unstarted[name] }

func TestBuildPodStatus(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	running := func(name string, attempt uint32) *kruntime.ContainerStatus {
		return &kruntime.ContainerStatus{ID: name + "-id", Name: name, Attempt: attempt, State: kruntime.ContainerRunning, StartedAt: t0}
	}
	exited := func(name string, code int32) *kruntime.ContainerStatus {
		return &kruntime.ContainerStatus{ID: name + "-x", Name: name, State: kruntime.ContainerExited, ExitCode: code,
			Reason: kruntime.ExitReason(code), StartedAt: t0, FinishedAt: t0.Add(time.Second)}
	}
	pod := func(policy corev1.RestartPolicy, containers ...string) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "u"}, Spec: corev1.PodSpec{RestartPolicy: policy}}
		for _, c := range containers {
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: c, Image: "img"})
		}
		return p
	}
	for _, tc := range []struct {
		name        string
		pod         *corev1.Pod
		records     map[string]containerRecords
		waiting     map[string]waitingInfo
		probes      fixedProbes
		terminating bool
		deadline    bool
		phase       corev1.PodPhase
		ready       corev1.ConditionStatus
		check       func(t *testing.T, st corev1.PodStatus)
	}{
		{name: "nothing started yet", pod: pod(corev1.RestartPolicyAlways, "a"),
			phase: corev1.PodPending, ready: "False",
			check: func(t *testing.T, st corev1.PodStatus) {
				if w := st.ContainerStatuses[0].State.Waiting; w == nil || w.Reason != reasonContainerCreating {
					t.Errorf("state = %+v, want waiting ContainerCreating", st.ContainerStatuses[0].State)
				}
			}},
		{name: "running and ready", pod: pod(corev1.RestartPolicyAlways, "a"),
			records: map[string]containerRecords{"a": {current: running("a", 0)}},
			phase:   corev1.PodRunning, ready: "True",
			check: func(t *testing.T, st corev1.PodStatus) {
				cs := st.ContainerStatuses[0]
				if !cs.Ready || cs.ContainerID != "process://a-id" || cs.State.Running == nil || st.PodIP != "10.0.0.2" {
					t.Errorf("status = %+v", st)
				}
			}},
		{name: "readiness probe failing", pod: pod(corev1.RestartPolicyAlways, "a", "b"),
			records: map[string]containerRecords{"a": {current: running("a", 0)}, "b": {current: running("b", 0)}},
			probes:  fixedProbes{unready: map[string]bool{"b": true}},
			phase:   corev1.PodRunning, ready: "False",
			check: func(t *testing.T, st corev1.PodStatus) {
				if c := findCondition(st.Conditions, corev1.PodReady); c.Message != "containers with unready status: [b]" {
					t.Errorf("Ready message = %q", c.Message)
				}
			}},
		{name: "startup probe pending", pod: pod(corev1.RestartPolicyAlways, "a"),
			records: map[string]containerRecords{"a": {current: running("a", 0)}},
			probes:  fixedProbes{unstarted: map[string]bool{"a": true}},
			phase:   corev1.PodRunning, ready: "False",
			check: func(t *testing.T, st corev1.PodStatus) {
				if cs := st.ContainerStatuses[0]; *cs.Started || cs.Ready {
					t.Errorf("not started container: %+v", cs)
				}
			}},
		{name: "crash loop", pod: pod(corev1.RestartPolicyAlways, "a"),
			records: map[string]containerRecords{"a": {current: &kruntime.ContainerStatus{ID: "a2", Name: "a", Attempt: 2, State: kruntime.ContainerExited, ExitCode: 1, Reason: "Error"}, previous: exited("a", 1)}},
			waiting: map[string]waitingInfo{"a": {reason: reasonCrashLoopBackOff, message: "back-off"}},
			phase:   corev1.PodRunning, ready: "False",
			check: func(t *testing.T, st corev1.PodStatus) {
				cs := st.ContainerStatuses[0]
				if cs.State.Waiting == nil || cs.State.Waiting.Reason != reasonCrashLoopBackOff || cs.RestartCount != 2 ||
					cs.LastTerminationState.Terminated == nil || cs.LastTerminationState.Terminated.ExitCode != 1 {
					t.Errorf("crash-looping container: %+v", cs)
				}
			}},
		{name: "never restarted and failed", pod: pod(corev1.RestartPolicyNever, "a"),
			records: map[string]containerRecords{"a": {current: exited("a", 2)}},
			phase:   corev1.PodFailed, ready: "False"},
		{name: "all succeeded", pod: pod(corev1.RestartPolicyOnFailure, "a", "b"),
			records: map[string]containerRecords{"a": {current: exited("a", 0)}, "b": {current: exited("b", 0)}},
			phase:   corev1.PodSucceeded, ready: "False",
			check: func(t *testing.T, st corev1.PodStatus) {
				if c := findCondition(st.Conditions, corev1.PodReady); c.Reason != reasonPodCompleted {
					t.Errorf("Ready reason = %q", c.Reason)
				}
			}},
		{name: "runtime refused the container", pod: pod(corev1.RestartPolicyAlways, "a"),
			waiting: map[string]waitingInfo{"a": {reason: "ProcessRuntimeNeedsCommand", message: "set command"}},
			phase:   corev1.PodPending, ready: "False",
			check: func(t *testing.T, st corev1.PodStatus) {
				if w := st.ContainerStatuses[0].State.Waiting; w == nil || w.Reason != "ProcessRuntimeNeedsCommand" || w.Message != "set command" {
					t.Errorf("waiting = %+v", w)
				}
			}},
		{name: "terminating with containers killed", pod: pod(corev1.RestartPolicyAlways, "a"), terminating: true,
			records: map[string]containerRecords{"a": {current: exited("a", 137)}},
			phase:   corev1.PodFailed, ready: "False"},
		{name: "deadline exceeded", pod: pod(corev1.RestartPolicyAlways, "a"), deadline: true,
			records: map[string]containerRecords{"a": {current: exited("a", 143)}},
			phase:   corev1.PodFailed, ready: "False",
			check: func(t *testing.T, st corev1.PodStatus) {
				if st.Reason != reasonDeadlineExceeded {
					t.Errorf("reason = %q", st.Reason)
				}
			}},
		{name: "init container running", pod: func() *corev1.Pod {
			p := pod(corev1.RestartPolicyAlways, "a")
			p.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "img"}}
			return p
		}(),
			records: map[string]containerRecords{"init": {current: running("init", 0)}},
			phase:   corev1.PodPending, ready: "False",
			check: func(t *testing.T, st corev1.PodStatus) {
				if c := findCondition(st.Conditions, corev1.PodInitialized); c.Status != "False" {
					t.Errorf("Initialized = %+v", c)
				}
				if w := st.ContainerStatuses[0].State.Waiting; w == nil || w.Reason != reasonPodInitializing {
					t.Errorf("app container = %+v, want waiting PodInitializing", st.ContainerStatuses[0].State)
				}
			}},
		{name: "first init container failing: every one not done is listed", pod: func() *corev1.Pod {
			p := pod(corev1.RestartPolicyAlways, "a")
			p.Spec.InitContainers = []corev1.Container{{Name: "init0", Image: "img"}, {Name: "init1", Image: "img"}, {Name: "init2", Image: "img"}}
			return p
		}(),
			records: map[string]containerRecords{"init0": {current: exited("init0", 0)}, "init1": {current: exited("init1", 1)}},
			phase:   corev1.PodPending, ready: "False",
			check: func(t *testing.T, st corev1.PodStatus) {
				c := findCondition(st.Conditions, corev1.PodInitialized)
				if c.Status != "False" || c.Reason != reasonContainersNotInitialized || c.Message != "containers with incomplete status: [init1 init2]" {
					t.Errorf("Initialized = %+v, want the two init containers not done", c)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := buildPodStatus(statusInput{
				pod: tc.pod, now: t0.Add(time.Minute), runtimeType: "process", hostIP: "10.0.0.1", podIP: "10.0.0.2",
				startTime: t0, sandboxReady: true, records: tc.records, waiting: tc.waiting, probes: tc.probes,
				terminating: tc.terminating, deadlineExceeded: tc.deadline,
			})
			if st.Phase != tc.phase {
				t.Errorf("phase = %s, want %s", st.Phase, tc.phase)
			}
			if c := findCondition(st.Conditions, corev1.PodReady); c == nil || c.Status != tc.ready {
				t.Errorf("Ready = %+v, want %s", c, tc.ready)
			}
			if tc.check != nil {
				tc.check(t, st)
			}
		})
	}
}

func TestBuildPodStatusKeepsTransitionTimes(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: "u"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "a"}}}}
	pod.Status.Conditions = []corev1.PodCondition{
		{Type: corev1.PodReady, Status: "True", LastTransitionTime: metav1.NewTime(t0)},
		{Type: corev1.PodScheduled, Status: "True", LastTransitionTime: metav1.NewTime(t0.Add(-time.Hour))},
		{Type: "example.com/gate", Status: "True"},
	}
	recs := map[string]containerRecords{"a": {current: &kruntime.ContainerStatus{ID: "x", Name: "a", State: kruntime.ContainerRunning}}}
	st := buildPodStatus(statusInput{pod: pod, now: t0.Add(time.Hour), startTime: t0, sandboxReady: true, records: recs})
	if c := findCondition(st.Conditions, corev1.PodReady); !c.LastTransitionTime.Time.Equal(t0) {
		t.Errorf("Ready transition moved to %v", c.LastTransitionTime)
	}
	if c := findCondition(st.Conditions, corev1.PodScheduled); !c.LastTransitionTime.Time.Equal(t0.Add(-time.Hour)) {
		t.Errorf("PodScheduled was rewritten: %+v", c)
	}
	if findCondition(st.Conditions, "example.com/gate") == nil {
		t.Error("a readiness gate's condition was dropped")
	}
}

func TestQOSClass(t *testing.T) {
	res := func(req, lim string) corev1.ResourceRequirements {
		r := corev1.ResourceRequirements{}
		if req != "" {
			r.Requests = corev1.ResourceList{corev1.ResourceCPU: mustQ(req), corev1.ResourceMemory: mustQ(req)}
		}
		if lim != "" {
			r.Limits = corev1.ResourceList{corev1.ResourceCPU: mustQ(lim), corev1.ResourceMemory: mustQ(lim)}
		}
		return r
	}
	for _, tc := range []struct {
		name string
		r    corev1.ResourceRequirements
		want corev1.PodQOSClass
	}{
		{"nothing", res("", ""), corev1.PodQOSBestEffort},
		{"limits only", res("", "1"), corev1.PodQOSGuaranteed},
		{"equal", res("1", "1"), corev1.PodQOSGuaranteed},
		{"requests below limits", res("1", "2"), corev1.PodQOSBurstable},
		{"requests only", res("1", ""), corev1.PodQOSBurstable},
	} {
		p := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Resources: tc.r}}}}
		if got := qosClass(p); got != tc.want {
			t.Errorf("%s: qosClass = %s, want %s", tc.name, got, tc.want)
		}
	}
}
