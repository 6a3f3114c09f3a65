package field

import "strings"

// ErrorList is the result of validating an object: empty when it is valid.
type ErrorList []*Error

// Matcher selects errors, for Filter.
type Matcher func(error) bool

// NewErrorTypeMatcher matches the *Error values of type t.
func NewErrorTypeMatcher(t ErrorType) Matcher {
	return func(err error) bool {
		e, ok := err.(*Error)
		return ok && e.Type == t
	}
}

// ToAggregate returns nil for an empty list, otherwise one error whose text
// is the single message, or "[msg1, msg2, ...]" with repeated messages
// dropped. errors.Is and errors.As see every *Error through Unwrap.
func (list ErrorList) ToAggregate() error {
	if len(list) == 0 {
		return nil
	}
	seen := make(map[string]bool, len(list))
	agg := make(aggregate, 0, len(list))
	for _, e := range list {
		msg := e.Error()
		if seen[msg] {
			continue
		}
		seen[msg] = true
		agg = append(agg, e)
	}
	return agg
}

// Filter returns the errors that none of the matchers match.
func (list ErrorList) Filter(fns ...Matcher) ErrorList {
	var out ErrorList
	for _, e := range list {
		if !matchesAny(e, fns) {
			out = append(out, e)
		}
	}
	return out
}

func matchesAny(e *Error, fns []Matcher) bool {
	for _, fn := range fns {
		if fn(e) {
			return true
		}
	}
	return false
}

// aggregate is the error ToAggregate returns.
type aggregate []*Error

var _ error = aggregate(nil)

// Error joins the messages as Kubernetes' aggregate errors do.
func (a aggregate) Error() string {
	if len(a) == 1 {
		return a[0].Error()
	}
	msgs := make([]string, len(a))
	for i, e := range a {
		msgs[i] = e.Error()
	}
	return "[" + strings.Join(msgs, ", ") + "]"
}

// Unwrap exposes the field errors to errors.Is and errors.As.
func (a aggregate) Unwrap() []error {
	errs := make([]error, len(a))
	for i, e := range a {
		errs[i] = e
	}
	return errs
}

// Errors returns the field errors, for callers that list causes.
func (a aggregate) Errors() []error {
	return a.Unwrap()
}
