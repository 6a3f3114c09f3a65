package runtime_test

import (
	"reflect"
	"testing"

	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/internal/testtypes"
)

// FuzzDecode runs arbitrary bytes through the strict and the lenient
// decoder. Neither may panic, both must agree on whether the data decodes
// and on the object, and strict errors must come with the object.
func FuzzDecode(f *testing.F) {
	f.Add(podFixture(f))
	for _, seed := range []string{
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","name":"b"},"spec":{"containers":[{"name":"c","x":1}]}}`,
		`{"apiVersion":"v1","kind":"PodList","items":[{"metadata":{"labels":{"a":"b","a":"c"}}}]}`,
		`{"apiVersion":"v1","kind":"Status","code":404}`,
		"apiVersion: v1\nkind: Pod\nmetadata:\n  name: y\n",
		`{"kind":"Pod"}`, `{"apiVersion":"v1"}`, `[]`, `{"apiVersion":"v1","kind":"Pod","spec":{"priority":1e99}}`,
	} {
		f.Add([]byte(seed))
	}
	s := runtime.NewScheme()
	if err := runtime.NewSchemeBuilder(addKnownTypes).AddToScheme(s); err != nil {
		f.Fatal(err)
	}
	strict := runtime.NewSerializer(s, runtime.SerializerOptions{Strict: true})
	lenient := runtime.NewSerializer(s, runtime.SerializerOptions{})
	f.Fuzz(func(t *testing.T, data []byte) {
		sObj, _, sErr := strict.Decode(data, nil, nil)
		lObj, _, lErr := lenient.Decode(data, nil, nil)
		if runtime.IsStrictDecodingError(sErr) {
			if sObj == nil {
				t.Fatal("a strict decoding error without the object")
			}
			sErr = nil
		}
		if (sErr == nil) != (lErr == nil) {
			t.Fatalf("strict: %v, lenient: %v", sErr, lErr)
		}
		if sErr == nil && !reflect.DeepEqual(sObj, lObj) {
			t.Fatalf("strict and lenient decode differently:\n%#v\n%#v", sObj, lObj)
		}
		into := &testtypes.Pod{}
		_, _, _ = strict.Decode(data, nil, into)
		if lErr == nil {
			if _, err := runtime.Encode(lenient, lObj); err != nil {
				t.Fatalf("encode what was decoded: %v", err)
			}
		}
	})
}
