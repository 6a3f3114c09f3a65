package cacher

import (
	"slices"
	"strings"
	"sync"

	"kubecore.io/apimachinery/pkg/fields"
)

// fieldValues are an entry's selectable fields, compacted: the field names
// (sorted, shared by every entry of the same field set) and the entry's
// values in their order. A pod's ten fields in a map take ~700 bytes; this
// takes the values' slice, 160.
type fieldValues struct {
	names  []string // shared, read-only
	values []string
}

var _ fields.Fields = fieldValues{}

// Get implements fields.Fields.
func (f fieldValues) Get(name string) string {
	if i := f.index(name); i >= 0 {
		return f.values[i]
	}
	return ""
}

// Has implements fields.Fields.
func (f fieldValues) Has(name string) bool { return f.index(name) >= 0 }

func (f fieldValues) index(name string) int {
	// A resource has a dozen fields at most: a scan beats a search.
	for i, n := range f.names {
		if n == name {
			return i
		}
	}
	return -1
}

// fieldNames interns the sorted name lists of the field sets a cache
// sees: a resource's GetAttrs returns the same names for every object, so
// there is one list per cache in practice.
type fieldNames struct {
	mu    sync.Mutex
	lists map[string][]string // by the names joined with NUL
}

// compact returns set as fieldValues, its name list shared.
func (n *fieldNames) compact(set fields.Set) fieldValues {
	names := make([]string, 0, len(set))
	for k := range set {
		names = append(names, k)
	}
	slices.Sort(names)
	sig := strings.Join(names, "\x00")
	n.mu.Lock()
	shared, ok := n.lists[sig]
	if !ok {
		if n.lists == nil {
			n.lists = map[string][]string{}
		}
		n.lists[sig] = names
		shared = names
	}
	n.mu.Unlock()
	values := make([]string, len(shared))
	for i, k := range shared {
		values[i] = set[k]
	}
	return fieldValues{names: shared, values: values}
}
