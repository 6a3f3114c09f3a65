package runtime_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"

	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/internal/testtypes"
	"kubecore.io/apimachinery/pkg/runtime/strictjson"
)

func podFixture(t testing.TB) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/pod.json")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestEncodeSetsKindWithoutMutating(t *testing.T) {
	s := newScheme(t)
	ser := runtime.NewSerializer(s, runtime.SerializerOptions{})
	pod := &testtypes.Pod{ObjectMeta: testtypes.ObjectMeta{Name: "a", Labels: map[string]string{"x": "y"}}}
	data, err := runtime.Encode(ser, pod)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","labels":{"x":"y"}},"spec":{"containers":null},"status":{}}` + "\n"; string(data) != want {
		t.Fatalf("got  %s\nwant %s", data, want)
	}
	if pod.Kind != "" || pod.APIVersion != "" {
		t.Fatalf("Encode changed the caller's object: %+v", pod.TypeMeta)
	}

	// An object that already names a registered kind is written as is.
	pod.SetGroupVersionKind(coreV1.WithKind("Pod"))
	data2, err := runtime.Encode(ser, pod)
	if err != nil || !bytes.Equal(data, data2) {
		t.Fatalf("%s %v", data2, err)
	}

	// A wrong kind is corrected in the output only.
	pod.SetGroupVersionKind(appsV1.WithKind("Deployment"))
	data3, err := runtime.Encode(ser, pod)
	if err != nil || !bytes.Equal(data, data3) || pod.Kind != "Deployment" {
		t.Fatalf("%s %v %+v", data3, err, pod.TypeMeta)
	}
}

func TestEncodeUnversioned(t *testing.T) {
	s := newScheme(t)
	s.AddUnversionedTypes(appsV1, &testtypes.Status{})
	ser := runtime.NewSerializer(s, runtime.SerializerOptions{})
	st := &testtypes.Status{Status: "Failure", Code: 404}
	st.SetGroupVersionKind(appsV1.WithKind("Status"))
	data, err := runtime.Encode(ser, st)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), `{"kind":"Status","apiVersion":"v1",`) {
		t.Fatalf("unversioned type must encode as its first registration: %s", data)
	}
}

func TestEncodeFormats(t *testing.T) {
	s := newScheme(t)
	pod := &testtypes.Pod{ObjectMeta: testtypes.ObjectMeta{Name: "a"}}
	tests := []struct {
		opts runtime.SerializerOptions
		want string
	}{
		{runtime.SerializerOptions{Yaml: true}, "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\nspec:\n  containers: null\nstatus: {}\n"},
		{runtime.SerializerOptions{Pretty: true}, "{\n  \"kind\": \"Pod\",\n  \"apiVersion\": \"v1\",\n  \"metadata\": {\n    \"name\": \"a\"\n  },\n  \"spec\": {\n    \"containers\": null\n  },\n  \"status\": {}\n}\n"},
	}
	for _, tt := range tests {
		data, err := runtime.Encode(runtime.NewSerializer(s, tt.opts), pod)
		if err != nil {
			t.Fatal(err)
		}
		if string(data) != tt.want {
			t.Errorf("%+v: got\n%s\nwant\n%s", tt.opts, data, tt.want)
		}
	}
}

func TestEncodeUnregistered(t *testing.T) {
	ser := runtime.NewSerializer(newScheme(t), runtime.SerializerOptions{})
	u := &testtypes.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "spec": map[string]any{"size": 3}}}
	data, err := runtime.Encode(ser, u)
	if err != nil || string(data) != `{"apiVersion":"example.com/v1","kind":"Widget","spec":{"size":3}}`+"\n" {
		t.Fatalf("%s %v", data, err)
	}
	if _, err := runtime.Encode(ser, &testtypes.Unstructured{Object: map[string]any{}}); !runtime.IsNotRegisteredError(err) {
		t.Fatalf("an unregistered object without a kind: %v", err)
	}
	if _, err := runtime.Encode(ser, (*testtypes.Pod)(nil)); err == nil {
		t.Fatal("encoding a nil pod should fail")
	}
	if _, err := runtime.Encode(ser, nil); err == nil {
		t.Fatal("encoding nil should fail")
	}
}

// TestEncodeConcurrently encodes one shared object from many goroutines;
// the race detector catches any write to it.
func TestEncodeConcurrently(t *testing.T) {
	ser := runtime.NewSerializer(newScheme(t), runtime.SerializerOptions{})
	pod := &testtypes.Pod{ObjectMeta: testtypes.ObjectMeta{Name: "shared"}}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if _, err := runtime.Encode(ser, pod); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
}

func TestDecodeRoundTrip(t *testing.T) {
	s := newScheme(t)
	ser := runtime.NewSerializer(s, runtime.SerializerOptions{Strict: true})
	data := podFixture(t)
	obj, gvk, err := ser.Decode(data, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	pod, ok := obj.(*testtypes.Pod)
	if !ok || *gvk != coreV1.WithKind("Pod") {
		t.Fatalf("%T %v", obj, gvk)
	}
	if pod.Name != "web-7d4b9c8f6-x2k9p" || len(pod.Spec.Containers) != 2 || *pod.Spec.TerminationGracePeriodSeconds != 30 {
		t.Fatalf("decoded %+v", pod)
	}
	// Decoding agrees with encoding/json, and encoding gives the input back.
	var want testtypes.Pod
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(pod, &want) {
		t.Fatal("decode differs from encoding/json")
	}
	out, err := runtime.Encode(ser, pod)
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	_ = json.Unmarshal(data, &a)
	_ = json.Unmarshal(out, &b)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("round trip changed the object:\n%s", out)
	}
}

func TestDecodeYAML(t *testing.T) {
	ser := runtime.NewSerializer(newScheme(t), runtime.SerializerOptions{})
	obj, err := runtime.Decode(ser, []byte("apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  labels:\n    app: \"yes\"\nspec:\n  containers:\n  - name: c\n    image: busybox\n"))
	if err != nil {
		t.Fatal(err)
	}
	pod := obj.(*testtypes.Pod)
	if pod.Name != "web" || pod.Spec.Containers[0].Image != "busybox" || pod.Labels["app"] != "yes" || pod.Kind != "Pod" {
		t.Fatalf("%+v", pod)
	}
}

func TestDecodeErrors(t *testing.T) {
	ser := runtime.NewSerializer(newScheme(t), runtime.SerializerOptions{})
	tests := []struct {
		name  string
		data  string
		check func(error) bool
		want  string
	}{
		{"missing kind", `{"apiVersion":"v1","metadata":{}}`, runtime.IsMissingKind,
			`Object 'Kind' is missing in '{"apiVersion":"v1","metadata":{}}'`},
		{"missing apiVersion", `{"kind":"Pod"}`, runtime.IsMissingVersion,
			`Object 'apiVersion' is missing in '{"kind":"Pod"}'`},
		{"unknown kind", `{"apiVersion":"v1","kind":"Foo"}`, runtime.IsNotRegisteredError,
			`no kind "Foo" is registered for version "v1" in scheme "kubecore.io/apimachinery/pkg/runtime_test/scheme_test.go:`},
		{"unknown group", `{"apiVersion":"example.com/v1","kind":"Pod"}`, runtime.IsNotRegisteredError,
			`no kind "Pod" is registered for version "example.com/v1"`},
		{"malformed json", "{\"apiVersion\":\"v1\",\n\"kind\":\"Pod\",\n\"metadata\": {\"name\" \"x\"}}", nil,
			`couldn't get version/kind; json parse error: invalid character '"' after object key at line 3, column 21 (byte offset 54)`},
		{"malformed yaml", "kind: Pod\nmetadata: [\n", nil, "yaml: line"},
		{"bad apiVersion", `{"apiVersion":"a/b/c","kind":"Pod"}`, nil, "unexpected GroupVersion string: a/b/c"},
		{"kind is not a string", `{"apiVersion":"v1","kind":1}`, nil,
			`couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string`},
		{"not an object", `[1]`, nil, "cannot unmarshal array into Go value of type struct"},
		{"type mismatch", `{"apiVersion":"v1","kind":"Pod","spec":{"containers":[{"name":5}]}}`, nil,
			"json: cannot unmarshal number into Go struct field Container.spec.containers.name of type string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj, _, err := ser.Decode([]byte(tt.data), nil, nil)
			if err == nil {
				t.Fatalf("decoded %T, want an error", obj)
			}
			if obj != nil {
				t.Fatalf("an error returned an object %T", obj)
			}
			if tt.check != nil && !tt.check(err) {
				t.Fatalf("%v is not the expected kind of error", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

func TestStrictDecoding(t *testing.T) {
	s := newScheme(t)
	data := []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","name":"b","Labels":{}},` +
		`"spec":{"foo":1,"containers":[{"name":"c","imagee":"x"}]}}`)
	wantStrict := []string{`duplicate field "metadata.name"`, `unknown field "metadata.Labels"`,
		`unknown field "spec.foo"`, `unknown field "spec.containers[0].imagee"`}

	lenient := runtime.NewSerializer(s, runtime.SerializerOptions{})
	obj, _, err := lenient.Decode(data, nil, nil)
	if err != nil {
		t.Fatalf("non-strict decoding failed: %v", err)
	}
	if obj.(*testtypes.Pod).Name != "b" || obj.(*testtypes.Pod).Labels != nil {
		t.Fatalf("lenient: %+v", obj)
	}

	strict := runtime.NewSerializer(s, runtime.SerializerOptions{Strict: true})
	obj, gvk, err := strict.Decode(data, nil, nil)
	se, ok := runtime.AsStrictDecodingError(err)
	if !ok || !runtime.IsStrictDecodingError(err) {
		t.Fatalf("got %v, want a *StrictDecodingError", err)
	}
	if obj == nil || gvk == nil || obj.(*testtypes.Pod).Name != "b" || obj.(*testtypes.Pod).Spec.Containers[0].Name != "c" {
		t.Fatalf("strict decoding must still return the object: %+v %v", obj, gvk)
	}
	var got []string
	for _, e := range se.Errors() {
		got = append(got, e.Error())
	}
	if !reflect.DeepEqual(got, wantStrict) {
		t.Fatalf("strict errors %q, want %q", got, wantStrict)
	}
	if want := "strict decoding error: " + strings.Join(wantStrict, ", "); err.Error() != want {
		t.Fatalf("message %q, want %q", err, want)
	}
	var fe *strictjson.FieldError
	if !errors.As(se.Errors()[2], &fe) || fe.Path != "spec.foo" || fe.Kind != strictjson.UnknownField {
		t.Fatalf("%#v", se.Errors()[2])
	}
	if !errors.As(fmt.Errorf("create pod: %w", err), &se) {
		t.Fatal("a wrapped strict error is not found")
	}
}

func TestStrictDecodingYAMLDuplicates(t *testing.T) {
	strict := runtime.NewSerializer(newScheme(t), runtime.SerializerOptions{Strict: true})
	obj, _, err := strict.Decode([]byte("apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  name: b\n  bogus: 1\n"), nil, nil)
	se, ok := runtime.AsStrictDecodingError(err)
	if !ok || obj == nil {
		t.Fatalf("%v %v", obj, err)
	}
	msg := err.Error()
	if len(se.Errors()) != 2 || !strings.Contains(msg, `key "name" already set in map`) || !strings.Contains(msg, `unknown field "metadata.bogus"`) {
		t.Fatalf("%q", msg)
	}
	clean, _, err := strict.Decode([]byte("apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n"), nil, nil)
	if err != nil || clean == nil {
		t.Fatalf("clean YAML: %v", err)
	}
}

func TestDecodeInto(t *testing.T) {
	s := newScheme(t)
	ser := runtime.NewSerializer(s, runtime.SerializerOptions{})

	// No kind in the data: into's registration supplies it.
	into := &testtypes.Pod{}
	obj, gvk, err := ser.Decode([]byte(`{"metadata":{"name":"n"}}`), nil, into)
	if err != nil || obj != into || *gvk != coreV1.WithKind("Pod") || into.Name != "n" || into.Kind != "Pod" {
		t.Fatalf("%v %v %v %+v", obj, gvk, err, into)
	}
	if err := runtime.DecodeInto(ser, []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"m"}}`), into); err != nil || into.Name != "m" {
		t.Fatalf("%v %+v", err, into)
	}

	// A different kind is refused.
	_, _, err = ser.Decode([]byte(`{"apiVersion":"v1","kind":"PodList"}`), nil, &testtypes.Pod{})
	if err == nil || !strings.Contains(err.Error(), `the data is kind "PodList" of apiVersion "v1"`) {
		t.Fatalf("kind mismatch: %v", err)
	}
	_, _, err = ser.Decode([]byte(`{"apiVersion":"apps/v1","kind":"Pod"}`), nil, &testtypes.Pod{})
	if err == nil {
		t.Fatal("version mismatch accepted")
	}

	// A type the scheme does not know takes the data as it is.
	u := &testtypes.Unstructured{}
	obj, gvk, err = ser.Decode([]byte(`{"apiVersion":"example.com/v1","kind":"Widget","spec":{"n":1}}`), nil, u)
	if err != nil || obj != u || gvk.Kind != "Widget" || u.Object["spec"] == nil {
		t.Fatalf("%v %v %v %+v", obj, gvk, err, u)
	}
}

func TestDecodeDefaults(t *testing.T) {
	ser := runtime.NewSerializer(newScheme(t), runtime.SerializerOptions{})
	defaults := coreV1.WithKind("Pod")
	obj, gvk, err := ser.Decode([]byte(`{"metadata":{"name":"d"}}`), &defaults, nil)
	if err != nil || *gvk != defaults || obj.(*testtypes.Pod).Name != "d" {
		t.Fatalf("%v %v %v", obj, gvk, err)
	}
	// Only the missing parts come from the defaults.
	_, gvk, err = ser.Decode([]byte(`{"kind":"PodList"}`), &defaults, nil)
	if err != nil || *gvk != coreV1.WithKind("PodList") {
		t.Fatalf("%v %v", gvk, err)
	}
	// A group without version takes the default version of the same group.
	appsDefault := appsV1.WithKind("Pod")
	_, gvk, _ = ser.Decode([]byte(`{"apiVersion":"apps/","kind":"Pod"}`), &appsDefault, nil)
	if gvk == nil || gvk.Version != "v1" {
		t.Fatalf("%v", gvk)
	}
}

func TestDecodeMergesIntoExisting(t *testing.T) {
	ser := runtime.NewSerializer(newScheme(t), runtime.SerializerOptions{})
	pod := &testtypes.Pod{Spec: testtypes.PodSpec{NodeName: "kept"}}
	if err := runtime.DecodeInto(ser, []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"}}`), pod); err != nil {
		t.Fatal(err)
	}
	if pod.Spec.NodeName != "kept" || pod.Name != "x" {
		t.Fatalf("%+v", pod)
	}
}
