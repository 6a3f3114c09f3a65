package validation

import (
	"strings"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	eventsv1 "kubecore.io/api/events/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

func TestValidateEvent(t *testing.T) {
	now := metav1.NewMicroTime(time.Now())
	ev := func(change func(*eventsv1.Event)) *eventsv1.Event {
		e := &eventsv1.Event{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web.1"},
			EventTime:  now, ReportingController: "example.com/ctl", ReportingInstance: "ctl-1",
			Action: "Scale", Reason: "Scaled", Type: "Normal",
			Regarding: corev1.ObjectReference{Kind: "Deployment", Namespace: "ns", Name: "web"},
		}
		if change != nil {
			change(e)
		}
		return e
	}
	tests := []struct {
		name string
		ev   *eventsv1.Event
		want string
	}{
		{"valid", ev(nil), ""},
		{"series", ev(func(e *eventsv1.Event) { e.Series = &eventsv1.EventSeries{Count: 2, LastObservedTime: now} }), ""},
		{"no event time", ev(func(e *eventsv1.Event) { e.EventTime = metav1.MicroTime{} }), "eventTime: Required value"},
		{"bad type", ev(func(e *eventsv1.Event) { e.Type = "Info" }), `type: Invalid value: "": has invalid value: Info`},
		{"no controller", ev(func(e *eventsv1.Event) { e.ReportingController = "" }), "reportingController: Required value"},
		{"bad controller", ev(func(e *eventsv1.Event) { e.ReportingController = "a b" }), `reportingController: Invalid value: "a b"`},
		{"no instance", ev(func(e *eventsv1.Event) { e.ReportingInstance = "" }), "reportingInstance: Required value"},
		{"no action", ev(func(e *eventsv1.Event) { e.Action = "" }), "action: Required value"},
		{"long reason", ev(func(e *eventsv1.Event) { e.Reason = strings.Repeat("r", 129) }), "reason: Invalid value: \"\": can have at most 128 characters"},
		{"long note", ev(func(e *eventsv1.Event) { e.Note = strings.Repeat("n", 1025) }), "note: Invalid value: \"\": can have at most 1024 characters"},
		{"series of one", ev(func(e *eventsv1.Event) { e.Series = &eventsv1.EventSeries{Count: 1, LastObservedTime: now} }), "series.count: Invalid value: \"\": should be at least 2"},
		{"series without time", ev(func(e *eventsv1.Event) { e.Series = &eventsv1.EventSeries{Count: 2} }), "series.lastObservedTime: Required value"},
		{"deprecated count", ev(func(e *eventsv1.Event) { e.DeprecatedCount = 1 }), "deprecatedCount: Invalid value: \"\": needs to be unset"},
		{"deprecated source", ev(func(e *eventsv1.Event) { e.DeprecatedSource.Component = "x" }), "deprecatedSource: Invalid value: \"\": needs to be unset"},
		{"deprecated first time", ev(func(e *eventsv1.Event) { e.DeprecatedFirstTimestamp = metav1.NewTime(time.Now()) }), "deprecatedFirstTimestamp: Invalid value: \"\": needs to be unset"},
		{"other namespace", ev(func(e *eventsv1.Event) { e.Regarding.Namespace = "other" }), `regarding.namespace: Invalid value: "other": does not match event.namespace`},
	}
	for _, tt := range tests {
		got := ValidateEvent(tt.ev).ToAggregate()
		switch {
		case tt.want == "" && got != nil:
			t.Errorf("%s: unexpected errors: %v", tt.name, got)
		case tt.want != "" && (got == nil || !strings.Contains(got.Error(), tt.want)):
			t.Errorf("%s: errors %v, want %q", tt.name, got, tt.want)
		}
	}

	// An update may grow the series, not change the note; events written
	// through core v1 keep their legacy rules.
	grown := ev(func(e *eventsv1.Event) { e.Series = &eventsv1.EventSeries{Count: 2, LastObservedTime: now} })
	if errs := ValidateEventUpdate(grown, ev(nil)); len(errs) != 0 {
		t.Errorf("series update: %v", errs)
	}
	if errs := ValidateEventUpdate(ev(func(e *eventsv1.Event) { e.Note = "other" }), ev(nil)); !strings.Contains(errs.ToAggregate().Error(), "note: Invalid value: \"other\": field is immutable") {
		t.Errorf("note update: %v", errs)
	}
	legacy := &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "old"}, Reason: "Pulled", Type: "Normal", DeprecatedCount: 3}
	relabelled := legacy.DeepCopy()
	relabelled.Labels = map[string]string{"a": "b"}
	if errs := ValidateEventUpdate(relabelled, legacy); len(errs) != 0 {
		t.Errorf("update of a core v1 event: %v", errs)
	}
}
