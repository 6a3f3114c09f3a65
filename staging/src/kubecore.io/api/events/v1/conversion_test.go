package v1

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/protobuf"
)

func TestConversionRoundTrip(t *testing.T) {
	now := metav1.NewMicroTime(time.Date(2026, 11, 27, 10, 0, 0, 123000, time.UTC))
	e := &Event{
		ObjectMeta:               metav1.ObjectMeta{Name: "web.1", Namespace: "default", Labels: map[string]string{"a": "b"}},
		EventTime:                now,
		Series:                   &EventSeries{Count: 3, LastObservedTime: now},
		ReportingController:      "example.com/ctl",
		ReportingInstance:        "ctl-1",
		Action:                   "Scale",
		Reason:                   "Scaled",
		Regarding:                corev1.ObjectReference{Kind: "Deployment", Namespace: "default", Name: "web"},
		Related:                  &corev1.ObjectReference{Kind: "Pod", Name: "web-1"},
		Note:                     "scaled up",
		Type:                     "Normal",
		DeprecatedSource:         corev1.EventSource{Component: "ctl", Host: "h"},
		DeprecatedFirstTimestamp: metav1.NewTime(now.Time.Truncate(time.Second)),
		DeprecatedLastTimestamp:  metav1.NewTime(now.Time.Truncate(time.Second)),
		DeprecatedCount:          2,
	}
	core := ToCore(e)
	if core.InvolvedObject.Name != "web" || core.Message != "scaled up" || core.Source.Host != "h" || core.Count != 2 || core.Series.Count != 3 || core.ReportingController != "example.com/ctl" {
		t.Fatalf("ToCore = %+v", core)
	}
	raw, _ := json.Marshal(core)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	if m["reportingComponent"] != "example.com/ctl" || m["message"] != "scaled up" {
		t.Errorf("core JSON = %s", raw)
	}
	if back := FromCore(core); !reflect.DeepEqual(back, e) {
		t.Errorf("round trip:\n got %+v\nwant %+v", back, e)
	}
	// The copies share nothing with their source.
	core.Related.Name = "other"
	if e.Related.Name != "web-1" {
		t.Error("ToCore shares related with its input")
	}
}

func TestProtobuf(t *testing.T) {
	if err := protobuf.NewCodec().Supports(reflect.TypeOf(&EventList{})); err != nil {
		t.Error(err)
	}
}
