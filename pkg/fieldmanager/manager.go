package fieldmanager

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"kubecore.io/apimachinery/pkg/util/validation/field"
)

// MaxManagerLength is the longest field manager name, in bytes.
const MaxManagerLength = 128

// ManagerFromUserAgent is the manager name of a request that gives no
// fieldManager: its User-Agent up to the first "/" ("kubectl/v1.32.0
// (linux/amd64) kubernetes/abc" is "kubectl"), unprintable characters
// dropped, cut to MaxManagerLength bytes.
func ManagerFromUserAgent(userAgent string) string {
	prefix, _, _ := strings.Cut(userAgent, "/")
	var b strings.Builder
	for _, r := range prefix {
		if !unicode.IsPrint(r) {
			continue
		}
		if b.Len()+utf8.RuneLen(r) > MaxManagerLength {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ManagerName is the manager of a write: fieldManager when given, else
// derived from the User-Agent.
func ManagerName(fieldManager, userAgent string) string {
	if fieldManager != "" {
		return fieldManager
	}
	return ManagerFromUserAgent(userAgent)
}

// ValidateManager checks the fieldManager option of a write as Kubernetes
// does (printable, at most MaxManagerLength bytes; required for apply);
// the errors are on the path "fieldManager", for a 422 Invalid Status.
func ValidateManager(fieldManager string, apply bool) field.ErrorList {
	path := field.NewPath("fieldManager")
	var errs field.ErrorList
	if fieldManager == "" && apply {
		errs = append(errs, field.Required(path, "is required for apply patch"))
	}
	if len(fieldManager) > MaxManagerLength {
		errs = append(errs, field.TooLong(path, "", MaxManagerLength))
	}
	for i, r := range fieldManager {
		if !unicode.IsPrint(r) {
			errs = append(errs, field.Invalid(path, fieldManager, fmt.Sprintf("invalid character %#U (at position %d)", r, i)))
		}
	}
	return errs
}
