// Package validation checks the parts every API object shares — object
// metadata, names, labels, selectors — returning field errors with paths.
package validation

import (
	"reflect"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/util/validation"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

// Details of common errors, as Kubernetes words them.
const (
	FieldImmutableErrorMsg = "field is immutable"
	IsNegativeErrorMsg     = "must be greater than or equal to 0"
)

// ValidateNameFunc checks an object's name, or with prefix set a
// generateName prefix (to which random characters will be appended), and
// returns the problems found.
type ValidateNameFunc func(name string, prefix bool) []string

var (
	_ ValidateNameFunc = NameIsDNSSubdomain
	_ ValidateNameFunc = NameIsDNSLabel
	_ ValidateNameFunc = NameIsDNS1035Label
	_ ValidateNameFunc = ValidateNamespaceName
)

// NameIsDNSSubdomain accepts RFC 1123 subdomains, the rule for most kinds.
func NameIsDNSSubdomain(name string, prefix bool) []string {
	return validation.IsDNS1123Subdomain(asPrefix(name, prefix))
}

// NameIsDNSLabel accepts RFC 1123 labels.
func NameIsDNSLabel(name string, prefix bool) []string {
	return validation.IsDNS1123Label(asPrefix(name, prefix))
}

// NameIsDNS1035Label accepts RFC 1035 labels (starting with a letter), the
// rule for Services.
func NameIsDNS1035Label(name string, prefix bool) []string {
	return validation.IsDNS1035Label(asPrefix(name, prefix))
}

// ValidateNamespaceName checks a namespace name: an RFC 1123 label.
func ValidateNamespaceName(name string, prefix bool) []string {
	return NameIsDNSLabel(name, prefix)
}

// asPrefix lets a generateName end with '-': random characters will follow
// it, so the dash is checked as if it were a letter.
func asPrefix(name string, prefix bool) string {
	if prefix && len(name) > 1 && name[len(name)-1] == '-' {
		return name[:len(name)-1] + "a"
	}
	return name
}

// ValidateNonnegativeField reports a negative value.
func ValidateNonnegativeField(value int64, fldPath *field.Path) field.ErrorList {
	if value < 0 {
		return field.ErrorList{field.Invalid(fldPath, value, IsNegativeErrorMsg)}
	}
	return nil
}

// ValidateImmutableField reports a change from oldVal to newVal. Timestamps
// compare as instants; everything else deeply.
func ValidateImmutableField(newVal, oldVal any, fldPath *field.Path) field.ErrorList {
	if !semanticEqual(newVal, oldVal) {
		return field.ErrorList{field.Invalid(fldPath, newVal, FieldImmutableErrorMsg)}
	}
	return nil
}

func semanticEqual(a, b any) bool {
	switch x := a.(type) {
	case metav1.Time:
		if y, ok := b.(metav1.Time); ok {
			return x.Equal(&y)
		}
	case *metav1.Time:
		if y, ok := b.(*metav1.Time); ok {
			return x.Equal(y)
		}
	case metav1.MicroTime:
		if y, ok := b.(metav1.MicroTime); ok {
			return x.Equal(&y)
		}
	case *metav1.MicroTime:
		if y, ok := b.(*metav1.MicroTime); ok {
			return x.Equal(y)
		}
	}
	return reflect.DeepEqual(a, b)
}
