package validation

import (
	"strings"
	"testing"

	admissionregistrationv1 "kubecore.io/api/admissionregistration/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	defaults "kubecore.io/kubecore/pkg/apis/admissionregistration/v1"
)

func ptr[T any](v T) *T { return &v }

func expect(t *testing.T, what string, errs field.ErrorList, want string) {
	t.Helper()
	got := errs.ToAggregate()
	switch {
	case want == "" && got != nil:
		t.Errorf("%s: unexpected %v", what, got)
	case want != "" && (got == nil || !strings.Contains(got.Error(), want)):
		t.Errorf("%s: %v, want an error with %q", what, got, want)
	}
}

func rule() admissionregistrationv1.RuleWithOperations {
	return admissionregistrationv1.RuleWithOperations{Operations: []admissionregistrationv1.OperationType{"CREATE"},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}
}

func validVWC() *admissionregistrationv1.ValidatingWebhookConfiguration {
	c := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "policy"}, Webhooks: []admissionregistrationv1.ValidatingWebhook{{
		Name:                    "pods.policy.example.com",
		ClientConfig:            admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Namespace: "ns", Name: "hook", Path: ptr("/validate")}},
		Rules:                   []admissionregistrationv1.RuleWithOperations{rule()},
		SideEffects:             ptr(admissionregistrationv1.SideEffectClassNone),
		AdmissionReviewVersions: []string{"v1"},
	}}}
	defaults.SetDefaultsValidatingWebhookConfiguration(c)
	return c
}

func TestDefaultsWebhook(t *testing.T) {
	c := validVWC()
	w := c.Webhooks[0]
	if *w.FailurePolicy != "Fail" || *w.MatchPolicy != "Equivalent" || *w.TimeoutSeconds != 10 || w.NamespaceSelector == nil || w.ObjectSelector == nil ||
		*w.Rules[0].Scope != "*" || *w.ClientConfig.Service.Port != 443 {
		t.Errorf("defaults: %+v", w)
	}
	m := &admissionregistrationv1.MutatingWebhookConfiguration{Webhooks: []admissionregistrationv1.MutatingWebhook{{Name: "a.b.c"}}}
	defaults.SetDefaultsMutatingWebhookConfiguration(m)
	if *m.Webhooks[0].ReinvocationPolicy != "Never" {
		t.Errorf("reinvocationPolicy %v", *m.Webhooks[0].ReinvocationPolicy)
	}
}

func TestValidateValidatingWebhookConfiguration(t *testing.T) {
	for name, tc := range map[string]struct {
		mutate func(*admissionregistrationv1.ValidatingWebhook)
		want   string
	}{
		"valid":           {func(*admissionregistrationv1.ValidatingWebhook) {}, ""},
		"short name":      {func(w *admissionregistrationv1.ValidatingWebhook) { w.Name = "hook" }, `webhooks[0].name: Invalid value: "hook": should be a domain with at least three segments separated by dots`},
		"no side effects": {func(w *admissionregistrationv1.ValidatingWebhook) { w.SideEffects = nil }, "webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun"},
		"side effects Some": {func(w *admissionregistrationv1.ValidatingWebhook) {
			w.SideEffects = ptr(admissionregistrationv1.SideEffectClassSome)
		},
			`webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"`},
		"timeout":          {func(w *admissionregistrationv1.ValidatingWebhook) { w.TimeoutSeconds = ptr[int32](31) }, "webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds"},
		"no versions":      {func(w *admissionregistrationv1.ValidatingWebhook) { w.AdmissionReviewVersions = nil }, "webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1"},
		"unknown versions": {func(w *admissionregistrationv1.ValidatingWebhook) { w.AdmissionReviewVersions = []string{"v2"} }, "must include at least one of v1, v1beta1"},
		"url and service": {func(w *admissionregistrationv1.ValidatingWebhook) { w.ClientConfig.URL = ptr("https://h/") },
			"webhooks[0].clientConfig: Required value: exactly one of url or service is required"},
		"http url": {func(w *admissionregistrationv1.ValidatingWebhook) {
			w.ClientConfig.Service, w.ClientConfig.URL = nil, ptr("http://h/")
		}, `webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme`},
		"bad port": {func(w *admissionregistrationv1.ValidatingWebhook) { w.ClientConfig.Service.Port = ptr[int32](0) }, "webhooks[0].clientConfig.service.port: Invalid value: 0: port is not valid"},
		"bad path": {func(w *admissionregistrationv1.ValidatingWebhook) { w.ClientConfig.Service.Path = ptr("x") }, "must start with a '/'"},
		"bad policy": {func(w *admissionregistrationv1.ValidatingWebhook) {
			w.FailurePolicy = ptr(admissionregistrationv1.FailurePolicyType("Maybe"))
		}, `webhooks[0].failurePolicy: Unsupported value: "Maybe"`},
		"no operations": {func(w *admissionregistrationv1.ValidatingWebhook) { w.Rules[0].Operations = nil }, "webhooks[0].rules[0].operations: Required value"},
		"star and more": {func(w *admissionregistrationv1.ValidatingWebhook) { w.Rules[0].Resources = []string{"*", "pods"} },
			"if '*' is present, must not specify other resources without subresources"},
		"bad scope": {func(w *admissionregistrationv1.ValidatingWebhook) {
			w.Rules[0].Scope = ptr(admissionregistrationv1.ScopeType("x"))
		}, `webhooks[0].rules[0].scope: Unsupported value: "x"`},
		"empty path": {func(w *admissionregistrationv1.ValidatingWebhook) { w.ClientConfig.Service.Path = ptr("") }, ""},
		"condition that does not compile": {func(w *admissionregistrationv1.ValidatingWebhook) {
			w.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "ok", Expression: "object.metadata.name != 'x'"}, {Name: "bad", Expression: "... [] bad expression"}}
		}, `webhooks[0].matchConditions[1].expression: Invalid value: "... [] bad expression": compilation failed: ERROR: <input>:1:`},
		"condition with a library function": {func(w *admissionregistrationv1.ValidatingWebhook) {
			w.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "lib", Expression: "object.metadata.name.lowerAscii() != 'x'"}}
		}, ""},
		"condition without expression": {func(w *admissionregistrationv1.ValidatingWebhook) {
			w.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "c"}}
		}, "webhooks[0].matchConditions[0].expression: Required value"},
	} {
		c := validVWC()
		tc.mutate(&c.Webhooks[0])
		expect(t, name, ValidateValidatingWebhookConfiguration(c), tc.want)
	}
	c := validVWC()
	c.Webhooks = append(c.Webhooks, c.Webhooks[0])
	expect(t, "duplicate", ValidateValidatingWebhookConfiguration(c), `webhooks[1].name: Duplicate value: "pods.policy.example.com"`)
}

func TestValidateMutatingWebhookConfiguration(t *testing.T) {
	v := validVWC().Webhooks[0]
	m := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "m"}, Webhooks: []admissionregistrationv1.MutatingWebhook{{
		Name: v.Name, ClientConfig: v.ClientConfig, Rules: v.Rules, SideEffects: v.SideEffects, AdmissionReviewVersions: v.AdmissionReviewVersions,
		ReinvocationPolicy: ptr(admissionregistrationv1.ReinvocationPolicyType("Always")),
	}}}
	expect(t, "reinvocation", ValidateMutatingWebhookConfiguration(m), `webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"`)
	m.Webhooks[0].ReinvocationPolicy = nil
	expect(t, "valid", ValidateMutatingWebhookConfiguration(m), "")
}

func validVAP() *admissionregistrationv1.ValidatingAdmissionPolicy {
	p := &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "replicas"}, Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
		MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: rule()}}},
		Validations:      []admissionregistrationv1.Validation{{Expression: "object.spec.replicas <= 5"}},
	}}
	defaults.SetDefaultsValidatingAdmissionPolicy(p)
	return p
}

func TestValidateValidatingAdmissionPolicy(t *testing.T) {
	for name, tc := range map[string]struct {
		mutate func(*admissionregistrationv1.ValidatingAdmissionPolicySpec)
		want   string
	}{
		"valid":               {func(*admissionregistrationv1.ValidatingAdmissionPolicySpec) {}, ""},
		"no match":            {func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) { s.MatchConstraints = nil }, "spec.matchConstraints: Required value"},
		"no rules":            {func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) { s.MatchConstraints.ResourceRules = nil }, "spec.matchConstraints.resourceRules: Required value"},
		"nothing to validate": {func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) { s.Validations = nil }, "spec.validations: Required value: validations or auditAnnotations must contain at least one item"},
		"empty expression":    {func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) { s.Validations[0].Expression = " " }, "spec.validations[0].expression: Required value"},
		"bad reason": {func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.Validations[0].Reason = ptr(metav1.StatusReason("Teapot"))
		},
			`spec.validations[0].reason: Unsupported value: "Teapot"`},
		"multiline message": {func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) { s.Validations[0].Message = "a\nb" }, "message must not contain line breaks"},
		"param kind": {func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "v1"}
		}, "spec.paramKind.kind: Required value"},
		"bad variable": {func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.Variables = []admissionregistrationv1.Variable{{Name: "1x", Expression: "1"}}
		}, `spec.variables[0].name: Invalid value: "1x": name is not a valid CEL identifier`},
	} {
		p := validVAP()
		tc.mutate(&p.Spec)
		expect(t, name, ValidateValidatingAdmissionPolicy(p), tc.want)
	}
}

func TestValidateBindings(t *testing.T) {
	b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "b"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "replicas", ValidationActions: []admissionregistrationv1.ValidationAction{"Deny"}}}
	expect(t, "valid", ValidateValidatingAdmissionPolicyBinding(b), "")
	b.Spec.ValidationActions = []admissionregistrationv1.ValidationAction{"Deny", "Warn"}
	expect(t, "deny and warn", ValidateValidatingAdmissionPolicyBinding(b), "spec.validationActions: Invalid value")
	b.Spec.ValidationActions = nil
	expect(t, "no actions", ValidateValidatingAdmissionPolicyBinding(b), "spec.validationActions: Required value")
	b.Spec.ValidationActions = []admissionregistrationv1.ValidationAction{"Deny"}
	b.Spec.PolicyName = ""
	expect(t, "no policy", ValidateValidatingAdmissionPolicyBinding(b), "spec.policyName: Required value")
	b.Spec.PolicyName = "p"
	b.Spec.ParamRef = &admissionregistrationv1.ParamRef{}
	expect(t, "empty paramRef", ValidateValidatingAdmissionPolicyBinding(b), "spec.paramRef: Required value: one of name or selector must be specified")
	b.Spec.ParamRef = &admissionregistrationv1.ParamRef{Name: "x"}
	expect(t, "no not-found action", ValidateValidatingAdmissionPolicyBinding(b), "spec.paramRef.parameterNotFoundAction: Required value")

	mb := &admissionregistrationv1.MutatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "b"}}
	expect(t, "mutating binding without policy", ValidateMutatingAdmissionPolicyBinding(mb), "spec.policyName: Required value")
}

func TestValidateMutatingAdmissionPolicy(t *testing.T) {
	p := &admissionregistrationv1.MutatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "labels"}, Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
		MatchConstraints:   &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: rule()}}},
		Mutations:          []admissionregistrationv1.Mutation{{PatchType: "ApplyConfiguration", ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{Expression: "Object{}"}}},
		ReinvocationPolicy: "Never",
	}}
	defaults.SetDefaultsMutatingAdmissionPolicy(p)
	expect(t, "valid", ValidateMutatingAdmissionPolicy(p), "")
	p.Spec.Mutations[0].PatchType = "JSONPatch"
	expect(t, "json patch without patch", ValidateMutatingAdmissionPolicy(p), "spec.mutations[0].jsonPatch: Required value")
	p.Spec.Mutations = nil
	expect(t, "no mutations", ValidateMutatingAdmissionPolicy(p), "spec.mutations: Required value: mutations must contain at least one item")
	p.Spec.ReinvocationPolicy = ""
	expect(t, "no reinvocation", ValidateMutatingAdmissionPolicy(p), "spec.reinvocationPolicy: Required value")
}
