// Package field describes where in an object a validation error is, and the
// error itself, printed exactly as the Kubernetes API server prints it.
package field

import (
	"strconv"
	"strings"
)

// Path is a position inside an object, such as spec.containers[0].env[FOO].
// A nil *Path is the empty path. Paths are immutable: every method returns a
// new step that points back at its parent, so one prefix can be shared.
type Path struct {
	text    string // a field name, or the text between brackets
	bracket bool   // true for an index or key step
	parent  *Path
}

// NewPath starts a path at the field name, followed by moreNames as children.
func NewPath(name string, moreNames ...string) *Path {
	return (*Path)(nil).Child(name, moreNames...)
}

// Root returns the first step of the path.
func (p *Path) Root() *Path {
	for p != nil && p.parent != nil {
		p = p.parent
	}
	return p
}

// Child appends one or more field names.
func (p *Path) Child(name string, moreNames ...string) *Path {
	c := &Path{text: name, parent: p}
	for _, n := range moreNames {
		c = &Path{text: n, parent: c}
	}
	return c
}

// Index appends a list index, printed as [i].
func (p *Path) Index(i int) *Path {
	return &Path{text: strconv.Itoa(i), bracket: true, parent: p}
}

// Key appends a map key, printed as [key].
func (p *Path) Key(key string) *Path {
	return &Path{text: key, bracket: true, parent: p}
}

// String renders the path: field names joined by dots, indexes and keys in
// brackets. The nil path renders as "<nil>", as in Kubernetes.
func (p *Path) String() string {
	if p == nil {
		return "<nil>"
	}
	var steps []*Path
	for s := p; s != nil; s = s.parent {
		steps = append(steps, s)
	}
	var b strings.Builder
	for i := len(steps) - 1; i >= 0; i-- {
		s := steps[i]
		switch {
		case s.bracket:
			b.WriteByte('[')
			b.WriteString(s.text)
			b.WriteByte(']')
		case i == len(steps)-1:
			b.WriteString(s.text)
		default:
			b.WriteByte('.')
			b.WriteString(s.text)
		}
	}
	return b.String()
}
