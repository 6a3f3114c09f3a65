package validation

import (
	"fmt"
	"regexp"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

// sysctlNameFmt is a sysctl name as Kubernetes accepts it: parts of lower
// case letters, digits, '-' and '_' (not at their ends), separated by '.'
// or '/'.
const sysctlNameFmt = `([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?`

const sysctlNameMaxLength = 253

var sysctlNameRegexp = regexp.MustCompile("^" + sysctlNameFmt + "$")

// validateSysctls checks spec.securityContext.sysctls: well-formed names,
// each once. Which sysctls a pod may set is the kubelet's to decide
// (SysctlForbidden), as in Kubernetes.
func validateSysctls(psc *corev1.PodSecurityContext, fldPath *field.Path) field.ErrorList {
	if psc == nil {
		return nil
	}
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, s := range psc.Sysctls {
		p := fldPath.Index(i).Child("name")
		switch {
		case s.Name == "":
			errs = append(errs, field.Required(p, ""))
		case len(s.Name) > sysctlNameMaxLength || !sysctlNameRegexp.MatchString(s.Name):
			errs = append(errs, field.Invalid(p, s.Name, fmt.Sprintf("must have at most %d characters and match regex %s", sysctlNameMaxLength, sysctlNameRegexp)))
		case seen[s.Name]:
			errs = append(errs, field.Duplicate(p, s.Name))
		}
		seen[s.Name] = true
	}
	return errs
}
