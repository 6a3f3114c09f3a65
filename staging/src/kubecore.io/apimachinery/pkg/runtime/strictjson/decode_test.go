package strictjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

type Meta struct {
	Name        string            `json:"name,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Generation  int64             `json:"generation,omitempty"`
	Finalizers  []string          `json:"finalizers,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

type TypeMeta struct {
	Kind       string `json:"kind,omitempty"`
	APIVersion string `json:"apiVersion,omitempty"`
}

type Port struct {
	Name string `json:"name,omitempty"`
	Port int32  `json:"port"`
}

type Container struct {
	Name  string `json:"name"`
	Ports []Port `json:"ports,omitempty"`
}

type Spec struct {
	Containers []Container        `json:"containers"`
	Replicas   *int32             `json:"replicas,omitempty"`
	Selector   map[string]string  `json:"selector,omitempty"`
	Limits     map[string]float64 `json:"limits,omitempty"`
	Paused     bool               `json:"paused,omitempty"`
	Data       []byte             `json:"data,omitempty"`
	Extra      map[string]any     `json:"extra,omitempty"`
	Cells      []any              `json:"cells,omitempty"`
	Since      *time.Time         `json:"since,omitempty"`
	Count      uint8              `json:"count,omitempty"`
	Ratio      float32            `json:"ratio,omitempty"`
	Pair       [2]int             `json:"pair,omitempty"`
	Num        json.Number        `json:"num,omitempty"`
	Raw        json.RawMessage    `json:"raw,omitempty"`
	Quoted     int                `json:"quoted,omitempty,string"`
	Untagged   string
	Ignored    string `json:"-"`
	unexported string
}

type Object struct {
	TypeMeta `json:",inline"`
	Metadata Meta    `json:"metadata"`
	Spec     Spec    `json:"spec"`
	Next     *Object `json:"next,omitempty"`
}

func TestUnmarshalMatchesEncodingJSON(t *testing.T) {
	inputs := []string{
		`{}`,
		`null`,
		`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","labels":{"x":"1","y":"2"},"generation":3,"finalizers":["f"]}}`,
		`{"spec":{"containers":[{"name":"c","ports":[{"port":80},{"name":"h","port":443}]}],"replicas":3,"paused":true}}`,
		`{"spec":{"containers":[],"replicas":null,"selector":{},"limits":{"cpu":0.5,"mem":1e3}}}`,
		`{"spec":{"data":"aGVsbG8=","extra":{"a":[1,"x",null,true,{"b":2.5}]},"cells":["s",-1,1.5,false]}}`,
		`{"spec":{"since":"2024-01-02T03:04:05Z","count":255,"ratio":1.25,"pair":[1,2,3],"num":12.50,"raw":{"a": [1, 2]}}}`,
		`{"spec":{"quoted":"42","Untagged":"u","unexported":"no","Ignored":"no"}}`,
		`{"next":{"next":{"kind":"deep","next":null}}}`,
		"{\"metadata\":{\"name\":\"\\u00e9\\ud83d\\ude00\\n\\t\\\"\\\\\\/\"}}",
		"{\"metadata\":{\"name\":\"bad \xff utf8 \\ud800 lone\"}}",
		` { "kind" : "Pod" , "metadata" : { "labels" : { "a" : "b" } } } `,
		`{"spec":{"pair":[7]}}`,
		`{"spec":{"data":null,"extra":null,"cells":null}}`,
		`{"metadata":{"name":"x","name":"y"}}`,
		`{"spec":{"containers":[{"name":"a","ports":null}]}}`,
	}
	var d Decoder
	for _, in := range inputs {
		t.Run(in, func(t *testing.T) {
			var want, got Object
			wantErr := json.Unmarshal([]byte(in), &want)
			gotErr := d.Unmarshal([]byte(in), &got)
			if (wantErr != nil) != (gotErr != nil) {
				t.Fatalf("error %v, encoding/json says %v", gotErr, wantErr)
			}
			if !reflect.DeepEqual(normalize(want), normalize(got)) {
				t.Fatalf("got  %+v\nwant %+v", got, want)
			}
			if got.Spec.unexported != "" {
				t.Fatal("an unexported field was set")
			}
		})
	}
}

// normalize turns the float64 numbers of encoding/json's untyped values and
// our int64 ones into the same thing for comparison.
func normalize(o Object) Object {
	o.Spec.Extra, _ = floats(o.Spec.Extra).(map[string]any)
	if o.Spec.Cells != nil {
		o.Spec.Cells = floats(o.Spec.Cells).([]any)
	}
	return o
}

func floats(v any) any {
	switch v := v.(type) {
	case map[string]any:
		if v == nil {
			return v
		}
		out := map[string]any{}
		for k, e := range v {
			out[k] = floats(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = floats(e)
		}
		return out
	case int64:
		return float64(v)
	}
	return v
}

func TestPreservesIntegers(t *testing.T) {
	var d Decoder
	var v any
	if err := d.Unmarshal([]byte(`{"i":9007199254740993,"f":1.0,"e":1e2,"n":-3,"big":18446744073709551616}`), &v); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"i": int64(9007199254740993), "f": 1.0, "e": 100.0, "n": int64(-3), "big": 18446744073709551616.0}
	if !reflect.DeepEqual(v, want) {
		t.Fatalf("got %#v, want %#v", v, want)
	}
}

func TestStrictErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"clean", `{"kind":"Pod","metadata":{"name":"a"}}`, nil},
		{"unknown top-level", `{"kind":"Pod","foo":1,"bar":{"x":1}}`, []string{`unknown field "foo"`, `unknown field "bar"`}},
		{"case mismatch", `{"Kind":"Pod","Metadata":{"Name":"a"}}`, []string{`unknown field "Kind"`, `unknown field "Metadata"`}},
		{"nested unknown", `{"spec":{"foo":1,"containers":[{"name":"a"},{"name":"b","image":"x","ports":[{"port":1,"proto":"TCP"}]}]}}`,
			[]string{`unknown field "spec.foo"`, `unknown field "spec.containers[1].image"`, `unknown field "spec.containers[1].ports[0].proto"`}},
		{"duplicate field", `{"metadata":{"name":"a","name":"b"},"kind":"A","kind":"B"}`, []string{`duplicate field "metadata.name"`, `duplicate field "kind"`}},
		{"duplicate map key", `{"metadata":{"labels":{"a":"1","a":"2"}}}`, []string{`duplicate field "metadata.labels.a"`}},
		{"duplicate in untyped", `{"spec":{"extra":{"x":{"y":1,"y":2}}}}`, []string{`duplicate field "spec.extra.x.y"`}},
		{"unknown under recursion", `{"next":{"next":{"nope":1}}}`, []string{`unknown field "next.next.nope"`}},
		{"ignored and unexported fields are unknown", `{"spec":{"Ignored":"x","unexported":"y"}}`, []string{`unknown field "spec.Ignored"`, `unknown field "spec.unexported"`}},
		{"inline embedded fields are known", `{"kind":"A","apiVersion":"v1"}`, nil},
		{"escaped key", `{"ki\u006ed":"A","\u0066oo":1}`, []string{`unknown field "foo"`}},
	}
	var d Decoder
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var o Object
			strict, err := d.UnmarshalStrict([]byte(tt.in), &o)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range strict {
				got = append(got, e.Error())
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestStrictKeepsDecoding(t *testing.T) {
	var d Decoder
	var o Object
	strict, err := d.UnmarshalStrict([]byte(`{"Metadata":{"name":"no"},"metadata":{"name":"a","name":"b"},"spec":{"bogus":true,"paused":true}}`), &o)
	if err != nil {
		t.Fatal(err)
	}
	if len(strict) != 3 {
		t.Fatalf("strict errors %v", strict)
	}
	if o.Metadata.Name != "b" || !o.Spec.Paused {
		t.Fatalf("last duplicate should win and known fields decode: %+v", o)
	}
	var fe *FieldError
	if !errors.As(strict[0], &fe) || fe.Kind != UnknownField || fe.Path != "Metadata" {
		t.Fatalf("first strict error %#v", strict[0])
	}
}

func TestTypeErrorsMatchEncodingJSON(t *testing.T) {
	inputs := []string{
		`{"metadata":{"name":1}}`,
		`{"spec":{"replicas":"3"}}`,
		`{"spec":{"containers":[{"name":"a","ports":[{"port":"x"}]}]}}`,
		`{"spec":{"containers":{}}}`,
		`{"spec":{"count":256}}`,
		`{"spec":{"replicas":1.5}}`,
		`{"metadata":{"labels":{"a":1}}}`,
		`{"spec":{"paused":"true"}}`,
		`{"metadata":[]}`,
		`[]`,
		`"x"`,
	}
	var d Decoder
	for _, in := range inputs {
		t.Run(in, func(t *testing.T) {
			var want, got Object
			wantErr := json.Unmarshal([]byte(in), &want)
			gotErr := d.Unmarshal([]byte(in), &got)
			var wt, gt *json.UnmarshalTypeError
			if !errors.As(wantErr, &wt) || !errors.As(gotErr, &gt) {
				t.Fatalf("want type errors, got %v and encoding/json %v", gotErr, wantErr)
			}
			if gotErr.Error() != wantErr.Error() {
				t.Fatalf("error\n  %v\nencoding/json says\n  %v", gotErr, wantErr)
			}
			if gt.Offset < 0 || gt.Offset > int64(len(in)) {
				t.Fatalf("offset %d out of range", gt.Offset)
			}
		})
	}
}

func TestTypeErrorKeepsDecoding(t *testing.T) {
	var d Decoder
	var o Object
	err := d.Unmarshal([]byte(`{"metadata":{"name":1,"generation":2},"kind":"A"}`), &o)
	if err == nil || o.Metadata.Generation != 2 || o.Kind != "A" {
		t.Fatalf("err %v, object %+v", err, o)
	}
}

func TestSyntaxErrors(t *testing.T) {
	tests := []struct {
		in        string
		msg       string
		line, col int
	}{
		{``, "unexpected end of JSON input", 1, 1},
		{`{`, "unexpected end of JSON input", 1, 2},
		{"{\n  \"kind\": \"A\",\n  \"x\" 1\n}", "invalid character '1' after object key", 3, 7},
		{`{"a":1,}`, "invalid character '}' looking for beginning of object key string", 1, 8},
		{`{"a":1 "b":2}`, "invalid character '\"' after object key:value pair", 1, 8},
		{`{"spec":{"containers":[1 2]}}`, "invalid character '2' after array element", 1, 26},
		{`{"a":tru}`, "invalid character '}' in literal true (expecting 'e')", 1, 9},
		{`{"a":-}`, "invalid character '}' in numeric literal", 1, 7},
		{`{"a":1.}`, "invalid character '}' after decimal point in numeric literal", 1, 8},
		{`{"a":1e}`, "invalid character '}' in exponent of numeric literal", 1, 8},
		{`{"a":"\x"}`, "invalid character 'x' in string escape code", 1, 8},
		{`{"a":"\u12g4"}`, "invalid character 'g' in \\u hexadecimal character escape", 1, 11},
		{"{\"a\":\"\x01\"}", "invalid character '\\x01' in string literal", 1, 7},
		{`{"a":1}x`, "invalid character 'x' after top-level value", 1, 8},
		{`{"unknown":[1,}`, "invalid character '}' looking for beginning of value", 1, 15},
		{`{"kind":'A'}`, "invalid character '\\'' looking for beginning of value", 1, 9},
		{strings.Repeat("[", 10001), "exceeded max depth", 1, 10001},
	}
	var d Decoder
	for _, tt := range tests {
		t.Run(tt.msg, func(t *testing.T) {
			var v any
			if strings.HasPrefix(tt.in, "{") {
				v = &Object{}
			} else {
				v = new(any)
			}
			err := d.Unmarshal([]byte(tt.in), v)
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want a *SyntaxError", err)
			}
			if se.Msg != tt.msg || se.Line != tt.line || se.Column != tt.col {
				t.Fatalf("got %q at %d:%d, want %q at %d:%d", se.Msg, se.Line, se.Column, tt.msg, tt.line, tt.col)
			}
			if json.Valid([]byte(tt.in)) {
				t.Fatalf("encoding/json accepts %q", tt.in)
			}
			if want := fmt.Sprintf("line %d, column %d", tt.line, tt.col); !strings.Contains(err.Error(), want) {
				t.Fatalf("%q does not say %q", err, want)
			}
		})
	}
}

type textKey string

func (k *textKey) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		return errors.New("empty key")
	}
	*k = textKey(strings.ToUpper(string(b)))
	return nil
}

type upper string

func (u *upper) UnmarshalText(b []byte) error { *u = upper(strings.ToUpper(string(b))); return nil }

type failing struct{}

func (*failing) UnmarshalJSON([]byte) error { return errors.New("nope") }

type Inner struct {
	A string `json:"a"`
	B string `json:"b"`
}

type Other struct {
	A string `json:"a"`
	C string `json:"c"`
}

type inner2 struct {
	D string `json:"d"`
}

type Embeds struct {
	*Inner
	Other
	*inner2
	B     string `json:"b"`
	Int   map[int]string
	Text  map[textKey]int
	Upper upper
	Fail  failing
}

func TestEmbeddingAndKeys(t *testing.T) {
	var d Decoder
	var e Embeds
	strict, err := d.UnmarshalStrict([]byte(`{"a":"ambiguous","b":"outer","c":"promoted","Int":{"1":"x","-2":"y"},"Text":{"k":1},"Upper":"up"}`), &e)
	if err != nil {
		t.Fatal(err)
	}
	if len(strict) != 1 || strict[0].Error() != `unknown field "a"` {
		t.Fatalf("strict %v: an ambiguous name is no field", strict)
	}
	if e.B != "outer" || e.Other.C != "promoted" || e.Inner != nil {
		t.Fatalf("%+v", e)
	}
	if !reflect.DeepEqual(e.Int, map[int]string{1: "x", -2: "y"}) || !reflect.DeepEqual(e.Text, map[textKey]int{"K": 1}) || e.Upper != "UP" {
		t.Fatalf("%+v", e)
	}
	if err := d.Unmarshal([]byte(`{"d":"x"}`), &e); err == nil || !strings.Contains(err.Error(), "unexported") {
		t.Fatalf("got %v, want an error about the unexported embedded pointer", err)
	}
	if err := d.Unmarshal([]byte(`{"Int":{"x":"y"}}`), &e); err == nil {
		t.Fatal("want an error for a non-numeric key")
	}
	if err := d.Unmarshal([]byte(`{"Fail":{}}`), &e); err == nil || err.Error() != "nope" {
		t.Fatalf("got %v, want the UnmarshalJSON error", err)
	}
}

func TestEmbeddedPointerAllocated(t *testing.T) {
	type withPtr struct {
		*Inner
		Z int `json:"z"`
	}
	var d Decoder
	var w withPtr
	if err := d.Unmarshal([]byte(`{"a":"x","z":1}`), &w); err != nil {
		t.Fatal(err)
	}
	if w.Inner == nil || w.A != "x" || w.Z != 1 {
		t.Fatalf("%+v", w)
	}
}

func TestInvalidTargets(t *testing.T) {
	var d Decoder
	var o Object
	for _, v := range []any{nil, o, (*Object)(nil)} {
		var ie *json.InvalidUnmarshalError
		if err := d.Unmarshal([]byte(`{}`), v); !errors.As(err, &ie) {
			t.Fatalf("Unmarshal into %T: %v", v, err)
		}
	}
	var f float64
	if err := d.Unmarshal([]byte(`1e400`), &f); err == nil {
		t.Fatal("want an overflow error")
	}
	var ch chan int
	if err := d.Unmarshal([]byte(`1`), &ch); err == nil {
		t.Fatal("want a type error for a channel")
	}
	var n json.Number
	if err := d.Unmarshal([]byte(`"1x"`), &n); err == nil {
		t.Fatal("want an invalid number error")
	}
	var ip any = &Inner{}
	if err := d.Unmarshal([]byte(`{"a":"into pointer"}`), &ip); err != nil || ip.(*Inner).A != "into pointer" {
		t.Fatalf("%v %+v", err, ip)
	}
	var st fmt.Stringer
	if err := d.Unmarshal([]byte(`{}`), &st); err == nil {
		t.Fatal("want a type error for a non-empty interface")
	}
}

func TestSliceReuse(t *testing.T) {
	var d Decoder
	s := []Port{{Name: "old", Port: 1}, {Name: "old2"}}
	if err := d.Unmarshal([]byte(`[{"port":2}]`), &s); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s, []Port{{Port: 2}}) {
		t.Fatalf("%+v", s)
	}
	var empty []Port
	if err := d.Unmarshal([]byte(`[]`), &empty); err != nil || empty == nil || len(empty) != 0 {
		t.Fatalf("%v %#v", err, empty)
	}
	m := map[string]string{"a": "1"}
	strict, err := d.UnmarshalStrict([]byte(`{"b":"2","b":"3"}`), &m)
	if err != nil || len(strict) != 1 || !reflect.DeepEqual(m, map[string]string{"a": "1", "b": "3"}) {
		t.Fatalf("%v %v %v", strict, err, m)
	}
}

func TestFloatEdges(t *testing.T) {
	var d Decoder
	var f32 float32
	if err := d.Unmarshal([]byte(`3.5e38`), &f32); err == nil {
		t.Fatal("want a float32 overflow")
	}
	var f float64
	if err := d.Unmarshal([]byte(`-0.000001e-2`), &f); err != nil || f != -0.000001e-2 {
		t.Fatalf("%v %v", err, f)
	}
	var u uint
	if err := d.Unmarshal([]byte(`-1`), &u); err == nil {
		t.Fatal("want a type error for a negative uint")
	}
	var i int8
	if err := d.Unmarshal([]byte(`-128`), &i); err != nil || i != math.MinInt8 {
		t.Fatalf("%v %v", err, i)
	}
}

func TestConcurrentFirstUse(t *testing.T) {
	var d Decoder
	done := make(chan error)
	for range 8 {
		go func() {
			var o Object
			err := d.Unmarshal([]byte(`{"next":{"spec":{"containers":[{"name":"a"}]}}}`), &o)
			if err == nil && o.Next.Spec.Containers[0].Name != "a" {
				err = errors.New("wrong value")
			}
			done <- err
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

// FuzzUnmarshal checks the parser against encoding/json on untyped values:
// the same documents are accepted and decode to the same values.
func FuzzUnmarshal(f *testing.F) {
	for _, s := range []string{`{}`, `[1,2.5,"x",null,true]`, `{"a":{"b":[{}]},"a":1}`, `"\u00e9\ud800"`, `-0e-1`, `{"a"1}`, "\"\xff\""} {
		f.Add([]byte(s))
	}
	var d Decoder
	f.Fuzz(func(t *testing.T, data []byte) {
		var want, got any
		wantErr := json.Unmarshal(data, &want)
		gotErr := d.Unmarshal(data, &got)
		var wantType *json.UnmarshalTypeError
		if errors.As(wantErr, &wantType) {
			// Numbers out of float64 range: both must fail.
			if gotErr == nil {
				t.Fatalf("%q: encoding/json says %v, we accept", data, wantErr)
			}
			return
		}
		if (wantErr != nil) != (gotErr != nil) {
			t.Fatalf("%q: error %v, encoding/json says %v", data, gotErr, wantErr)
		}
		if wantErr == nil && !reflect.DeepEqual(want, floats(got)) {
			t.Fatalf("%q: got %#v, want %#v", data, got, want)
		}
		var o Object
		_, _ = d.UnmarshalStrict(data, &o)
	})
}
