package validation

import (
	"strings"
	"testing"

	flowcontrolv1 "kubecore.io/api/flowcontrol/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apis/flowcontrol/bootstrap"
	defaults "kubecore.io/kubecore/pkg/apis/flowcontrol/v1"
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

// TestBootstrapValid: the configuration the server writes passes its own
// validation.
func TestBootstrapValid(t *testing.T) {
	for _, fs := range append(bootstrap.MandatoryFlowSchemas(), bootstrap.SuggestedFlowSchemas()...) {
		expect(t, fs.Name, ValidateFlowSchema(fs), "")
	}
	for _, pl := range append(bootstrap.MandatoryPriorityLevelConfigurations(), bootstrap.SuggestedPriorityLevelConfigurations()...) {
		expect(t, pl.Name, ValidatePriorityLevelConfiguration(pl), "")
	}
}

func validFS() *flowcontrolv1.FlowSchema {
	fs := &flowcontrolv1.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: "fs"}, Spec: flowcontrolv1.FlowSchemaSpec{
		PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "workload-low"},
		Rules: []flowcontrolv1.PolicyRulesWithSubjects{{
			Subjects:      []flowcontrolv1.Subject{{Kind: "User", User: &flowcontrolv1.UserSubject{Name: "alice"}}},
			ResourceRules: []flowcontrolv1.ResourcePolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}, Namespaces: []string{"*"}}},
		}},
	}}
	defaults.SetDefaultsFlowSchema(fs)
	return fs
}

func TestValidateFlowSchema(t *testing.T) {
	if validFS().Spec.MatchingPrecedence != 1000 {
		t.Errorf("matchingPrecedence default %d", validFS().Spec.MatchingPrecedence)
	}
	for name, tc := range map[string]struct {
		mutate func(*flowcontrolv1.FlowSchemaSpec)
		want   string
	}{
		"valid":      {func(*flowcontrolv1.FlowSchemaSpec) {}, ""},
		"precedence": {func(s *flowcontrolv1.FlowSchemaSpec) { s.MatchingPrecedence = 10001 }, "spec.matchingPrecedence: Invalid value: 10001: must be a positive value no more than 10000"},
		"no level":   {func(s *flowcontrolv1.FlowSchemaSpec) { s.PriorityLevelConfiguration.Name = "" }, "spec.priorityLevelConfiguration.name: Required value: must reference a priority level"},
		"bad distinguish": {func(s *flowcontrolv1.FlowSchemaSpec) {
			s.DistinguisherMethod = &flowcontrolv1.FlowDistinguisherMethod{Type: "ByX"}
		}, `spec.distinguisherMethod.type: Unsupported value: "ByX"`},
		"no subjects":  {func(s *flowcontrolv1.FlowSchemaSpec) { s.Rules[0].Subjects = nil }, "spec.rules[0].subjects: Required value: subjects must contain at least one value"},
		"user missing": {func(s *flowcontrolv1.FlowSchemaSpec) { s.Rules[0].Subjects[0].User = nil }, "spec.rules[0].subjects[0].user: Required value: user is required when subject kind is 'User'"},
		"bad kind":     {func(s *flowcontrolv1.FlowSchemaSpec) { s.Rules[0].Subjects[0].Kind = "Robot" }, `spec.rules[0].subjects[0].kind: Unsupported value: "Robot"`},
		"no rules":     {func(s *flowcontrolv1.FlowSchemaSpec) { s.Rules[0].ResourceRules = nil }, "at least one of resourceRules and nonResourceRules has to be non-empty"},
		"no namespaces": {func(s *flowcontrolv1.FlowSchemaSpec) { s.Rules[0].ResourceRules[0].Namespaces = nil },
			"spec.rules[0].resourceRules[0].namespaces: Required value: resource rules that are not cluster scoped must supply at least one namespace"},
		"star and verbs": {func(s *flowcontrolv1.FlowSchemaSpec) { s.Rules[0].ResourceRules[0].Verbs = []string{"*", "get"} }, "if '*' is present, must not specify other verbs"},
		"bad url": {func(s *flowcontrolv1.FlowSchemaSpec) {
			s.Rules[0].NonResourceRules = []flowcontrolv1.NonResourcePolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"healthz"}}}
		}, `spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid value: "healthz": must start with slash`},
	} {
		fs := validFS()
		tc.mutate(&fs.Spec)
		expect(t, name, ValidateFlowSchema(fs), tc.want)
	}
}

func TestValidatePriorityLevelConfiguration(t *testing.T) {
	valid := func() *flowcontrolv1.PriorityLevelConfiguration {
		pl := &flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "pl"}, Spec: flowcontrolv1.PriorityLevelConfigurationSpec{
			Type: "Limited", Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{LimitResponse: flowcontrolv1.LimitResponse{Type: "Queue", Queuing: &flowcontrolv1.QueuingConfiguration{}}},
		}}
		defaults.SetDefaultsPriorityLevelConfiguration(pl)
		return pl
	}
	if l := valid().Spec.Limited; *l.NominalConcurrencyShares != 30 || *l.LendablePercent != 0 || l.LimitResponse.Queuing.Queues != 64 ||
		l.LimitResponse.Queuing.HandSize != 8 || l.LimitResponse.Queuing.QueueLengthLimit != 50 {
		t.Errorf("defaults %+v %+v", l, l.LimitResponse.Queuing)
	}
	for name, tc := range map[string]struct {
		mutate func(*flowcontrolv1.PriorityLevelConfiguration)
		want   string
	}{
		"valid":       {func(*flowcontrolv1.PriorityLevelConfiguration) {}, ""},
		"bad type":    {func(pl *flowcontrolv1.PriorityLevelConfiguration) { pl.Spec.Type = "Maybe" }, `spec.type: Unsupported value: "Maybe": supported values: "Exempt", "Limited"`},
		"exempt name": {func(pl *flowcontrolv1.PriorityLevelConfiguration) { pl.Name = "exempt" }, "type must be 'Exempt' if and only if name is 'exempt'"},
		"no limited":  {func(pl *flowcontrolv1.PriorityLevelConfiguration) { pl.Spec.Limited = nil }, "spec.limited: Required value"},
		"negative": {func(pl *flowcontrolv1.PriorityLevelConfiguration) {
			pl.Spec.Limited.NominalConcurrencyShares = ptr[int32](-1)
		}, "spec.limited.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer"},
		"lendable": {func(pl *flowcontrolv1.PriorityLevelConfiguration) { pl.Spec.Limited.LendablePercent = ptr[int32](101) }, "spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive"},
		"hand too big": {func(pl *flowcontrolv1.PriorityLevelConfiguration) {
			pl.Spec.Limited.LimitResponse.Queuing.HandSize = 65
		}, "spec.limited.limitResponse.queuing.handSize: Invalid value: 65: should not be greater than queues (64)"},
		"entropy": {func(pl *flowcontrolv1.PriorityLevelConfiguration) {
			pl.Spec.Limited.LimitResponse.Queuing.HandSize = 20
		}, "required entropy bits of deckSize 64 and handSize 20 should not be greater than 60"},
		"reject queues": {func(pl *flowcontrolv1.PriorityLevelConfiguration) { pl.Spec.Limited.LimitResponse.Type = "Reject" }, "spec.limited.limitResponse.queuing: Forbidden"},
	} {
		pl := valid()
		tc.mutate(pl)
		expect(t, name, ValidatePriorityLevelConfiguration(pl), tc.want)
	}
}
