package fields

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"kubecore.io/apimachinery/pkg/selection"
)

// Selector selects objects by their fields.
type Selector interface {
	// Matches reports whether the fields satisfy every term.
	Matches(Fields) bool
	// Empty reports whether the selector matches everything.
	Empty() bool
	// RequiresExactMatch returns the value the selector requires the field
	// to have, if it requires one.
	RequiresExactMatch(field string) (value string, found bool)
	// Transform rewrites every term with fn; a term rewritten to an empty
	// field and value is dropped.
	Transform(fn TransformFunc) (Selector, error)
	// Requirements lists the terms.
	Requirements() Requirements
	// String prints the selector with values escaped; ParseSelector reads
	// it back.
	String() string
	// DeepCopySelector returns an independent copy.
	DeepCopySelector() Selector
}

// TransformFunc rewrites one term's field and value, for example to map a
// versioned field name to an internal one.
type TransformFunc func(field, value string) (newField, newValue string, err error)

// Requirement is one term: Field Operator Value, where Operator is
// selection.Equals or selection.NotEquals.
type Requirement struct {
	Operator selection.Operator
	Field    string
	Value    string
}

// Requirements is a list of terms, all of which must hold.
type Requirements []Requirement

var (
	_ Selector = (*hasTerm)(nil)
	_ Selector = (*notHasTerm)(nil)
	_ Selector = andTerm(nil)
)

// hasTerm requires field == value. A missing field has the value "".
type hasTerm struct{ field, value string }

func (t *hasTerm) Matches(fs Fields) bool { return fs.Get(t.field) == t.value }
func (t *hasTerm) Empty() bool            { return false }
func (t *hasTerm) RequiresExactMatch(field string) (string, bool) {
	if t.field == field {
		return t.value, true
	}
	return "", false
}
func (t *hasTerm) Transform(fn TransformFunc) (Selector, error) {
	f, v, err := fn(t.field, t.value)
	if err != nil {
		return nil, err
	}
	if f == "" && v == "" {
		return Everything(), nil
	}
	return &hasTerm{field: f, value: v}, nil
}
func (t *hasTerm) Requirements() Requirements {
	return Requirements{{Operator: selection.Equals, Field: t.field, Value: t.value}}
}
func (t *hasTerm) String() string             { return t.field + "=" + EscapeValue(t.value) }
func (t *hasTerm) DeepCopySelector() Selector { c := *t; return &c }

// notHasTerm requires field != value.
type notHasTerm struct{ field, value string }

func (t *notHasTerm) Matches(fs Fields) bool                   { return fs.Get(t.field) != t.value }
func (t *notHasTerm) Empty() bool                              { return false }
func (t *notHasTerm) RequiresExactMatch(string) (string, bool) { return "", false }
func (t *notHasTerm) Transform(fn TransformFunc) (Selector, error) {
	f, v, err := fn(t.field, t.value)
	if err != nil {
		return nil, err
	}
	if f == "" && v == "" {
		return Everything(), nil
	}
	return &notHasTerm{field: f, value: v}, nil
}
func (t *notHasTerm) Requirements() Requirements {
	return Requirements{{Operator: selection.NotEquals, Field: t.field, Value: t.value}}
}
func (t *notHasTerm) String() string             { return t.field + "!=" + EscapeValue(t.value) }
func (t *notHasTerm) DeepCopySelector() Selector { c := *t; return &c }

// andTerm requires every selector in it; empty, it matches everything.
type andTerm []Selector

func (t andTerm) Matches(fs Fields) bool {
	for _, s := range t {
		if !s.Matches(fs) {
			return false
		}
	}
	return true
}

func (t andTerm) Empty() bool {
	for _, s := range t {
		if !s.Empty() {
			return false
		}
	}
	return true
}

func (t andTerm) RequiresExactMatch(field string) (string, bool) {
	for _, s := range t {
		if v, ok := s.RequiresExactMatch(field); ok {
			return v, true
		}
	}
	return "", false
}

func (t andTerm) Transform(fn TransformFunc) (Selector, error) {
	out := make(andTerm, 0, len(t))
	for _, s := range t {
		n, err := s.Transform(fn)
		if err != nil {
			return nil, err
		}
		if !n.Empty() {
			out = append(out, n)
		}
	}
	return out, nil
}

func (t andTerm) Requirements() Requirements {
	var reqs Requirements
	for _, s := range t {
		reqs = append(reqs, s.Requirements()...)
	}
	return reqs
}

func (t andTerm) String() string {
	parts := make([]string, len(t))
	for i, s := range t {
		parts[i] = s.String()
	}
	return strings.Join(parts, ",")
}

func (t andTerm) DeepCopySelector() Selector {
	if t == nil {
		return andTerm(nil)
	}
	out := make(andTerm, len(t))
	for i, s := range t {
		out[i] = s.DeepCopySelector()
	}
	return out
}

// Everything returns a selector that matches all fields.
func Everything() Selector {
	return andTerm(nil)
}

// OneTermEqualSelector returns a selector requiring field == value.
func OneTermEqualSelector(field, value string) Selector {
	return &hasTerm{field: field, value: value}
}

// OneTermNotEqualSelector returns a selector requiring field != value.
func OneTermNotEqualSelector(field, value string) Selector {
	return &notHasTerm{field: field, value: value}
}

// AndSelectors returns a selector requiring all of the given ones.
func AndSelectors(selectors ...Selector) Selector {
	return andTerm(selectors)
}

// SelectorFromSet returns a selector requiring every field of the set, with
// the terms sorted by field so that String is deterministic.
func SelectorFromSet(fs Set) Selector {
	if len(fs) == 0 {
		return Everything()
	}
	keys := slices.Sorted(maps.Keys(fs))
	if len(keys) == 1 {
		return &hasTerm{field: keys[0], value: fs[keys[0]]}
	}
	terms := make(andTerm, len(keys))
	for i, k := range keys {
		terms[i] = &hasTerm{field: k, value: fs[k]}
	}
	return terms
}

// EscapeValue escapes '\', ',' and '=' in a value with a backslash, so that
// any string can be a field selector value.
func EscapeValue(s string) string {
	if !strings.ContainsAny(s, `\,=`) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 4)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\', ',', '=':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// InvalidEscapeSequence is the error for a backslash not followed by '\',
// ',' or '='.
type InvalidEscapeSequence struct {
	Sequence string
}

func (e InvalidEscapeSequence) Error() string {
	return "invalid field selector: invalid escape sequence: " + e.Sequence
}

// UnescapedRune is the error for a bare ',' or '=' in a value. Like
// Kubernetes, the message prints the character as its code point number.
type UnescapedRune struct {
	Rune rune
}

func (e UnescapedRune) Error() string {
	return fmt.Sprintf("invalid field selector: unescaped character in value: %d", e.Rune)
}

// UnescapeValue reverses EscapeValue, failing on a bare ',' or '=' or an
// unknown escape.
func UnescapeValue(s string) (string, error) {
	if !strings.ContainsAny(s, `\,=`) {
		return s, nil
	}
	var b strings.Builder
	b.Grow(len(s))
	escaped := false
	for _, c := range s {
		switch {
		case escaped:
			if c != '\\' && c != ',' && c != '=' {
				return "", InvalidEscapeSequence{Sequence: `\` + string(c)}
			}
			b.WriteRune(c)
			escaped = false
		case c == '\\':
			escaped = true
		case c == ',' || c == '=':
			return "", UnescapedRune{Rune: c}
		default:
			b.WriteRune(c)
		}
	}
	if escaped {
		return "", InvalidEscapeSequence{Sequence: `\`}
	}
	return b.String(), nil
}

// ParseSelector reads a field selector: terms "field=value", "field==value"
// or "field!=value" joined by commas. In values, '\,', '\=' and '\\' stand
// for the characters themselves. Terms are sorted; empty terms are skipped.
func ParseSelector(selector string) (Selector, error) {
	return ParseAndTransformSelector(selector, func(f, v string) (string, string, error) { return f, v, nil })
}

// ParseAndTransformSelector is ParseSelector followed by Transform(fn).
func ParseAndTransformSelector(selector string, fn TransformFunc) (Selector, error) {
	parts := splitTerms(selector)
	slices.Sort(parts)
	var terms andTerm
	for _, part := range parts {
		if part == "" {
			continue
		}
		field, op, raw, ok := splitTerm(part)
		if !ok {
			return nil, fmt.Errorf("invalid selector: '%s'; can't understand '%s'", selector, part)
		}
		value, err := UnescapeValue(raw)
		if err != nil {
			return nil, err
		}
		if op == "!=" {
			terms = append(terms, &notHasTerm{field: field, value: value})
		} else {
			terms = append(terms, &hasTerm{field: field, value: value})
		}
	}
	if len(terms) == 1 {
		return terms[0].Transform(fn)
	}
	return terms.Transform(fn)
}

// splitTerms splits at commas that are not escaped; escapes stay in the
// terms.
func splitTerms(s string) []string {
	if s == "" {
		return nil
	}
	var terms []string
	start, escaped := 0, false
	for i := 0; i < len(s); i++ {
		switch {
		case escaped:
			escaped = false
		case s[i] == '\\':
			escaped = true
		case s[i] == ',':
			terms = append(terms, s[start:i])
			start = i + 1
		}
	}
	return append(terms, s[start:])
}

// splitTerm splits a term at its first operator: field names are not
// escaped, so the first "!=", "==" or "=" ends the field.
func splitTerm(term string) (field, op, value string, ok bool) {
	for i := 0; i < len(term); i++ {
		rest := term[i:]
		for _, op := range [...]string{"!=", "==", "="} {
			if strings.HasPrefix(rest, op) {
				return term[:i], op, rest[len(op):], true
			}
		}
	}
	return "", "", "", false
}
