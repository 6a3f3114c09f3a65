package policy

import (
	"fmt"

	"github.com/google/cel-go/cel"

	admissionregistrationv1 "kubecore.io/api/admissionregistration/v1"
)

// TypeCheck returns the status.typeChecking of a ValidatingAdmissionPolicy:
// a warning for each expression that does not compile or has the wrong
// result type, with the path of the field. Objects are dynamic here (not
// typed by the matched kinds' schemas), so a misspelt field of the object
// is found only when the expression runs.
func (v *Validating) TypeCheck(p *admissionregistrationv1.ValidatingAdmissionPolicy) *admissionregistrationv1.TypeChecking {
	tc := &admissionregistrationv1.TypeChecking{}
	check := func(fieldRef, expr string, want ...*cel.Type) {
		if _, err := compile(v.env, expr, want...); err != nil {
			tc.ExpressionWarnings = append(tc.ExpressionWarnings, admissionregistrationv1.ExpressionWarning{FieldRef: fieldRef, Warning: err.Error()})
		}
	}
	for i, c := range p.Spec.MatchConditions {
		check(fmt.Sprintf("spec.matchConditions[%d].expression", i), c.Expression, cel.BoolType)
	}
	for i, va := range p.Spec.Variables {
		check(fmt.Sprintf("spec.variables[%d].expression", i), va.Expression)
	}
	for i, val := range p.Spec.Validations {
		check(fmt.Sprintf("spec.validations[%d].expression", i), val.Expression, cel.BoolType)
		if val.MessageExpression != "" {
			check(fmt.Sprintf("spec.validations[%d].messageExpression", i), val.MessageExpression, cel.StringType)
		}
	}
	for i, a := range p.Spec.AuditAnnotations {
		check(fmt.Sprintf("spec.auditAnnotations[%d].valueExpression", i), a.ValueExpression, cel.StringType, cel.NullType)
	}
	return tc
}
