package labels

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"

	"kubecore.io/apimachinery/pkg/selection"
	"kubecore.io/apimachinery/pkg/util/validation"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

// Selector selects label sets.
type Selector interface {
	// Matches reports whether the labels satisfy every requirement.
	Matches(Labels) bool
	// Empty reports whether the selector matches everything.
	Empty() bool
	// String prints the canonical form, which Parse reads back.
	String() string
	// Add returns a new selector with the requirements added.
	Add(r ...Requirement) Selector
	// Requirements lists the requirements; selectable is false for a
	// selector that selects nothing.
	Requirements() (requirements Requirements, selectable bool)
	// DeepCopySelector returns an independent copy.
	DeepCopySelector() Selector
	// RequiresExactMatch returns the one value the selector requires the
	// label to have, if it requires one.
	RequiresExactMatch(label string) (value string, found bool)
}

var (
	_ Selector = internalSelector(nil)
	_ Selector = nothingSelector{}
)

// Everything returns a selector that matches all labels.
func Everything() Selector {
	return internalSelector(nil)
}

// Nothing returns a selector that matches no labels.
func Nothing() Selector {
	return nothingSelector{}
}

// NewSelector returns an empty selector, to which requirements can be added.
func NewSelector() Selector {
	return internalSelector(nil)
}

// MatchesNothing reports whether the selector is Nothing().
func MatchesNothing(s Selector) bool {
	_, ok := s.(nothingSelector)
	return ok
}

type nothingSelector struct{}

func (nothingSelector) Matches(Labels) bool                      { return false }
func (nothingSelector) Empty() bool                              { return false }
func (nothingSelector) String() string                           { return "" }
func (n nothingSelector) Add(...Requirement) Selector            { return n }
func (nothingSelector) Requirements() (Requirements, bool)       { return nil, false }
func (n nothingSelector) DeepCopySelector() Selector             { return n }
func (nothingSelector) RequiresExactMatch(string) (string, bool) { return "", false }

// Requirement is one condition on one label: a key, an operator and values.
// Build it with NewRequirement; the zero value is invalid.
type Requirement struct {
	key      string
	operator selection.Operator
	// Nearly always one value: a slice scans faster than a map.
	values []string
}

// Requirements is a list of requirements, all of which must hold.
type Requirements []Requirement

// String joins the requirements with ", ".
func (r Requirements) String() string {
	parts := make([]string, len(r))
	for i := range r {
		parts[i] = r[i].String()
	}
	return strings.Join(parts, ", ")
}

// supportedOperators lists the operators in the order error messages show.
func supportedOperators() []selection.Operator {
	return []selection.Operator{
		selection.In, selection.NotIn, selection.Equals, selection.DoubleEquals, selection.NotEquals,
		selection.GreaterThan, selection.LessThan, selection.Exists, selection.DoesNotExist,
	}
}

// NewRequirement checks and builds a requirement:
//   - In and NotIn need at least one value;
//   - Equals, DoubleEquals and NotEquals exactly one;
//   - Exists and DoesNotExist none;
//   - GreaterThan and LessThan exactly one, an integer;
//   - the key must be a qualified name and the values label values ("" is
//     valid).
//
// The error, if any, lists every problem, with field paths key, operator and
// values[i][key].
func NewRequirement(key string, op selection.Operator, vals []string) (*Requirement, error) {
	r, err := newRequirement(key, op, vals, nil)
	if err != nil {
		return nil, err
	}
	return &r, nil
}

func newRequirement(key string, op selection.Operator, vals []string, path *field.Path) (Requirement, error) {
	var errs field.ErrorList
	if err := validateLabelKey(key, path.Child("key")); err != nil {
		errs = append(errs, err)
	}
	valuesPath := path.Child("values")
	switch op {
	case selection.In, selection.NotIn:
		if len(vals) == 0 {
			errs = append(errs, field.Invalid(valuesPath, vals, "for 'in', 'notin' operators, values set can't be empty"))
		}
	case selection.Equals, selection.DoubleEquals, selection.NotEquals:
		if len(vals) != 1 {
			errs = append(errs, field.Invalid(valuesPath, vals, "exact-match compatibility requires one single value"))
		}
	case selection.Exists, selection.DoesNotExist:
		if len(vals) != 0 {
			errs = append(errs, field.Invalid(valuesPath, vals, "values set must be empty for exists and does not exist"))
		}
	case selection.GreaterThan, selection.LessThan:
		if len(vals) != 1 {
			errs = append(errs, field.Invalid(valuesPath, vals, "for 'Gt', 'Lt' operators, exactly one value is required"))
		}
		for i, v := range vals {
			if _, err := strconv.ParseInt(v, 10, 64); err != nil {
				errs = append(errs, field.Invalid(valuesPath.Index(i), v, "for 'Gt', 'Lt' operators, the value must be an integer"))
			}
		}
	default:
		errs = append(errs, field.NotSupported(path.Child("operator"), op, supportedOperators()))
	}
	for i, v := range vals {
		if err := validateLabelValue(key, v, valuesPath.Index(i)); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errs.ToAggregate(); err != nil {
		return Requirement{}, err
	}
	return Requirement{key: key, operator: op, values: slices.Clone(vals)}, nil
}

func validateLabelKey(key string, path *field.Path) *field.Error {
	if msgs := validation.IsQualifiedName(key); len(msgs) > 0 {
		return field.Invalid(path, key, strings.Join(msgs, "; "))
	}
	return nil
}

func validateLabelValue(key, value string, path *field.Path) *field.Error {
	if msgs := validation.IsValidLabelValue(value); len(msgs) > 0 {
		return field.Invalid(path.Key(key), value, strings.Join(msgs, "; "))
	}
	return nil
}

// Key returns the label key.
func (r *Requirement) Key() string { return r.key }

// Operator returns the operator.
func (r *Requirement) Operator() selection.Operator { return r.operator }

// Values returns the values, sorted and without duplicates, in a new slice.
func (r *Requirement) Values() []string {
	out := slices.Clone(r.values)
	slices.Sort(out)
	return slices.Compact(out)
}

// ValuesUnsorted returns a copy of the values in the order given.
func (r *Requirement) ValuesUnsorted() []string {
	return slices.Clone(r.values)
}

// Equal reports whether two requirements have the same key, operator and
// values in the same order.
func (r Requirement) Equal(x Requirement) bool {
	return r.key == x.key && r.operator == x.operator && slices.Equal(r.values, x.values)
}

func (r *Requirement) hasValue(v string) bool {
	for _, w := range r.values {
		if w == v {
			return true
		}
	}
	return false
}

// Matches reports whether the labels satisfy the requirement. A missing label
// satisfies NotIn, NotEquals and DoesNotExist only; GreaterThan and LessThan
// need a label whose value is an integer.
func (r *Requirement) Matches(ls Labels) bool {
	switch r.operator {
	case selection.Equals, selection.DoubleEquals, selection.In:
		v, ok := lookup(ls, r.key)
		return ok && r.hasValue(v)
	case selection.NotEquals, selection.NotIn:
		v, ok := lookup(ls, r.key)
		return !ok || !r.hasValue(v)
	case selection.Exists:
		return ls.Has(r.key)
	case selection.DoesNotExist:
		return !ls.Has(r.key)
	case selection.GreaterThan, selection.LessThan:
		v, ok := lookup(ls, r.key)
		if !ok || len(r.values) != 1 {
			return false
		}
		have, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return false
		}
		want, err := strconv.ParseInt(r.values[0], 10, 64)
		if err != nil {
			return false
		}
		if r.operator == selection.GreaterThan {
			return have > want
		}
		return have < want
	}
	return false
}

// String prints the requirement in selector syntax: "!k", "k", "k=v",
// "k==v", "k!=v", "k in (a,b)", "k notin (a,b)", "k>1", "k<1". Set values are
// printed sorted.
func (r *Requirement) String() string {
	var b strings.Builder
	r.writeTo(&b)
	return b.String()
}

func (r *Requirement) writeTo(b *strings.Builder) {
	if r.operator == selection.DoesNotExist {
		b.WriteByte('!')
	}
	b.WriteString(r.key)
	switch r.operator {
	case selection.Exists, selection.DoesNotExist:
		return
	case selection.In:
		b.WriteString(" in (")
	case selection.NotIn:
		b.WriteString(" notin (")
	case selection.GreaterThan:
		b.WriteByte('>')
	case selection.LessThan:
		b.WriteByte('<')
	default:
		b.WriteString(string(r.operator))
	}
	vals := r.values
	if !slices.IsSorted(vals) {
		vals = slices.Sorted(slices.Values(vals))
	}
	for i, v := range vals {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(v)
	}
	if r.operator == selection.In || r.operator == selection.NotIn {
		b.WriteByte(')')
	}
}

// internalSelector is the requirements, sorted by key, all of which must hold.
type internalSelector []Requirement

func (s internalSelector) Matches(ls Labels) bool {
	for i := range s {
		if !s[i].Matches(ls) {
			return false
		}
	}
	return true
}

func (s internalSelector) Empty() bool { return len(s) == 0 }

func (s internalSelector) String() string {
	var b strings.Builder
	for i := range s {
		if i > 0 {
			b.WriteByte(',')
		}
		s[i].writeTo(&b)
	}
	return b.String()
}

func (s internalSelector) Add(reqs ...Requirement) Selector {
	out := make(internalSelector, 0, len(s)+len(reqs))
	out = append(out, s...)
	out = append(out, reqs...)
	sortByKey(out)
	return out
}

func (s internalSelector) Requirements() (Requirements, bool) { return Requirements(s), true }

func (s internalSelector) DeepCopySelector() Selector {
	if s == nil {
		return internalSelector(nil)
	}
	out := make(internalSelector, len(s))
	for i, r := range s {
		out[i] = Requirement{key: r.key, operator: r.operator, values: slices.Clone(r.values)}
	}
	return out
}

func (s internalSelector) RequiresExactMatch(label string) (string, bool) {
	for i := range s {
		if s[i].key != label {
			continue
		}
		switch s[i].operator {
		case selection.Equals, selection.DoubleEquals, selection.In:
			if len(s[i].values) == 1 {
				return s[i].values[0], true
			}
		}
		return "", false
	}
	return "", false
}

// sortByKey orders requirements by key, keeping the given order among
// requirements on the same key so that String is deterministic.
func sortByKey(reqs []Requirement) {
	slices.SortStableFunc(reqs, func(a, b Requirement) int { return cmp.Compare(a.key, b.key) })
}

// SelectorFromSet returns a selector requiring every label of the set,
// without validating it (the server rejects invalid ones). An empty set gives
// Everything.
func SelectorFromSet(ls Set) Selector {
	return SelectorFromValidatedSet(ls)
}

// SelectorFromValidatedSet is SelectorFromSet for a set known to be valid.
func SelectorFromValidatedSet(ls Set) Selector {
	if len(ls) == 0 {
		return internalSelector(nil)
	}
	reqs := make(internalSelector, 0, len(ls))
	for k, v := range ls {
		reqs = append(reqs, Requirement{key: k, operator: selection.Equals, values: []string{v}})
	}
	sortByKey(reqs)
	return reqs
}

// ValidatedSelectorFromSet is SelectorFromSet, but fails on an invalid key or
// value.
func ValidatedSelectorFromSet(ls Set) (Selector, error) {
	if len(ls) == 0 {
		return internalSelector(nil), nil
	}
	reqs := make(internalSelector, 0, len(ls))
	for _, k := range slices.Sorted(maps.Keys(ls)) {
		r, err := newRequirement(k, selection.Equals, []string{ls[k]}, nil)
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, r)
	}
	return reqs, nil
}
