package runtime_test

import (
	"encoding/json"
	"io"
	"testing"

	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/internal/testtypes"
)

// The benchmarks use a 3.8 KB pod with two containers, as a kubelet
// reports it.

func BenchmarkDecode(b *testing.B) {
	benchmarkDecode(b, runtime.SerializerOptions{})
}

func BenchmarkDecodeStrict(b *testing.B) {
	benchmarkDecode(b, runtime.SerializerOptions{Strict: true})
}

func benchmarkDecode(b *testing.B, opts runtime.SerializerOptions) {
	data := podFixture(b)
	ser := runtime.NewSerializer(newScheme(b), opts)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := ser.Decode(data, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeEncodingJSON is the baseline: encoding/json into the
// known type, without reading the kind first.
func BenchmarkDecodeEncodingJSON(b *testing.B) {
	data := podFixture(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var p testtypes.Pod
		if err := json.Unmarshal(data, &p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncode(b *testing.B) {
	data := podFixture(b)
	ser := runtime.NewSerializer(newScheme(b), runtime.SerializerOptions{})
	obj, err := runtime.Decode(ser, data)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("kind set", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := ser.Encode(obj, io.Discard); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("kind filled in", func(b *testing.B) {
		pod := obj.DeepCopyObject().(*testtypes.Pod)
		pod.TypeMeta = testtypes.TypeMeta{}
		b.ReportAllocs()
		for b.Loop() {
			if err := ser.Encode(pod, io.Discard); err != nil {
				b.Fatal(err)
			}
		}
	})
}
