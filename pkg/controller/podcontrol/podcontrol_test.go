package podcontrol

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
)

var rsKind = appsv1.SchemeGroupVersion.WithKind("ReplicaSet")

func owner() *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: "uid-1"}}
}

func TestNewPod(t *testing.T) {
	grace := int64(5)
	tmpl := &corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}, Annotations: map[string]string{"a": "b"}, Finalizers: []string{"f"}},
		Spec:       corev1.PodSpec{TerminationGracePeriodSeconds: &grace, Containers: []corev1.Container{{Name: "c", Image: "i"}}},
	}
	notController := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "uid-1"}
	tests := []struct {
		name    string
		tmpl    *corev1.PodTemplateSpec
		ref     *metav1.OwnerReference
		wantErr string
	}{
		{name: "ok", tmpl: tmpl, ref: metav1.NewControllerRef(owner(), rsKind)},
		{name: "nil template", ref: metav1.NewControllerRef(owner(), rsKind), wantErr: "template is nil"},
		{name: "no controller ref", tmpl: tmpl, wantErr: "must be a controller reference"},
		{name: "not a controller", tmpl: tmpl, ref: &notController, wantErr: "must be a controller reference"},
		{name: "no labels", tmpl: &corev1.PodTemplateSpec{}, ref: metav1.NewControllerRef(owner(), rsKind), wantErr: "spec.template.metadata.labels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod, err := NewPod(tt.tmpl, owner(), tt.ref)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if pod.Namespace != "ns" || pod.GenerateName != "web-" || pod.Labels["app"] != "web" || pod.Annotations["a"] != "b" ||
				len(pod.Finalizers) != 1 || len(pod.OwnerReferences) != 1 || pod.OwnerReferences[0].UID != "uid-1" ||
				*pod.Spec.TerminationGracePeriodSeconds != 5 || pod.Spec.Containers[0].Image != "i" {
				t.Fatalf("pod = %+v", pod)
			}
			// The pod must not share memory with the template.
			pod.Labels["app"] = "x"
			*pod.Spec.TerminationGracePeriodSeconds = 7
			pod.Spec.Containers[0].Image = "y"
			if tt.tmpl.Labels["app"] != "web" || *tt.tmpl.Spec.TerminationGracePeriodSeconds != 5 || tt.tmpl.Spec.Containers[0].Image != "i" {
				t.Fatal("NewPod shares memory with the template")
			}
		})
	}
}

type fakePods struct {
	createErr, deleteErr error
	deleted              []string
}

func (f *fakePods) Create(_ context.Context, pod *corev1.Pod, _ metav1.CreateOptions) (*corev1.Pod, error) {
	if f.createErr != nil {
		return nil, f.createErr
	}
	out := pod.DeepCopy()
	out.Name = pod.GenerateName + "abcde"
	return out, nil
}

func (f *fakePods) Delete(_ context.Context, name string, _ metav1.DeleteOptions) error {
	if f.deleteErr != nil {
		return f.deleteErr
	}
	f.deleted = append(f.deleted, name)
	return nil
}

type event struct{ eventType, reason, message string }

type fakeRecorder struct{ events []event }

func (r *fakeRecorder) Event(_ runtime.Object, eventType, reason, message string) {
	r.events = append(r.events, event{eventType, reason, message})
}
func (r *fakeRecorder) Eventf(obj runtime.Object, eventType, reason, format string, args ...any) {
	r.Event(obj, eventType, reason, fmt.Sprintf(format, args...))
}
func (r *fakeRecorder) AnnotatedEventf(obj runtime.Object, _ map[string]string, eventType, reason, format string, args ...any) {
	r.Eventf(obj, eventType, reason, format, args...)
}

func TestPodControlEvents(t *testing.T) {
	tests := []struct {
		name      string
		pods      fakePods
		delete    bool
		wantErr   string
		wantEvent event
	}{
		{name: "create", wantEvent: event{"Normal", "SuccessfulCreate", "Created pod: web-abcde"}},
		{name: "create fails", pods: fakePods{createErr: errors.New("quota exceeded")}, wantErr: "create pod ns/web-*: quota exceeded",
			wantEvent: event{"Warning", "FailedCreate", "Error creating: quota exceeded"}},
		{name: "delete", delete: true, wantEvent: event{"Normal", "SuccessfulDelete", "Deleted pod: web-1"}},
		{name: "delete fails", delete: true, pods: fakePods{deleteErr: errors.New("forbidden")}, wantErr: "delete pod ns/web-1: forbidden",
			wantEvent: event{"Warning", "FailedDelete", "Error deleting: forbidden"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &fakeRecorder{}
			pods := tt.pods
			pc := PodControl{Pods: func(string) PodWriter { return &pods }, Recorder: rec}
			var err error
			if tt.delete {
				err = pc.DeletePod(context.Background(), "ns", "web-1", owner())
			} else {
				pod, _ := NewPod(&corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"a": "b"}}}, owner(), metav1.NewControllerRef(owner(), rsKind))
				_, err = pc.CreatePod(context.Background(), pod, owner())
			}
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			if len(rec.events) != 1 || rec.events[0] != tt.wantEvent {
				t.Fatalf("events %v, want %v", rec.events, tt.wantEvent)
			}
		})
	}
}

func TestIsPodAvailable(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	ready := func(status corev1.ConditionStatus, since time.Duration) *corev1.Pod {
		return &corev1.Pod{Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: status, LastTransitionTime: metav1.NewTime(now.Add(-since))}}}}
	}
	tests := []struct {
		name     string
		pod      *corev1.Pod
		minReady int32
		want     bool
	}{
		{name: "no condition", pod: &corev1.Pod{}, want: false},
		{name: "not ready", pod: ready(corev1.ConditionFalse, time.Hour), want: false},
		{name: "ready, no minReadySeconds", pod: ready(corev1.ConditionTrue, 0), want: true},
		{name: "ready long enough", pod: ready(corev1.ConditionTrue, 10*time.Second), minReady: 10, want: true},
		{name: "ready too recently", pod: ready(corev1.ConditionTrue, 9*time.Second), minReady: 10, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsPodAvailable(tt.pod, tt.minReady, now); got != tt.want {
				t.Fatalf("IsPodAvailable = %v, want %v", got, tt.want)
			}
			if got := IsPodReady(tt.pod); got != (tt.pod.Status.Conditions != nil && tt.pod.Status.Conditions[0].Status == corev1.ConditionTrue) {
				t.Fatalf("IsPodReady = %v", got)
			}
		})
	}
}
