package v1

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

func TestTableRowDeepCopy(t *testing.T) {
	orig := &TableRow{
		Cells:      []any{"a", int64(1), 2.5, true, nil, map[string]any{"k": []any{"v"}}, []any{map[string]any{"x": "y"}}},
		Conditions: []TableRowCondition{{Type: RowCompleted, Status: ConditionTrue}},
		Object:     json.RawMessage(`{"a":1}`),
	}
	cp := orig.DeepCopy()
	if !reflect.DeepEqual(cp, orig) {
		t.Fatalf("copy differs: %+v", cp)
	}
	cp.Cells[0] = "changed"
	cp.Cells[5].(map[string]any)["k"].([]any)[0] = "changed"
	cp.Cells[6].([]any)[0].(map[string]any)["x"] = "changed"
	cp.Conditions[0].Reason = "changed"
	cp.Object[1] = 'b'
	if orig.Cells[0] != "a" || orig.Cells[5].(map[string]any)["k"].([]any)[0] != "v" ||
		orig.Cells[6].([]any)[0].(map[string]any)["x"] != "y" || orig.Conditions[0].Reason != "" || string(orig.Object) != `{"a":1}` {
		t.Errorf("changing the copy changed the original: %+v", orig)
	}
	if (*TableRow)(nil).DeepCopy() != nil {
		t.Error("nil DeepCopy != nil")
	}
}

func TestScalarDeepCopies(t *testing.T) {
	tm := NewTime(time.Unix(5, 0))
	if got := tm.DeepCopy(); !got.Equal(&tm) || got == &tm {
		t.Errorf("Time.DeepCopy = %v", got)
	}
	mt := NewMicroTime(time.Unix(5, 1000))
	if got := mt.DeepCopy(); !got.Equal(&mt) || got == &mt {
		t.Errorf("MicroTime.DeepCopy = %v", got)
	}
	d := Duration{Duration: time.Minute}
	if got := d.DeepCopy(); *got != d || got == &d {
		t.Errorf("Duration.DeepCopy = %v", got)
	}
	f := &FieldsV1{Raw: []byte(`{"f:spec":{}}`)}
	fc := f.DeepCopy()
	fc.Raw[0] = 'X'
	if string(f.Raw) != `{"f:spec":{}}` {
		t.Errorf("FieldsV1 copy shares bytes: %s", f.Raw)
	}
	if (*Time)(nil).DeepCopy() != nil || (*MicroTime)(nil).DeepCopy() != nil || (*Duration)(nil).DeepCopy() != nil || (*FieldsV1)(nil).DeepCopy() != nil {
		t.Error("nil DeepCopy != nil")
	}
}
