// Package validation checks apiregistration.k8s.io/v1 APIServices as the
// Kubernetes aggregator does.
package validation

import (
	"fmt"
	"strings"

	apiregistrationv1 "kubecore.io/api/apiregistration/v1"
	apivalidation "kubecore.io/apimachinery/pkg/api/validation"
	"kubecore.io/apimachinery/pkg/util/validation"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

// ValidateAPIService checks an APIService: named VERSION.GROUP, a valid
// group and version, priorities in range, and a complete service
// reference (or, for a local one, no TLS settings).
func ValidateAPIService(a *apiregistrationv1.APIService) field.ErrorList {
	required := a.Spec.Version + "." + a.Spec.Group
	errs := apivalidation.ValidateObjectMeta(&a.ObjectMeta, false, func(name string, _ bool) []string {
		if msgs := pathSegmentName(name); len(msgs) > 0 {
			return msgs
		}
		if name != required {
			return []string{fmt.Sprintf("must be `spec.version+\".\"+spec.group`: %q", required)}
		}
		return nil
	}, field.NewPath("metadata"))
	spec := field.NewPath("spec")
	if a.Spec.Group == "" && a.Spec.Version != "v1" {
		errs = append(errs, field.Required(spec.Child("group"), "only v1 may have an empty group and it better be legacy kube"))
	}
	if a.Spec.Group != "" {
		for _, msg := range validation.IsDNS1123Subdomain(a.Spec.Group) {
			errs = append(errs, field.Invalid(spec.Child("group"), a.Spec.Group, msg))
		}
	}
	for _, msg := range validation.IsDNS1035Label(a.Spec.Version) {
		errs = append(errs, field.Invalid(spec.Child("version"), a.Spec.Version, msg))
	}
	if p := a.Spec.GroupPriorityMinimum; p <= 0 || p > 20000 {
		errs = append(errs, field.Invalid(spec.Child("groupPriorityMinimum"), p, "must be positive and less than 20000"))
	}
	if p := a.Spec.VersionPriority; p <= 0 || p > 1000 {
		errs = append(errs, field.Invalid(spec.Child("versionPriority"), p, "must be positive and less than 1000"))
	}
	svc := a.Spec.Service
	if svc == nil {
		if n := len(a.Spec.CABundle); n > 0 {
			errs = append(errs, field.Invalid(spec.Child("caBundle"), fmt.Sprintf("%d bytes", n), "local APIServices may not have a caBundle"))
		}
		if a.Spec.InsecureSkipTLSVerify {
			errs = append(errs, field.Invalid(spec.Child("insecureSkipTLSVerify"), true, "local APIServices may not have insecureSkipTLSVerify"))
		}
		return errs
	}
	sp := spec.Child("service")
	if svc.Namespace == "" {
		errs = append(errs, field.Required(sp.Child("namespace"), ""))
	}
	if svc.Name == "" {
		errs = append(errs, field.Required(sp.Child("name"), ""))
	}
	port := int32(443)
	if svc.Port != nil {
		port = *svc.Port
	}
	if msgs := validation.IsValidPortNum(int(port)); len(msgs) > 0 {
		errs = append(errs, field.Invalid(sp.Child("port"), port, "port is not valid: "+strings.Join(msgs, ", ")))
	}
	if a.Spec.InsecureSkipTLSVerify && len(a.Spec.CABundle) > 0 {
		errs = append(errs, field.Invalid(spec.Child("insecureSkipTLSVerify"), true, "may not be true if caBundle is present"))
	}
	return errs
}

// ValidateAPIServiceUpdate checks an update: the new object is checked
// as a new one, and the name stays.
func ValidateAPIServiceUpdate(a, old *apiregistrationv1.APIService) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&a.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(errs, ValidateAPIService(a)...)
}

// ValidateAPIServiceStatusUpdate checks an update of the status: the
// conditions' types and statuses.
func ValidateAPIServiceStatusUpdate(a, old *apiregistrationv1.APIService) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&a.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	cp := field.NewPath("status", "conditions")
	for i, c := range a.Status.Conditions {
		switch c.Status {
		case apiregistrationv1.ConditionTrue, apiregistrationv1.ConditionFalse, apiregistrationv1.ConditionUnknown:
		default:
			errs = append(errs, field.NotSupported(cp.Index(i).Child("status"), c.Status, []string{"True", "False", "Unknown"}))
		}
	}
	return errs
}

// pathSegmentName refuses the names that cannot be one segment of a path.
func pathSegmentName(name string) []string {
	switch name {
	case ".", "..":
		return []string{fmt.Sprintf(`may not be '%s'`, name)}
	}
	var msgs []string
	for _, bad := range []string{"/", "%"} {
		if strings.Contains(name, bad) {
			msgs = append(msgs, fmt.Sprintf(`may not contain '%s'`, bad))
		}
	}
	return msgs
}
