package generic

import (
	"context"
	"errors"
	"strings"
	"testing"

	v1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// recordingAdmission records each phase's attributes; its Admit adds a
// label, its Validate refuses objects labelled deny=true.
type recordingAdmission struct {
	calls []string
}

func (r *recordingAdmission) record(phase string, a *rest.Attributes) {
	user := ""
	if a.UserInfo != nil {
		user = a.UserInfo.Name
	}
	r.calls = append(r.calls, strings.Join([]string{phase, string(a.Operation), a.Resource.Resource, a.Subresource, a.Namespace, a.Name, user}, " "))
}

func (r *recordingAdmission) Admit(_ context.Context, a *rest.Attributes) error {
	r.record("admit", a)
	if p, ok := a.Object.(*v1.Pod); ok {
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		p.Labels["admitted"] = "true"
	}
	return nil
}

func (r *recordingAdmission) Validate(_ context.Context, a *rest.Attributes) error {
	r.record("validate", a)
	obj := a.Object
	if obj == nil {
		obj = a.OldObject
	}
	if p, ok := obj.(*v1.Pod); ok && p.Labels["deny"] == "true" {
		return apierrors.NewForbidden(podsResource, p.Name, errTestDenied)
	}
	return nil
}

var errTestDenied = errors.New("denied by test")

// TestAdmissionEveryVerb checks that create, update (PUT and the patch
// path), delete, deletecollection and a status copy of the Store pass both
// phases, mutating before validation and validating with the fresh object.
func TestAdmissionEveryVerb(t *testing.T) {
	s, _ := newStore(podStrategy{unconditional: true})
	adm := &recordingAdmission{}
	s.Admission = adm
	ctx := apirequest.WithUser(nsCtx("ns"), &apirequest.UserInfo{Name: "alice"})

	out, err := s.Create(ctx, newPod("a"), nil, &metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if out.(*v1.Pod).Labels["admitted"] != "true" {
		t.Errorf("mutating admission's label not stored: %v", out.(*v1.Pod).Labels)
	}
	if _, _, err := s.Update(ctx, "a", putInfo{mutate: func(p *v1.Pod) { p.Labels["x"] = "y" }}, nil, nil, false, &metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	status := *s
	status.Subresource = "status"
	if _, _, err := status.Update(ctx, "a", putInfo{mutate: func(p *v1.Pod) { p.Status.Phase = v1.PodRunning }}, nil, nil, false, &metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Delete(ctx, "a", nil, &metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, "ns", newPod("b"))
	adm.calls = nil
	if _, err := s.DeleteCollection(ctx, nil, &metav1.DeleteOptions{}, nil); err != nil {
		t.Fatal(err)
	}
	// A graceful delete with no grace left passes admission when it marks
	// the object and again when it deletes it, each time with the fresh one.
	want := []string{
		"admit DELETE pods  ns b alice",
		"validate DELETE pods  ns b alice",
		"admit DELETE pods  ns b alice",
		"validate DELETE pods  ns b alice",
	}
	if strings.Join(adm.calls, "\n") != strings.Join(want, "\n") {
		t.Errorf("deletecollection calls:\n%s\nwant:\n%s", strings.Join(adm.calls, "\n"), strings.Join(want, "\n"))
	}

	// The validating phase refuses with its own Status, on create and on
	// an update that would store a denied object.
	_, err = s.Create(ctx, newPod("c", func(p *v1.Pod) { p.Labels["deny"] = "true" }), nil, &metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) {
		t.Errorf("create of a denied pod: %v, want Forbidden", err)
	}
	mustCreate(t, s, "ns", newPod("d"))
	_, _, err = s.Update(ctx, "d", putInfo{mutate: func(p *v1.Pod) { p.Labels["deny"] = "true" }}, nil, nil, false, &metav1.UpdateOptions{})
	if !apierrors.IsForbidden(err) {
		t.Errorf("update to a denied pod: %v, want Forbidden", err)
	}
}

// TestAdmissionOrder checks each verb's order of phases and attributes.
func TestAdmissionOrder(t *testing.T) {
	s, _ := newStore(podStrategy{unconditional: true})
	adm := &recordingAdmission{}
	s.Admission = adm
	ctx := apirequest.WithUser(nsCtx("ns"), &apirequest.UserInfo{Name: "alice"})
	if _, err := s.Create(ctx, newPod("a"), nil, &metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Update(ctx, "a", putInfo{mutate: func(p *v1.Pod) { p.Labels["x"] = "y" }}, nil, nil, false, &metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	status := *s
	status.Subresource = "status"
	if _, _, err := status.Update(ctx, "a", putInfo{mutate: func(p *v1.Pod) { p.Status.Phase = v1.PodRunning }}, nil, nil, false, &metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Delete(ctx, "a", nil, &metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"admit CREATE pods  ns a alice",
		"validate CREATE pods  ns a alice",
		"admit UPDATE pods  ns a alice",
		"validate UPDATE pods  ns a alice",
		"admit UPDATE pods status ns a alice",
		"validate UPDATE pods status ns a alice",
		"admit DELETE pods  ns a alice",
		"validate DELETE pods  ns a alice",
		"admit DELETE pods  ns a alice",
		"validate DELETE pods  ns a alice",
	}
	if strings.Join(adm.calls, "\n") != strings.Join(want, "\n") {
		t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(adm.calls, "\n"), strings.Join(want, "\n"))
	}
}
