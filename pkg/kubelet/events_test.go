package kubelet

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/rest"
	"kubecore.io/client/typed"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
	"kubecore.io/kubecore/pkg/kubelet/runtime/fake"
)

func eventsPod(containers ...corev1.Container) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "uid-1"},
		Spec:       corev1.PodSpec{RestartPolicy: corev1.RestartPolicyAlways, Containers: containers},
	}
}

// wantEvents fails unless the log holds exactly want, in order.
func wantEvents(t *testing.T, events *eventLog, want ...string) {
	t.Helper()
	if got := events.all(); !slices.Equal(got, want) {
		t.Errorf("events:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestContainerLifecycleEvents(t *testing.T) {
	kl, _, events := newTestKubelet(t)
	ctx := t.Context()
	pod := eventsPod(corev1.Container{Name: "main", Image: "app:1", Command: []string{"sleep", "inf"}})
	pod.Spec.InitContainers = []corev1.Container{{Name: "setup", Image: "tools:1", Command: []string{"sh", "-c", "exit 0"}}}
	grace := int64(1)
	pod.Spec.TerminationGracePeriodSeconds = &grace
	st := newPodState()
	// The init container runs (and exits at once), then the app container.
	for range 2 {
		if _, _, err := kl.syncPod(ctx, st, pod, false); err != nil {
			t.Fatal(err)
		}
	}
	if _, done, err := kl.syncPod(ctx, st, pod, true); err != nil || !done {
		t.Fatalf("sync of the removed pod = %v, %v", done, err)
	}
	wantEvents(t, events,
		`Normal Pulled: Container image "tools:1" already present on machine`,
		"Normal Created: Created container: setup",
		"Normal Started: Started container setup",
		`Normal Pulled: Container image "app:1" already present on machine`,
		"Normal Created: Created container: main",
		"Normal Started: Started container main",
		"Normal Killing: Stopping container main",
	)
	if got := events.fieldPaths(eventCreated); !slices.Equal(got, []string{"spec.initContainers{setup}", "spec.containers{main}"}) {
		t.Errorf("Created fieldPaths = %q", got)
	}
	events.mu.Lock()
	defer events.mu.Unlock()
	for i, ref := range events.refs {
		if ref.Kind != "Pod" || ref.APIVersion != "v1" || ref.Name != "p" || ref.Namespace != "ns" || ref.UID != "uid-1" {
			t.Errorf("event %q is about %+v, want the pod", events.events[i], ref)
		}
	}
}

func TestCrashingContainerBackOffEvents(t *testing.T) {
	kl, _, events := newTestKubelet(t)
	ctx := t.Context()
	pod := eventsPod(corev1.Container{Name: "crash", Image: "app:1", Command: []string{"sh", "-c", "exit 1"}})
	st := newPodState()
	// Runs and exits; restarts at once; then waits out the back-off.
	for range 3 {
		if _, _, err := kl.syncPod(ctx, st, pod, false); err != nil {
			t.Fatal(err)
		}
	}
	if got := len(events.with(eventStarted)); got != 2 {
		t.Errorf("Started events = %d, want 2", got)
	}
	got := events.with(eventBackOff)
	want := "Warning BackOff: Back-off restarting failed container crash in pod p_ns(uid-1)"
	if len(got) != 1 || got[0] != want {
		t.Errorf("BackOff events = %q, want [%q]", got, want)
	}
	if got := events.fieldPaths(eventBackOff); len(got) != 1 || got[0] != "spec.containers{crash}" {
		t.Errorf("BackOff fieldPaths = %q", got)
	}
}

func TestFailedMountAndConfigErrorEvents(t *testing.T) {
	kl, _, events := newTestKubelet(t)
	kl.objects = objects{configMaps: map[string]*corev1.ConfigMap{"present": {Data: map[string]string{"k": "v"}}}}
	ctx := t.Context()

	pod := eventsPod(corev1.Container{Name: "main", Image: "app:1", Command: []string{"sleep", "inf"}})
	pod.Spec.Volumes = []corev1.Volume{{Name: "cfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "missing"}}}}}
	if _, _, err := kl.syncPod(ctx, newPodState(), pod, false); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, events, `Warning FailedMount: MountVolume.SetUp failed for volume "cfg" : configmap "missing" not found`)
	if got := events.fieldPaths(eventFailedMount); len(got) != 1 || got[0] != "" {
		t.Errorf("FailedMount fieldPaths = %q, want the pod's", got)
	}
	events.reset()
	pod.Spec.Volumes = []corev1.Volume{{Name: "creds", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "gone"}}}}
	if _, _, err := kl.syncPod(ctx, newPodState(), pod, false); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, events, `Warning FailedMount: MountVolume.SetUp failed for volume "creds" : secret "gone" not found`)

	events.reset()
	pod = eventsPod(corev1.Container{Name: "main", Image: "app:1", Command: []string{"sleep", "inf"}, Env: []corev1.EnvVar{{
		Name: "X", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "missing"}, Key: "k"}},
	}}})
	st := newPodState()
	if _, _, err := kl.syncPod(ctx, st, pod, false); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, events,
		`Normal Pulled: Container image "app:1" already present on machine`,
		`Warning Failed: Error: env X: configmap "missing" not found`)
	if w := st.waiting["main"]; w.reason != reasonCreateConfigError {
		t.Errorf("waiting = %+v, want %s", w, reasonCreateConfigError)
	}
}

// refusingRuntime is the fake runtime that cannot make sandboxes or
// containers while told so.
type refusingRuntime struct {
	*fake.Runtime
	mu                 sync.Mutex
	noSandbox, noStart bool
}

func (r *refusingRuntime) RunPodSandbox(ctx context.Context, cfg kruntime.PodSandboxConfig) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.noSandbox {
		return "", errors.New("no network for the sandbox")
	}
	return r.Runtime.RunPodSandbox(ctx, cfg)
}

func (r *refusingRuntime) CreateContainer(ctx context.Context, sandboxID string, cfg kruntime.ContainerConfig) (string, error) {
	if cfg.Image == "bad" {
		return "", &kruntime.ContainerError{Reason: "InvalidImageName", Message: `invalid reference format: "bad"`}
	}
	return r.Runtime.CreateContainer(ctx, sandboxID, cfg)
}

func (r *refusingRuntime) StartContainer(ctx context.Context, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.noStart {
		return errors.New("exec format error")
	}
	return r.Runtime.StartContainer(ctx, id)
}

func newRuntimeKubelet(t *testing.T, rt kruntime.Runtime) (*Kubelet, *eventLog) {
	t.Helper()
	events := &eventLog{}
	kl, err := New(Config{NodeName: "n", Runtime: rt, RootDir: t.TempDir(), NodeIP: "127.0.0.1",
		StaticPodPath: t.TempDir(), Machine: &MachineInfo{}, Recorder: events})
	if err != nil {
		t.Fatal(err)
	}
	return kl, events
}

func TestSandboxAndRuntimeFailureEvents(t *testing.T) {
	rt := &refusingRuntime{Runtime: fake.New("127.0.0.1", nil), noSandbox: true}
	kl, events := newRuntimeKubelet(t, rt)
	ctx := t.Context()
	pod := eventsPod(
		corev1.Container{Name: "main", Image: "app:1", Command: []string{"sleep", "inf"}},
		corev1.Container{Name: "broken", Image: "bad", Command: []string{"sleep", "inf"}})
	st := newPodState()
	if _, _, err := kl.syncPod(ctx, st, pod, false); err == nil {
		t.Fatal("sync without a sandbox succeeded")
	}
	wantEvents(t, events, "Warning FailedCreatePodSandBox: Failed to create pod sandbox: no network for the sandbox")

	events.reset()
	rt.mu.Lock()
	rt.noSandbox, rt.noStart = false, true
	rt.mu.Unlock()
	if _, _, err := kl.syncPod(ctx, st, pod, false); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, events,
		`Normal Pulled: Container image "app:1" already present on machine`,
		"Normal Created: Created container: main",
		"Warning Failed: Error: exec format error",
		`Normal Pulled: Container image "bad" already present on machine`,
		`Warning Failed: Error: invalid reference format: "bad"`,
	)
	if w := st.waiting["broken"]; w.reason != "InvalidImageName" {
		t.Errorf("waiting = %+v, want the runtime's reason", w)
	}

	// The sandbox dies under the pod: it is made anew, and said so.
	events.reset()
	rt.mu.Lock()
	rt.noStart = false
	rt.mu.Unlock()
	if err := rt.StopPodSandbox(ctx, st.sandboxID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := kl.syncPod(ctx, st, pod, false); err != nil {
		t.Fatal(err)
	}
	if got := events.with(eventSandboxChanged); len(got) != 1 || got[0] != "Normal SandboxChanged: Pod sandbox changed, it will be killed and re-created." {
		t.Errorf("SandboxChanged events = %q", got)
	}
	if got := events.with(eventStarted); len(got) != 1 {
		t.Errorf("Started events = %q, want main's in the new sandbox", got)
	}
}

// pullingRuntime is the fake runtime with images to pull.
type pullingRuntime struct {
	*fake.Runtime
	mu      sync.Mutex
	present map[string]bool
	fail    error
	pulls   int
}

var _ kruntime.ImageService = (*pullingRuntime)(nil)

func (r *pullingRuntime) ImagePresent(_ context.Context, image string) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.present[image], nil
}

func (r *pullingRuntime) PullImage(_ context.Context, image, _ string) (uint64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pulls++
	if r.fail != nil {
		return 0, r.fail
	}
	r.present[image] = true
	return 1234, nil
}

func TestImageEvents(t *testing.T) {
	for _, tc := range []struct {
		name    string
		policy  corev1.PullPolicy
		present bool
		want    []string
		waiting string
	}{
		{"present", corev1.PullIfNotPresent, true, []string{`Normal Pulled: Container image "img:1" already present on machine`}, ""},
		{"missing", corev1.PullIfNotPresent, false, []string{
			`Normal Pulling: Pulling image "img:1"`,
			`Normal Pulled: Successfully pulled image "img:1" in 0s (0s including waiting). Image size: 1234 bytes.`}, ""},
		{"always pulled", corev1.PullAlways, true, []string{
			`Normal Pulling: Pulling image "img:1"`,
			`Normal Pulled: Successfully pulled image "img:1" in 0s (0s including waiting). Image size: 1234 bytes.`}, ""},
		{"never and missing", corev1.PullNever, false, []string{
			`Warning ErrImageNeverPull: Container image "img:1" is not present with pull policy of Never`,
			"Warning Failed: Error: ErrImageNeverPull"}, reasonErrImageNeverPull},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt := &pullingRuntime{Runtime: fake.New("127.0.0.1", nil), present: map[string]bool{"img:1": tc.present}}
			kl, events := newRuntimeKubelet(t, rt)
			kl.clock = newFakeClock()
			pod := eventsPod(corev1.Container{Name: "main", Image: "img:1", ImagePullPolicy: tc.policy, Command: []string{"sleep", "inf"}})
			st := newPodState()
			if _, _, err := kl.syncPod(t.Context(), st, pod, false); err != nil {
				t.Fatal(err)
			}
			got := slices.DeleteFunc(events.all(), func(e string) bool { return strings.Contains(e, " Created: ") || strings.Contains(e, " Started: ") })
			if !slices.Equal(got, tc.want) {
				t.Errorf("events = %q, want %q", got, tc.want)
			}
			if w := st.waiting["main"]; w.reason != tc.waiting {
				t.Errorf("waiting = %+v, want %q", w, tc.waiting)
			}
		})
	}
}

func TestImagePullFailureBacksOff(t *testing.T) {
	rt := &pullingRuntime{Runtime: fake.New("127.0.0.1", nil), present: map[string]bool{}, fail: errors.New("not found: img:1")}
	kl, events := newRuntimeKubelet(t, rt)
	clock := newFakeClock()
	kl.clock = clock
	ctx := t.Context()
	pod := eventsPod(corev1.Container{Name: "main", Image: "img:1", ImagePullPolicy: corev1.PullIfNotPresent, Command: []string{"sleep", "inf"}})
	st := newPodState()
	requeue, _, err := kl.syncPod(ctx, st, pod, false)
	if err != nil {
		t.Fatal(err)
	}
	wantEvents(t, events,
		`Normal Pulling: Pulling image "img:1"`,
		`Warning Failed: Failed to pull image "img:1": not found: img:1`,
		"Warning Failed: Error: ErrImagePull")
	if w := st.waiting["main"]; w.reason != reasonErrImagePull || requeue != initialImagePullBackOff {
		t.Errorf("waiting %+v, requeue %s; want ErrImagePull in %s", w, requeue, initialImagePullBackOff)
	}

	// Within the back-off nothing is pulled.
	events.reset()
	clock.Step(5 * time.Second)
	if _, _, err := kl.syncPod(ctx, st, pod, false); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, events, `Normal BackOff: Back-off pulling image "img:1"`, "Warning Failed: Error: ImagePullBackOff")
	if w := st.waiting["main"]; w.reason != reasonImagePullBackOff || rt.pulls != 1 {
		t.Errorf("waiting %+v after %d pulls; want ImagePullBackOff after 1", w, rt.pulls)
	}

	// After it, the pull is tried again and succeeds.
	events.reset()
	rt.mu.Lock()
	rt.fail = nil
	rt.mu.Unlock()
	clock.Step(5 * time.Second)
	if _, _, err := kl.syncPod(ctx, st, pod, false); err != nil {
		t.Fatal(err)
	}
	if got := events.with(eventPulled); len(got) != 1 || !strings.Contains(got[0], "Successfully pulled image") {
		t.Errorf("Pulled events = %q", got)
	}
	if got := events.with(eventStarted); len(got) != 1 {
		t.Errorf("Started events = %q", got)
	}
}

func TestUnhealthyEvents(t *testing.T) {
	clock := newFakeClock()
	p := &scriptedProber{answer: func(int32) bool { return false }}
	m := newProbeManager(p, clock, func(string) {})
	defer m.stopAll()
	var mu sync.Mutex
	var got []string
	var refs []corev1.ObjectReference
	m.unhealthy = func(_ context.Context, ref corev1.ObjectReference, msg string) {
		mu.Lock()
		defer mu.Unlock()
		got, refs = append(got, msg), append(refs, ref)
	}
	pod := testPod("u")
	pod.Spec.Containers = []corev1.Container{{Name: "web",
		ReadinessProbe: &corev1.Probe{PeriodSeconds: 1},
		LivenessProbe:  &corev1.Probe{PeriodSeconds: 1, FailureThreshold: 5}}}
	recs := map[string]containerRecords{"web": {current: &kruntime.ContainerStatus{ID: "c1", Name: "web", State: kruntime.ContainerRunning, StartedAt: clock.Now()}}}
	m.sync(t.Context(), pod, recs, "")
	eventually(t, "two workers", func() bool { return clock.waiters() == 2 })
	clock.Step(0)
	eventually(t, "two failed probes", func() bool { mu.Lock(); defer mu.Unlock(); return len(got) == 2 })
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(got)
	if want := []string{"Liveness probe failed: ", "Readiness probe failed: "}; !slices.Equal(got, want) {
		t.Errorf("Unhealthy messages = %q, want %q", got, want)
	}
	for _, ref := range refs {
		if ref.Kind != "Pod" || ref.Name != pod.Name || ref.FieldPath != "spec.containers{web}" {
			t.Errorf("Unhealthy event about %+v, want the container web", ref)
		}
	}
}

func TestLivenessFailureKillingEvent(t *testing.T) {
	kl, _, events := newTestKubelet(t)
	ctx := t.Context()
	grace := int64(1)
	pod := eventsPod(corev1.Container{Name: "web", Image: "app:1", Command: []string{"sleep", "inf"}, LivenessProbe: &corev1.Probe{PeriodSeconds: 1}})
	pod.Spec.TerminationGracePeriodSeconds = &grace
	st := newPodState()
	if _, _, err := kl.syncPod(ctx, st, pod, false); err != nil {
		t.Fatal(err)
	}
	list, err := kl.runtime.ListContainers(ctx, st.sandboxID)
	if err != nil || len(list) != 1 {
		t.Fatalf("containers = %v, %v", list, err)
	}
	// The probe's verdict, as its worker leaves it after failureThreshold.
	kl.probes.mu.Lock()
	w := kl.probes.workers[probeKey{podUID: "uid-1", container: "web", kind: probeLiveness}]
	if w == nil {
		kl.probes.mu.Unlock()
		t.Fatal("no liveness worker")
	}
	w.failed, w.result = true, false
	kl.probes.mu.Unlock()
	events.reset()
	if _, _, err := kl.syncPod(ctx, st, pod, false); err != nil {
		t.Fatal(err)
	}
	if got := events.with(eventKilling); len(got) != 1 || got[0] != "Normal Killing: Container web failed liveness probe, will be restarted" {
		t.Errorf("Killing events = %q", got)
	}
}

func TestConditionEvents(t *testing.T) {
	want := desiredNodeConditions(nodeSignals{memAvailable: 1 << 40}, nil, nil)
	if got := conditionEvents(want, nil); !slices.Equal(got, []string{"NodeHasSufficientMemory", "NodeHasNoDiskPressure", "NodeHasSufficientPID", "NodeReady"}) {
		t.Errorf("events of a new node = %q", got)
	}
	old := nodeConditions(want, nil, time.Now())
	if got := conditionEvents(want, old); len(got) != 0 {
		t.Errorf("events without changes = %q", got)
	}
	down := desiredNodeConditions(nodeSignals{memAvailable: 1}, nil, errors.New("runtime down"))
	if got := conditionEvents(down, old); !slices.Equal(got, []string{"NodeHasInsufficientMemory", "NodeNotReady"}) {
		t.Errorf("events of a node going down = %q", got)
	}
}

func TestDisabledEventsAreOnlyLogged(t *testing.T) {
	cs, err := typed.NewForConfig(&rest.Config{Host: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, disabled := range []bool{true, false} {
		e := newKubeletEvents(cs, nil, "n", disabled)
		e.start(t.Context())
		if r := e.get(); (r == nil) != disabled {
			t.Errorf("disabled %v: recorder = %T", disabled, r)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		e.shutdown(ctx)
		cancel()
	}
}
