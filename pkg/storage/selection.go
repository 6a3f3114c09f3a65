package storage

import (
	"kubecore.io/apimachinery/pkg/fields"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime"
)

// AttrFunc returns the labels and the selectable fields of an object
// (metadata.name and metadata.namespace always; spec.nodeName for pods, ...).
type AttrFunc func(obj runtime.Object) (labels.Set, fields.Set, error)

// SelectionPredicate selects objects by label and field selectors, and
// carries the paging of a list.
type SelectionPredicate struct {
	Label    labels.Selector
	Field    fields.Selector
	GetAttrs AttrFunc
	Limit    int64
	Continue string
}

// Empty reports whether the predicate selects every object.
func (p SelectionPredicate) Empty() bool {
	return (p.Label == nil || p.Label.Empty()) && (p.Field == nil || p.Field.Empty())
}

// Matches reports whether obj satisfies both selectors.
func (p SelectionPredicate) Matches(obj runtime.Object) (bool, error) {
	if p.Empty() {
		return true, nil
	}
	ls, fs, err := p.GetAttrs(obj)
	if err != nil {
		return false, err
	}
	if p.Label != nil && !p.Label.Matches(ls) {
		return false, nil
	}
	return p.Field == nil || p.Field.Matches(fs), nil
}

// MatchesSingle returns the name a field selector pins with
// metadata.name=NAME, which lets a list become a single get.
func (p SelectionPredicate) MatchesSingle() (string, bool) {
	if p.Field == nil {
		return "", false
	}
	return p.Field.RequiresExactMatch("metadata.name")
}
