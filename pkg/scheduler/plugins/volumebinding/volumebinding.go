// Package volumebinding is the VolumeBinding plugin: a pod's bound claims
// restrict it to the nodes their volumes reach, and the claims waiting for
// their first consumer are given the chosen node before the pod is bound.
package volumebinding

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apis/core/helper"
	"kubecore.io/kubecore/pkg/scheduler/framework"
)

// Name is the plugin's name.
const Name = "VolumeBinding"

// Reasons of rejections, as Kubernetes words them.
const (
	ErrReasonNodeConflict   = "node(s) had volume node affinity conflict"
	ErrReasonUnboundClaims  = "pod has unbound immediate PersistentVolumeClaims"
	defaultBindTimeout      = 2 * time.Minute
	bindPollInterval        = 20 * time.Millisecond
	annSelectedNode         = "volume.kubernetes.io/selected-node"
	stateKey                = framework.StateKey("PreFilter" + Name)
	localPathClassName      = "local-path"
	waitForFirstConsumerMsg = "waiting for first consumer"
)

// Args give the plugin its view of the cluster.
type Args struct {
	// Claim returns a PersistentVolumeClaim from the informer, or an error
	// for which apierrors.IsNotFound holds.
	Claim func(namespace, name string) (*corev1.PersistentVolumeClaim, error)
	// Volume returns a PersistentVolume from the informer.
	Volume func(name string) (*corev1.PersistentVolume, error)
	// PatchClaim merge-patches a claim.
	PatchClaim func(ctx context.Context, namespace, name string, patch []byte) error
	// BindTimeout bounds the wait for delayed claims to be bound after the
	// node is chosen; 2 minutes when zero.
	BindTimeout time.Duration
}

// VolumeBinding is the plugin.
type VolumeBinding struct{ args Args }

var (
	_ framework.PreFilterPlugin   = (*VolumeBinding)(nil)
	_ framework.FilterPlugin      = (*VolumeBinding)(nil)
	_ framework.PreBindPlugin     = (*VolumeBinding)(nil)
	_ framework.EnqueueExtensions = (*VolumeBinding)(nil)
)

// New returns a constructor of the plugin with args.
func New(args Args) func(framework.Handle) (framework.Plugin, error) {
	return func(framework.Handle) (framework.Plugin, error) {
		if args.Claim == nil || args.Volume == nil || args.PatchClaim == nil {
			return nil, fmt.Errorf("%s needs claim and volume listers and a client", Name)
		}
		if args.BindTimeout <= 0 {
			args.BindTimeout = defaultBindTimeout
		}
		return &VolumeBinding{args: args}, nil
	}
}

// Name implements framework.Plugin.
func (*VolumeBinding) Name() string { return Name }

// EventsToRegister implements framework.EnqueueExtensions.
func (*VolumeBinding) EventsToRegister() []framework.ClusterEvent {
	return []framework.ClusterEvent{
		{Resource: framework.PersistentVolumeClaimResource, ActionType: framework.Add | framework.Update},
		{Resource: framework.PersistentVolumeResource, ActionType: framework.Add | framework.Update},
		{Resource: framework.NodeResource, ActionType: framework.Add | framework.UpdateNodeLabel},
	}
}

// state is what PreFilter learned of the pod's claims.
type state struct {
	// bound are the node constraints of the volumes of bound claims.
	bound []boundVolume
	// delayed are the claims waiting for their first consumer.
	delayed []*corev1.PersistentVolumeClaim
}

type boundVolume struct {
	name  string
	terms []helper.NodeSelectorTerm
}

func (s *state) Clone() framework.StateData { return s }

// isDelayed reports whether an unbound claim is provisioned once its
// first pod is scheduled: it asks for the local-path class, or for the
// default class (no class at all), which is local-path.
func isDelayed(c *corev1.PersistentVolumeClaim) bool {
	return c.Spec.StorageClassName == nil || *c.Spec.StorageClassName == localPathClassName
}

// PreFilter implements framework.PreFilterPlugin; a pod without claims
// skips the filter.
func (pl *VolumeBinding) PreFilter(_ context.Context, cs *framework.CycleState, pod *corev1.Pod) (*framework.PreFilterResult, *framework.Status) {
	s := &state{}
	claims := 0
	for _, v := range pod.Spec.Volumes {
		if v.PersistentVolumeClaim == nil {
			continue
		}
		claims++
		name := v.PersistentVolumeClaim.ClaimName
		claim, err := pl.args.Claim(pod.Namespace, name)
		if apierrors.IsNotFound(err) {
			return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("persistentvolumeclaim %q not found", name))
		}
		if err != nil {
			return nil, framework.AsStatus(fmt.Errorf("claim %s/%s: %w", pod.Namespace, name, err))
		}
		if claim.DeletionTimestamp != nil {
			return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("persistentvolumeclaim %q is being deleted", name))
		}
		if claim.Spec.VolumeName == "" {
			if !isDelayed(claim) {
				return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonUnboundClaims)
			}
			s.delayed = append(s.delayed, claim)
			continue
		}
		pv, err := pl.args.Volume(claim.Spec.VolumeName)
		if apierrors.IsNotFound(err) {
			return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("pvc(s) bound to non-existent pv(s): %s", claim.Spec.VolumeName))
		}
		if err != nil {
			return nil, framework.AsStatus(fmt.Errorf("volume %s: %w", claim.Spec.VolumeName, err))
		}
		if pv.Spec.NodeAffinity == nil || pv.Spec.NodeAffinity.Required == nil {
			continue
		}
		terms, err := helper.ParseNodeSelectorTerms(pv.Spec.NodeAffinity.Required.NodeSelectorTerms, field.NewPath("spec", "nodeAffinity", "required", "nodeSelectorTerms"))
		if err != nil {
			return nil, framework.AsStatus(fmt.Errorf("volume %s: %w", pv.Name, err))
		}
		s.bound = append(s.bound, boundVolume{name: pv.Name, terms: terms})
	}
	if claims == 0 {
		return nil, framework.NewStatus(framework.Skip)
	}
	cs.Write(stateKey, s)
	return nil, nil
}

// PreFilterExtensions implements framework.PreFilterPlugin.
func (*VolumeBinding) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter implements framework.FilterPlugin: every bound volume must reach
// the node.
func (*VolumeBinding) Filter(_ context.Context, cs *framework.CycleState, _ *corev1.Pod, n *framework.NodeInfo) *framework.Status {
	s, err := framework.ReadState[*state](cs, stateKey)
	if err != nil {
		return framework.AsStatus(err)
	}
	for _, v := range s.bound {
		if !helper.MatchAnyTerm(v.terms, n.Node()) {
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonNodeConflict)
		}
	}
	return nil
}

// PreBind implements framework.PreBindPlugin: it records the node on each
// delayed claim and waits until the provisioner has bound them all, so
// that the pod starts with its volumes.
func (pl *VolumeBinding) PreBind(ctx context.Context, cs *framework.CycleState, pod *corev1.Pod, nodeName string) *framework.Status {
	s, err := framework.ReadState[*state](cs, stateKey)
	if err != nil || len(s.delayed) == 0 {
		return nil // no claims, or none to provision
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{annSelectedNode: nodeName}}})
	if err != nil {
		return framework.AsStatus(err)
	}
	for _, c := range s.delayed {
		if c.Annotations[annSelectedNode] == nodeName {
			continue
		}
		if err := pl.args.PatchClaim(ctx, c.Namespace, c.Name, patch); err != nil {
			return framework.AsStatus(fmt.Errorf("select node %s for claim %s/%s: %w", nodeName, c.Namespace, c.Name, err))
		}
	}
	ctx, cancel := context.WithTimeout(ctx, pl.args.BindTimeout)
	defer cancel()
	t := time.NewTicker(bindPollInterval)
	defer t.Stop()
	for {
		pending := ""
		for _, c := range s.delayed {
			cur, err := pl.args.Claim(c.Namespace, c.Name)
			if err != nil || cur.UID != c.UID {
				return framework.AsStatus(fmt.Errorf("claim %s/%s changed while binding: %v", c.Namespace, c.Name, err))
			}
			if cur.Spec.VolumeName == "" || cur.Status.Phase != corev1.ClaimBound {
				pending = c.Name
				break
			}
		}
		if pending == "" {
			return nil
		}
		select {
		case <-ctx.Done():
			return framework.AsStatus(fmt.Errorf("claim %s/%s not bound to a volume on %s (%s): %w", pod.Namespace, pending, nodeName, waitForFirstConsumerMsg, ctx.Err()))
		case <-t.C:
		}
	}
}
