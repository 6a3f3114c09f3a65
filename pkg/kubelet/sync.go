package kubelet

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"k8s.io/klog/v2"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// Waiting reasons of containers, as Kubernetes reports them.
const (
	reasonContainerCreating = "ContainerCreating"
	reasonPodInitializing   = "PodInitializing"
	reasonCrashLoopBackOff  = "CrashLoopBackOff"
	reasonCreateConfigError = "CreateContainerConfigError"
	reasonCreateError       = "CreateContainerError"
	reasonRunContainerError = "RunContainerError"
	reasonDeadlineExceeded  = "DeadlineExceeded"
	messageDeadlineExceeded = "Pod was active on the node longer than the specified deadline"
	configErrorRetry        = 2 * time.Second
	runtimeRefusalRetry     = 10 * time.Second
	volumeErrorRetry        = 2 * time.Second
)

// podState is what a pod's worker remembers between syncs.
type podState struct {
	sandboxID string
	// podIP is the ready sandbox's address (the pod IP), once known.
	podIP string
	// adoptChecked: the runtime was searched for a sandbox to adopt.
	adoptChecked bool
	startTime    time.Time
	backOffs     map[string]*backOff     // by container name
	pulls        map[string]*pullBackOff // by image
	// waiting holds this sync's waiting reasons of containers that are
	// not running (back-off, configuration or runtime errors).
	waiting          map[string]waitingInfo
	deadlineExceeded bool
	// admission: whether the pod may run on the node (its host ports).
	admission admission
	// resizePending says why the spec's resources are not allocated yet
	// (nil: they are).
	resizePending *resizePending
	// finished: a terminal phase (Succeeded, Failed) was written; a sync
	// with a copy of the pod from before that write (the watch not caught
	// up) must not run it again in a new sandbox.
	finished bool
}

type waitingInfo struct{ reason, message string }

func newPodState() *podState {
	return &podState{backOffs: map[string]*backOff{}, pulls: map[string]*pullBackOff{}, waiting: map[string]waitingInfo{}}
}

func (st *podState) backOff(name string) *backOff {
	b, ok := st.backOffs[name]
	if !ok {
		b = &backOff{}
		st.backOffs[name] = b
	}
	return b
}

// containerRecords are the newest container of a name and the one before.
type containerRecords struct{ current, previous *kruntime.ContainerStatus }

// groupContainers picks, per container name, the newest and previous
// container by attempt; older ones are returned for removal.
func groupContainers(list []kruntime.ContainerStatus) (map[string]containerRecords, []kruntime.ContainerStatus) {
	slices.SortFunc(list, func(a, b kruntime.ContainerStatus) int {
		if a.Attempt != b.Attempt {
			return int(b.Attempt) - int(a.Attempt)
		}
		return b.CreatedAt.Compare(a.CreatedAt)
	})
	out := map[string]containerRecords{}
	var old []kruntime.ContainerStatus
	for i := range list {
		c := &list[i]
		r := out[c.Name]
		switch {
		case r.current == nil:
			r.current = c
		case r.previous == nil:
			r.previous = c
		default:
			old = append(old, *c)
		}
		out[c.Name] = r
	}
	return out, old
}

// shouldRestart says whether an exited container runs again.
func shouldRestart(policy corev1.RestartPolicy, exitCode int32) bool {
	switch policy {
	case corev1.RestartPolicyNever:
		return false
	case corev1.RestartPolicyOnFailure:
		return exitCode != 0
	}
	return true
}

func isTerminal(p corev1.PodPhase) bool { return p == corev1.PodSucceeded || p == corev1.PodFailed }

func isSidecar(c *corev1.Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
}

// podSync is the state of one sync of one pod.
type podSync struct {
	kl      *Kubelet
	st      *podState
	pod     *corev1.Pod
	now     time.Time
	ips     podIPs
	dirs    volumeDirs
	recs    map[string]containerRecords
	requeue time.Duration
}

// after asks for the next sync in d at the latest.
func (s *podSync) after(d time.Duration) {
	if d > 0 && (s.requeue == 0 || d < s.requeue) {
		s.requeue = d
	}
}

// syncPod moves a pod towards its spec: volumes, sandbox, init containers
// in order, app containers with restarts and back-off; then its status.
// A pod being deleted is terminated and its object deleted.
func (kl *Kubelet) syncPod(ctx context.Context, st *podState, pod *corev1.Pod, removed bool) (time.Duration, bool, error) {
	if !st.adoptChecked {
		// The ready sandbox of an earlier kubelet (before a restart) is
		// adopted with whatever runs in it.
		id, err := kl.findSandbox(ctx, string(pod.UID))
		if err != nil {
			return 0, false, err
		}
		st.adoptChecked = true
		if id != "" {
			klog.FromContext(ctx).V(2).Info("Adopted the sandbox of a pod", "pod", klog.KObj(pod), "sandbox", id)
			st.sandboxID = id
		}
	}
	if removed || pod.DeletionTimestamp != nil {
		if err := kl.terminatePod(ctx, st, pod, removed); err != nil {
			return 0, false, err
		}
		return 0, true, nil
	}
	uid := string(pod.UID)
	if isTerminal(pod.Status.Phase) || st.finished {
		// Finished for good: make sure nothing is left running.
		kl.admitted.release(uid)
		kl.allocs.release(uid)
		kl.probes.stopPod(uid)
		if st.sandboxID != "" {
			if err := kl.runtime.StopPodSandbox(ctx, st.sandboxID); err != nil && !errors.Is(err, kruntime.ErrNotFound) {
				return 0, false, fmt.Errorf("stop sandbox of finished pod: %w", err)
			}
		}
		return 0, false, nil
	}
	if ok, err := kl.admitPod(ctx, st, pod); !ok || err != nil {
		return 0, false, err
	}
	s := &podSync{kl: kl, st: st, pod: pod, now: kl.clock.Now(), ips: podIPs{hostIP: kl.cfg.NodeIP, podIP: kl.cfg.NodeIP}}
	if st.startTime.IsZero() {
		st.startTime = s.now
		if pod.Status.StartTime != nil {
			st.startTime = pod.Status.StartTime.Time
		}
	}
	clear(st.waiting)
	resized, before := s.allocate(ctx)

	if ads := pod.Spec.ActiveDeadlineSeconds; ads != nil && !st.deadlineExceeded {
		left := st.startTime.Add(time.Duration(*ads) * time.Second).Sub(s.now)
		if left <= 0 {
			st.deadlineExceeded = true
		} else {
			s.after(left)
		}
	}
	if st.deadlineExceeded {
		if err := kl.killContainers(ctx, st, pod, gracePeriod(pod)); err != nil {
			return 0, false, err
		}
	}

	dirs, volErr := kl.setUpVolumes(ctx, pod, s.ips)
	s.dirs = dirs
	if volErr != nil {
		kl.events.pod(ctx, pod, corev1.EventTypeWarning, eventFailedMount, "%v", volErr)
		s.after(volumeErrorRetry)
	}
	sandboxReady, err := kl.ensureSandbox(ctx, st, pod, volErr == nil && !st.deadlineExceeded)
	if err != nil {
		return 0, false, err
	}
	if sandboxReady && st.podIP != "" {
		s.ips.podIP = st.podIP
	}
	if err := s.listContainers(ctx); err != nil {
		return 0, false, err
	}
	if sandboxReady && volErr == nil && !st.deadlineExceeded {
		if err := s.restartForResize(ctx, resized, before); err != nil {
			return 0, false, err
		}
		if err := s.killUnhealthy(ctx); err != nil {
			return 0, false, err
		}
		initDone, _ := s.syncInitContainers(ctx)
		if initDone {
			for i := range pod.Spec.Containers {
				s.syncContainer(ctx, &pod.Spec.Containers[i], pod.Spec.RestartPolicy)
			}
			s.syncEphemeralContainers(ctx)
		}
		if err := s.listContainers(ctx); err != nil {
			return 0, false, err
		}
	}
	if volErr != nil {
		for _, c := range pod.Spec.Containers {
			if s.recs[c.Name].current == nil {
				st.waiting[c.Name] = waitingInfo{reason: reasonContainerCreating, message: volErr.Error()}
			}
		}
	}
	kl.probes.sync(ctx, pod, s.recs, s.ips.podIP)
	status := buildPodStatus(statusInput{
		pod: pod, now: s.now, runtimeType: kl.runtime.Type(),
		hostIP: kl.cfg.NodeIP, podIP: s.ips.podIP, startTime: st.startTime,
		sandboxReady: sandboxReady, records: s.recs, waiting: st.waiting,
		probes: kl.probes, deadlineExceeded: st.deadlineExceeded, written: kl.status.conditions(uid),
		allocated: s.allocation(), resizePending: st.resizePending,
	})
	if isTerminal(status.Phase) {
		kl.admitted.release(uid)
		kl.allocs.release(uid)
		kl.probes.stopPod(uid)
		if st.sandboxID != "" {
			if err := kl.runtime.StopPodSandbox(ctx, st.sandboxID); err != nil && !errors.Is(err, kruntime.ErrNotFound) {
				return 0, false, fmt.Errorf("stop sandbox of finished pod: %w", err)
			}
		}
	}
	if err := kl.setStatus(ctx, pod, status); err != nil {
		return 0, false, err
	}
	st.finished = isTerminal(status.Phase)
	return s.requeue, false, nil
}

// ensureSandbox finds the pod's ready sandbox, or makes one when create.
func (kl *Kubelet) ensureSandbox(ctx context.Context, st *podState, pod *corev1.Pod, create bool) (bool, error) {
	if st.sandboxID != "" {
		s, err := kl.runtime.PodSandboxStatus(ctx, st.sandboxID)
		switch {
		case err == nil && s.State == kruntime.SandboxReady:
			st.podIP = s.IP
			return true, nil
		case err == nil || errors.Is(err, kruntime.ErrNotFound):
			if !create {
				return false, nil
			}
			// The sandbox died: start over with a new one.
			kl.events.pod(ctx, pod, corev1.EventTypeNormal, eventSandboxChanged, "Pod sandbox changed, it will be killed and re-created.")
			_ = kl.runtime.StopPodSandbox(ctx, st.sandboxID)
			_ = kl.runtime.RemovePodSandbox(ctx, st.sandboxID)
			st.sandboxID, st.podIP = "", ""
		default:
			return false, fmt.Errorf("sandbox status: %w", err)
		}
	}
	if !create {
		return false, nil
	}
	dns, err := kl.writeResolvConf(ctx, pod)
	if err != nil {
		kl.events.pod(ctx, pod, corev1.EventTypeWarning, eventFailedCreatePodSandBox, "Failed to create pod sandbox: %v", err)
		return false, err
	}
	id, err := kl.runtime.RunPodSandbox(ctx, kruntime.PodSandboxConfig{
		UID: string(pod.UID), Namespace: pod.Namespace, Name: pod.Name,
		LogDirectory: kl.podLogDir(pod), Labels: pod.Labels, Annotations: pod.Annotations,
		HostNetwork: pod.Spec.HostNetwork,
		Hostname:    podHostname(pod),
		DNS:         dns,
		Hosts:       podHosts(pod, kl.cfg.DNS.ClusterDomain),
		HostIPC:     pod.Spec.HostIPC,
		Sysctls:     podSysctls(pod),
	})
	if err != nil {
		kl.events.pod(ctx, pod, corev1.EventTypeWarning, eventFailedCreatePodSandBox, "Failed to create pod sandbox: %v", err)
		return false, fmt.Errorf("run pod sandbox: %w", err)
	}
	st.sandboxID = id
	if s, err := kl.runtime.PodSandboxStatus(ctx, id); err == nil {
		st.podIP = s.IP
	}
	kl.networkEvent(ctx, pod)
	return true, nil
}

// findSandbox returns the newest ready sandbox of a pod, if any.
func (kl *Kubelet) findSandbox(ctx context.Context, uid string) (string, error) {
	list, err := kl.runtime.ListPodSandbox(ctx)
	if err != nil {
		return "", fmt.Errorf("list sandboxes: %w", err)
	}
	var best *kruntime.PodSandboxStatus
	for i := range list {
		s := &list[i]
		if s.Config.UID == uid && s.State == kruntime.SandboxReady && (best == nil || s.CreatedAt.After(best.CreatedAt)) {
			best = s
		}
	}
	if best == nil {
		return "", nil
	}
	return best.ID, nil
}

// podLogDir is where a pod's container logs go, as Kubernetes lays out
// /var/log/pods: <root>/logs/pods/<namespace>_<name>_<uid>.
func (kl *Kubelet) podLogDir(pod *corev1.Pod) string {
	return fmt.Sprintf("%s/logs/pods/%s_%s_%s", kl.cfg.RootDir, pod.Namespace, pod.Name, pod.UID)
}

func (s *podSync) listContainers(ctx context.Context) error {
	if s.st.sandboxID == "" {
		s.recs = map[string]containerRecords{}
		return nil
	}
	list, err := s.kl.runtime.ListContainers(ctx, s.st.sandboxID)
	if err != nil {
		return fmt.Errorf("list containers: %w", err)
	}
	recs, old := groupContainers(list)
	s.kl.addTerminationMessages(s.pod, recs)
	for _, c := range old {
		if c.State == kruntime.ContainerExited {
			_ = s.kl.runtime.RemoveContainer(ctx, c.ID)
		}
	}
	s.recs = recs
	return nil
}

// killUnhealthy stops running containers whose liveness or startup probe
// failed; the restart policy then decides whether they run again.
func (s *podSync) killUnhealthy(ctx context.Context) error {
	for _, c := range s.pod.Spec.Containers {
		cur := s.recs[c.Name].current
		if cur == nil || cur.State != kruntime.ContainerRunning {
			continue
		}
		probe, kind, failed := s.kl.probes.failed(string(s.pod.UID), c.Name, cur.ID)
		if !failed {
			continue
		}
		grace := gracePeriod(s.pod)
		if probe != nil && probe.TerminationGracePeriodSeconds != nil {
			grace = time.Duration(*probe.TerminationGracePeriodSeconds) * time.Second
		}
		klog.FromContext(ctx).V(2).Info("Killing unhealthy container", "pod", klog.KObj(s.pod), "container", c.Name)
		msg := fmt.Sprintf("Container %s failed %s probe, will be restarted", c.Name, kind)
		if err := s.kl.stopContainer(ctx, s.pod, c.Name, cur.ID, s.ips.podIP, true, grace, msg); err != nil {
			return fmt.Errorf("stop unhealthy container %s: %w", c.Name, err)
		}
	}
	return s.listContainers(ctx)
}

// syncInitContainers runs the init containers one after another, each to
// success; done is true once all have succeeded (sidecars: are running).
func (s *podSync) syncInitContainers(ctx context.Context) (done, failed bool) {
	policy := s.pod.Spec.RestartPolicy
	if policy == corev1.RestartPolicyAlways {
		policy = corev1.RestartPolicyOnFailure
	}
	for i := range s.pod.Spec.InitContainers {
		c := &s.pod.Spec.InitContainers[i]
		cur := s.recs[c.Name].current
		if isSidecar(c) {
			s.syncContainer(ctx, c, corev1.RestartPolicyAlways)
			if cur == nil || cur.State != kruntime.ContainerRunning {
				return false, false
			}
			continue
		}
		if cur != nil && cur.State == kruntime.ContainerExited && cur.ExitCode == 0 {
			continue
		}
		if cur != nil && cur.State == kruntime.ContainerExited && policy == corev1.RestartPolicyNever {
			return false, true
		}
		s.syncContainer(ctx, c, policy)
		return false, false
	}
	return true, false
}

// syncContainer starts a container that never ran, and restarts one that
// exited when the policy says so, honouring the back-off.
func (s *podSync) syncContainer(ctx context.Context, c *corev1.Container, policy corev1.RestartPolicy) {
	cur := s.recs[c.Name].current
	switch {
	case cur == nil:
		s.startContainer(ctx, c, 0)
	case cur.State == kruntime.ContainerCreated:
		if err := s.kl.runtime.StartContainer(ctx, cur.ID); err != nil {
			s.kl.events.container(ctx, s.pod, c.Name, corev1.EventTypeWarning, eventFailed, "Error: %v", err)
			s.st.waiting[c.Name] = waitingInfo{reason: reasonRunContainerError, message: err.Error()}
			_ = s.kl.runtime.RemoveContainer(ctx, cur.ID)
			s.after(runtimeRefusalRetry)
			return
		}
		s.kl.events.container(ctx, s.pod, c.Name, corev1.EventTypeNormal, eventStarted, "Started container %s", c.Name)
		if err := s.kl.runPostStart(ctx, s.pod, c, cur.ID, s.ips.podIP); err != nil {
			s.st.waiting[c.Name] = waitingInfo{reason: reasonPostStartHookError, message: err.Error()}
		}
	case cur.State == kruntime.ContainerExited:
		if !shouldRestart(policy, cur.ExitCode) {
			return
		}
		b := s.st.backOff(c.Name)
		if wait := b.wait(s.now, cur.StartedAt, cur.FinishedAt); wait > 0 {
			s.kl.events.container(ctx, s.pod, c.Name, corev1.EventTypeWarning, eventBackOff,
				"Back-off restarting failed container %s in pod %s_%s(%s)", c.Name, s.pod.Name, s.pod.Namespace, s.pod.UID)
			s.st.waiting[c.Name] = waitingInfo{reason: reasonCrashLoopBackOff, message: fmt.Sprintf(
				"back-off %s restarting failed container=%s pod=%s_%s(%s)", b.delay, c.Name, s.pod.Name, s.pod.Namespace, s.pod.UID)}
			s.after(wait)
			return
		}
		if s.startContainer(ctx, c, cur.Attempt+1) {
			b.restarted()
		}
	}
}

// startContainer creates and starts one container; a failure is kept as
// the container's waiting reason and retried later.
func (s *podSync) startContainer(ctx context.Context, c *corev1.Container, attempt uint32) bool {
	kl := s.kl
	fail := func(reason string, err error, retry time.Duration) bool {
		s.st.waiting[c.Name] = waitingInfo{reason: reason, message: err.Error()}
		s.after(retry)
		klog.FromContext(ctx).V(2).Info("Failed to start container", "pod", klog.KObj(s.pod), "container", c.Name, "reason", reason, "err", err)
		return false
	}
	// failed is fail reported as Kubernetes does: a Failed Event "Error: ...".
	failed := func(reason string, err error, retry time.Duration) bool {
		kl.events.container(ctx, s.pod, c.Name, corev1.EventTypeWarning, eventFailed, "Error: %v", err)
		return fail(reason, err, retry)
	}
	if w, retry := s.ensureImage(ctx, c); w != nil {
		s.st.waiting[c.Name] = *w
		s.after(retry)
		return false
	}
	env, err := containerEnv(ctx, kl.objects, s.pod, c, s.ips, kl.machine.Capacity)
	if err != nil {
		return failed(reasonCreateConfigError, err, configErrorRetry)
	}
	mounts, err := s.dirs.mounts(c, env)
	if err != nil {
		return failed(reasonCreateConfigError, err, configErrorRetry)
	}
	tm, err := kl.terminationMessageMount(s.pod, c, attempt, mounts)
	if err != nil {
		return failed(reasonCreateError, err, runtimeRefusalRetry)
	}
	if tm != nil {
		mounts = append(mounts, *tm)
	}
	vars := make(map[string]string, len(env))
	for _, kv := range env {
		vars[kv.Key] = kv.Value
	}
	lookup := func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
	expandAll := func(in []string) []string {
		out := make([]string, len(in))
		for i, a := range in {
			out[i] = expand(a, lookup)
		}
		return out
	}
	s.warnPortConflicts(ctx, c)
	id, err := kl.runtime.CreateContainer(ctx, s.st.sandboxID, kruntime.ContainerConfig{
		Name: c.Name, Attempt: attempt, Image: c.Image,
		Command: expandAll(c.Command), Args: expandAll(c.Args),
		Env: env, WorkingDir: c.WorkingDir, Mounts: mounts,
		LogPath: fmt.Sprintf("%s/%d.log", c.Name, attempt),
		Stdin:   c.Stdin, StdinOnce: c.StdinOnce, TTY: c.TTY,
		User:     containerUser(s.pod, c),
		Security: containerSecurity(c),
	})
	if err != nil {
		var ce *kruntime.ContainerError
		if errors.As(err, &ce) {
			return failed(ce.Reason, errors.New(ce.Message), runtimeRefusalRetry)
		}
		return failed(reasonCreateError, err, runtimeRefusalRetry)
	}
	kl.events.container(ctx, s.pod, c.Name, corev1.EventTypeNormal, eventCreated, "Created container: %s", c.Name)
	if err := kl.runtime.StartContainer(ctx, id); err != nil {
		_ = kl.runtime.RemoveContainer(ctx, id)
		return failed(reasonRunContainerError, err, runtimeRefusalRetry)
	}
	kl.events.container(ctx, s.pod, c.Name, corev1.EventTypeNormal, eventStarted, "Started container %s", c.Name)
	if err := kl.runPostStart(ctx, s.pod, c, id, s.ips.podIP); err != nil {
		// The container ran and was killed: it counts as a restart, and
		// its restart policy and back-off decide what comes next.
		fail(reasonPostStartHookError, err, 0)
	}
	return true
}

// gracePeriod is how long a pod's containers get between SIGTERM and
// SIGKILL: the deletion's grace period, else the spec's, else 30 s.
func gracePeriod(pod *corev1.Pod) time.Duration {
	switch {
	case pod.DeletionGracePeriodSeconds != nil:
		return time.Duration(*pod.DeletionGracePeriodSeconds) * time.Second
	case pod.Spec.TerminationGracePeriodSeconds != nil:
		return time.Duration(*pod.Spec.TerminationGracePeriodSeconds) * time.Second
	}
	return corev1.DefaultTerminationGracePeriodSeconds * time.Second
}

// killContainers stops the pod's running containers, each with the grace
// period: the app containers (and init and ephemeral ones) in parallel,
// then, as Kubernetes does, the sidecars (restartable init containers)
// one by one in reverse order with what is left of the grace period, so
// that the app containers' preStop hooks can still use them.
func (kl *Kubelet) killContainers(ctx context.Context, st *podState, pod *corev1.Pod, grace time.Duration) error {
	if st.sandboxID == "" {
		return nil
	}
	list, err := kl.runtime.ListContainers(ctx, st.sandboxID)
	if err != nil {
		if errors.Is(err, kruntime.ErrNotFound) {
			return nil
		}
		return fmt.Errorf("list containers to kill: %w", err)
	}
	list = slices.DeleteFunc(list, func(c kruntime.ContainerStatus) bool {
		return c.State != kruntime.ContainerRunning && c.State != kruntime.ContainerCreated
	})
	sidecarIndex := func(name string) int {
		return slices.IndexFunc(pod.Spec.InitContainers, func(c corev1.Container) bool { return c.Name == name && isSidecar(&c) })
	}
	var sidecars []kruntime.ContainerStatus
	list = slices.DeleteFunc(list, func(c kruntime.ContainerStatus) bool {
		if sidecarIndex(c.Name) >= 0 {
			sidecars = append(sidecars, c)
			return true
		}
		return false
	})
	stop := func(c kruntime.ContainerStatus, grace time.Duration) error {
		klog.FromContext(ctx).V(2).Info("Killing container", "pod", klog.KObj(pod), "container", c.Name, "gracePeriod", grace)
		if err := kl.stopContainer(ctx, pod, c.Name, c.ID, st.podIP, c.State == kruntime.ContainerRunning, grace, ""); err != nil && !errors.Is(err, kruntime.ErrNotFound) {
			return fmt.Errorf("stop container %s: %w", c.Name, err)
		}
		return nil
	}
	start := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, len(list)+len(sidecars))
	for i, c := range list {
		wg.Go(func() { errs[i] = stop(c, grace) })
	}
	wg.Wait()
	slices.SortFunc(sidecars, func(a, b kruntime.ContainerStatus) int { return sidecarIndex(b.Name) - sidecarIndex(a.Name) })
	for i, c := range sidecars {
		left := grace
		if grace > 0 {
			left = max(grace-time.Since(start), minStopGrace)
		}
		errs[len(list)+i] = stop(c, left)
	}
	return errors.Join(errs...)
}

// terminatePod stops the pod's containers within the grace period, tears
// down its sandbox and volumes, reports the final status and deletes the
// pod object with grace 0.
func (kl *Kubelet) terminatePod(ctx context.Context, st *podState, pod *corev1.Pod, removed bool) error {
	uid := string(pod.UID)
	kl.probes.stopPod(uid)
	if err := kl.killContainers(ctx, st, pod, gracePeriod(pod)); err != nil {
		return err
	}
	var recs map[string]containerRecords
	if st.sandboxID != "" {
		list, err := kl.runtime.ListContainers(ctx, st.sandboxID)
		if err != nil {
			return fmt.Errorf("list containers: %w", err)
		}
		recs, _ = groupContainers(list)
		kl.addTerminationMessages(pod, recs)
		if err := kl.runtime.StopPodSandbox(ctx, st.sandboxID); err != nil && !errors.Is(err, kruntime.ErrNotFound) {
			return fmt.Errorf("stop sandbox: %w", err)
		}
	}
	// Its containers are stopped: its host ports are free.
	kl.admitted.release(uid)
	kl.allocs.release(uid)
	if !removed {
		clear(st.waiting)
		start := st.startTime
		if start.IsZero() {
			start = kl.clock.Now()
		}
		status := buildPodStatus(statusInput{
			pod: pod, now: kl.clock.Now(), runtimeType: kl.runtime.Type(),
			hostIP: kl.cfg.NodeIP, podIP: cmp.Or(st.podIP, kl.cfg.NodeIP), startTime: start,
			records: recs, waiting: st.waiting, probes: kl.probes, terminating: true, written: kl.status.conditions(uid),
		})
		if err := kl.setStatus(ctx, pod, status); err != nil {
			return err
		}
	}
	if st.sandboxID != "" {
		if err := kl.runtime.RemovePodSandbox(ctx, st.sandboxID); err != nil && !errors.Is(err, kruntime.ErrNotFound) {
			return fmt.Errorf("remove sandbox: %w", err)
		}
		st.sandboxID = ""
	}
	// The pod's directory (its tmpfs emptyDirs unmounted first) and its
	// logs, rotated files included.
	if err := unmountUnder(kl.podDir(uid)); err != nil {
		return fmt.Errorf("remove pod directory: %w", err)
	}
	for _, dir := range []string{kl.podDir(uid), kl.podLogDir(pod)} {
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("remove pod directory: %w", err)
		}
	}
	kl.status.forget(uid)
	if removed {
		return nil
	}
	podUID := types.UID(uid)
	err := kl.cfg.Client.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{
		GracePeriodSeconds: new(int64), Preconditions: &metav1.Preconditions{UID: &podUID}})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("delete pod: %w", err)
	}
	klog.FromContext(ctx).V(2).Info("Pod terminated and deleted", "pod", klog.KObj(pod))
	return nil
}

// setStatus writes a pod's status to the API: a static pod's to its
// mirror pod, once that exists; nothing when standalone.
func (kl *Kubelet) setStatus(ctx context.Context, pod *corev1.Pod, status corev1.PodStatus) error {
	if kl.cfg.Client == nil {
		return nil
	}
	if isStatic(pod) {
		m := kl.static.mirror(pod.Namespace + "/" + pod.Name)
		if m == nil || m.Annotations[annotationConfigMirror] != pod.Annotations[annotationConfigHash] {
			return nil // the mirror loop makes it and wakes the pod
		}
		pod = m
	}
	return kl.status.set(ctx, pod, status)
}

// containerUser is who a container runs as, from its security context
// and its pod's: runAsUser and runAsGroup (the container's win), the
// pod's supplementalGroups and fsGroup as supplemental groups; nil when
// none is set (the runtime's, or the image's, user). A user without a
// group runs with group 0, as an image without an entry for it does.
func containerUser(pod *corev1.Pod, c *corev1.Container) *kruntime.User {
	var uid, gid *int64
	var groups []int64
	if psc := pod.Spec.SecurityContext; psc != nil {
		uid, gid = psc.RunAsUser, psc.RunAsGroup
		groups = append(groups, psc.SupplementalGroups...)
		if psc.FSGroup != nil && !slices.Contains(groups, *psc.FSGroup) {
			groups = append(groups, *psc.FSGroup)
		}
	}
	if sc := c.SecurityContext; sc != nil {
		if sc.RunAsUser != nil {
			uid = sc.RunAsUser
		}
		if sc.RunAsGroup != nil {
			gid = sc.RunAsGroup
		}
	}
	if uid == nil && gid == nil && len(groups) == 0 {
		return nil
	}
	u := &kruntime.User{SupplementalGroups: groups}
	if uid != nil {
		u.UID = *uid
	}
	if gid != nil {
		u.GID = *gid
	}
	return u
}
