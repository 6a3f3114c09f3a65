package matching

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/cel-go/cel"

	admissionv1 "kubecore.io/api/admission/v1"
	admissionregistrationv1 "kubecore.io/api/admissionregistration/v1"

	kcel "kubecore.io/kubecore/pkg/cel"
)

// Conditions are compiled matchConditions: CEL expressions over object,
// oldObject and request (the AdmissionRequest), all of which must be true
// for a write to match.
type Conditions struct {
	names    []string
	programs []cel.Program
}

// ConditionsEnv is the CEL environment of matchConditions.
func ConditionsEnv() (*cel.Env, error) {
	return kcel.NewEnv(
		cel.Variable("object", cel.DynType),
		cel.Variable("oldObject", cel.DynType),
		cel.Variable("request", cel.DynType),
	)
}

// CompileConditions compiles mcs in env (ConditionsEnv); the error names
// each expression that does not compile or is not a bool.
func CompileConditions(env *cel.Env, mcs []admissionregistrationv1.MatchCondition) (*Conditions, error) {
	c := &Conditions{}
	var errs []string
	for _, mc := range mcs {
		ast, iss := env.Compile(mc.Expression)
		if iss.Err() != nil {
			errs = append(errs, fmt.Sprintf("matchCondition %q: compilation failed: %v", mc.Name, iss.Err()))
			continue
		}
		if !ast.OutputType().IsExactType(cel.BoolType) && !ast.OutputType().IsExactType(cel.DynType) {
			errs = append(errs, fmt.Sprintf("matchCondition %q: must evaluate to bool", mc.Name))
			continue
		}
		prg, err := env.Program(ast, cel.CostLimit(kcel.PerCallLimit), cel.InterruptCheckFrequency(100))
		if err != nil {
			errs = append(errs, fmt.Sprintf("matchCondition %q: %v", mc.Name, err))
			continue
		}
		c.names = append(c.names, mc.Name)
		c.programs = append(c.programs, prg)
	}
	if len(errs) > 0 {
		return nil, errors.New(strings.Join(errs, "; "))
	}
	return c, nil
}

// Len is the number of conditions.
func (c *Conditions) Len() int {
	if c == nil {
		return 0
	}
	return len(c.programs)
}

// Evaluate reports whether every condition holds for req. A false
// condition wins over an error in another: the write does not match. Only
// when none is false is an error returned.
func (c *Conditions) Evaluate(req *admissionv1.AdmissionRequest) (bool, error) {
	if c.Len() == 0 {
		return true, nil
	}
	vars, err := Activation(req)
	if err != nil {
		return false, err
	}
	var errs []string
	for i, prg := range c.programs {
		out, _, err := prg.Eval(vars)
		if err != nil {
			errs = append(errs, fmt.Sprintf("expression %q resulted in error: %v", c.names[i], err))
			continue
		}
		b, ok := out.Value().(bool)
		if !ok {
			errs = append(errs, fmt.Sprintf("expression %q did not evaluate to bool", c.names[i]))
			continue
		}
		if !b {
			return false, nil
		}
	}
	if len(errs) > 0 {
		return false, errors.New(strings.Join(errs, "; "))
	}
	return true, nil
}

// Activation is the variables object, oldObject and request of req, as
// JSON values (null for a missing object).
func Activation(req *admissionv1.AdmissionRequest) (map[string]any, error) {
	vars := map[string]any{}
	for name, raw := range map[string][]byte{"object": req.Object.Raw, "oldObject": req.OldObject.Raw} {
		var v any
		if len(raw) > 0 {
			if err := json.Unmarshal(raw, &v); err != nil {
				return nil, fmt.Errorf("decode %s: %w", name, err)
			}
		}
		vars[name] = v
	}
	b, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encode the request: %w", err)
	}
	var r map[string]any
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("decode the request: %w", err)
	}
	vars["request"] = r
	return vars, nil
}
