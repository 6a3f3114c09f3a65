package policy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"k8s.io/klog/v2"

	admissionregistrationv1 "kubecore.io/api/admissionregistration/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/admission/matching"
	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// ValidationFailureAnnotation is the audit annotation of the failed
// validations of bindings with the Audit action.
const ValidationFailureAnnotation = "validation.policy.admission.k8s.io/validation_failure"

// Validating is the ValidatingAdmissionPolicy plugin of the validating
// phase.
type Validating struct {
	Objects Objects
	Params  Params
	Kinds   Kinds
	// Equivalents are the versions a write is matched as under matchPolicy
	// Equivalent (and an in-process write, without a version, at all).
	Equivalents matching.Equivalents

	env      *cel.Env
	cache    compiledCache[compiledValidating]
	bindings compiledCache[compiledMatcher]
}

// NewValidating returns the plugin; its environment is built here, once.
func NewValidating(objects Objects, params Params, kinds Kinds, eq matching.Equivalents) (*Validating, error) {
	env, err := newEnv(false)
	if err != nil {
		return nil, fmt.Errorf("validating admission policy environment: %w", err)
	}
	return &Validating{Objects: objects, Params: params, Kinds: kinds, Equivalents: eq, env: env}, nil
}

// Handles implements admission.Interface.
func (v *Validating) Handles(a *rest.Attributes) bool { return !isExempt(a) }

// Compiles is how many times a policy was compiled.
func (v *Validating) Compiles() int { return v.cache.Compiles() }

type compiledValidation struct {
	namedProgram
	message    string
	messageExp namedProgram
	reason     metav1.StatusReason
}

type compiledAudit struct {
	key string
	namedProgram
}

type compiledValidating struct {
	common
	validations []compiledValidation
	audits      []compiledAudit
}

func (v *Validating) compile(p *admissionregistrationv1.ValidatingAdmissionPolicy) *compiledValidating {
	env := v.env
	c := &compiledValidating{common: compileCommon(env, p.Spec.ParamKind, p.Spec.MatchConstraints, p.Spec.MatchConditions, p.Spec.Variables, p.Spec.FailurePolicy)}
	for i, val := range p.Spec.Validations {
		cv := compiledValidation{namedProgram: compileNamed(env, fmt.Sprintf("validations[%d]", i), val.Expression, cel.BoolType), message: val.Message}
		if val.MessageExpression != "" {
			cv.messageExp = compileNamed(env, fmt.Sprintf("validations[%d].messageExpression", i), val.MessageExpression, cel.StringType)
		}
		if val.Reason != nil {
			cv.reason = *val.Reason
		}
		c.validations = append(c.validations, cv)
	}
	for _, a := range p.Spec.AuditAnnotations {
		c.audits = append(c.audits, compiledAudit{key: a.Key, namedProgram: compileNamed(env, "auditAnnotations["+a.Key+"]", a.ValueExpression, cel.StringType, cel.NullType)})
	}
	klog.V(2).InfoS("Compiled ValidatingAdmissionPolicy", "policy", klog.KObj(p), "resourceVersion", p.ResourceVersion)
	return c
}

// decision is the outcome of one failed validation or failure.
type decision struct {
	message string
	reason  metav1.StatusReason
	index   int
}

// auditFailure is one entry of the validation_failure annotation.
type auditFailure struct {
	Message           string                                     `json:"message"`
	Policy            string                                     `json:"policy"`
	Binding           string                                     `json:"binding"`
	ExpressionIndex   int                                        `json:"expressionIndex"`
	ValidationActions []admissionregistrationv1.ValidationAction `json:"validationActions"`
}

// Validate implements admission.ValidationInterface.
func (v *Validating) Validate(ctx context.Context, a *rest.Attributes) error {
	bindings, err := v.Objects.ValidatingAdmissionPolicyBindings(ctx)
	if err != nil || len(bindings) == 0 {
		return err
	}
	policies, err := v.Objects.ValidatingAdmissionPolicies(ctx)
	if err != nil {
		return err
	}
	byName := make(map[string]*admissionregistrationv1.ValidatingAdmissionPolicy, len(policies))
	live := make(map[string]bool, len(policies))
	for _, p := range policies {
		byName[p.Name] = p
		live[p.Name] = true
	}
	v.cache.prune(live)
	slices.SortFunc(bindings, func(x, y *admissionregistrationv1.ValidatingAdmissionPolicyBinding) int {
		return strings.Compare(x.Name, y.Name)
	})
	var in *input
	var deny error
	var audits []auditFailure
	for _, b := range bindings {
		p := byName[b.Spec.PolicyName]
		if p == nil {
			continue
		}
		c := v.cache.get(p.Name, string(p.UID), p.ResourceVersion, func() *compiledValidating { return v.compile(p) })
		var decisions []decision
		m, ok, err := matchBinding(ctx, &c.common, &v.bindings, b.Name, string(b.UID), b.ResourceVersion, b.Spec.MatchResources, a, v.Equivalents, v.Objects)
		switch {
		case err != nil:
			decisions = c.fail(p.Name, b.Name, err)
		case !ok:
			continue
		default:
			if in == nil {
				if in, err = newInput(ctx, v.Objects, v.Kinds, a, m); err != nil {
					return apierrors.NewInternalError(err)
				}
			}
			decisions = v.evaluateBinding(ctx, c, p, b, in)
		}
		for _, d := range decisions {
			for _, action := range b.Spec.ValidationActions {
				switch action {
				case admissionregistrationv1.Deny:
					if deny == nil {
						deny = denyError(a, p.Name, b.Name, d)
					}
				case admissionregistrationv1.Warn:
					apirequest.AddWarning(ctx, fmt.Sprintf("Validation failed for ValidatingAdmissionPolicy '%s' with binding '%s': %s", p.Name, b.Name, d.message))
				case admissionregistrationv1.Audit:
					audits = append(audits, auditFailure{Message: d.message, Policy: p.Name, Binding: b.Name, ExpressionIndex: d.index, ValidationActions: b.Spec.ValidationActions})
				}
			}
		}
	}
	if len(audits) > 0 {
		if raw, err := json.Marshal(audits); err == nil {
			apirequest.AddAuditAnnotation(ctx, ValidationFailureAnnotation, string(raw))
		}
	}
	return deny
}

// fail is the decision of a failure: none under failurePolicy Ignore.
func (c *compiledValidating) fail(policy, binding string, err error) []decision {
	if c.failurePolicy == admissionregistrationv1.Ignore {
		klog.V(4).InfoS("Ignoring a failure of a ValidatingAdmissionPolicy", "policy", policy, "binding", binding, "err", err)
		return nil
	}
	return []decision{{message: err.Error(), index: -1}}
}

// evaluateBinding evaluates p for binding b on the write of in, once per
// parameter; failures the failure policy does not ignore become
// decisions.
func (v *Validating) evaluateBinding(ctx context.Context, c *compiledValidating, p *admissionregistrationv1.ValidatingAdmissionPolicy,
	b *admissionregistrationv1.ValidatingAdmissionPolicyBinding, in *input) []decision {
	fail := func(err error) []decision { return c.fail(p.Name, b.Name, err) }
	ps, err := params(ctx, v.Params, in, c.paramKind, b.Spec.ParamRef)
	if err != nil {
		return fail(err)
	}
	var out []decision
	for _, param := range ps {
		e := newEvaluation(ctx, in, param, c.variables)
		pass, err := c.matchConditionsPass(e)
		if err != nil {
			out = append(out, fail(err)...)
			continue
		}
		if !pass {
			continue
		}
		for i, val := range c.validations {
			d, err := evaluateValidation(e, val, i)
			if err != nil {
				out = append(out, fail(err)...)
				if errors.Is(err, errOutOfBudget) {
					break
				}
				continue
			}
			if d != nil {
				out = append(out, *d)
			}
		}
		for _, au := range c.audits {
			if au.err != nil {
				out = append(out, fail(fmt.Errorf("compilation error in auditAnnotations %q: %w", au.key, au.err))...)
				continue
			}
			val, err := e.run(au.prg)
			if err != nil {
				out = append(out, fail(fmt.Errorf("expression '%s' resulted in error: %w", au.expr, err))...)
				continue
			}
			if s, ok := val.(types.String); ok && s != "" {
				apirequest.AddAuditAnnotation(ctx, p.Name+"/"+au.key, string(s))
			}
		}
	}
	return out
}

// evaluateValidation runs one validation: a decision when it fails, an
// error when it cannot be evaluated.
func evaluateValidation(e *evaluation, val compiledValidation, i int) (*decision, error) {
	if val.err != nil {
		return nil, fmt.Errorf("compilation error: %w", val.err)
	}
	out, err := e.run(val.prg)
	if err != nil {
		if errors.Is(err, errOutOfBudget) {
			return nil, err
		}
		return nil, fmt.Errorf("expression '%s' resulted in error: %w", val.expr, err)
	}
	b, ok := out.(types.Bool)
	if !ok {
		return nil, fmt.Errorf("expression '%s' must evaluate to bool, got %s", val.expr, typeName(out))
	}
	if b {
		return nil, nil
	}
	d := &decision{reason: val.reason, index: i}
	if val.messageExp.prg != nil {
		if m, err := e.run(val.messageExp.prg); err == nil {
			if s, ok := m.(types.String); ok && strings.TrimSpace(string(s)) != "" && !strings.Contains(string(s), "\n") {
				d.message = string(s)
			}
		}
	}
	if d.message == "" {
		d.message = val.message
	}
	if d.message == "" {
		d.message = "failed expression: " + strings.TrimSpace(val.expr)
	}
	return d, nil
}

func typeName(v ref.Val) string {
	if v == nil {
		return "null"
	}
	return v.Type().TypeName()
}

// denyError is the answer to a write a binding with the Deny action
// refuses, as Kubernetes words and codes it: a Forbidden-shaped message
// whose reason and code are the validation's reason, Invalid (422) when it
// names none (and for expressions that failed to evaluate).
func denyError(a *rest.Attributes, policy, binding string, d decision) error {
	msg := fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s", policy, binding, d.message)
	var se *apierrors.StatusError
	if !errors.As(apierrors.NewForbidden(a.Resource.GroupResource(), a.Name, errors.New(msg)), &se) {
		return apierrors.NewInternalError(errors.New(msg))
	}
	reason := d.reason
	if reason == "" {
		reason = metav1.StatusReasonInvalid
	}
	code := http.StatusForbidden
	switch reason {
	case metav1.StatusReasonInvalid:
		code = http.StatusUnprocessableEntity
	case metav1.StatusReasonUnauthorized:
		code = http.StatusUnauthorized
	case metav1.StatusReasonRequestEntityTooLarge:
		code = http.StatusRequestEntityTooLarge
	}
	se.ErrStatus.Reason, se.ErrStatus.Code = reason, int32(code)
	if se.ErrStatus.Details != nil {
		se.ErrStatus.Details.Causes = append(se.ErrStatus.Details.Causes, metav1.StatusCause{Message: msg})
	}
	return se
}
