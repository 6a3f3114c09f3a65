// Package volumeprotection holds the volume protection controllers: they
// remove the kubernetes.io/pvc-protection finalizer of a deleted
// PersistentVolumeClaim once no pod uses it, and the
// kubernetes.io/pv-protection finalizer of a deleted PersistentVolume once
// no claim is bound to it (StorageObjectInUseProtection admission puts the
// finalizers on; these controllers also add them to objects made before).
package volumeprotection

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/klog/v2"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/controller"
	"kubecore.io/client/informers"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/typed"
)

// The controllers' names in the controller-manager, as Kubernetes'.
const (
	PVCName = "pvc-protection"
	PVName  = "pv-protection"
)

// The finalizers, with Kubernetes' names.
const (
	PVCFinalizer = "kubernetes.io/pvc-protection"
	PVFinalizer  = "kubernetes.io/pv-protection"
)

// Client is what the controllers ask of the API server; *typed.Clientset
// satisfies it.
type Client interface {
	CoreV1() typed.CoreV1
}

// ClaimController keeps the protection finalizer of claims; its keys are
// "namespace/name".
type ClaimController struct {
	*controller.Controller
	client Client
	pods   cache.Lister[*corev1.Pod]
	claims cache.Lister[*corev1.PersistentVolumeClaim]
}

// NewClaimController returns the pvc-protection controller working
// through client, fed by the informers of factory.
func NewClaimController(client Client, factory *informers.SharedInformerFactory) (*ClaimController, error) {
	c := &ClaimController{client: client}
	c.Controller = controller.New(PVCName, c.sync)
	pods := controller.Informer(c.Controller, factory, informers.Pods)
	claims := controller.Informer(c.Controller, factory, informers.PersistentVolumeClaims)
	c.pods, c.claims = pods.Lister(), claims.Lister()
	controller.Watch(c, claims, controller.Upserts(controller.KeyOf[*corev1.PersistentVolumeClaim]))
	// A pod that goes away, finishes or is scheduled changes whether its
	// claims are in use.
	controller.Watch(c, pods, controller.Handler[*corev1.Pod]{
		Update: func(old, pod *corev1.Pod) []string {
			if podUsesClaims(old) == podUsesClaims(pod) {
				return nil
			}
			return claimKeys(pod)
		},
		Delete: claimKeys,
	})
	return c, c.Err()
}

// VolumeController keeps the protection finalizer of volumes; its keys
// are volume names.
type VolumeController struct {
	*controller.Controller
	client  Client
	claims  cache.Lister[*corev1.PersistentVolumeClaim]
	volumes cache.Lister[*corev1.PersistentVolume]
}

// NewVolumeController returns the pv-protection controller working
// through client, fed by the informers of factory.
func NewVolumeController(client Client, factory *informers.SharedInformerFactory) (*VolumeController, error) {
	c := &VolumeController{client: client}
	c.Controller = controller.New(PVName, c.sync)
	claims := controller.Informer(c.Controller, factory, informers.PersistentVolumeClaims)
	volumes := controller.Informer(c.Controller, factory, informers.PersistentVolumes)
	c.claims, c.volumes = claims.Lister(), volumes.Lister()
	controller.Watch(c, volumes, controller.Upserts(controller.KeyOf[*corev1.PersistentVolume]))
	// A claim that goes away frees the volumes bound to it.
	controller.Watch(c, claims, controller.Handler[*corev1.PersistentVolumeClaim]{Delete: c.volumesOf})
	return c, c.Err()
}

// claimKeys are the keys of the claims a pod's volumes name, generic
// ephemeral volumes' claims (named <pod>-<volume>) included.
func claimKeys(pod *corev1.Pod) []string {
	var keys []string
	for _, v := range pod.Spec.Volumes {
		if name := claimName(pod, &v); name != "" {
			keys = append(keys, cache.ObjectKey(pod.Namespace, name))
		}
	}
	return keys
}

// claimName is the claim a pod volume uses, "" for none.
func claimName(pod *corev1.Pod, v *corev1.Volume) string {
	switch {
	case v.PersistentVolumeClaim != nil:
		return v.PersistentVolumeClaim.ClaimName
	case v.Ephemeral != nil:
		return pod.Name + "-" + v.Name
	}
	return ""
}

// podUsesClaims reports whether a pod can be using its claims: it is
// scheduled (a kubelet only starts scheduled pods, and refuses a claim
// being deleted) and has not finished.
func podUsesClaims(pod *corev1.Pod) bool {
	return pod.Spec.NodeName != "" && pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed
}

// volumesOf are the volumes bound to a claim that is gone.
func (c *VolumeController) volumesOf(claim *corev1.PersistentVolumeClaim) []string {
	var keys []string
	if claim.Spec.VolumeName != "" {
		keys = append(keys, claim.Spec.VolumeName)
	}
	volumes, err := c.volumes.List(nil)
	if err != nil {
		return keys
	}
	for _, v := range volumes {
		if ref := v.Spec.ClaimRef; ref != nil && ref.Namespace == claim.Namespace && ref.Name == claim.Name && v.Name != claim.Spec.VolumeName {
			keys = append(keys, v.Name)
		}
	}
	return keys
}

// sync adds the finalizer to a live claim that lacks it, and removes
// it from a deleted claim no pod uses.
func (c *ClaimController) sync(ctx context.Context, key string) error {
	claim, ok, err := controller.Get(ctx, c.claims, key)
	if !ok || err != nil {
		return err
	}
	has := slices.Contains(claim.Finalizers, PVCFinalizer)
	switch {
	case claim.DeletionTimestamp == nil && !has:
		cp := claim.DeepCopy()
		cp.Finalizers = append(cp.Finalizers, PVCFinalizer)
		return c.update(ctx, cp, "add")
	case claim.DeletionTimestamp == nil || !has:
		return nil
	}
	// The cache first, then the API server: a pod made an instant ago
	// may not be in the cache yet.
	cached, err := c.pods.Namespaced(claim.Namespace).List(nil)
	if err != nil {
		return err
	}
	if user := podUsing(cached, claim.Name); user != "" {
		klog.FromContext(ctx).V(4).Info("Claim is in use", "claim", klog.KObj(claim), "pod", user)
		return nil
	}
	live, err := c.client.CoreV1().Pods(claim.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("list the pods of %s: %w", claim.Namespace, err)
	}
	pods := make([]*corev1.Pod, len(live.Items))
	for i := range live.Items {
		pods[i] = &live.Items[i]
	}
	if user := podUsing(pods, claim.Name); user != "" {
		klog.FromContext(ctx).V(4).Info("Claim is in use", "claim", klog.KObj(claim), "pod", user)
		return nil
	}
	cp := claim.DeepCopy()
	cp.Finalizers = slices.DeleteFunc(cp.Finalizers, func(f string) bool { return f == PVCFinalizer })
	return c.update(ctx, cp, "remove")
}

// podUsing names a pod among pods using the claim, "" for none.
func podUsing(pods []*corev1.Pod, claim string) string {
	for _, pod := range pods {
		if !podUsesClaims(pod) {
			continue
		}
		for i := range pod.Spec.Volumes {
			if claimName(pod, &pod.Spec.Volumes[i]) == claim {
				return pod.Name
			}
		}
	}
	return ""
}

func (c *ClaimController) update(ctx context.Context, claim *corev1.PersistentVolumeClaim, what string) error {
	_, err := c.client.CoreV1().PersistentVolumeClaims(claim.Namespace).Update(ctx, claim, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s the protection finalizer of claim %s/%s: %w", what, claim.Namespace, claim.Name, err)
	}
	klog.FromContext(ctx).V(2).Info("Updated the protection finalizer", "claim", klog.KObj(claim), "action", what)
	return nil
}

// sync adds the finalizer to a live volume that lacks it, and
// removes it from a deleted volume no existing claim is bound to.
func (c *VolumeController) sync(ctx context.Context, key string) error {
	pv, ok, err := controller.Get(ctx, c.volumes, key)
	if !ok || err != nil {
		return err
	}
	has := slices.Contains(pv.Finalizers, PVFinalizer)
	switch {
	case pv.DeletionTimestamp == nil && !has:
		cp := pv.DeepCopy()
		cp.Finalizers = append(cp.Finalizers, PVFinalizer)
		return c.update(ctx, cp, "add")
	case pv.DeletionTimestamp == nil || !has:
		return nil
	}
	if inUse, err := c.volumeInUse(ctx, pv); inUse || err != nil {
		return err
	}
	cp := pv.DeepCopy()
	cp.Finalizers = slices.DeleteFunc(cp.Finalizers, func(f string) bool { return f == PVFinalizer })
	return c.update(ctx, cp, "remove")
}

// volumeInUse reports whether the claim a volume is bound to exists (the
// same claim, when the reference has its uid), asking the API server
// when the cache has none.
func (c *VolumeController) volumeInUse(ctx context.Context, pv *corev1.PersistentVolume) (bool, error) {
	ref := pv.Spec.ClaimRef
	if ref == nil || ref.Name == "" {
		return false, nil
	}
	same := func(claim *corev1.PersistentVolumeClaim) bool { return ref.UID == "" || claim.UID == ref.UID }
	if claim, err := c.claims.Namespaced(ref.Namespace).Get(ref.Name); err == nil && same(claim) {
		return true, nil
	}
	claim, err := c.client.CoreV1().PersistentVolumeClaims(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("get claim %s/%s of volume %s: %w", ref.Namespace, ref.Name, pv.Name, err)
	}
	return same(claim), nil
}

func (c *VolumeController) update(ctx context.Context, pv *corev1.PersistentVolume, what string) error {
	_, err := c.client.CoreV1().PersistentVolumes().Update(ctx, pv, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s the protection finalizer of volume %s: %w", what, pv.Name, err)
	}
	klog.FromContext(ctx).V(2).Info("Updated the protection finalizer", "persistentVolume", klog.KObj(pv), "action", what)
	return nil
}
