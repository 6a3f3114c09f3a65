package kubelet

import (
	"context"
	"slices"
	"strings"

	"k8s.io/klog/v2"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// relistLoop lists the runtime's containers every RelistPeriod and wakes
// the worker of each pod whose containers changed state on their own (a
// process exited), so that restarts and status do not wait for the next
// periodic sync.
func (kl *Kubelet) relistLoop(ctx context.Context) {
	last := map[string]string{}
	for sleep(ctx, kl.clock, kl.cfg.RelistPeriod) {
		next, err := kl.relist(ctx)
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
	}
}

// relist returns a fingerprint of the containers of each pod, by pod UID.
func (kl *Kubelet) relist(ctx context.Context) (map[string]string, error) {
	sandboxes, err := kl.runtime.ListPodSandbox(ctx)
	if err != nil {
		return nil, err
	}
	containers, err := kl.runtime.ListContainers(ctx, "")
	if err != nil {
		return nil, err
	}
	return containerFingerprints(sandboxes, containers), nil
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
