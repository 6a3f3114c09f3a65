package intstr

import (
	"encoding/json"
	"math"
	"testing"
)

func TestConstructors(t *testing.T) {
	tests := []struct {
		name string
		got  IntOrString
		want IntOrString
	}{
		{"FromInt32", FromInt32(93), IntOrString{Type: Int, IntVal: 93}},
		{"FromInt", FromInt(-7), IntOrString{Type: Int, IntVal: -7}},
		{"FromInt clamps high", FromInt(math.MaxInt32 + 1), IntOrString{Type: Int, IntVal: math.MaxInt32}},
		{"FromInt clamps low", FromInt(math.MinInt32 - 1), IntOrString{Type: Int, IntVal: math.MinInt32}},
		{"FromString", FromString("76"), IntOrString{Type: String, StrVal: "76"}},
		{"Parse int", Parse("8080"), IntOrString{Type: Int, IntVal: 8080}},
		{"Parse negative", Parse("-5"), IntOrString{Type: Int, IntVal: -5}},
		{"Parse name", Parse("http"), IntOrString{Type: String, StrVal: "http"}},
		{"Parse percent", Parse("25%"), IntOrString{Type: String, StrVal: "25%"}},
		{"Parse empty", Parse(""), IntOrString{Type: String, StrVal: ""}},
		{"Parse beyond int32 stays a string", Parse("99999999999"), IntOrString{Type: String, StrVal: "99999999999"}},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s = %#v, want %#v", tc.name, tc.got, tc.want)
		}
	}
}

func TestStringAndIntValue(t *testing.T) {
	tests := []struct {
		in       *IntOrString
		str      string
		intValue int
	}{
		{&IntOrString{Type: Int, IntVal: 8}, "8", 8},
		{&IntOrString{Type: String, StrVal: "http"}, "http", 0},
		{&IntOrString{Type: String, StrVal: "42"}, "42", 42},
		{&IntOrString{Type: String, StrVal: "25%"}, "25%", 0},
		{nil, "<nil>", 0},
	}
	for _, tc := range tests {
		if got := tc.in.String(); got != tc.str {
			t.Errorf("%#v.String() = %q, want %q", tc.in, got, tc.str)
		}
		if got := tc.in.IntValue(); got != tc.intValue {
			t.Errorf("%#v.IntValue() = %d, want %d", tc.in, got, tc.intValue)
		}
	}
}

func TestJSON(t *testing.T) {
	type holder struct {
		Val     IntOrString  `json:"val"`
		Pointer *IntOrString `json:"pointer,omitempty"`
	}
	tests := []struct {
		in      string
		want    holder
		out     string
		wantErr bool
	}{
		{in: `{"val":123}`, want: holder{Val: FromInt32(123)}, out: `{"val":123}`},
		{in: `{"val":-1}`, want: holder{Val: FromInt32(-1)}, out: `{"val":-1}`},
		{in: `{"val":"123"}`, want: holder{Val: FromString("123")}, out: `{"val":"123"}`},
		{in: `{"val":"25%"}`, want: holder{Val: FromString("25%")}, out: `{"val":"25%"}`},
		{in: `{"val":"\u0068ttp"}`, want: holder{Val: FromString("http")}, out: `{"val":"http"}`},
		{in: `{"val":""}`, want: holder{Val: FromString("")}, out: `{"val":""}`},
		{in: `{"val":1,"pointer":"50%"}`, want: holder{Val: FromInt32(1), Pointer: &IntOrString{Type: String, StrVal: "50%"}}, out: `{"val":1,"pointer":"50%"}`},
		{in: `{"val":null}`, want: holder{}, out: `{"val":0}`},
		{in: `{"val":1.5}`, wantErr: true},
		{in: `{"val":1e3}`, wantErr: true},
		{in: `{"val":2147483648}`, wantErr: true},
		{in: `{"val":true}`, wantErr: true},
		{in: `{"val":{}}`, wantErr: true},
		{in: `{"val":[1]}`, wantErr: true},
	}
	for _, tc := range tests {
		var h holder
		err := json.Unmarshal([]byte(tc.in), &h)
		if tc.wantErr {
			if err == nil {
				t.Errorf("Unmarshal(%s) succeeded with %#v", tc.in, h)
			}
			continue
		}
		if err != nil {
			t.Errorf("Unmarshal(%s): %v", tc.in, err)
			continue
		}
		if h.Val != tc.want.Val || (h.Pointer == nil) != (tc.want.Pointer == nil) || h.Pointer != nil && *h.Pointer != *tc.want.Pointer {
			t.Errorf("Unmarshal(%s) = %#v, want %#v", tc.in, h, tc.want)
		}
		out, err := json.Marshal(h)
		if err != nil || string(out) != tc.out {
			t.Errorf("Marshal(%#v) = %s, %v; want %s", h, out, err, tc.out)
		}
	}
	// A failed decode leaves the value alone.
	v := FromString("keep")
	if err := v.UnmarshalJSON([]byte("true")); err == nil || v != FromString("keep") {
		t.Errorf("UnmarshalJSON(true) = %v, left %#v", err, v)
	}
	if err := v.UnmarshalJSON(nil); err == nil {
		t.Error("UnmarshalJSON(empty) succeeded")
	}
	if _, err := (IntOrString{Type: 7}).MarshalJSON(); err == nil || err.Error() != "impossible IntOrString.Type" {
		t.Errorf("MarshalJSON(bad type) error = %v", err)
	}
}

func TestToUnstructured(t *testing.T) {
	if got := FromInt32(3).ToUnstructured(); got != int64(3) {
		t.Errorf("int ToUnstructured() = %#v", got)
	}
	if got := FromString("a").ToUnstructured(); got != "a" {
		t.Errorf("string ToUnstructured() = %#v", got)
	}
	if got := (IntOrString{Type: 9}).ToUnstructured(); got != nil {
		t.Errorf("bad type ToUnstructured() = %#v", got)
	}
}

func TestDeepCopyAndDefault(t *testing.T) {
	in := FromString("10%")
	c := in.DeepCopy()
	c.StrVal = "20%"
	if in.StrVal != "10%" {
		t.Error("DeepCopy shares state")
	}
	var out IntOrString
	in.DeepCopyInto(&out)
	if out != in {
		t.Errorf("DeepCopyInto = %#v", out)
	}
	var nilValue *IntOrString
	if nilValue.DeepCopy() != nil {
		t.Error("DeepCopy(nil) is not nil")
	}
	def := FromInt32(1)
	if got := ValueOrDefault(nil, def); *got != def {
		t.Errorf("ValueOrDefault(nil) = %#v", got)
	}
	if got := ValueOrDefault(&in, def); got != &in {
		t.Errorf("ValueOrDefault(set) = %#v", got)
	}
}

func TestGetScaledValueFromIntOrPercent(t *testing.T) {
	tests := []struct {
		in      *IntOrString
		total   int
		roundUp bool
		want    int
		wantErr string
	}{
		{in: &IntOrString{Type: Int, IntVal: 3}, total: 10, roundUp: true, want: 3},
		{in: &IntOrString{Type: Int, IntVal: 30}, total: 10, want: 30},
		{in: &IntOrString{Type: String, StrVal: "25%"}, total: 10, roundUp: true, want: 3},
		{in: &IntOrString{Type: String, StrVal: "25%"}, total: 10, roundUp: false, want: 2},
		{in: &IntOrString{Type: String, StrVal: "25%"}, total: 4, roundUp: true, want: 1},
		{in: &IntOrString{Type: String, StrVal: "0%"}, total: 10, roundUp: true, want: 0},
		{in: &IntOrString{Type: String, StrVal: "100%"}, total: 10, roundUp: false, want: 10},
		{in: &IntOrString{Type: String, StrVal: "1%"}, total: 2, roundUp: true, want: 1},
		{in: &IntOrString{Type: String, StrVal: "1%"}, total: 2, roundUp: false, want: 0},
		{in: &IntOrString{Type: String, StrVal: "34%"}, total: 3, roundUp: false, want: 1},
		{in: &IntOrString{Type: String, StrVal: "150%"}, total: 10, roundUp: true, want: 15},
		{in: &IntOrString{Type: String, StrVal: "-5%"}, total: 10, roundUp: true, want: 0},
		{in: &IntOrString{Type: String, StrVal: "-5%"}, total: 10, roundUp: false, want: -1},
		{in: nil, total: 10, wantErr: "nil value for IntOrString"},
		{in: &IntOrString{Type: String, StrVal: "abc"}, total: 10,
			wantErr: "invalid value for IntOrString: invalid type: string is not a percentage"},
		{in: &IntOrString{Type: String, StrVal: "10"}, total: 10,
			wantErr: "invalid value for IntOrString: invalid type: string is not a percentage"},
		{in: &IntOrString{Type: String, StrVal: "%"}, total: 10,
			wantErr: `invalid value for IntOrString: invalid value "%": strconv.Atoi: parsing "": invalid syntax`},
		{in: &IntOrString{Type: String, StrVal: "abc%"}, total: 10,
			wantErr: `invalid value for IntOrString: invalid value "abc%": strconv.Atoi: parsing "abc": invalid syntax`},
		{in: &IntOrString{Type: String, StrVal: "1.5%"}, total: 10,
			wantErr: `invalid value for IntOrString: invalid value "1.5%": strconv.Atoi: parsing "1.5": invalid syntax`},
		{in: &IntOrString{Type: 5}, total: 10,
			wantErr: "invalid value for IntOrString: invalid type: neither int nor percentage"},
		{in: &IntOrString{Type: String, StrVal: "9223372036854775807%"}, total: 1000,
			wantErr: `invalid value for IntOrString: "9223372036854775807%" of 1000 overflows int`},
	}
	for _, tc := range tests {
		got, err := GetScaledValueFromIntOrPercent(tc.in, tc.total, tc.roundUp)
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("%s of %d: error = %v, want %q", tc.in, tc.total, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s of %d (roundUp %t) = %d, %v; want %d", tc.in, tc.total, tc.roundUp, got, err, tc.want)
		}
	}
}
