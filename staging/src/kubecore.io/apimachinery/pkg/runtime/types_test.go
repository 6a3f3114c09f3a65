package runtime_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/internal/testtypes"
)

func TestRawExtensionJSON(t *testing.T) {
	type holder struct {
		Items []runtime.RawExtension `json:"items"`
		One   *runtime.RawExtension  `json:"one,omitempty"`
	}
	pod := &testtypes.Pod{TypeMeta: testtypes.TypeMeta{Kind: "Pod", APIVersion: "v1"}}
	h := holder{Items: []runtime.RawExtension{
		{Raw: []byte(`{"kind":"A"}`)},
		{Object: pod},
		{},
	}}
	data, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"items":[{"kind":"A"},{"kind":"Pod","apiVersion":"v1","metadata":{},"spec":{"containers":null},"status":{}},null]}`
	if string(data) != want {
		t.Fatalf("got  %s\nwant %s", data, want)
	}

	var back holder
	if err := json.Unmarshal([]byte(`{"items":[{"kind":"A"}, [1,2], null],"one":{"x":1}}`), &back); err != nil {
		t.Fatal(err)
	}
	if string(back.Items[0].Raw) != `{"kind":"A"}` || string(back.Items[1].Raw) != `[1,2]` || back.Items[2].Raw != nil || string(back.One.Raw) != `{"x":1}` {
		t.Fatalf("%+v", back)
	}
}

func TestRawExtensionUnmarshalCopies(t *testing.T) {
	in := []byte(`{"a":1}`)
	var re runtime.RawExtension
	if err := re.UnmarshalJSON(in); err != nil {
		t.Fatal(err)
	}
	in[2] = 'b'
	if string(re.Raw) != `{"a":1}` {
		t.Fatalf("Raw aliases the input: %s", re.Raw)
	}
}

func TestRawExtensionDeepCopy(t *testing.T) {
	re := &runtime.RawExtension{Raw: []byte("{}"), Object: &testtypes.Pod{ObjectMeta: testtypes.ObjectMeta{Labels: map[string]string{"a": "b"}}}}
	c := re.DeepCopy()
	c.Raw[0] = '['
	c.Object.(*testtypes.Pod).Labels["a"] = "changed"
	if string(re.Raw) != "{}" || re.Object.(*testtypes.Pod).Labels["a"] != "b" {
		t.Fatal("the copy shares memory")
	}
	if (*runtime.RawExtension)(nil).DeepCopy() != nil {
		t.Fatal("copy of nil")
	}
}

type plain struct {
	S      []int
	M      map[string]*int
	P      *plain
	I      any
	hidden []int
}

func TestDeepCopyJSONValue(t *testing.T) {
	one := 1
	tests := []any{
		nil, "s", true, int64(3), 2.5, json.Number("7"),
		map[string]any{"a": []any{"x", map[string]any{"b": int64(1)}, nil}},
		[]any{[]any{1.5}, map[string]any{}},
		&testtypes.Pod{ObjectMeta: testtypes.ObjectMeta{Name: "p", Labels: map[string]string{"k": "v"}}},
		plain{S: []int{1}, M: map[string]*int{"one": &one}, P: &plain{S: []int{2}}, I: map[string]any{"z": []any{1}}, hidden: []int{9}},
		&plain{S: []int{3}},
		[]string{"a"},
		map[string]any(nil),
	}
	for _, in := range tests {
		c := runtime.DeepCopyJSONValue(in)
		if !reflect.DeepEqual(in, c) {
			t.Fatalf("copy of %#v is %#v", in, c)
		}
		mutateAny(reflect.ValueOf(&c).Elem())
		if in != nil && reflect.TypeOf(in).Kind() != reflect.Struct && reflect.DeepEqual(in, c) && isReference(in) {
			t.Fatalf("mutating the copy of %#v did nothing: the test is broken", in)
		}
	}
	// The originals are unchanged by mutations of their copies.
	for i, in := range tests {
		again := runtime.DeepCopyJSONValue(in)
		if !reflect.DeepEqual(in, again) {
			t.Fatalf("case %d changed", i)
		}
	}
	m := map[string]any{"a": []any{"x"}}
	c := runtime.DeepCopyJSON(m)
	c["a"].([]any)[0] = "y"
	if m["a"].([]any)[0] != "x" || runtime.DeepCopyJSON(nil) != nil {
		t.Fatal("DeepCopyJSON shares memory")
	}
	p := plain{S: []int{1}, hidden: []int{9}}
	pc := runtime.DeepCopyJSONValue(p).(plain)
	pc.S[0] = 2
	if p.S[0] != 1 {
		t.Fatal("exported struct fields are shared")
	}
}

func isReference(v any) bool {
	switch reflect.TypeOf(v).Kind() {
	case reflect.Map, reflect.Slice, reflect.Pointer:
		return reflect.ValueOf(v).Len() > 0 || reflect.TypeOf(v).Kind() == reflect.Pointer
	}
	return false
}

// mutateAny changes every string, number and bool reachable from v.
func mutateAny(v reflect.Value) {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return
		}
		e := v.Elem()
		if v.Kind() == reflect.Interface && e.Kind() != reflect.Map && e.Kind() != reflect.Slice && e.Kind() != reflect.Pointer {
			if v.CanSet() {
				v.Set(reflect.ValueOf("changed"))
			}
			return
		}
		mutateAny(e)
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			mutateAny(e)
			v.SetMapIndex(k, e)
		}
	case reflect.Slice:
		for i := range v.Len() {
			mutateAny(v.Index(i))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Field(i).CanSet() {
				mutateAny(v.Field(i))
			}
		}
	case reflect.String:
		if v.CanSet() {
			v.SetString(v.String() + "!")
		}
	case reflect.Int, reflect.Int64:
		if v.CanSet() {
			v.SetInt(v.Int() + 1)
		}
	}
}
