// Package v1 registers the batch/v1 kinds with a server's scheme together
// with the defaults the API server applies to them when it decodes a request.
package v1

import (
	"maps"
	"math"

	batchv1 "kubecore.io/api/batch/v1"
	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/runtime"

	coredefaults "kubecore.io/kubecore/pkg/apis/core/v1"
)

// AddToScheme registers the batch/v1 kinds and their defaults.
func AddToScheme(s *runtime.Scheme) error {
	if err := batchv1.AddToScheme(s); err != nil {
		return err
	}
	RegisterDefaults(s)
	return nil
}

// RegisterDefaults adds the batch/v1 defaulting functions to s.
func RegisterDefaults(s *runtime.Scheme) {
	runtime.AddDefaultingFunc(s, SetDefaultsJob)
	runtime.AddDefaultingFunc(s, SetDefaultsCronJob)
}

func ptr[T any](v T) *T { return &v }

// SetDefaultsJob: one completion and one pod at a time when neither is
// given, parallelism 1 otherwise, six retries (unlimited with a per-index
// limit), NonIndexed, not suspended, pods replaced once Failed with a pod
// failure policy (TerminatingOrFailed without), pod condition patterns
// matching True, and the template's labels on a Job that has none.
func SetDefaultsJob(j *batchv1.Job) {
	sp := &j.Spec
	if sp.Completions == nil && sp.Parallelism == nil {
		sp.Completions = ptr[int32](1)
	}
	if sp.Parallelism == nil {
		sp.Parallelism = ptr[int32](1)
	}
	if sp.BackoffLimit == nil {
		if sp.BackoffLimitPerIndex != nil {
			sp.BackoffLimit = ptr[int32](math.MaxInt32)
		} else {
			sp.BackoffLimit = ptr[int32](6)
		}
	}
	if sp.PodReplacementPolicy == nil {
		if sp.PodFailurePolicy != nil {
			sp.PodReplacementPolicy = ptr(batchv1.Failed)
		} else {
			sp.PodReplacementPolicy = ptr(batchv1.TerminatingOrFailed)
		}
	}
	if pfp := sp.PodFailurePolicy; pfp != nil {
		for i := range pfp.Rules {
			for j := range pfp.Rules[i].OnPodConditions {
				if c := &pfp.Rules[i].OnPodConditions[j]; c.Status == "" {
					c.Status = corev1.ConditionTrue
				}
			}
		}
	}
	if sp.CompletionMode == nil {
		sp.CompletionMode = ptr(batchv1.NonIndexedCompletion)
	}
	if sp.Suspend == nil {
		sp.Suspend = ptr(false)
	}
	if len(j.Labels) == 0 && len(sp.Template.Labels) > 0 {
		j.Labels = maps.Clone(sp.Template.Labels)
	}
	coredefaults.SetDefaultsPodTemplateSpec(&sp.Template)
}

// SetDefaultsCronJob: concurrent runs allowed, not suspended, three
// successful and one failed Job kept. The Job template's pod template gets
// the pod defaults; its Job fields are defaulted when a Job is made from it.
func SetDefaultsCronJob(cj *batchv1.CronJob) {
	sp := &cj.Spec
	if sp.ConcurrencyPolicy == "" {
		sp.ConcurrencyPolicy = batchv1.AllowConcurrent
	}
	if sp.Suspend == nil {
		sp.Suspend = ptr(false)
	}
	if sp.SuccessfulJobsHistoryLimit == nil {
		sp.SuccessfulJobsHistoryLimit = ptr[int32](3)
	}
	if sp.FailedJobsHistoryLimit == nil {
		sp.FailedJobsHistoryLimit = ptr[int32](1)
	}
	coredefaults.SetDefaultsPodTemplateSpec(&sp.JobTemplate.Spec.Template)
}
