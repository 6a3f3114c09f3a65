package protobuf

import (
	"os"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/runtime"
)

// BenchmarkPodCodec compares protobuf with JSON on the fixture pod (a
// running pod with its status, 6.4 KB in protobuf): each codec runs under
// testing.Benchmark, whatever -benchtime says, and the figures are
// reported side by side.
func BenchmarkPodCodec(b *testing.B) {
	ss := newSerializers(b)
	y, err := os.ReadFile("../../fixtures/pod.yaml")
	if err != nil {
		b.Fatal(err)
	}
	pod, err := runtime.Decode(ss.json, y)
	if err != nil {
		b.Fatal(err)
	}
	pbData, err := runtime.Encode(ss.proto, pod)
	if err != nil {
		b.Fatal(err)
	}
	jsData, err := runtime.Encode(ss.json, pod)
	if err != nil {
		b.Fatal(err)
	}
	encode := func(e runtime.Encoder) func(*testing.B) {
		return func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := runtime.Encode(e, pod); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	decode := func(d runtime.Decoder, data []byte) func(*testing.B) {
		return func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if err := runtime.DecodeInto(d, data, &corev1.Pod{}); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	report := func(op string, pb, js testing.BenchmarkResult) {
		b.ReportMetric(float64(pb.NsPerOp()), "protobuf-"+op+"-ns/op")
		b.ReportMetric(float64(js.NsPerOp()), "json-"+op+"-ns/op")
		b.ReportMetric(float64(pb.AllocsPerOp()), "protobuf-"+op+"-allocs/op")
		b.ReportMetric(float64(js.AllocsPerOp()), "json-"+op+"-allocs/op")
		b.Logf("figure: pod %s protobuf %d ns/op %d allocs/op, JSON %d ns/op %d allocs/op: %.1fx faster (target: faster than JSON)",
			op, pb.NsPerOp(), pb.AllocsPerOp(), js.NsPerOp(), js.AllocsPerOp(), float64(js.NsPerOp())/float64(pb.NsPerOp()))
		if pb.NsPerOp() >= js.NsPerOp() {
			b.Errorf("protobuf %s is not faster than JSON", op)
		}
	}
	for b.Loop() {
		report("encode", testing.Benchmark(encode(ss.proto)), testing.Benchmark(encode(ss.json)))
		report("decode", testing.Benchmark(decode(ss.proto, pbData)), testing.Benchmark(decode(ss.json, jsData)))
	}
	b.ReportMetric(float64(len(pbData)), "protobuf-bytes")
	b.ReportMetric(float64(len(jsData)), "json-bytes")
	b.Logf("figure: pod %d bytes in protobuf, %d in JSON (target: smaller than JSON)", len(pbData), len(jsData))
}
