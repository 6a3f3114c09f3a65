package kubelet

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"

	"k8s.io/klog/v2"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// relistLoop lists the runtime's containers every RelistPeriod and wakes
// the worker of each pod whose containers changed state on their own (a
// process exited), so that restarts and status do not wait for the next
// periodic sync.
func (kl *Kubelet) relistLoop(ctx context.Context) {
	last := map[string]string{}
	var cleaning sync.Map // pod UIDs whose orphaned sandboxes are being removed
	var wg sync.WaitGroup
	defer wg.Wait()
	for sleep(ctx, kl.clock, kl.cfg.RelistPeriod) {
		sandboxes, next, err := kl.relist(ctx)
		if err != nil {
			if ctx.Err() == nil {
				klog.FromContext(ctx).Error(err, "Failed to list the runtime's containers")
			}
			continue
		}
		for uid, fp := range next {
			if last[uid] != fp {
				kl.workers.wake(uid)
			}
		}
		last = next
		if !kl.podsSynced() {
			continue
		}
		for _, s := range sandboxes {
			uid := s.Config.UID
			if kl.workers.has(uid) {
				continue
			}
			if _, busy := cleaning.LoadOrStore(uid, true); busy {
				continue
			}
			wg.Go(func() {
				defer cleaning.Delete(uid)
				kl.removeOrphan(ctx, s)
			})
		}
	}
}

// removeOrphan stops and removes a sandbox of a pod the kubelet does not
// run (deleted while the kubelet was down), and the pod's directory.
func (kl *Kubelet) removeOrphan(ctx context.Context, s kruntime.PodSandboxStatus) {
	logger := klog.FromContext(ctx)
	logger.V(2).Info("Removing the sandbox of a pod that is gone", "pod", klog.KRef(s.Config.Namespace, s.Config.Name), "podUID", s.Config.UID, "sandbox", s.ID)
	if err := kl.runtime.StopPodSandbox(ctx, s.ID); err != nil && !errors.Is(err, kruntime.ErrNotFound) {
		logger.Error(err, "Failed to stop an orphaned sandbox", "sandbox", s.ID)
		return
	}
	if err := kl.runtime.RemovePodSandbox(ctx, s.ID); err != nil {
		logger.Error(err, "Failed to remove an orphaned sandbox", "sandbox", s.ID)
		return
	}
	if err := unmountUnder(kl.podDir(s.Config.UID)); err != nil {
		logger.Error(err, "Failed to unmount the volumes of a pod that is gone", "podUID", s.Config.UID)
		return
	}
	for _, dir := range []string{kl.podDir(s.Config.UID), s.Config.LogDirectory} {
		if dir == "" {
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			logger.Error(err, "Failed to remove the directory of a pod that is gone", "podUID", s.Config.UID, "dir", dir)
		}
	}
}

// relist returns the sandboxes and a fingerprint of the containers of each
// pod, by pod UID.
func (kl *Kubelet) relist(ctx context.Context) ([]kruntime.PodSandboxStatus, map[string]string, error) {
	sandboxes, err := kl.runtime.ListPodSandbox(ctx)
	if err != nil {
		return nil, nil, err
	}
	containers, err := kl.runtime.ListContainers(ctx, "")
	if err != nil {
		return nil, nil, err
	}
	return sandboxes, containerFingerprints(sandboxes, containers), nil
}

// containerFingerprints sums up, per pod UID, the sandboxes' states and the
// containers' IDs and states.
func containerFingerprints(sandboxes []kruntime.PodSandboxStatus, containers []kruntime.ContainerStatus) map[string]string {
	uidOf := make(map[string]string, len(sandboxes))
	parts := map[string][]string{}
	for _, s := range sandboxes {
		uidOf[s.ID] = s.Config.UID
		parts[s.Config.UID] = append(parts[s.Config.UID], s.ID+"="+string(s.State))
	}
	for _, c := range containers {
		if uid, ok := uidOf[c.SandboxID]; ok {
			parts[uid] = append(parts[uid], c.ID+"="+string(c.State))
		}
	}
	out := make(map[string]string, len(parts))
	for uid, p := range parts {
		slices.Sort(p)
		out[uid] = strings.Join(p, ",")
	}
	return out
}
