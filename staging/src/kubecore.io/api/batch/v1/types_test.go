package v1

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/protobuf"
	"kubecore.io/apimachinery/pkg/types"
)

// TestZeroValueEncoding pins the fields Kubernetes always writes.
func TestZeroValueEncoding(t *testing.T) {
	for name, tt := range map[string]struct {
		in   any
		want string
	}{
		"JobSpec":                 {JobSpec{}, `{"template":{"metadata":{"creationTimestamp":null},"spec":{"containers":null}}}`},
		"JobStatus":               {JobStatus{}, `{}`},
		"CronJobSpec":             {CronJobSpec{}, `{"schedule":"","jobTemplate":{"metadata":{"creationTimestamp":null},"spec":{"template":{"metadata":{"creationTimestamp":null},"spec":{"containers":null}}}}}`},
		"CronJobStatus":           {CronJobStatus{}, `{}`},
		"UncountedTerminatedPods": {UncountedTerminatedPods{}, `{}`},
	} {
		got, err := json.Marshal(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tt.want {
			t.Errorf("%s: got %s, want %s", name, got, tt.want)
		}
	}
}

// TestProtobufRoundTrip encodes a Job and a CronJob with every field set
// in protobuf and decodes them back unchanged.
func TestProtobufRoundTrip(t *testing.T) {
	i32 := func(v int32) *int32 { return &v }
	now := metav1.Unix(1764000000, 0)
	name, indexes, replacement, failed := "c", "0-2", Failed, "3"
	job := &Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pi", UID: "u"},
		Spec: JobSpec{
			Parallelism: i32(2), Completions: i32(4), BackoffLimit: i32(1), TTLSecondsAfterFinished: i32(9),
			ActiveDeadlineSeconds: new(int64), ManualSelector: new(bool), Suspend: new(bool),
			CompletionMode: func() *CompletionMode { m := IndexedCompletion; return &m }(),
			Selector:       &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}},
			Template:       corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}},
			PodFailurePolicy: &PodFailurePolicy{Rules: []PodFailurePolicyRule{
				{Action: PodFailurePolicyActionFailIndex, OnExitCodes: &PodFailurePolicyOnExitCodesRequirement{ContainerName: &name, Operator: PodFailurePolicyOnExitCodesOpIn, Values: []int32{1, 42}}},
				{Action: PodFailurePolicyActionIgnore, OnPodConditions: []PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}}},
			}},
			SuccessPolicy:        &SuccessPolicy{Rules: []SuccessPolicyRule{{SucceededIndexes: &indexes, SucceededCount: i32(1)}}},
			BackoffLimitPerIndex: i32(1), MaxFailedIndexes: i32(2), PodReplacementPolicy: &replacement,
		},
		Status: JobStatus{
			Conditions: []JobCondition{{Type: JobComplete, Status: corev1.ConditionTrue, Reason: "r", Message: "m", LastProbeTime: now, LastTransitionTime: now}},
			StartTime:  &now, CompletionTime: &now, Active: 1, Succeeded: 2, Failed: 3, Terminating: i32(4), Ready: i32(5),
			CompletedIndexes: "0-2", FailedIndexes: &failed,
			UncountedTerminatedPods: &UncountedTerminatedPods{Succeeded: []types.UID{"a", "b"}, Failed: []types.UID{"c"}},
		},
	}
	tz, policy := "Europe/Paris", ForbidConcurrent
	cj := &CronJob{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cj"},
		Spec: CronJobSpec{Schedule: "@hourly", TimeZone: &tz, StartingDeadlineSeconds: new(int64), ConcurrencyPolicy: policy, Suspend: new(bool),
			JobTemplate:                JobTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"x": "y"}}, Spec: job.Spec},
			SuccessfulJobsHistoryLimit: i32(3), FailedJobsHistoryLimit: i32(1)},
		Status: CronJobStatus{Active: []corev1.ObjectReference{{Kind: "Job", Name: "cj-1", UID: "u"}}, LastScheduleTime: &now, LastSuccessfulTime: &now},
	}
	scheme := runtime.NewScheme()
	if err := AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	s := protobuf.NewSerializer(scheme)
	for _, obj := range []runtime.Object{job, cj} {
		if !s.Supports(obj) {
			t.Fatalf("%T has no protobuf encoding", obj)
		}
		var buf bytes.Buffer
		if err := s.Encode(obj, &buf); err != nil {
			t.Fatal(err)
		}
		out, _, err := s.Decode(buf.Bytes(), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		out.GetObjectKind().SetGroupVersionKind(obj.GetObjectKind().GroupVersionKind())
		if !reflect.DeepEqual(out, obj) {
			t.Errorf("%T round trip:\n got %+v\nwant %+v", obj, out, obj)
		}
	}
}
