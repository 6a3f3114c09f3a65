// Package labels holds label sets and label selectors: the parser of the
// selector syntax kubectl and the API accept (?labelSelector=) and fast matching.
package labels

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Labels is what a selector matches against: an object's labels.
type Labels interface {
	// Has reports whether the label is present.
	Has(label string) bool
	// Get returns the label's value, or "" if it is absent.
	Get(label string) string
}

// Set is a map of labels; it is the usual implementation of Labels.
type Set map[string]string

var _ Labels = Set(nil)

// String prints the set as "k1=v1,k2=v2", sorted by key.
func (ls Set) String() string {
	keys := slices.Sorted(maps.Keys(ls))
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(ls[k])
	}
	return b.String()
}

// Has reports whether the label is present.
func (ls Set) Has(label string) bool {
	_, ok := ls[label]
	return ok
}

// Get returns the label's value, or "".
func (ls Set) Get(label string) string {
	return ls[label]
}

// AsSelector returns a selector that requires every label of the set, without
// validating the set. An empty set gives Everything.
func (ls Set) AsSelector() Selector {
	return SelectorFromSet(ls)
}

// AsValidatedSelector is AsSelector, but fails on invalid keys or values.
func (ls Set) AsValidatedSelector() (Selector, error) {
	return ValidatedSelectorFromSet(ls)
}

// AsSelectorPreValidated is AsSelector for sets already known to be valid.
func (ls Set) AsSelectorPreValidated() Selector {
	return SelectorFromValidatedSet(ls)
}

// FormatLabels prints labels as Set.String does, or "<none>" when there are
// none, as kubectl shows them.
func FormatLabels(labelMap map[string]string) string {
	s := Set(labelMap).String()
	if s == "" {
		return "<none>"
	}
	return s
}

// Merge returns a new set with the labels of both; labels2 wins on conflict.
func Merge(labels1, labels2 Set) Set {
	out := make(Set, len(labels1)+len(labels2))
	maps.Copy(out, labels1)
	maps.Copy(out, labels2)
	return out
}

// Equals reports whether two sets hold the same labels.
func Equals(labels1, labels2 Set) bool {
	return maps.Equal(labels1, labels2)
}

// Conflicts reports whether a key is in both sets with different values.
func Conflicts(labels1, labels2 Set) bool {
	small, big := labels1, labels2
	if len(small) > len(big) {
		small, big = big, small
	}
	for k, v := range small {
		if w, ok := big[k]; ok && w != v {
			return true
		}
	}
	return false
}

// ConvertSelectorToLabelsMap reads a selector of the form "k1=v1,k2=v2"
// (equality only) into a Set, validating keys and values.
func ConvertSelectorToLabelsMap(selector string) (Set, error) {
	out := Set{}
	if selector == "" {
		return out, nil
	}
	for _, term := range strings.Split(selector, ",") {
		kv := strings.Split(term, "=")
		if len(kv) != 2 {
			return out, fmt.Errorf("invalid selector: %s", kv)
		}
		key, value := strings.TrimSpace(kv[0]), strings.TrimSpace(kv[1])
		if err := validateLabelKey(key, nil); err != nil {
			return out, err
		}
		if err := validateLabelValue(key, value, nil); err != nil {
			return out, err
		}
		out[key] = value
	}
	return out, nil
}

// lookup is Has and Get in one step, with a fast path for Set.
func lookup(ls Labels, key string) (string, bool) {
	switch l := ls.(type) {
	case Set:
		v, ok := l[key]
		return v, ok
	case interface{ Lookup(string) (string, bool) }:
		return l.Lookup(key)
	}
	if !ls.Has(key) {
		return "", false
	}
	return ls.Get(key), true
}
