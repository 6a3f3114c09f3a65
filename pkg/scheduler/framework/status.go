// Package framework is the scheduling framework: the plugin interfaces of
// every extension point, the per-node state plugins read, and their runner.
package framework

import (
	"errors"
	"fmt"
	"strings"
)

// Code is the result kind of a plugin call.
type Code int

const (
	// Success: the plugin is content (a nil *Status means Success too).
	Success Code = iota
	// Error: something went wrong that is not about the pod fitting.
	Error
	// Unschedulable: the pod does not fit, but preemption may help.
	Unschedulable
	// UnschedulableAndUnresolvable: the pod does not fit and preemption
	// cannot help on this node.
	UnschedulableAndUnresolvable
	// Skip: the plugin has nothing to do for this pod in this cycle.
	Skip
)

var codeNames = [...]string{"Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable", "Skip"}

func (c Code) String() string {
	if c >= 0 && int(c) < len(codeNames) {
		return codeNames[c]
	}
	return fmt.Sprintf("Code(%d)", int(c))
}

// Status is the result of a plugin call: a code, reasons shown to users,
// an error for the Error code, and the plugin that returned it.
type Status struct {
	code    Code
	reasons []string
	err     error
	plugin  string
}

// NewStatus returns a status with code and reasons.
func NewStatus(code Code, reasons ...string) *Status {
	return &Status{code: code, reasons: reasons}
}

// AsStatus wraps err in an Error status; nil gives nil (Success).
func AsStatus(err error) *Status {
	if err == nil {
		return nil
	}
	return &Status{code: Error, reasons: []string{err.Error()}, err: err}
}

// Code returns the status code; Success for a nil status.
func (s *Status) Code() Code {
	if s == nil {
		return Success
	}
	return s.code
}

// IsSuccess reports a nil or Success status.
func (s *Status) IsSuccess() bool { return s.Code() == Success }

// IsSkip reports a Skip status.
func (s *Status) IsSkip() bool { return s.Code() == Skip }

// IsRejected reports Unschedulable or UnschedulableAndUnresolvable.
func (s *Status) IsRejected() bool {
	c := s.Code()
	return c == Unschedulable || c == UnschedulableAndUnresolvable
}

// Reasons returns the reasons shown to users.
func (s *Status) Reasons() []string {
	if s == nil {
		return nil
	}
	return s.reasons
}

// Message joins the reasons.
func (s *Status) Message() string {
	if s == nil {
		return ""
	}
	return strings.Join(s.reasons, ", ")
}

// Plugin returns the plugin that returned the status.
func (s *Status) Plugin() string {
	if s == nil {
		return ""
	}
	return s.plugin
}

// WithPlugin records the plugin that returned s and returns s.
func (s *Status) WithPlugin(name string) *Status {
	if s != nil {
		s.plugin = name
	}
	return s
}

// AsError returns nil for Success and Skip, the wrapped error for Error,
// and an error of the reasons otherwise.
func (s *Status) AsError() error {
	if s.IsSuccess() || s.IsSkip() {
		return nil
	}
	if s.err != nil {
		return s.err
	}
	return errors.New(s.Message())
}

func (s *Status) String() string {
	if s == nil {
		return "Success"
	}
	msg := s.code.String()
	if len(s.reasons) > 0 {
		msg += ": " + s.Message()
	}
	if s.plugin != "" {
		msg = s.plugin + ": " + msg
	}
	return msg
}
