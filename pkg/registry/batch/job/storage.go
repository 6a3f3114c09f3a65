// Package job serves jobs with their status subresource through the
// generic Store; the strategy generates a Job's selector and pod labels
// from its uid unless the Job asks for a manual selector.
package job

import (
	"context"
	"maps"

	batchv1 "kubecore.io/api/batch/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/apis/batch/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewStrategy returns the strategy of jobs: status only through /status,
// generation bumped on spec changes, the selector generated on create, and
// a delete that names no propagation orphaning the pods (batch/v1 default).
func NewStrategy() *strategy.Strategy[*batchv1.Job] {
	return &strategy.Strategy[*batchv1.Job]{
		Namespaced:         true,
		StatusSubresource:  true,
		Generation:         true,
		OrphanByDefault:    true,
		PrepareCreate:      func(_ context.Context, j *batchv1.Job) { GenerateSelector(j) },
		ValidateFunc:       validation.ValidateJob,
		ValidateUpdateFunc: validation.ValidateJobUpdate,
	}
}

// GenerateSelector labels the template of a Job without manualSelector
// with the Job's uid and name (prefixed and legacy keys, unless set) and
// selects its pods by the prefixed uid label, as Kubernetes does: a
// selector or labels the user set otherwise fail validation for not
// matching. A Job without labels of its own takes the template's, as
// Kubernetes shows them.
func GenerateSelector(j *batchv1.Job) {
	if j.Spec.ManualSelector == nil || !*j.Spec.ManualSelector {
		uid := string(j.UID)
		if j.Spec.Template.Labels == nil {
			j.Spec.Template.Labels = map[string]string{}
		}
		l := j.Spec.Template.Labels
		for k, v := range map[string]string{
			batchv1.LegacyControllerUIDLabel: uid, batchv1.ControllerUIDLabel: uid,
			batchv1.LegacyJobNameLabel: j.Name, batchv1.JobNameLabel: j.Name,
		} {
			if _, ok := l[k]; !ok {
				l[k] = v
			}
		}
		if j.Spec.Selector == nil {
			j.Spec.Selector = &metav1.LabelSelector{}
		}
		if j.Spec.Selector.MatchLabels == nil {
			j.Spec.Selector.MatchLabels = map[string]string{}
		}
		if _, ok := j.Spec.Selector.MatchLabels[batchv1.ControllerUIDLabel]; !ok {
			j.Spec.Selector.MatchLabels[batchv1.ControllerUIDLabel] = uid
		}
	}
	if len(j.Labels) == 0 && len(j.Spec.Template.Labels) > 0 {
		j.Labels = maps.Clone(j.Spec.Template.Labels)
	}
}

// NewStatusStrategy returns the strategy of jobs/status.
func NewStatusStrategy() *strategy.StatusStrategy[*batchv1.Job] {
	return &strategy.StatusStrategy[*batchv1.Job]{
		Namespaced:     true,
		ValidateStatus: validation.ValidateJobStatusUpdate,
	}
}

// NewStorage returns the storage of jobs.
func NewStorage(opts generic.StoreOptions) (*strategy.WithStatus, error) {
	r := strategy.Of[batchv1.Job, batchv1.JobList](batchv1.Resource("jobs"), "job", NewStrategy()).InCategories("all")
	return strategy.NewWithStatus(opts, r.StatusBy(NewStatusStrategy()))
}
