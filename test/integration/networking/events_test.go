package networking

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	eventsv1 "kubecore.io/api/events/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/test/integration/framework"
)

// TestEventsBothGroups writes events through core v1 and events.k8s.io/v1
// and reads each through the other: they are the same stored objects.
func TestEventsBothGroups(t *testing.T) {
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	ns := s.CreateNamespace(t, "events")
	c := s.HTTPClient(t)
	core := "/api/v1/namespaces/" + ns + "/events"
	group := "/apis/events.k8s.io/v1/namespaces/" + ns + "/events"

	// A watch through events.k8s.io sees events in its shape.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", s.URL+group+"?watch=1", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()

	now := metav1.NewTime(time.Now().Truncate(time.Second))
	legacy := corev1.Event{
		TypeMeta:       metav1.TypeMeta{APIVersion: "v1", Kind: "Event"},
		ObjectMeta:     metav1.ObjectMeta{Name: "web.1"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: "web"},
		Reason:         "Pulled", Message: "image pulled", Type: "Normal", Count: 3,
		Source:         corev1.EventSource{Component: "kubelet", Host: "node-1"},
		FirstTimestamp: now, LastTimestamp: now,
	}
	mustCall(t, c, s, "POST", core, legacy, 201, nil)
	var got eventsv1.Event
	mustCall(t, c, s, "GET", group+"/web.1", nil, 200, &got)
	if got.Regarding.Name != "web" || got.Note != "image pulled" || got.DeprecatedCount != 3 || got.DeprecatedSource.Host != "node-1" || got.Reason != "Pulled" {
		t.Errorf("core event read through events.k8s.io: %+v", got)
	}

	var ev struct {
		Type   string          `json:"type"`
		Object json.RawMessage `json:"object"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&ev); err != nil {
		t.Fatal(err)
	}
	if ev.Type != "ADDED" || !strings.Contains(string(ev.Object), `"note":"image pulled"`) || !strings.Contains(string(ev.Object), `"apiVersion":"events.k8s.io/v1"`) {
		t.Errorf("watch event %s %s", ev.Type, ev.Object)
	}

	micro := metav1.NewMicroTime(time.Now())
	modern := eventsv1.Event{
		TypeMeta:   metav1.TypeMeta{APIVersion: "events.k8s.io/v1", Kind: "Event"},
		ObjectMeta: metav1.ObjectMeta{Name: "web.2"},
		EventTime:  micro, ReportingController: "example.com/scaler", ReportingInstance: "scaler-1",
		Action: "Scale", Reason: "ScaledUp", Type: "Normal", Note: "3 replicas",
		Regarding: corev1.ObjectReference{Kind: "Deployment", Namespace: ns, Name: "web"},
	}
	mustCall(t, c, s, "POST", group, modern, 201, nil)
	var stored corev1.Event
	mustCall(t, c, s, "GET", core+"/web.2", nil, 200, &stored)
	if stored.ReportingController != "example.com/scaler" || stored.Message != "3 replicas" || stored.InvolvedObject.Kind != "Deployment" || stored.Action != "Scale" {
		t.Errorf("events.k8s.io event read through core: %+v", stored)
	}
	var list eventsv1.EventList
	mustCall(t, c, s, "GET", group, nil, 200, &list)
	if len(list.Items) != 2 || list.Items[0].Note == "" || list.Items[1].Note == "" {
		t.Errorf("events.k8s.io list: %+v", list.Items)
	}
	// Field selectors name the events.k8s.io fields.
	mustCall(t, c, s, "GET", group+"?fieldSelector=regarding.kind%3DDeployment", nil, 200, &list)
	if len(list.Items) != 1 || list.Items[0].Name != "web.2" {
		t.Errorf("events.k8s.io list by regarding.kind: %+v", list.Items)
	}
	mustCall(t, c, s, "GET", group+"?fieldSelector=reportingController%3Dexample.com%2Fscaler", nil, 200, &list)
	if len(list.Items) != 1 || list.Items[0].Name != "web.2" {
		t.Errorf("events.k8s.io list by reportingController: %+v", list.Items)
	}

	// A merge patch through events.k8s.io applies to its shape.
	var patched eventsv1.Event
	mustCall(t, c, s, "PATCH", group+"/web.2", `{"series":{"count":2,"lastObservedTime":"2026-01-01T00:00:00.000000Z"}}`, 200, &patched)
	if patched.Series == nil || patched.Series.Count != 2 || patched.Note != "3 replicas" {
		t.Errorf("patched event: %+v", patched)
	}
	mustCall(t, c, s, "GET", core+"/web.2", nil, 200, &stored)
	if stored.Series == nil || stored.Series.Count != 2 {
		t.Errorf("patched event read through core: %+v", stored.Series)
	}
	// The note may not change.
	body := mustCall(t, c, s, "PATCH", group+"/web.2", `{"note":"other"}`, 422, nil)
	if !strings.Contains(string(body), `Event.events.k8s.io \"web.2\" is invalid: note: Invalid value: \"other\": field is immutable`) {
		t.Errorf("note change: %s", body)
	}

	// events.k8s.io refuses what core v1 still takes, and stores nothing.
	bad := modern
	bad.Name, bad.ReportingController, bad.Action = "web.3", "", ""
	bad.DeprecatedCount = 2
	body = mustCall(t, c, s, "POST", group, bad, 422, nil)
	for _, want := range []string{
		`Event.events.k8s.io \"web.3\" is invalid`, `reportingController: Required value`, `action: Required value`, `deprecatedCount: Invalid value: \"\": needs to be unset`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("bad event: %s lacks %s", body, want)
		}
	}
	mustCall(t, c, s, "GET", core+"/web.3", nil, 404, nil)
	body = mustCall(t, c, s, "GET", group+"/missing", nil, 404, nil)
	if !strings.Contains(string(body), `events.events.k8s.io \"missing\" not found`) || !strings.Contains(string(body), `"group":"events.k8s.io"`) {
		t.Errorf("missing event: %s", body)
	}

	// A delete of the collection selects by the events.k8s.io fields and
	// answers in their shape.
	var gone eventsv1.EventList
	mustCall(t, c, s, "DELETE", group+"?fieldSelector=regarding.kind%3DDeployment", nil, 200, &gone)
	if gone.APIVersion != "events.k8s.io/v1" || len(gone.Items) != 1 || gone.Items[0].Name != "web.2" || gone.Items[0].Note != "3 replicas" {
		t.Errorf("events.k8s.io delete of the collection: %+v", gone)
	}
	mustCall(t, c, s, "GET", core+"/web.2", nil, 404, nil)
	mustCall(t, c, s, "GET", core+"/web.1", nil, 200, nil)
	body = mustCall(t, c, s, "GET", group+"?fieldSelector=note%3Dx", nil, 400, nil)
	if !strings.Contains(string(body), `field label \"note\" is not supported`) {
		t.Errorf("selector on note: %s", body)
	}
}
