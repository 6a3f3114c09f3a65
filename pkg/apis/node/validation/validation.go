// Package validation checks node.k8s.io/v1 RuntimeClasses as the
// Kubernetes API server does.
package validation

import (
	"fmt"

	corev1 "kubecore.io/api/core/v1"
	nodev1 "kubecore.io/api/node/v1"
	"kubecore.io/apimachinery/pkg/api/resource"
	apivalidation "kubecore.io/apimachinery/pkg/api/validation"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	corevalidation "kubecore.io/kubecore/pkg/apis/core/validation"
)

// ValidateRuntimeClass checks a RuntimeClass: its handler is a DNS label,
// its overhead not negative, its node selector and tolerations valid.
func ValidateRuntimeClass(rc *nodev1.RuntimeClass) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&rc.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	for _, msg := range apivalidation.NameIsDNSLabel(rc.Handler, false) {
		errs = append(errs, field.Invalid(field.NewPath("handler"), rc.Handler, msg))
	}
	if rc.Overhead != nil {
		op := field.NewPath("overhead", "podFixed")
		for name, q := range rc.Overhead.PodFixed {
			if q.Cmp(resource.Quantity{}) < 0 {
				errs = append(errs, field.Invalid(op.Key(string(name)), q.String(), "must be greater than or equal to 0"))
			}
		}
	}
	if s := rc.Scheduling; s != nil {
		sp := field.NewPath("scheduling")
		errs = append(errs, apivalidation.ValidateLabels(s.NodeSelector, sp.Child("nodeSelector"))...)
		type key struct {
			key, value string
			op         corev1.TolerationOperator
			effect     corev1.TaintEffect
		}
		seen := map[key]bool{}
		for i, t := range s.Tolerations {
			tp := sp.Child("tolerations").Index(i)
			errs = append(errs, corevalidation.ValidateToleration(t, tp)...)
			k := key{t.Key, t.Value, t.Operator, t.Effect}
			if seen[k] {
				errs = append(errs, field.Duplicate(tp, fmt.Sprintf("%s=%s:%s", t.Key, t.Value, t.Effect)))
			}
			seen[k] = true
		}
	}
	return errs
}

// ValidateRuntimeClassUpdate checks a RuntimeClass update: the handler
// never changes.
func ValidateRuntimeClassUpdate(rc, old *nodev1.RuntimeClass) field.ErrorList {
	errs := ValidateRuntimeClass(rc)
	return append(errs, apivalidation.ValidateImmutableField(rc.Handler, old.Handler, field.NewPath("handler"))...)
}
