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
	// Each case is built twice: one copy is mutated through its deep copy,
	// the other is what it must still equal.
	cases := []func() any{
		func() any { return map[string]any{"a": []any{"x", map[string]any{"b": int64(1)}, nil, 2.5, true}} },
		func() any { return []any{[]any{"y"}, map[string]any{"n": json.Number("7")}} },
		func() any {
			return &testtypes.Pod{ObjectMeta: testtypes.ObjectMeta{Name: "p", Labels: map[string]string{"k": "v"}}}
		},
		func() any {
			one := 1
			return &plain{S: []int{1}, M: map[string]*int{"one": &one}, P: &plain{S: []int{2}}, I: map[string]any{"z": []any{"q"}}, hidden: []int{9}}
		},
		func() any { return []string{"a"} },
		func() any { return map[string][]int{"a": {1}} },
	}
	for i, build := range cases {
		orig, want := build(), build()
		c := runtime.DeepCopyJSONValue(orig)
		if !reflect.DeepEqual(orig, c) {
			t.Fatalf("case %d: copy %#v differs", i, c)
		}
		mutateAny(reflect.ValueOf(&c).Elem())
		if reflect.DeepEqual(c, want) {
			t.Fatalf("case %d: mutation did nothing, the test is broken", i)
		}
		if !reflect.DeepEqual(orig, want) {
			t.Fatalf("case %d: changing the copy changed the original: %#v", i, orig)
		}
	}
	for _, scalar := range []any{nil, "s", true, int64(3), 2.5, json.Number("7"), map[string]any(nil), []any(nil)} {
		if c := runtime.DeepCopyJSONValue(scalar); !reflect.DeepEqual(c, scalar) {
			t.Fatalf("copy of %#v is %#v", scalar, c)
		}
	}
	m := map[string]any{"a": []any{"x"}}
	c := runtime.DeepCopyJSON(m)
	c["a"].([]any)[0] = "y"
	if m["a"].([]any)[0] != "x" || runtime.DeepCopyJSON(nil) != nil {
		t.Fatal("DeepCopyJSON shares memory")
	}
	var nilPod *testtypes.Pod
	if c := runtime.DeepCopyJSONValue(plain{I: nilPod}); c.(plain).I != nil && !reflect.ValueOf(c.(plain).I).IsNil() {
		t.Fatalf("copy of a typed nil: %#v", c)
	}
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
	case reflect.Array:
		for i := range v.Len() {
			mutateAny(v.Index(i))
		}
	}
}
