package protobuf

import (
	"bytes"
	"testing"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
)

// FuzzDecode runs arbitrary bytes through the envelope and message
// decoders. Nothing may panic, and whatever decodes must re-encode to
// bytes that decode and encode to the same bytes again.
func FuzzDecode(f *testing.F) {
	s := NewSerializer(newScheme())
	full, err := runtime.Encode(s, fullSample())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(full)
	f.Add(full[len(envelopePrefix):])
	for _, seed := range []string{"", "k8s\x00", "\x0a\x00", "\x52\x03\x01\x02\x03", "\x0b\x08\x01\x0c", "\xa2\x01\x05\x0a\x03xyz"} {
		f.Add([]byte(seed))
	}
	c := s.Codec()
	f.Fuzz(func(t *testing.T, data []byte) {
		if obj, _, err := s.Decode(data, nil, nil); err == nil {
			if _, err := runtime.Encode(s, obj); err != nil {
				t.Fatalf("encode what was decoded: %v", err)
			}
		}
		var x sample
		if err := c.Unmarshal(data, &x); err == nil {
			stable(t, c, &x, func() any { return &sample{} })
		}
		var m metav1.ObjectMeta
		if err := c.Unmarshal(data, &m); err == nil {
			stable(t, c, &m, func() any { return &metav1.ObjectMeta{} })
		}
	})
}

// stable checks that encoding v reaches a fixed point after one trip.
func stable(t *testing.T, c *Codec, v any, fresh func() any) {
	t.Helper()
	first, err := c.Marshal(v)
	if err != nil {
		t.Fatalf("encode what was decoded: %v", err)
	}
	again := fresh()
	if err := c.Unmarshal(first, again); err != nil {
		t.Fatalf("decode what was encoded: %v", err)
	}
	second, err := c.Marshal(again)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, second) {
		t.Fatalf("not stable:\n%x\n%x", first, second)
	}
}
