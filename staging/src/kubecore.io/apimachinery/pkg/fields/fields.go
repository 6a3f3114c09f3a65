// Package fields holds field selectors (?fieldSelector=metadata.name=x): a
// conjunction of field=value and field!=value terms with backslash escaping.
package fields

import (
	"maps"
	"slices"
	"strings"
)

// Fields is what a field selector matches against: an object's selectable
// fields, such as metadata.name or spec.nodeName.
type Fields interface {
	// Has reports whether the field is present.
	Has(field string) bool
	// Get returns the field's value, or "".
	Get(field string) string
}

// Set is a map of field values; it is the usual implementation of Fields.
type Set map[string]string

var _ Fields = Set(nil)

// String prints the set as "f1=v1,f2=v2", sorted, values unescaped.
func (fs Set) String() string {
	keys := slices.Sorted(maps.Keys(fs))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + fs[k]
	}
	return strings.Join(parts, ",")
}

// Has reports whether the field is present.
func (fs Set) Has(field string) bool {
	_, ok := fs[field]
	return ok
}

// Get returns the field's value, or "".
func (fs Set) Get(field string) string {
	return fs[field]
}

// AsSelector returns a selector requiring every field of the set.
func (fs Set) AsSelector() Selector {
	return SelectorFromSet(fs)
}
