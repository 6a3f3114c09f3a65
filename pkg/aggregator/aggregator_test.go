package aggregator

import (
	"context"
	"net/http"
	"reflect"
	"testing"
	"time"

	apiregistrationv1 "kubecore.io/api/apiregistration/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/apirequest"
)

func apiService(group, version string, groupPriority, versionPriority int32) *apiregistrationv1.APIService {
	return &apiregistrationv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: version + "." + group},
		Spec:       apiregistrationv1.APIServiceSpec{Group: group, Version: version, GroupPriorityMinimum: groupPriority, VersionPriority: versionPriority},
	}
}

func TestOrderedGroups(t *testing.T) {
	got := orderedGroups(groupByName([]*apiregistrationv1.APIService{
		apiService("b.example.com", "v1", 100, 10),
		apiService("metrics.k8s.io", "v1beta1", 100, 100),
		apiService("a.example.com", "v1", 100, 10),
		apiService("wardle.example.com", "v1alpha1", 1000, 15),
		apiService("wardle.example.com", "v1beta1", 1000, 15),
		apiService("wardle.example.com", "v2", 1000, 5),
		apiService("low.example.com", "v1", 10, 10),
	}))
	var names []string
	for _, g := range got {
		names = append(names, g.Name)
	}
	if want := []string{"wardle.example.com", "a.example.com", "b.example.com", "metrics.k8s.io", "low.example.com"}; !reflect.DeepEqual(names, want) {
		t.Errorf("groups %v, want %v", names, want)
	}
	var versions []string
	for _, v := range got[0].Versions {
		versions = append(versions, v.Version)
	}
	// versionPriority first, then Kubernetes' order (beta after GA, alpha last).
	if want := []string{"v1beta1", "v1alpha1", "v2"}; !reflect.DeepEqual(versions, want) {
		t.Errorf("versions %v, want %v", versions, want)
	}
	if got[0].PreferredVersion.GroupVersion != "wardle.example.com/v1beta1" {
		t.Errorf("preferred %v", got[0].PreferredVersion)
	}
}

func TestSetIdentity(t *testing.T) {
	h := http.Header{}
	h.Set("Authorization", "Bearer secret")
	h.Set("Impersonate-User", "root")
	h.Set("X-Remote-User", "mallory")
	h.Add("X-Remote-Group", "system:masters")
	h.Set("X-Remote-Extra-Forged", "x")
	h.Set("Accept", "application/json")
	setIdentity(h, &apirequest.UserInfo{Name: "alice", Groups: []string{"dev", "system:authenticated"}, Extra: map[string][]string{"scopes": {"a", "b"}, "example.com/key": {"v"}}})
	want := http.Header{
		"Accept":                           {"application/json"},
		"X-Remote-User":                    {"alice"},
		"X-Remote-Group":                   {"dev", "system:authenticated"},
		"X-Remote-Extra-Scopes":            {"a", "b"},
		"X-Remote-Extra-Example.com%2fkey": {"v"},
	}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("headers\n%v\nwant\n%v", h, want)
	}
}

func TestSetCondition(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	t1 := t0.Add(time.Hour)
	s := apiService("wardle.example.com", "v1", 1, 1)
	s.Status.Conditions = []apiregistrationv1.APIServiceCondition{{Type: apiregistrationv1.Available, Status: apiregistrationv1.ConditionFalse, Reason: ReasonServiceNotFound, LastTransitionTime: metav1.NewTime(t0)}}
	cond := func(status apiregistrationv1.ConditionStatus, reason string) apiregistrationv1.APIServiceCondition {
		return apiregistrationv1.APIServiceCondition{Type: apiregistrationv1.Available, Status: status, Reason: reason}
	}
	obj, err := setCondition{cond: cond(apiregistrationv1.ConditionFalse, ReasonMissingEndpoints), now: func() time.Time { return t1 }}.UpdatedObject(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	got := obj.(*apiregistrationv1.APIService).Status.Conditions
	if len(got) != 1 || got[0].Reason != ReasonMissingEndpoints || !got[0].LastTransitionTime.Equal(&metav1.Time{Time: t0}) {
		t.Errorf("same status: %+v, want the transition time kept", got)
	}
	obj, err = setCondition{cond: cond(apiregistrationv1.ConditionTrue, ReasonPassed), now: func() time.Time { return t1 }}.UpdatedObject(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	got = obj.(*apiregistrationv1.APIService).Status.Conditions
	if len(got) != 1 || got[0].Status != apiregistrationv1.ConditionTrue || !got[0].LastTransitionTime.Equal(&metav1.Time{Time: t1}) {
		t.Errorf("new status: %+v, want a new transition time", got)
	}
	if s.Status.Conditions[0].Reason != ReasonServiceNotFound {
		t.Error("the cached object was changed")
	}
}
