// Package localpath is the local-path provisioner: it provisions claims of
// the classes it is the provisioner of (local-path, the default, and any
// other naming kubecore.io/local-path) as hostPath volumes on the node the
// scheduler chose for their first pod, deletes or retains a volume with
// its claim as the class's reclaim policy says, and grows the volumes of
// classes that allow expansion.
package localpath

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	corev1 "kubecore.io/api/core/v1"
	storagev1 "kubecore.io/api/storage/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/controller"
	"kubecore.io/client/informers"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/tools/record"
	"kubecore.io/client/typed"

	"k8s.io/klog/v2"
)

// Name is the controller's name in the controller-manager and its queue.
const Name = "local-path"

const (
	// ClassName is the storage class the provisioner serves; claims that
	// name no class are served too (it is the cluster's default).
	ClassName = "local-path"
	// ProvisionerName marks the volumes it made.
	ProvisionerName = "kubecore.io/local-path"
	// AnnSelectedNode is set on a claim by the scheduler: the node of the
	// claim's first pod, where the volume must be.
	AnnSelectedNode = "volume.kubernetes.io/selected-node"
	// AnnProvisionedBy names the provisioner of a volume.
	AnnProvisionedBy = "pv.kubernetes.io/provisioned-by"
	// AnnBindCompleted marks a claim whose binding is done.
	AnnBindCompleted = "pv.kubernetes.io/bind-completed"
	// DefaultDir is where volumes live on the nodes when Options.Dir is
	// empty.
	DefaultDir = "/var/lib/kubecore/local-path"
	// DefaultSize is the capacity given to a claim that asks for none.
	DefaultSize = "1Gi"
)

// Client is what the provisioner asks of the API server; *typed.Clientset
// satisfies it.
type Client interface {
	CoreV1() typed.CoreV1
}

// DefaultReclaimPolicy is the reclaim policy of a class that names none.
const DefaultReclaimPolicy = corev1.PersistentVolumeReclaimDelete

// Options tune the provisioner.
type Options struct {
	// Recorder records the provisioner's Events; nil means none.
	Recorder record.EventRecorder
	// Dir is the directory on each node under which volumes are made;
	// DefaultDir when empty.
	Dir string
}

// Provisioner is the local-path controller. Its keys are claim keys
// ("namespace/name"); a volume's events enqueue the key of its claim.
type Provisioner struct {
	*controller.Controller
	client   Client
	claims   cache.Lister[*corev1.PersistentVolumeClaim]
	volumes  cache.Lister[*corev1.PersistentVolume]
	classes  cache.Lister[*storagev1.StorageClass]
	recorder record.EventRecorder
	dir      string
}

// IsLocalPathClaim reports whether the claim may be one the provisioner
// serves: of a class (whose provisioner is then checked), or of no class
// at all (nil: the local-path class).
func IsLocalPathClaim(c *corev1.PersistentVolumeClaim) bool {
	return c.Spec.StorageClassName == nil || *c.Spec.StorageClassName != ""
}

// className is the class a claim asks for: local-path when it names none.
func className(c *corev1.PersistentVolumeClaim) string {
	if c.Spec.StorageClassName == nil {
		return ClassName
	}
	return *c.Spec.StorageClassName
}

// New returns a provisioner working through client, fed by the informers
// of factory.
func New(client Client, factory *informers.SharedInformerFactory, opts Options) (*Provisioner, error) {
	if opts.Dir == "" {
		opts.Dir = DefaultDir
	}
	p := &Provisioner{client: client, recorder: record.OrDiscard(opts.Recorder), dir: opts.Dir}
	p.Controller = controller.New(Name, p.sync)
	claims := controller.Informer(p.Controller, factory, informers.PersistentVolumeClaims)
	volumes := controller.Informer(p.Controller, factory, informers.PersistentVolumes)
	classes := controller.Informer(p.Controller, factory, informers.StorageClasses)
	p.claims, p.volumes, p.classes = claims.Lister(), volumes.Lister(), classes.Lister()
	controller.Watch(p, claims, controller.ObjectKeys[*corev1.PersistentVolumeClaim]())
	controller.Watch(p, volumes, controller.Keys(claimOf))
	return p, p.Err()
}

// claimOf maps a volume the provisioner made to its claim's key.
func claimOf(v *corev1.PersistentVolume) []string {
	if v.Annotations[AnnProvisionedBy] == ProvisionerName && v.Spec.ClaimRef != nil {
		return []string{cache.ObjectKey(v.Spec.ClaimRef.Namespace, v.Spec.ClaimRef.Name)}
	}
	return nil
}

// volumeName is the name of the volume provisioned for a claim.
func volumeName(c *corev1.PersistentVolumeClaim) string { return "pvc-" + string(c.UID) }

// sync provisions and binds the claim named by key once the scheduler has
// chosen its node, and deletes the volumes it made for claims that are
// gone (reclaim policy Delete).
func (p *Provisioner) sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		klog.FromContext(ctx).Error(err, "Dropping a bad key", "key", key)
		return nil
	}
	claim, err := p.claims.Namespaced(ns).Get(name)
	switch {
	case apierrors.IsNotFound(err):
		claim = nil
	case err != nil:
		return err
	}
	if err := p.deleteReleased(ctx, ns, name, claim); err != nil {
		return err
	}
	if claim == nil || claim.DeletionTimestamp != nil || !IsLocalPathClaim(claim) {
		return nil
	}
	class, err := p.classes.Get(className(claim))
	switch {
	case apierrors.IsNotFound(err):
		if claim.Spec.VolumeName == "" && claim.Annotations[AnnSelectedNode] != "" {
			p.recorder.Eventf(claim, corev1.EventTypeWarning, "ProvisioningFailed", "storageclass.storage.k8s.io %q not found", className(claim))
		}
		return nil // a class event does not requeue: the claim's next event will
	case err != nil:
		return err
	case class.Provisioner != ProvisionerName:
		return nil // another provisioner's class
	}
	if claim.Spec.VolumeName != "" {
		if claim.Spec.VolumeName != volumeName(claim) {
			return nil // bound by someone else to their volume
		}
		if claim.Status.Phase == corev1.ClaimBound {
			return p.expand(ctx, claim, class)
		}
		return p.completeClaim(ctx, claim)
	}
	node := claim.Annotations[AnnSelectedNode]
	if node == "" {
		return nil // WaitForFirstConsumer: no pod has been scheduled yet
	}
	pv, err := p.provision(ctx, claim, class, node)
	if err != nil {
		p.recorder.Eventf(claim, corev1.EventTypeWarning, "ProvisioningFailed", "failed to provision volume with StorageClass %q: %v", class.Name, err)
		return err
	}
	return p.bind(ctx, claim, pv)
}

// deleteReleased deletes the volumes made for the claim ns/name that are
// not bound to claim (nil when it is gone): their claim was deleted. A
// volume whose reclaim policy is Retain is kept, marked Released.
func (p *Provisioner) deleteReleased(ctx context.Context, ns, name string, claim *corev1.PersistentVolumeClaim) error {
	volumes, err := p.volumes.List(nil)
	if err != nil {
		return err
	}
	var errs []error
	for _, v := range volumes {
		ref := v.Spec.ClaimRef
		if v.Annotations[AnnProvisionedBy] != ProvisionerName || ref == nil || ref.Namespace != ns || ref.Name != name ||
			(claim != nil && claim.UID == ref.UID) || v.DeletionTimestamp != nil {
			continue
		}
		if v.Spec.PersistentVolumeReclaimPolicy != corev1.PersistentVolumeReclaimDelete {
			if err := p.release(ctx, v); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		uid := v.UID
		err := p.client.CoreV1().PersistentVolumes().Delete(ctx, v.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			errs = append(errs, fmt.Errorf("delete released volume %s: %w", v.Name, err))
			continue
		}
		klog.FromContext(ctx).V(2).Info("Deleted released volume", "persistentVolume", v.Name, "claim", klog.KRef(ns, name))
	}
	return errors.Join(errs...)
}

// release marks a retained volume whose claim is gone Released; its data
// stays until an administrator deletes it.
func (p *Provisioner) release(ctx context.Context, v *corev1.PersistentVolume) error {
	if v.Status.Phase == corev1.VolumeReleased || v.Status.Phase == corev1.VolumeFailed {
		return nil
	}
	cp := v.DeepCopy()
	now := metav1.NewTime(time.Now())
	cp.Status = corev1.PersistentVolumeStatus{Phase: corev1.VolumeReleased, LastPhaseTransitionTime: &now}
	if _, err := p.client.CoreV1().PersistentVolumes().UpdateStatus(ctx, cp, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("mark retained volume %s released: %w", v.Name, err)
	}
	klog.FromContext(ctx).V(2).Info("Released retained volume", "persistentVolume", v.Name)
	return nil
}

// expand grows the volume of a bound claim that asks for more storage,
// when its class allows expansion (the API server refuses the claim's
// update otherwise; a class changed since is reported, not obeyed).
func (p *Provisioner) expand(ctx context.Context, claim *corev1.PersistentVolumeClaim, class *storagev1.StorageClass) error {
	want, ok := claim.Spec.Resources.Requests[corev1.ResourceStorage]
	if !ok {
		return nil
	}
	pv, err := p.volumes.Get(claim.Spec.VolumeName)
	if err != nil {
		return nil // the volume's event requeues the claim
	}
	have := pv.Spec.Capacity[corev1.ResourceStorage]
	if want.Cmp(have) <= 0 {
		if got := claim.Status.Capacity[corev1.ResourceStorage]; got.Cmp(have) != 0 {
			return p.completeClaim(ctx, claim)
		}
		return nil
	}
	if class.AllowVolumeExpansion == nil || !*class.AllowVolumeExpansion {
		p.recorder.Eventf(claim, corev1.EventTypeWarning, "VolumeResizeFailed", "StorageClass %q does not allow volume expansion", class.Name)
		return nil
	}
	cp := pv.DeepCopy()
	cp.Spec.Capacity[corev1.ResourceStorage] = want
	if _, err := p.client.CoreV1().PersistentVolumes().Update(ctx, cp, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("expand volume %s: %w", pv.Name, err)
	}
	p.recorder.Eventf(claim, corev1.EventTypeNormal, "VolumeResizeSuccessful", "Resized volume %s to %s", pv.Name, want.String())
	klog.FromContext(ctx).V(2).Info("Expanded volume", "persistentVolume", pv.Name, "claim", klog.KObj(claim), "size", want.String())
	return nil // the volume's update requeues the claim, whose status follows
}

// provision returns the claim's volume, creating it on node if needed, with
// the class's reclaim policy and mount options.
func (p *Provisioner) provision(ctx context.Context, claim *corev1.PersistentVolumeClaim, class *storagev1.StorageClass, node string) (*corev1.PersistentVolume, error) {
	name := volumeName(claim)
	if pv, err := p.volumes.Get(name); err == nil {
		return pv, nil
	}
	size, ok := claim.Spec.Resources.Requests[corev1.ResourceStorage]
	if !ok {
		size = resource.MustParse(DefaultSize)
	}
	modes := claim.Spec.AccessModes
	if len(modes) == 0 {
		modes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}
	}
	dirType := corev1.HostPathDirectoryOrCreate
	reclaim := DefaultReclaimPolicy
	if class.ReclaimPolicy != nil {
		reclaim = *class.ReclaimPolicy
	}
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{AnnProvisionedBy: ProvisionerName}},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:    corev1.ResourceList{corev1.ResourceStorage: size},
			AccessModes: modes,
			PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{
				Path: filepath.Join(p.dir, fmt.Sprintf("%s_%s_%s", claim.Namespace, claim.Name, name)), Type: &dirType,
			}},
			ClaimRef: &corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: claim.Namespace, Name: claim.Name,
				UID: claim.UID, ResourceVersion: claim.ResourceVersion},
			PersistentVolumeReclaimPolicy: reclaim,
			StorageClassName:              class.Name,
			MountOptions:                  class.MountOptions,
			VolumeMode:                    claim.Spec.VolumeMode,
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{node}}},
			}}}},
		},
	}
	created, err := p.client.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		created, err = p.client.CoreV1().PersistentVolumes().Get(ctx, name, metav1.GetOptions{})
	}
	if err != nil {
		return nil, fmt.Errorf("create volume %s for claim %s/%s: %w", name, claim.Namespace, claim.Name, err)
	}
	klog.FromContext(ctx).V(2).Info("Provisioned volume", "persistentVolume", name, "claim", klog.KObj(claim), "node", node)
	p.recorder.Eventf(claim, corev1.EventTypeNormal, "ProvisioningSucceeded", "Successfully provisioned volume %s on node %s", name, node)
	return created, nil
}

// bind marks the volume Bound and points the claim at it.
func (p *Provisioner) bind(ctx context.Context, claim *corev1.PersistentVolumeClaim, pv *corev1.PersistentVolume) error {
	if pv.Status.Phase != corev1.VolumeBound {
		cp := pv.DeepCopy()
		now := metav1.NewTime(time.Now())
		cp.Status = corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound, LastPhaseTransitionTime: &now}
		if _, err := p.client.CoreV1().PersistentVolumes().UpdateStatus(ctx, cp, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("mark volume %s bound: %w", pv.Name, err)
		}
	}
	cp := claim.DeepCopy()
	cp.Spec.VolumeName = pv.Name
	if cp.Annotations == nil {
		cp.Annotations = map[string]string{}
	}
	cp.Annotations[AnnBindCompleted] = "yes"
	updated, err := p.client.CoreV1().PersistentVolumeClaims(claim.Namespace).Update(ctx, cp, metav1.UpdateOptions{})
	if err != nil {
		return fmt.Errorf("bind claim %s/%s to %s: %w", claim.Namespace, claim.Name, pv.Name, err)
	}
	return p.completeClaim(ctx, updated)
}

// completeClaim writes the status of a claim bound to its volume.
func (p *Provisioner) completeClaim(ctx context.Context, claim *corev1.PersistentVolumeClaim) error {
	pv, err := p.volumes.Get(claim.Spec.VolumeName)
	if err != nil {
		pv, err = p.client.CoreV1().PersistentVolumes().Get(ctx, claim.Spec.VolumeName, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("volume of claim %s/%s: %w", claim.Namespace, claim.Name, err)
		}
	}
	cp := claim.DeepCopy()
	cp.Status.Phase = corev1.ClaimBound
	cp.Status.AccessModes = pv.Spec.AccessModes
	cp.Status.Capacity = pv.Spec.Capacity
	if _, err := p.client.CoreV1().PersistentVolumeClaims(claim.Namespace).UpdateStatus(ctx, cp, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("mark claim %s/%s bound: %w", claim.Namespace, claim.Name, err)
	}
	klog.FromContext(ctx).V(2).Info("Bound claim", "claim", klog.KObj(claim), "persistentVolume", pv.Name)
	return nil
}
