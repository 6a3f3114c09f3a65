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
		var lines []string
		seen := map[string]bool{}
		for _, e := range joined.Unwrap() {
			if msg := ErrorMessage(e); msg != "" && !seen[msg] {
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
	msg := err.Error()
	if !strings.HasPrefix(msg, "error: ") {
		msg = "error: " + msg
	}
	return msg
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
