package cmdutil

import (
	"errors"
	"fmt"
	"strings"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// ErrorMessage returns the text kubectl prints for err, one line or
// several: "Error from server (Reason): message" for a server error, the
// causes of an Invalid error listed under its summary, "error: message"
// for anything else. Errors joined with errors.Join print one after
// another.
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		errs := flatten(joined.Unwrap())
		if len(errs) == 1 {
			return ErrorMessage(errs[0])
		}
		var lines []string
		seen := map[string]bool{}
		for _, e := range errs {
			if msg := aggregatedMessage(e); msg != "" && !seen[msg] {
				seen[msg] = true
				lines = append(lines, msg)
			}
		}
		return strings.Join(lines, "\n")
	}
	// Only an unwrapped server error prints as one: kubectl's own wrapping
	// ("failed to create ...") makes it an ordinary error.
	if se, ok := err.(*apierrors.StatusError); ok {
		return statusMessage(se)
	}
	var raw RawError
	if errors.As(err, &raw) {
		return raw.Error()
	}
	var exit *ExitError
	if errors.As(err, &exit) {
		return exit.Msg
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "error: ") {
		msg = "error: " + msg
	}
	return msg
}

// flatten lists the errors of nested joins.
func flatten(errs []error) []error {
	var out []error
	for _, e := range errs {
		if joined, ok := e.(interface{ Unwrap() []error }); ok {
			out = append(out, flatten(joined.Unwrap())...)
		} else if e != nil {
			out = append(out, e)
		}
	}
	return out
}

// aggregatedMessage is how kubectl prints one of several errors: a server
// error as usual, anything else without the "error: " prefix.
func aggregatedMessage(err error) string {
	if se, ok := err.(*apierrors.StatusError); ok {
		return statusMessage(se)
	}
	var raw RawError
	if errors.As(err, &raw) {
		return raw.Error()
	}
	return err.Error()
}

func statusMessage(se *apierrors.StatusError) string {
	st := se.Status()
	if st.Reason == metav1.StatusReasonInvalid {
		// kubectl prints these without its "error: " prefix.
		summary := "The request is invalid"
		d := st.Details
		switch {
		case d != nil && (d.Kind != "" || d.Name != ""):
			summary = fmt.Sprintf("The %s %q is invalid", d.Kind, d.Name)
		case se.Error() != "":
			summary += ": " + se.Error()
		}
		if d == nil || len(d.Causes) == 0 {
			return summary
		}
		var causes []string
		for _, c := range d.Causes {
			if c.Field == "" {
				causes = append(causes, c.Message)
				continue
			}
			causes = append(causes, fmt.Sprintf("%s: %s", c.Field, c.Message))
		}
		if len(causes) == 1 {
			return summary + ": " + causes[0]
		}
		return summary + ": \n* " + strings.Join(causes, "\n* ")
	}
	if st.Reason == "" {
		return "Error from server: " + se.Error()
	}
	return fmt.Sprintf("Error from server (%s): %s", st.Reason, se.Error())
}

// AddSourceToErr says which manifest an error came from: a server error
// keeps its reason with the message prefixed by `error when <verb> "<source>": `.
func AddSourceToErr(verb, source string, err error) error {
	if source == "" || err == nil {
		return err
	}
	var se *apierrors.StatusError
	if errors.As(err, &se) && se.Status().Reason != metav1.StatusReasonInvalid {
		st := se.Status()
		st.Message = fmt.Sprintf("error when %s %q: %s", verb, source, st.Message)
		return &apierrors.StatusError{ErrStatus: st}
	}
	if errors.As(err, &se) {
		return err
	}
	return fmt.Errorf("error when %s %q: %w", verb, source, err)
}

// RawError is printed as it is, without kubectl's "error: " prefix
// ("Error in configuration: ...").
type RawError string

func (e RawError) Error() string { return string(e) }

// UsageError is a mistake in how a command was called; kubectl adds a
// pointer to the command's help.
type UsageError struct {
	Msg         string
	CommandPath string
}

func (e *UsageError) Error() string {
	return fmt.Sprintf("%s\nSee '%s -h' for help and examples", e.Msg, e.CommandPath)
}

// UsageErrorf returns a UsageError for the command at path (e.g.
// "kubectl get").
func UsageErrorf(path, format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...), CommandPath: path}
}

// Levenshtein returns the edit distance of a and b.
func Levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// Suggest returns the candidates within edit distance 2 of s, or having it
// as a prefix, in the order given.
func Suggest(s string, candidates []string) []string {
	var out []string
	for _, c := range candidates {
		if c == s {
			continue
		}
		if Levenshtein(s, c) <= 2 || (len(s) > 1 && strings.HasPrefix(c, s)) {
			out = append(out, c)
		}
	}
	return out
}

// Errorf returns an error worded exactly as kubectl words it — capitals
// and final punctuation included — because users and scripts match on
// kubectl's messages.
func Errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// ExitError ends kubectl with Code, printing Msg as it is: a remote
// command's exit code ("command terminated with exit code 2").
type ExitError struct {
	Code int
	Msg  string
}

func (e *ExitError) Error() string { return e.Msg }

// ExitCode is the process's exit code for err: an ExitError's own, 1 for
// any other error, 0 for none.
func ExitCode(err error) int {
	var ee *ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.Code
	}
	return 1
}
