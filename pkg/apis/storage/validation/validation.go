// Package validation checks the storage.k8s.io/v1 objects as the
// Kubernetes API server does, with its field paths and messages.
package validation

import (
	"fmt"
	"reflect"
	"strings"

	corev1 "kubecore.io/api/core/v1"
	storagev1 "kubecore.io/api/storage/v1"
	"kubecore.io/apimachinery/pkg/api/resource"
	apivalidation "kubecore.io/apimachinery/pkg/api/validation"
	utilvalidation "kubecore.io/apimachinery/pkg/util/validation"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

const (
	// maxProvisionerParameterSize is the most bytes the keys and values
	// of a class's parameters may hold together.
	maxProvisionerParameterSize = 256 * (1 << 10)
	// maxProvisionerParameterLen is the most parameters a class may have.
	maxProvisionerParameterLen = 512
	// maxAttachedVolumeMetadataSize bounds a VolumeAttachment's metadata.
	maxAttachedVolumeMetadataSize = 256 * (1 << 10)
	// maxVolumeErrorMessageSize bounds the message of a VolumeError.
	maxVolumeErrorMessageSize = 1024
	// csiNodeIDMaxLength bounds a CSINode driver's nodeID.
	csiNodeIDMaxLength = 192
	// csiDriverNameMaxLength bounds the name of a CSI driver.
	csiDriverNameMaxLength = 63
)

var (
	supportedReclaimPolicies = []corev1.PersistentVolumeReclaimPolicy{corev1.PersistentVolumeReclaimDelete, corev1.PersistentVolumeReclaimRetain}
	supportedBindingModes    = []storagev1.VolumeBindingMode{storagev1.VolumeBindingImmediate, storagev1.VolumeBindingWaitForFirstConsumer}
	supportedFSGroupPolicies = []storagev1.FSGroupPolicy{storagev1.ReadWriteOnceWithFSTypeFSGroupPolicy, storagev1.FileFSGroupPolicy, storagev1.NoneFSGroupPolicy}
	supportedLifecycleModes  = []storagev1.VolumeLifecycleMode{storagev1.VolumeLifecyclePersistent, storagev1.VolumeLifecycleEphemeral}
)

// ValidateStorageClass checks a StorageClass.
func ValidateStorageClass(sc *storagev1.StorageClass) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&sc.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	errs = append(errs, validateProvisioner(sc.Provisioner, field.NewPath("provisioner"))...)
	errs = append(errs, validateParameters(sc.Parameters, true, field.NewPath("parameters"))...)
	errs = append(errs, validateReclaimPolicy(sc.ReclaimPolicy, field.NewPath("reclaimPolicy"))...)
	errs = append(errs, validateVolumeBindingMode(sc.VolumeBindingMode, field.NewPath("volumeBindingMode"))...)
	errs = append(errs, validateAllowedTopologies(sc.AllowedTopologies, field.NewPath("allowedTopologies"))...)
	return errs
}

// ValidateStorageClassUpdate checks an update of a StorageClass: only
// allowVolumeExpansion, mount options and metadata may change.
func ValidateStorageClassUpdate(sc, old *storagev1.StorageClass) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&sc.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	if !reflect.DeepEqual(emptyToNil(old.Parameters), emptyToNil(sc.Parameters)) {
		errs = append(errs, field.Forbidden(field.NewPath("parameters"), "updates to parameters are forbidden."))
	}
	if sc.Provisioner != old.Provisioner {
		errs = append(errs, field.Forbidden(field.NewPath("provisioner"), "updates to provisioner are forbidden."))
	}
	if !reflect.DeepEqual(sc.ReclaimPolicy, old.ReclaimPolicy) {
		errs = append(errs, field.Forbidden(field.NewPath("reclaimPolicy"), "updates to reclaimPolicy are forbidden."))
	}
	errs = append(errs, apivalidation.ValidateImmutableField(sc.VolumeBindingMode, old.VolumeBindingMode, field.NewPath("volumeBindingMode"))...)
	return append(errs, ValidateStorageClass(sc)...)
}

func emptyToNil(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}

// validateProvisioner checks the name of a class's provisioner: a
// qualified name.
func validateProvisioner(provisioner string, p *field.Path) field.ErrorList {
	if provisioner == "" {
		return field.ErrorList{field.Required(p, provisioner)}
	}
	var errs field.ErrorList
	for _, msg := range utilvalidation.IsQualifiedName(strings.ToLower(provisioner)) {
		errs = append(errs, field.Invalid(p, provisioner, msg))
	}
	return errs
}

// validateParameters checks opaque driver parameters: bounded in number
// and size, no empty key.
func validateParameters(params map[string]string, allowEmptyKey bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(params) > maxProvisionerParameterLen {
		errs = append(errs, field.TooLong(p, "Provisioner Parameters exceeded max allowed", maxProvisionerParameterLen))
		return errs
	}
	size := 0
	for k, v := range params {
		if k == "" && !allowEmptyKey {
			errs = append(errs, field.Invalid(p, params, "field can not be empty."))
		}
		size += len(k) + len(v)
	}
	if size > maxProvisionerParameterSize {
		errs = append(errs, field.TooLong(p, "", maxProvisionerParameterSize))
	}
	return errs
}

func validateReclaimPolicy(policy *corev1.PersistentVolumeReclaimPolicy, p *field.Path) field.ErrorList {
	if policy == nil || len(*policy) == 0 {
		return nil
	}
	for _, s := range supportedReclaimPolicies {
		if *policy == s {
			return nil
		}
	}
	return field.ErrorList{field.NotSupported(p, *policy, supportedReclaimPolicies)}
}

func validateVolumeBindingMode(mode *storagev1.VolumeBindingMode, p *field.Path) field.ErrorList {
	if mode == nil {
		return field.ErrorList{field.Required(p, "")}
	}
	for _, s := range supportedBindingModes {
		if *mode == s {
			return nil
		}
	}
	return field.ErrorList{field.NotSupported(p, *mode, supportedBindingModes)}
}

// validateAllowedTopologies checks the topology terms of a class: each
// names at least one requirement, keys are label names, each key once
// per term and with at least one value, and no two terms equal.
func validateAllowedTopologies(terms []corev1.TopologySelectorTerm, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, term := range terms {
		tp := p.Index(i)
		if len(term.MatchLabelExpressions) == 0 {
			errs = append(errs, field.Required(tp, "must have at least one label requirement"))
		}
		keys := map[string]bool{}
		for j, req := range term.MatchLabelExpressions {
			rp := tp.Child("matchLabelExpressions").Index(j)
			errs = append(errs, apivalidation.ValidateLabelName(req.Key, rp.Child("key"))...)
			if len(req.Values) == 0 {
				errs = append(errs, field.Required(rp.Child("values"), "must specify as least one value"))
			}
			values := map[string]bool{}
			for k, v := range req.Values {
				if values[v] {
					errs = append(errs, field.Duplicate(rp.Child("values").Index(k), v))
				}
				values[v] = true
			}
			if keys[req.Key] {
				errs = append(errs, field.Duplicate(rp.Child("key"), req.Key))
			}
			keys[req.Key] = true
		}
		key := fmt.Sprint(term.MatchLabelExpressions)
		if seen[key] && len(term.MatchLabelExpressions) > 0 {
			errs = append(errs, field.Duplicate(tp, term))
		}
		seen[key] = true
	}
	return errs
}

// validateCSIDriverName checks the name of a CSI driver: a DNS-1123
// subdomain of at most 63 characters, case-insensitively.
func validateCSIDriverName(name string, p *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, name)}
	}
	if len(name) > csiDriverNameMaxLength {
		return field.ErrorList{field.TooLong(p, name, csiDriverNameMaxLength)}
	}
	var errs field.ErrorList
	for _, msg := range utilvalidation.IsDNS1123Subdomain(strings.ToLower(name)) {
		errs = append(errs, field.Invalid(p, name, msg))
	}
	return errs
}

// csiDriverObjectName checks the name of a CSIDriver object, which is the
// name of its driver.
func csiDriverObjectName(name string, _ bool) []string {
	var out []string
	for _, e := range validateCSIDriverName(name, field.NewPath("metadata", "name")) {
		out = append(out, e.Detail)
	}
	if name != "" && len(out) == 0 {
		return nil
	}
	return out
}

// ValidateVolumeAttachment checks a VolumeAttachment.
func ValidateVolumeAttachment(va *storagev1.VolumeAttachment) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&va.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	sp := field.NewPath("spec")
	errs = append(errs, validateCSIDriverName(va.Spec.Attacher, sp.Child("attacher"))...)
	errs = append(errs, validateVolumeAttachmentSource(&va.Spec.Source, sp.Child("source"))...)
	if va.Spec.NodeName == "" {
		errs = append(errs, field.Required(sp.Child("nodeName"), "node name is required"))
	} else {
		for _, msg := range apivalidation.NameIsDNSSubdomain(va.Spec.NodeName, false) {
			errs = append(errs, field.Invalid(sp.Child("nodeName"), va.Spec.NodeName, msg))
		}
	}
	return append(errs, validateVolumeAttachmentStatus(&va.Status, field.NewPath("status"))...)
}

func validateVolumeAttachmentSource(s *storagev1.VolumeAttachmentSource, p *field.Path) field.ErrorList {
	switch {
	case s.InlineVolumeSpec == nil && s.PersistentVolumeName == nil:
		return field.ErrorList{field.Required(p, "must specify exactly one of inlineVolumeSpec and persistentVolumeName")}
	case s.InlineVolumeSpec != nil && s.PersistentVolumeName != nil:
		return field.ErrorList{field.Forbidden(p, "must specify exactly one of inlineVolumeSpec and persistentVolumeName")}
	case s.PersistentVolumeName != nil && *s.PersistentVolumeName == "":
		return field.ErrorList{field.Required(p.Child("persistentVolumeName"), "must specify non empty persistentVolumeName")}
	}
	return nil
}

func validateVolumeAttachmentStatus(st *storagev1.VolumeAttachmentStatus, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	size := 0
	for k, v := range st.AttachmentMetadata {
		size += len(k) + len(v)
	}
	if size > maxAttachedVolumeMetadataSize {
		errs = append(errs, field.TooLong(p.Child("attachmentMetadata"), st.AttachmentMetadata, maxAttachedVolumeMetadataSize))
	}
	errs = append(errs, validateVolumeError(st.AttachError, p.Child("attachError"))...)
	return append(errs, validateVolumeError(st.DetachError, p.Child("detachError"))...)
}

func validateVolumeError(e *storagev1.VolumeError, p *field.Path) field.ErrorList {
	if e == nil {
		return nil
	}
	if len(e.Message) > maxVolumeErrorMessageSize {
		return field.ErrorList{field.TooLong(p.Child("message"), e.Message, maxVolumeErrorMessageSize)}
	}
	return nil
}

// ValidateVolumeAttachmentUpdate checks an update of a VolumeAttachment:
// its spec never changes.
func ValidateVolumeAttachmentUpdate(va, old *storagev1.VolumeAttachment) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&va.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, ValidateVolumeAttachment(va)...)
	if !reflect.DeepEqual(va.Spec, old.Spec) {
		errs = append(errs, field.Invalid(field.NewPath("spec"), va.Spec, "field is immutable"))
	}
	return errs
}

// ValidateCSIDriver checks a CSIDriver.
func ValidateCSIDriver(d *storagev1.CSIDriver) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&d.ObjectMeta, false, csiDriverObjectName, field.NewPath("metadata"))
	sp := field.NewPath("spec")
	if d.Spec.AttachRequired == nil {
		errs = append(errs, field.Required(sp.Child("attachRequired"), ""))
	}
	if d.Spec.PodInfoOnMount == nil {
		errs = append(errs, field.Required(sp.Child("podInfoOnMount"), ""))
	}
	if d.Spec.StorageCapacity == nil {
		errs = append(errs, field.Required(sp.Child("storageCapacity"), ""))
	}
	if d.Spec.RequiresRepublish == nil {
		errs = append(errs, field.Required(sp.Child("requiresRepublish"), ""))
	}
	if p := d.Spec.FSGroupPolicy; p != nil && !oneOf(*p, supportedFSGroupPolicies) {
		errs = append(errs, field.NotSupported(sp.Child("fsGroupPolicy"), *p, supportedFSGroupPolicies))
	}
	for i, m := range d.Spec.VolumeLifecycleModes {
		if !oneOf(m, supportedLifecycleModes) {
			errs = append(errs, field.NotSupported(sp.Child("volumeLifecycleModes").Index(i), m, supportedLifecycleModes))
		}
	}
	audiences := map[string]bool{}
	for i, tr := range d.Spec.TokenRequests {
		tp := sp.Child("tokenRequests").Index(i)
		if audiences[tr.Audience] {
			errs = append(errs, field.Duplicate(tp.Child("audience"), tr.Audience))
		}
		audiences[tr.Audience] = true
		if s := tr.ExpirationSeconds; s != nil {
			switch {
			case *s < 600:
				errs = append(errs, field.Invalid(tp.Child("expirationSeconds"), *s, "may not specify a duration less than 10 minutes"))
			case *s > 1<<32:
				errs = append(errs, field.Invalid(tp.Child("expirationSeconds"), *s, "may not specify a duration larger than 2^32 seconds"))
			}
		}
	}
	if s := d.Spec.NodeAllocatableUpdatePeriodSeconds; s != nil && *s < 10 {
		errs = append(errs, field.Invalid(sp.Child("nodeAllocatableUpdatePeriodSeconds"), *s, "must be greater than or equal to 10 seconds"))
	}
	return errs
}

// ValidateCSIDriverUpdate checks an update of a CSIDriver: attachRequired,
// fsGroupPolicy and volumeLifecycleModes are immutable.
func ValidateCSIDriverUpdate(d, old *storagev1.CSIDriver) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&d.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, ValidateCSIDriver(d)...)
	sp := field.NewPath("spec")
	errs = append(errs, apivalidation.ValidateImmutableField(d.Spec.AttachRequired, old.Spec.AttachRequired, sp.Child("attachRequired"))...)
	errs = append(errs, apivalidation.ValidateImmutableField(d.Spec.FSGroupPolicy, old.Spec.FSGroupPolicy, sp.Child("fsGroupPolicy"))...)
	return append(errs, apivalidation.ValidateImmutableField(d.Spec.VolumeLifecycleModes, old.Spec.VolumeLifecycleModes, sp.Child("volumeLifecycleModes"))...)
}

// ValidateCSINode checks a CSINode.
func ValidateCSINode(n *storagev1.CSINode) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&n.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	dp := field.NewPath("spec", "drivers")
	names := map[string]bool{}
	for i, d := range n.Spec.Drivers {
		p := dp.Index(i)
		errs = append(errs, validateCSIDriverName(d.Name, p.Child("name"))...)
		if names[d.Name] {
			errs = append(errs, field.Duplicate(p.Child("name"), d.Name))
		}
		names[d.Name] = true
		switch {
		case d.NodeID == "":
			errs = append(errs, field.Required(p.Child("nodeID"), d.NodeID))
		case len(d.NodeID) > csiNodeIDMaxLength:
			errs = append(errs, field.Invalid(p.Child("nodeID"), d.NodeID, fmt.Sprintf("must be %d characters or less", csiNodeIDMaxLength)))
		}
		keys := map[string]bool{}
		for j, k := range d.TopologyKeys {
			kp := p.Child("topologyKeys").Index(j)
			if k == "" {
				errs = append(errs, field.Required(kp, k))
				continue
			}
			if keys[k] {
				errs = append(errs, field.Duplicate(kp, k))
			}
			keys[k] = true
			for _, msg := range utilvalidation.IsQualifiedName(k) {
				errs = append(errs, field.Invalid(kp, k, msg))
			}
		}
		if a := d.Allocatable; a != nil && a.Count != nil {
			errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*a.Count), p.Child("allocatable", "count"))...)
		}
	}
	return errs
}

// ValidateCSINodeUpdate checks an update of a CSINode: a driver that
// stays keeps its nodeID and topology keys.
func ValidateCSINodeUpdate(n, old *storagev1.CSINode) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&n.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, ValidateCSINode(n)...)
	for _, od := range old.Spec.Drivers {
		for i, d := range n.Spec.Drivers {
			if d.Name != od.Name {
				continue
			}
			p := field.NewPath("spec", "drivers").Index(i)
			if d.NodeID != od.NodeID {
				errs = append(errs, field.Invalid(p.Child("nodeID"), d.NodeID, "field is immutable"))
			}
			if !reflect.DeepEqual(d.TopologyKeys, od.TopologyKeys) {
				errs = append(errs, field.Invalid(p.Child("topologyKeys"), d.TopologyKeys, "field is immutable"))
			}
		}
	}
	return errs
}

// ValidateCSIStorageCapacity checks a CSIStorageCapacity.
func ValidateCSIStorageCapacity(c *storagev1.CSIStorageCapacity) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&c.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	errs = append(errs, apivalidation.ValidateLabelSelector(c.NodeTopology, field.NewPath("nodeTopology"))...)
	if c.StorageClassName == "" {
		errs = append(errs, field.Required(field.NewPath("storageClassName"), ""))
	} else {
		for _, msg := range apivalidation.NameIsDNSSubdomain(c.StorageClassName, false) {
			errs = append(errs, field.Invalid(field.NewPath("storageClassName"), c.StorageClassName, msg))
		}
	}
	errs = append(errs, nonNegativeQuantity(c.Capacity, field.NewPath("capacity"))...)
	return append(errs, nonNegativeQuantity(c.MaximumVolumeSize, field.NewPath("maximumVolumeSize"))...)
}

func nonNegativeQuantity(q *resource.Quantity, p *field.Path) field.ErrorList {
	if q != nil && q.Sign() < 0 {
		return field.ErrorList{field.Invalid(p, q.String(), apivalidation.IsNegativeErrorMsg)}
	}
	return nil
}

// ValidateCSIStorageCapacityUpdate checks an update of a
// CSIStorageCapacity: only the capacities change.
func ValidateCSIStorageCapacityUpdate(c, old *storagev1.CSIStorageCapacity) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&c.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, ValidateCSIStorageCapacity(c)...)
	errs = append(errs, apivalidation.ValidateImmutableField(c.NodeTopology, old.NodeTopology, field.NewPath("nodeTopology"))...)
	return append(errs, apivalidation.ValidateImmutableField(c.StorageClassName, old.StorageClassName, field.NewPath("storageClassName"))...)
}

// ValidateVolumeAttributesClass checks a VolumeAttributesClass.
func ValidateVolumeAttributesClass(c *storagev1.VolumeAttributesClass) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&c.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	errs = append(errs, validateCSIDriverName(c.DriverName, field.NewPath("driverName"))...)
	return append(errs, validateParameters(c.Parameters, false, field.NewPath("parameters"))...)
}

// ValidateVolumeAttributesClassUpdate checks an update of a
// VolumeAttributesClass: driver and parameters never change.
func ValidateVolumeAttributesClassUpdate(c, old *storagev1.VolumeAttributesClass) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&c.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, ValidateVolumeAttributesClass(c)...)
	errs = append(errs, apivalidation.ValidateImmutableField(c.DriverName, old.DriverName, field.NewPath("driverName"))...)
	if !reflect.DeepEqual(emptyToNil(c.Parameters), emptyToNil(old.Parameters)) {
		errs = append(errs, field.Invalid(field.NewPath("parameters"), c.Parameters, "field is immutable"))
	}
	return errs
}

func oneOf[T comparable](v T, set []T) bool {
	for _, s := range set {
		if v == s {
			return true
		}
	}
	return false
}
