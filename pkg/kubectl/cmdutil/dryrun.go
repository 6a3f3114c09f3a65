package cmdutil

import (
	"fmt"

	"github.com/spf13/pflag"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// DryRun is the --dry-run strategy.
type DryRun int

// The --dry-run strategies.
const (
	DryRunNone DryRun = iota
	DryRunClient
	DryRunServer
)

// DryRunFlag is the value of --dry-run.
type DryRunFlag struct{ Value string }

// AddDryRunFlag registers --dry-run.
func AddDryRunFlag(fs *pflag.FlagSet, f *DryRunFlag) {
	f.Value = "none"
	fs.StringVar(&f.Value, "dry-run", "none", `Must be "none", "server", or "client". If client strategy, only print the object that would be sent, without sending it. If server strategy, submit server-side request without persisting the resource.`)
	fs.Lookup("dry-run").NoOptDefVal = "unchanged"
}

// Strategy parses the flag.
func (f DryRunFlag) Strategy() (DryRun, error) {
	switch f.Value {
	case "", "none", "false":
		return DryRunNone, nil
	case "client", "true", "unchanged":
		return DryRunClient, nil
	case "server":
		return DryRunServer, nil
	}
	return DryRunNone, Errorf(`Invalid dry-run value (%v). Must be "none", "server", or "client".`, f.Value)
}

// Suffix is what follows the operation in messages: " (dry run)".
func (d DryRun) Suffix() string {
	switch d {
	case DryRunClient:
		return " (dry run)"
	case DryRunServer:
		return " (server dry run)"
	}
	return ""
}

// Param returns the dryRun query value of a server dry run.
func (d DryRun) Param() []string {
	if d == DryRunServer {
		return []string{metav1.DryRunAll}
	}
	return nil
}

// ValidateFlag is the value of --validate: how the server treats unknown
// or duplicate fields.
type ValidateFlag struct{ Value string }

// AddValidateFlag registers --validate.
func AddValidateFlag(fs *pflag.FlagSet, f *ValidateFlag) {
	f.Value = "strict"
	fs.StringVar(&f.Value, "validate", "strict", `Must be one of: strict (or true), warn, ignore (or false). "true" or "strict" will use a schema to validate the input and fail the request if invalid. It will perform server side validation if ServerSideFieldValidation is enabled on the api-server, but will fall back to less reliable client-side validation if not. "warn" will warn about unknown or duplicate fields without blocking the request if server-side field validation is enabled on the API server, and behave as "ignore" otherwise. "false" or "ignore" will not perform any schema validation, silently dropping any unknown and/or duplicate fields.`)
	fs.Lookup("validate").NoOptDefVal = "strict"
}

// FieldValidation returns the fieldValidation parameter to send.
func (f ValidateFlag) FieldValidation() (string, error) {
	switch f.Value {
	case "strict", "true", "":
		return metav1.FieldValidationStrict, nil
	case "warn":
		return metav1.FieldValidationWarn, nil
	case "ignore", "false":
		return metav1.FieldValidationIgnore, nil
	}
	return "", fmt.Errorf(`invalid - validate option %q; must be one of: strict (or true), warn, ignore (or false)`, f.Value)
}
