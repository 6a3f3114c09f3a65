package protobuf

import (
	"fmt"
	"strings"
)

// PathError is an encoding or decoding failure at a field path such as
// "spec.containers[0].resources.limits[\"cpu\"]" (the tags' names).
type PathError struct {
	// Path lists the steps from the top-level message, outermost first.
	Path []string
	Err  error
}

func (e *PathError) Error() string {
	var sb strings.Builder
	for i, p := range e.Path {
		if i > 0 && !strings.HasPrefix(p, "[") {
			sb.WriteByte('.')
		}
		sb.WriteString(p)
	}
	return sb.String() + ": " + e.Err.Error()
}

func (e *PathError) Unwrap() error { return e.Err }

// within prefixes err's path with step.
func within(step string, err error) error {
	if pe, ok := err.(*PathError); ok {
		pe.Path = append([]string{step}, pe.Path...)
		return pe
	}
	return &PathError{Path: []string{step}, Err: err}
}

// fieldError prefixes err's path with field f, and element i when i >= 0.
func fieldError(f *field, i int, err error) error {
	if i >= 0 {
		err = within(fmt.Sprintf("[%d]", i), err)
	}
	return within(f.name, err)
}
