// Package cel is the CEL environment of the API server: cel-go with
// Kubernetes' libraries (lists, regex, URLs, quantity, IP and CIDR,
// format, semver, strings extensions, optionals), a type provider built
// from a structural schema, cost estimation and limits as Kubernetes has
// them, and the compiled x-kubernetes-validations rules of a
// CustomResourceDefinition version.
package cel

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/ext"
)

// The cost limits, as Kubernetes sets them.
const (
	// PerCallLimit is the runtime cost one evaluation of one expression
	// may spend.
	PerCallLimit = 1000000
	// RuntimeCELCostBudget is the runtime cost every rule evaluated on one
	// object may spend together.
	RuntimeCELCostBudget = 10000000
	// StaticEstimatedCostLimit is the largest estimated cost of one
	// expression.
	StaticEstimatedCostLimit = 10000000
	// StaticEstimatedCRDCostLimit is the largest estimated cost of all the
	// rules of one schema, each multiplied by how often it may run.
	StaticEstimatedCRDCostLimit = 100000000
	// MaxRequestSizeBytes bounds unbounded strings, lists and maps in
	// estimates: no request body is larger.
	MaxRequestSizeBytes = 3 * 1024 * 1024
)

// Libraries are Kubernetes' own CEL libraries, each implemented here.
func Libraries() []cel.EnvOption {
	return []cel.EnvOption{
		cel.Lib(listsLib{}),
		cel.Lib(regexLib{}),
		cel.Lib(urlsLib{}),
		cel.Lib(quantityLib{}),
		cel.Lib(ipLib{}),
		cel.Lib(formatLib{}),
		cel.Lib(semverLib{}),
	}
}

// BaseEnvOptions are the options of every environment: the standard
// library with Kubernetes' settings, the extensions Kubernetes enables,
// and its libraries.
func BaseEnvOptions() []cel.EnvOption {
	opts := []cel.EnvOption{
		cel.HomogeneousAggregateLiterals(),
		cel.EagerlyValidateDeclarations(true),
		cel.DefaultUTCTimeZone(true),
		cel.CrossTypeNumericComparisons(true),
		cel.OptionalTypes(),
		ext.Strings(ext.StringsVersion(2)),
		ext.Sets(),
		ext.Lists(ext.ListsVersion(3)),
		ext.TwoVarComprehensions(),
		cel.ASTValidators(
			cel.ValidateDurationLiterals(),
			cel.ValidateTimestampLiterals(),
			cel.ValidateRegexLiterals(),
			cel.ValidateHomogeneousAggregateLiterals(),
		),
	}
	return append(opts, Libraries()...)
}

// NewEnv returns the base environment with extra options (variables).
func NewEnv(extra ...cel.EnvOption) (*cel.Env, error) {
	return cel.NewEnv(append(BaseEnvOptions(), extra...)...)
}

// ProgramOptions are the options of every program: cost tracking with
// Kubernetes' per-call limit and its costs of the library functions, and
// a check of the context every 100 comprehension iterations.
func ProgramOptions() []cel.ProgramOption {
	return []cel.ProgramOption{
		cel.EvalOptions(cel.OptOptimize, cel.OptTrackCost),
		cel.CostLimit(PerCallLimit),
		cel.CostTracking(actualCost{}),
		cel.InterruptCheckFrequency(100),
	}
}
