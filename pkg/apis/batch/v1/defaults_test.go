package v1

import (
	"math"
	"testing"

	batchv1 "kubecore.io/api/batch/v1"
	corev1 "kubecore.io/api/core/v1"
)

func TestSetDefaultsJobPolicies(t *testing.T) {
	plain := &batchv1.Job{}
	SetDefaultsJob(plain)
	if got := *plain.Spec.PodReplacementPolicy; got != batchv1.TerminatingOrFailed {
		t.Errorf("podReplacementPolicy %q, want TerminatingOrFailed", got)
	}
	if got := *plain.Spec.BackoffLimit; got != 6 {
		t.Errorf("backoffLimit %d, want 6", got)
	}

	withPolicy := &batchv1.Job{Spec: batchv1.JobSpec{
		BackoffLimitPerIndex: ptr[int32](1),
		PodFailurePolicy: &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
			Action:          batchv1.PodFailurePolicyActionIgnore,
			OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget}, {Type: "X", Status: corev1.ConditionFalse}},
		}}},
	}}
	SetDefaultsJob(withPolicy)
	if got := *withPolicy.Spec.PodReplacementPolicy; got != batchv1.Failed {
		t.Errorf("podReplacementPolicy %q, want Failed with a podFailurePolicy", got)
	}
	if got := *withPolicy.Spec.BackoffLimit; got != math.MaxInt32 {
		t.Errorf("backoffLimit %d, want MaxInt32 with backoffLimitPerIndex", got)
	}
	conds := withPolicy.Spec.PodFailurePolicy.Rules[0].OnPodConditions
	if conds[0].Status != corev1.ConditionTrue || conds[1].Status != corev1.ConditionFalse {
		t.Errorf("condition statuses %q %q, want True (defaulted) and False (kept)", conds[0].Status, conds[1].Status)
	}

	explicit := &batchv1.Job{Spec: batchv1.JobSpec{PodReplacementPolicy: ptr(batchv1.Failed), BackoffLimit: ptr[int32](2), BackoffLimitPerIndex: ptr[int32](1)}}
	SetDefaultsJob(explicit)
	if *explicit.Spec.PodReplacementPolicy != batchv1.Failed || *explicit.Spec.BackoffLimit != 2 {
		t.Errorf("explicit values changed: %v %d", *explicit.Spec.PodReplacementPolicy, *explicit.Spec.BackoffLimit)
	}
}
