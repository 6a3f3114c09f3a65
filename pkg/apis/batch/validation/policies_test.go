package validation

import (
	"testing"

	batchv1 "kubecore.io/api/batch/v1"
	corev1 "kubecore.io/api/core/v1"
)

func indexedJob(completions int32) *batchv1.Job {
	j := validJob()
	j.Spec.CompletionMode, j.Spec.Completions = ptr(batchv1.IndexedCompletion), ptr(completions)
	return j
}

func exitCodesRule(action batchv1.PodFailurePolicyAction, op batchv1.PodFailurePolicyOnExitCodesOperator, values ...int32) batchv1.PodFailurePolicyRule {
	return batchv1.PodFailurePolicyRule{Action: action, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: op, Values: values}}
}

func withPolicy(j *batchv1.Job, rules ...batchv1.PodFailurePolicyRule) *batchv1.Job {
	j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: rules}
	return j
}

func TestValidatePodFailurePolicy(t *testing.T) {
	in := batchv1.PodFailurePolicyOnExitCodesOpIn
	disruption := []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}}
	tooMany := make([]int32, 256)
	for i := range tooMany {
		tooMany[i] = int32(i + 1)
	}
	for name, tc := range map[string]struct {
		job  *batchv1.Job
		want string
	}{
		"exit codes":         {withPolicy(validJob(), exitCodesRule(batchv1.PodFailurePolicyActionFailJob, in, 1, 42)), ""},
		"conditions":         {withPolicy(validJob(), batchv1.PodFailurePolicyRule{Action: batchv1.PodFailurePolicyActionIgnore, OnPodConditions: disruption}), ""},
		"NotIn with 0":       {withPolicy(validJob(), exitCodesRule(batchv1.PodFailurePolicyActionCount, batchv1.PodFailurePolicyOnExitCodesOpNotIn, 0, 3)), ""},
		"no action":          {withPolicy(validJob(), exitCodesRule("", in, 1)), `spec.podFailurePolicy.rules[0].action: Required value`},
		"unknown action":     {withPolicy(validJob(), exitCodesRule("Explode", in, 1)), `spec.podFailurePolicy.rules[0].action: Unsupported value: "Explode"`},
		"FailIndex no limit": {withPolicy(indexedJob(3), exitCodesRule(batchv1.PodFailurePolicyActionFailIndex, in, 1)), `spec.podFailurePolicy.rules[0].action: Invalid value: "FailIndex": requires the backoffLimitPerIndex to be set`},
		"FailIndex": {func() *batchv1.Job {
			j := withPolicy(indexedJob(3), exitCodesRule(batchv1.PodFailurePolicyActionFailIndex, in, 1))
			j.Spec.BackoffLimitPerIndex = ptr[int32](1)
			return j
		}(), ""},
		"both requirements": {withPolicy(validJob(), batchv1.PodFailurePolicyRule{Action: batchv1.PodFailurePolicyActionIgnore, OnPodConditions: disruption,
			OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: in, Values: []int32{1}}}), "spec.podFailurePolicy.rules[0]: Invalid value: specifying both OnExitCodes and OnPodConditions is not supported"},
		"no requirement":   {withPolicy(validJob(), batchv1.PodFailurePolicyRule{Action: batchv1.PodFailurePolicyActionIgnore}), "spec.podFailurePolicy.rules[0]: Invalid value: specifying one of OnExitCodes and OnPodConditions is required"},
		"unknown operator": {withPolicy(validJob(), exitCodesRule(batchv1.PodFailurePolicyActionCount, "Is", 1)), `spec.podFailurePolicy.rules[0].onExitCodes.operator: Unsupported value: "Is"`},
		"no values":        {withPolicy(validJob(), exitCodesRule(batchv1.PodFailurePolicyActionCount, in)), "spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: null: at least one value is required"},
		"0 with In":        {withPolicy(validJob(), exitCodesRule(batchv1.PodFailurePolicyActionCount, in, 0, 1)), "spec.podFailurePolicy.rules[0].onExitCodes.values[0]: Invalid value: 0: must not be 0 for the In operator"},
		"duplicate value":  {withPolicy(validJob(), exitCodesRule(batchv1.PodFailurePolicyActionCount, in, 1, 1)), "spec.podFailurePolicy.rules[0].onExitCodes.values[1]: Duplicate value: 1"},
		"unsorted values":  {withPolicy(validJob(), exitCodesRule(batchv1.PodFailurePolicyActionCount, in, 2, 1)), "spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: [2,1]: must be ordered"},
		"256 values":       {withPolicy(validJob(), exitCodesRule(batchv1.PodFailurePolicyActionCount, in, tooMany...)), "spec.podFailurePolicy.rules[0].onExitCodes.values: Too many: 256: must have at most 255 items"},
		"unknown container": {withPolicy(validJob(), func() batchv1.PodFailurePolicyRule {
			r := exitCodesRule(batchv1.PodFailurePolicyActionCount, in, 1)
			r.OnExitCodes.ContainerName = ptr("x")
			return r
		}()), `spec.podFailurePolicy.rules[0].onExitCodes.containerName: Invalid value: "x": must be one of the container or initContainer names in the pod template`},
		"known container": {withPolicy(validJob(), func() batchv1.PodFailurePolicyRule {
			r := exitCodesRule(batchv1.PodFailurePolicyActionCount, in, 1)
			r.OnExitCodes.ContainerName = ptr("c")
			return r
		}()), ""},
		"condition status": {withPolicy(validJob(), batchv1.PodFailurePolicyRule{Action: batchv1.PodFailurePolicyActionIgnore,
			OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget, Status: "Maybe"}}}), `spec.podFailurePolicy.rules[0].onPodConditions[0].status: Unsupported value: "Maybe"`},
		"condition type": {withPolicy(validJob(), batchv1.PodFailurePolicyRule{Action: batchv1.PodFailurePolicyActionIgnore,
			OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: "a b", Status: corev1.ConditionTrue}}}), `spec.podFailurePolicy.rules[0].onPodConditions[0].type: Invalid value: "a b"`},
		"restart OnFailure": {func() *batchv1.Job {
			j := withPolicy(validJob(), exitCodesRule(batchv1.PodFailurePolicyActionCount, in, 1))
			j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
			return j
		}(), `spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified`},
		"replacement TerminatingOrFailed": {func() *batchv1.Job {
			j := withPolicy(validJob(), exitCodesRule(batchv1.PodFailurePolicyActionCount, in, 1))
			j.Spec.PodReplacementPolicy = ptr(batchv1.TerminatingOrFailed)
			return j
		}(), `spec.podReplacementPolicy: Unsupported value: "TerminatingOrFailed": supported values: "Failed"`},
	} {
		expect(t, name, ValidateJob(tc.job), tc.want)
	}
	j := validJob()
	for range 21 {
		var rules []batchv1.PodFailurePolicyRule
		if j.Spec.PodFailurePolicy != nil {
			rules = j.Spec.PodFailurePolicy.Rules
		}
		j = withPolicy(j, append(rules, exitCodesRule(batchv1.PodFailurePolicyActionCount, in, 1))...)
	}
	expect(t, "21 rules", ValidateJob(j), "spec.podFailurePolicy.rules: Too many: 21: must have at most 20 items")
}

func TestValidatePerIndexAndReplacement(t *testing.T) {
	for name, tc := range map[string]struct {
		mutate func(*batchv1.Job)
		want   string
	}{
		"per index": {func(j *batchv1.Job) {
			j.Spec.BackoffLimitPerIndex, j.Spec.MaxFailedIndexes = ptr[int32](1), ptr[int32](4)
		}, ""},
		"negative per index":    {func(j *batchv1.Job) { j.Spec.BackoffLimitPerIndex = ptr[int32](-1) }, "spec.backoffLimitPerIndex: Invalid value: -1: must be greater than or equal to 0"},
		"max without per index": {func(j *batchv1.Job) { j.Spec.MaxFailedIndexes = ptr[int32](1) }, "spec.backoffLimitPerIndex: Required value: when maxFailedIndexes is specified"},
		"max over completions": {func(j *batchv1.Job) {
			j.Spec.BackoffLimitPerIndex, j.Spec.MaxFailedIndexes = ptr[int32](1), ptr[int32](5)
		}, "spec.maxFailedIndexes: Invalid value: 5: must be less than or equal to completions"},
		"max over 10^5": {func(j *batchv1.Job) {
			j.Spec.Completions, j.Spec.BackoffLimitPerIndex, j.Spec.MaxFailedIndexes = ptr[int32](100000), ptr[int32](1), ptr[int32](100001)
		}, "spec.maxFailedIndexes: Invalid value: 100001: must be less than or equal to 100000"},
		"per index, NonIndexed": {func(j *batchv1.Job) {
			j.Spec.CompletionMode, j.Spec.BackoffLimitPerIndex = ptr(batchv1.NonIndexedCompletion), ptr[int32](1)
		}, "spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode"},
		"max, NonIndexed": {func(j *batchv1.Job) {
			j.Spec.CompletionMode, j.Spec.BackoffLimitPerIndex, j.Spec.MaxFailedIndexes = ptr(batchv1.NonIndexedCompletion), ptr[int32](1), ptr[int32](1)
		}, "spec.maxFailedIndexes: Invalid value: 1: requires indexed completion mode"},
		"replacement Failed":  {func(j *batchv1.Job) { j.Spec.PodReplacementPolicy = ptr(batchv1.Failed) }, ""},
		"replacement unknown": {func(j *batchv1.Job) { j.Spec.PodReplacementPolicy = ptr[batchv1.PodReplacementPolicy]("Never") }, `spec.podReplacementPolicy: Unsupported value: "Never": supported values: "Failed", "TerminatingOrFailed"`},
	} {
		j := indexedJob(4)
		tc.mutate(j)
		expect(t, name, ValidateJob(j), tc.want)
	}
}

func TestValidateSuccessPolicy(t *testing.T) {
	rule := func(indexes *string, count *int32) batchv1.SuccessPolicyRule {
		return batchv1.SuccessPolicyRule{SucceededIndexes: indexes, SucceededCount: count}
	}
	for name, tc := range map[string]struct {
		job   *batchv1.Job
		rules []batchv1.SuccessPolicyRule
		want  string
	}{
		"indexes":           {indexedJob(5), []batchv1.SuccessPolicyRule{rule(ptr("0,2-4"), nil)}, ""},
		"count":             {indexedJob(5), []batchv1.SuccessPolicyRule{rule(nil, ptr[int32](5))}, ""},
		"indexes and count": {indexedJob(5), []batchv1.SuccessPolicyRule{rule(ptr("0,2-4"), ptr[int32](4))}, ""},
		"NonIndexed":        {validJob(), []batchv1.SuccessPolicyRule{rule(nil, ptr[int32](1))}, "spec.successPolicy: Invalid value: {\"rules\":[{\"succeededCount\":1}]}: requires indexed completion mode"},
		"no rules":          {indexedJob(5), nil, "spec.successPolicy.rules: Required value: at least one rules must be specified when the successPolicy is specified"},
		"empty rule":        {indexedJob(5), []batchv1.SuccessPolicyRule{rule(nil, nil)}, "spec.successPolicy.rules[0]: Required value: at least one of succeededCount or succeededIndexes must be specified"},
		"index too large":   {indexedJob(5), []batchv1.SuccessPolicyRule{rule(ptr("1,5"), nil)}, `spec.successPolicy.rules[0].succeededIndexes: Invalid value: "1,5": error parsing succeededIndexes: too large index: "5"`},
		"decreasing":        {indexedJob(5), []batchv1.SuccessPolicyRule{rule(ptr("3,1"), nil)}, "non-increasing order, previous: 3, current: 1"},
		"bad interval":      {indexedJob(5), []batchv1.SuccessPolicyRule{rule(ptr("1-2-3"), nil)}, `the fragment "1-2-3" violates the requirement that an index interval can have at most two parts separated by '-'`},
		"not a number":      {indexedJob(5), []batchv1.SuccessPolicyRule{rule(ptr("a"), nil)}, `cannot convert string to integer for index: "a"`},
		"count over completions": {indexedJob(5), []batchv1.SuccessPolicyRule{rule(nil, ptr[int32](6))},
			"spec.successPolicy.rules[0].succeededCount: Invalid value: 6: must be less than or equal to 5 (the number of specified completions)"},
		"count over indexes": {indexedJob(5), []batchv1.SuccessPolicyRule{rule(ptr("0,2-3"), ptr[int32](4))},
			"spec.successPolicy.rules[0].succeededCount: Invalid value: 4: must be less than or equal to 3 (the number of indexes in the specified succeededIndexes field)"},
		"negative count": {indexedJob(5), []batchv1.SuccessPolicyRule{rule(nil, ptr[int32](-1))}, "spec.successPolicy.rules[0].succeededCount: Invalid value: -1: must be greater than or equal to 0"},
	} {
		tc.job.Spec.SuccessPolicy = &batchv1.SuccessPolicy{Rules: tc.rules}
		expect(t, name, ValidateJob(tc.job), tc.want)
	}
}

func TestValidateJobPolicyUpdate(t *testing.T) {
	old := indexedJob(4)
	old.Spec.BackoffLimitPerIndex, old.Spec.MaxFailedIndexes = ptr[int32](1), ptr[int32](2)
	old.Spec.PodReplacementPolicy = ptr(batchv1.TerminatingOrFailed)
	old.ResourceVersion = "1"
	for name, tc := range map[string]struct {
		mutate func(*batchv1.Job)
		want   string
	}{
		"maxFailedIndexes":     {func(j *batchv1.Job) { j.Spec.MaxFailedIndexes = ptr[int32](3) }, ""},
		"podReplacementPolicy": {func(j *batchv1.Job) { j.Spec.PodReplacementPolicy = ptr(batchv1.Failed) }, ""},
		"backoffLimitPerIndex": {func(j *batchv1.Job) { j.Spec.BackoffLimitPerIndex = ptr[int32](2) }, "spec.backoffLimitPerIndex: Invalid value: 2: field is immutable"},
		"podFailurePolicy": {func(j *batchv1.Job) {
			withPolicy(j, exitCodesRule(batchv1.PodFailurePolicyActionCount, batchv1.PodFailurePolicyOnExitCodesOpIn, 1))
			j.Spec.PodReplacementPolicy = ptr(batchv1.Failed)
		}, "spec.podFailurePolicy: Invalid value"},
		"successPolicy": {func(j *batchv1.Job) {
			j.Spec.SuccessPolicy = &batchv1.SuccessPolicy{Rules: []batchv1.SuccessPolicyRule{{SucceededCount: ptr[int32](1)}}}
		}, "spec.successPolicy: Invalid value"},
	} {
		j := old.DeepCopy()
		tc.mutate(j)
		expect(t, name, ValidateJobUpdate(j, old), tc.want)
	}
}

func TestValidateJobStatusIndexes(t *testing.T) {
	old := indexedJob(4)
	old.Spec.BackoffLimitPerIndex = ptr[int32](1)
	old.ResourceVersion = "1"
	j := old.DeepCopy()
	j.Status.CompletedIndexes, j.Status.FailedIndexes = "0,2", ptr("1,3")
	expect(t, "valid", ValidateJobStatusUpdate(j, old), "")
	j.Status.FailedIndexes = ptr("1,4")
	expect(t, "too large", ValidateJobStatusUpdate(j, old), `status.failedIndexes: Invalid value: "1,4": error parsing failedIndexes: too large index: "4"`)
	old = indexedJob(4)
	old.ResourceVersion = "1"
	j = old.DeepCopy()
	j.Status.FailedIndexes = ptr("1")
	expect(t, "without per index", ValidateJobStatusUpdate(j, old), `status.failedIndexes: Invalid value: "1": cannot set failedIndexes when backoffLimitPerIndex is nil`)
}
