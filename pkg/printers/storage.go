package printers

import (
	"strings"
	"time"

	corev1 "kubecore.io/api/core/v1"
	storagev1 "kubecore.io/api/storage/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/registry/rest"
)

// storageTableConvertor returns the printers of the storage.k8s.io
// group's resources, nil for other resources.
func storageTableConvertor(gr schema.GroupResource, now func() time.Time) rest.TableConvertor {
	kind := storagev1.SchemeGroupVersion.WithKind
	switch gr {
	case storagev1.Resource("storageclasses"):
		return newPrinter(now, kind("StorageClass"), storageClassColumns(), printStorageClass, func(l *storagev1.StorageClassList) []storagev1.StorageClass { return l.Items })
	case storagev1.Resource("csidrivers"):
		return newPrinter(now, kind("CSIDriver"), csiDriverColumns(), printCSIDriver, func(l *storagev1.CSIDriverList) []storagev1.CSIDriver { return l.Items })
	case storagev1.Resource("csinodes"):
		return newPrinter(now, kind("CSINode"), csiNodeColumns(), printCSINode, func(l *storagev1.CSINodeList) []storagev1.CSINode { return l.Items })
	case storagev1.Resource("csistoragecapacities"):
		return newPrinter(now, kind("CSIStorageCapacity"), csiStorageCapacityColumns(), printCSIStorageCapacity, func(l *storagev1.CSIStorageCapacityList) []storagev1.CSIStorageCapacity { return l.Items })
	case storagev1.Resource("volumeattachments"):
		return newPrinter(now, kind("VolumeAttachment"), volumeAttachmentColumns(), printVolumeAttachment, func(l *storagev1.VolumeAttachmentList) []storagev1.VolumeAttachment { return l.Items })
	case storagev1.Resource("volumeattributesclasses"):
		return newPrinter(now, kind("VolumeAttributesClass"), volumeAttributesClassColumns(), printVolumeAttributesClass, func(l *storagev1.VolumeAttributesClassList) []storagev1.VolumeAttributesClass {
			return l.Items
		})
	}
	return nil
}

func storageClassColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("Provisioner", "string", "Indicates the type of the provisioner."),
		column("ReclaimPolicy", "string", "Dynamically provisioned PersistentVolumes of this storage class are created with this reclaimPolicy. Defaults to Delete."),
		column("VolumeBindingMode", "string", "VolumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound. When unset, VolumeBindingImmediate is used."),
		column("AllowVolumeExpansion", "string", "AllowVolumeExpansion shows whether the storage class allow volume expand."),
		ageColumn(),
	}
}

// printStorageClass marks the default class "(default)" after its name,
// as kubectl does.
func printStorageClass(c *printContext, sc *storagev1.StorageClass) (row, error) {
	name := sc.Name
	if sc.Annotations[storagev1.IsDefaultStorageClassAnnotation] == "true" || sc.Annotations["storageclass.beta.kubernetes.io/is-default-class"] == "true" {
		name += " (default)"
	}
	reclaim := string(corev1.PersistentVolumeReclaimDelete)
	if sc.ReclaimPolicy != nil {
		reclaim = string(*sc.ReclaimPolicy)
	}
	binding := string(storagev1.VolumeBindingImmediate)
	if sc.VolumeBindingMode != nil {
		binding = string(*sc.VolumeBindingMode)
	}
	expansion := false
	if sc.AllowVolumeExpansion != nil {
		expansion = *sc.AllowVolumeExpansion
	}
	return row{cells: []any{name, sc.Provisioner, reclaim, binding, expansion, c.age(sc.CreationTimestamp)}}, nil
}

func csiDriverColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("AttachRequired", "boolean", "Indicates this CSI volume driver requires an attach operation."),
		column("PodInfoOnMount", "boolean", "Indicates this CSI volume driver requires additional pod information during mount operations."),
		column("StorageCapacity", "boolean", "Indicates that the CSI volume driver wants pod scheduling to consider the storage capacity it reports."),
		column("TokenRequests", "string", "Indicates the CSI driver needs pods' service account tokens it is mounting volume for to do necessary authentication."),
		column("RequiresRepublish", "boolean", "RequiresRepublish indicates the CSI driver wants NodePublishVolume being periodically called to reflect any possible change in the mounted volume."),
		column("Modes", "string", "Defines what kind of volumes this CSI volume driver supports."),
		ageColumn(),
	}
}

func printCSIDriver(c *printContext, d *storagev1.CSIDriver) (row, error) {
	boolOr := func(b *bool, def bool) bool {
		if b == nil {
			return def
		}
		return *b
	}
	modes := make([]string, 0, len(d.Spec.VolumeLifecycleModes))
	for _, m := range d.Spec.VolumeLifecycleModes {
		modes = append(modes, string(m))
	}
	modesCell := strings.Join(modes, ",")
	if modesCell == "" {
		modesCell = "<none>"
	}
	tokens := "<unset>"
	if len(d.Spec.TokenRequests) > 0 {
		audiences := make([]string, 0, len(d.Spec.TokenRequests))
		for _, t := range d.Spec.TokenRequests {
			audiences = append(audiences, t.Audience)
		}
		tokens = strings.Join(audiences, ",")
	}
	return row{cells: []any{
		d.Name, boolOr(d.Spec.AttachRequired, true), boolOr(d.Spec.PodInfoOnMount, false), boolOr(d.Spec.StorageCapacity, false),
		tokens, boolOr(d.Spec.RequiresRepublish, false), modesCell, c.age(d.CreationTimestamp),
	}}, nil
}

func csiNodeColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("Drivers", "integer", "Drivers indicates the number of CSI drivers registered on the node"),
		ageColumn(),
	}
}

func printCSINode(c *printContext, n *storagev1.CSINode) (row, error) {
	return row{cells: []any{n.Name, int64(len(n.Spec.Drivers)), c.age(n.CreationTimestamp)}}, nil
}

func csiStorageCapacityColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("StorageClassName", "string", "The name of the StorageClass that the reported capacity applies to."),
		column("Capacity", "string", "The value reported by the CSI driver in its GetCapacityResponse."),
		ageColumn(),
	}
}

func printCSIStorageCapacity(c *printContext, sc *storagev1.CSIStorageCapacity) (row, error) {
	capacity := "<unset>"
	if sc.Capacity != nil {
		capacity = sc.Capacity.String()
	}
	return row{cells: []any{sc.Name, sc.StorageClassName, capacity, c.age(sc.CreationTimestamp)}}, nil
}

func volumeAttachmentColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("Attacher", "string", "Attacher indicates the name of the volume driver that MUST handle this request."),
		column("PV", "string", "Name of the persistent volume to attach."),
		column("Node", "string", "The node that the volume should be attached to."),
		column("Attached", "boolean", "Attached indicates the volume is successfully attached."),
		ageColumn(),
	}
}

func printVolumeAttachment(c *printContext, va *storagev1.VolumeAttachment) (row, error) {
	pv := ""
	if va.Spec.Source.PersistentVolumeName != nil {
		pv = *va.Spec.Source.PersistentVolumeName
	}
	return row{cells: []any{va.Name, va.Spec.Attacher, pv, va.Spec.NodeName, va.Status.Attached, c.age(va.CreationTimestamp)}}, nil
}

func volumeAttributesClassColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("DriverName", "string", "Name of the CSI driver"),
		ageColumn(),
	}
}

func printVolumeAttributesClass(c *printContext, vac *storagev1.VolumeAttributesClass) (row, error) {
	return row{cells: []any{vac.Name, vac.DriverName, c.age(vac.CreationTimestamp)}}, nil
}
