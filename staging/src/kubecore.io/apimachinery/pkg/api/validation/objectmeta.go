package validation

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/util/validation"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

// Limits on metadata.
const (
	// TotalAnnotationSizeLimitB bounds the sum of the lengths of all
	// annotation keys and values.
	TotalAnnotationSizeLimitB = 256 * 1024
	// FieldManagerMaxLength bounds managedFields[].manager.
	FieldManagerMaxLength = 128
	// MaxSubresourceNameLength bounds managedFields[].subresource.
	MaxSubresourceNameLength = 256
)

// ValidateObjectMeta checks the metadata of an object being created. Name
// generation must already have happened; nameFn checks the name and the
// generateName prefix. requiresNamespace says whether the kind is
// namespaced: the namespace is then required, otherwise forbidden.
func ValidateObjectMeta(meta *metav1.ObjectMeta, requiresNamespace bool, nameFn ValidateNameFunc, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if meta.GenerateName != "" {
		for _, msg := range nameFn(meta.GenerateName, true) {
			errs = append(errs, field.Invalid(fldPath.Child("generateName"), meta.GenerateName, msg))
		}
	}
	if meta.Name == "" {
		errs = append(errs, field.Required(fldPath.Child("name"), "name or generateName is required"))
	} else {
		for _, msg := range nameFn(meta.Name, false) {
			errs = append(errs, field.Invalid(fldPath.Child("name"), meta.Name, msg))
		}
	}
	switch {
	case requiresNamespace && meta.Namespace == "":
		errs = append(errs, field.Required(fldPath.Child("namespace"), ""))
	case requiresNamespace:
		for _, msg := range ValidateNamespaceName(meta.Namespace, false) {
			errs = append(errs, field.Invalid(fldPath.Child("namespace"), meta.Namespace, msg))
		}
	case meta.Namespace != "":
		errs = append(errs, field.Forbidden(fldPath.Child("namespace"), "not allowed on this type"))
	}
	errs = append(errs, ValidateNonnegativeField(meta.Generation, fldPath.Child("generation"))...)
	return append(errs, validateMetaContent(meta, fldPath)...)
}

// validateMetaContent checks what create and update check alike.
func validateMetaContent(meta *metav1.ObjectMeta, fldPath *field.Path) field.ErrorList {
	errs := ValidateLabels(meta.Labels, fldPath.Child("labels"))
	errs = append(errs, ValidateAnnotations(meta.Annotations, fldPath.Child("annotations"))...)
	errs = append(errs, ValidateOwnerReferences(meta.OwnerReferences, fldPath.Child("ownerReferences"))...)
	errs = append(errs, ValidateFinalizers(meta.Finalizers, fldPath.Child("finalizers"))...)
	return append(errs, ValidateManagedFields(meta.ManagedFields, fldPath.Child("managedFields"))...)
}

// ValidateObjectMetaUpdate checks the metadata of an update against the
// stored object: name, namespace, uid, creationTimestamp, deletionTimestamp
// and deletionGracePeriodSeconds are immutable, the resourceVersion must be
// set (the store fills it in for unconditional updates before validating),
// the generation may not go down, and no finalizer may be added once
// deletion has started.
func ValidateObjectMetaUpdate(newMeta, oldMeta *metav1.ObjectMeta, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if oldMeta.DeletionTimestamp != nil {
		errs = append(errs, ValidateNoNewFinalizers(newMeta.Finalizers, oldMeta.Finalizers, fldPath.Child("finalizers"))...)
	}
	if newMeta.ResourceVersion == "" {
		errs = append(errs, field.Invalid(fldPath.Child("resourceVersion"), newMeta.ResourceVersion, "must be specified for an update"))
	}
	if newMeta.Generation < oldMeta.Generation {
		errs = append(errs, field.Invalid(fldPath.Child("generation"), newMeta.Generation, "must not be decremented"))
	}
	errs = append(errs, ValidateImmutableField(newMeta.Name, oldMeta.Name, fldPath.Child("name"))...)
	errs = append(errs, ValidateImmutableField(newMeta.Namespace, oldMeta.Namespace, fldPath.Child("namespace"))...)
	errs = append(errs, ValidateImmutableField(newMeta.UID, oldMeta.UID, fldPath.Child("uid"))...)
	errs = append(errs, ValidateImmutableField(newMeta.CreationTimestamp, oldMeta.CreationTimestamp, fldPath.Child("creationTimestamp"))...)
	errs = append(errs, ValidateImmutableField(newMeta.DeletionTimestamp, oldMeta.DeletionTimestamp, fldPath.Child("deletionTimestamp"))...)
	errs = append(errs, ValidateImmutableField(newMeta.DeletionGracePeriodSeconds, oldMeta.DeletionGracePeriodSeconds, fldPath.Child("deletionGracePeriodSeconds"))...)
	return append(errs, validateMetaContent(newMeta, fldPath)...)
}

// ValidateAnnotations checks that keys are qualified names (case does not
// matter) and that keys and values together fit in 256 KiB.
func ValidateAnnotations(annotations map[string]string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	total := 0
	for _, k := range slices.Sorted(maps.Keys(annotations)) {
		for _, msg := range validation.IsQualifiedName(strings.ToLower(k)) {
			errs = append(errs, field.Invalid(fldPath, k, msg))
		}
		total += len(k) + len(annotations[k])
	}
	if total > TotalAnnotationSizeLimitB {
		errs = append(errs, field.TooLong(fldPath, "", TotalAnnotationSizeLimitB))
	}
	return errs
}

// isBannedOwner reports the kinds that may not own other objects.
func isBannedOwner(gvk schema.GroupVersionKind) bool {
	return gvk == schema.GroupVersionKind{Version: "v1", Kind: "Event"}
}

// ValidateOwnerReferences checks each reference (apiVersion with a version,
// kind, name and uid set; Events may not own) and that at most one is the
// controller. As in Kubernetes the errors use the path of the list, not an
// index.
func ValidateOwnerReferences(refs []metav1.OwnerReference, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	controller := ""
	for _, ref := range refs {
		errs = append(errs, validateOwnerReference(ref, fldPath)...)
		if ref.Controller == nil || !*ref.Controller {
			continue
		}
		this := ref.Kind + "/" + ref.Name
		if controller != "" {
			errs = append(errs, field.Invalid(fldPath, refs,
				fmt.Sprintf("Only one reference can have Controller set to true. Found \"true\" in references for %s and %s", controller, this)))
		} else {
			controller = this
		}
	}
	return errs
}

func validateOwnerReference(ref metav1.OwnerReference, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	gvk := schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind)
	if gvk.Version == "" {
		errs = append(errs, field.Invalid(fldPath.Child("apiVersion"), ref.APIVersion, "version must not be empty"))
	}
	if gvk.Kind == "" {
		errs = append(errs, field.Invalid(fldPath.Child("kind"), ref.Kind, "must not be empty"))
	}
	if ref.Name == "" {
		errs = append(errs, field.Invalid(fldPath.Child("name"), ref.Name, "must not be empty"))
	}
	if ref.UID == "" {
		errs = append(errs, field.Invalid(fldPath.Child("uid"), ref.UID, "must not be empty"))
	}
	if isBannedOwner(gvk) {
		errs = append(errs, field.Invalid(fldPath, ref, gvk.String()+" is disallowed from being an owner"))
	}
	return errs
}

// ValidateFinalizerName checks one finalizer: a qualified name.
func ValidateFinalizerName(name string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(name) {
		errs = append(errs, field.Invalid(fldPath, name, msg))
	}
	return errs
}

// ValidateFinalizers checks every finalizer and that orphan and
// foregroundDeletion are not both set.
func ValidateFinalizers(finalizers []string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, f := range finalizers {
		errs = append(errs, ValidateFinalizerName(f, fldPath)...)
	}
	if slices.Contains(finalizers, metav1.FinalizerOrphanDependents) && slices.Contains(finalizers, metav1.FinalizerDeleteDependents) {
		errs = append(errs, field.Invalid(fldPath, finalizers,
			fmt.Sprintf("finalizer %s and %s cannot be both set", metav1.FinalizerOrphanDependents, metav1.FinalizerDeleteDependents)))
	}
	return errs
}

// ValidateNoNewFinalizers forbids finalizers in newFinalizers that are not
// in oldFinalizers, for objects already being deleted.
func ValidateNoNewFinalizers(newFinalizers, oldFinalizers []string, fldPath *field.Path) field.ErrorList {
	var extra []string
	for _, f := range newFinalizers {
		if !slices.Contains(oldFinalizers, f) {
			extra = append(extra, f)
		}
	}
	if len(extra) == 0 {
		return nil
	}
	slices.Sort(extra)
	extra = slices.Compact(extra)
	return field.ErrorList{field.Forbidden(fldPath,
		fmt.Sprintf("no new finalizers can be added if the object is being deleted, found new finalizers %#v", extra))}
}

// ValidateManagedFields checks the entries clients send: operation Apply or
// Update, fieldsType FieldsV1, a printable manager name of bounded length.
func ValidateManagedFields(entries []metav1.ManagedFieldsEntry, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, e := range entries {
		p := fldPath.Index(i)
		if e.Operation != "Apply" && e.Operation != "Update" {
			errs = append(errs, field.Invalid(p.Child("operation"), e.Operation, "must be `Apply` or `Update`"))
		}
		if e.FieldsType != "" && e.FieldsType != "FieldsV1" {
			errs = append(errs, field.Invalid(p.Child("fieldsType"), e.FieldsType, "must be `FieldsV1`"))
		}
		errs = append(errs, ValidateFieldManager(e.Manager, p.Child("manager"))...)
		if len(e.Subresource) > MaxSubresourceNameLength {
			errs = append(errs, field.TooLong(p.Child("subresource"), e.Subresource, MaxSubresourceNameLength))
		}
	}
	return errs
}

// ValidateFieldManager checks a field manager name: at most 128 bytes of
// printable characters.
func ValidateFieldManager(manager string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(manager) > FieldManagerMaxLength {
		errs = append(errs, field.TooLong(fldPath, manager, FieldManagerMaxLength))
	}
	for i, r := range manager {
		if !unicode.IsPrint(r) {
			errs = append(errs, field.Invalid(fldPath, manager, fmt.Sprintf("invalid character %#U (at position %d)", r, i)))
		}
	}
	return errs
}
