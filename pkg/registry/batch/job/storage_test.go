package job

import (
	"testing"

	batchv1 "kubecore.io/api/batch/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

func TestGenerateSelector(t *testing.T) {
	newJob := func() *batchv1.Job {
		j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "pi", UID: "u1"}}
		j.Spec.Template.Labels = map[string]string{"app": "pi"}
		return j
	}
	j := newJob()
	GenerateSelector(j)
	want := map[string]string{"app": "pi", "controller-uid": "u1", "batch.kubernetes.io/controller-uid": "u1", "job-name": "pi", "batch.kubernetes.io/job-name": "pi"}
	for k, v := range want {
		if j.Spec.Template.Labels[k] != v || j.Labels[k] != v {
			t.Errorf("label %s: template %q job %q, want %q", k, j.Spec.Template.Labels[k], j.Labels[k], v)
		}
	}
	if sel := j.Spec.Selector.MatchLabels; len(sel) != 1 || sel["batch.kubernetes.io/controller-uid"] != "u1" {
		t.Errorf("selector %v", j.Spec.Selector)
	}

	// Labels the user set are kept (validation then refuses a mismatch),
	// and a Job's own labels are not replaced.
	j = newJob()
	j.Labels = map[string]string{"team": "a"}
	j.Spec.Template.Labels["job-name"] = "other"
	GenerateSelector(j)
	if j.Spec.Template.Labels["job-name"] != "other" || len(j.Labels) != 1 {
		t.Errorf("template %v job %v", j.Spec.Template.Labels, j.Labels)
	}

	// manualSelector: nothing generated.
	j = newJob()
	yes := true
	j.Spec.ManualSelector = &yes
	j.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "pi"}}
	GenerateSelector(j)
	if len(j.Spec.Template.Labels) != 1 || len(j.Spec.Selector.MatchLabels) != 1 {
		t.Errorf("manual selector changed: template %v selector %v", j.Spec.Template.Labels, j.Spec.Selector)
	}
}
