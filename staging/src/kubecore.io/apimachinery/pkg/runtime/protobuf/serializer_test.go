package protobuf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
)

func TestEnvelope(t *testing.T) {
	s := NewSerializer(newScheme())
	obj := &sample{ObjectMeta: metav1.ObjectMeta{Name: "a"}}
	data, err := runtime.Encode(s, obj)
	if err != nil {
		t.Fatal(err)
	}
	// prefix; typeMeta {apiVersion, kind}; raw; contentEncoding; contentType.
	head := "6b387300 0a18 0a0e 6578616d706c652e636f6d2f7631 1206 53616d706c65 12"
	if !bytes.HasPrefix(data, mustHex(t, head)) || !bytes.HasSuffix(data, mustHex(t, "1a00 2200")) {
		t.Fatalf("unexpected envelope %x", data)
	}
	if obj.Kind != "" {
		t.Fatal("Encode set the kind of its argument")
	}
	got, gvk, err := s.Decode(data, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *gvk != sampleKind || got.(*sample).Name != "a" || got.GetObjectKind().GroupVersionKind() != sampleKind {
		t.Fatalf("got %v %+v", gvk, got)
	}
	if !s.Supports(obj) || s.Supports(&metav1.Table{}) {
		t.Fatal("Supports is wrong")
	}
}

// envelopeOf builds an envelope by hand.
func envelopeOf(apiVersion, kind string, raw []byte, encoding string) []byte {
	b := []byte(envelopePrefix)
	b = appendKey(b, 1, wireBytes)
	var tm []byte
	tm = appendKey(tm, 1, wireBytes)
	tm = appendString(tm, apiVersion)
	tm = appendKey(tm, 2, wireBytes)
	tm = appendString(tm, kind)
	b = appendBytes(b, tm)
	b = appendKey(b, 2, wireBytes)
	b = appendBytes(b, raw)
	b = appendKey(b, 3, wireBytes)
	return appendString(b, encoding)
}

func TestDecodeEnvelope(t *testing.T) {
	s := NewSerializer(newScheme())
	raw := mustHex(t, "0a03 0a0161") // metadata {name: "a"}
	tests := []struct {
		name     string
		data     []byte
		defaults *schema.GroupVersionKind
		into     runtime.Object
		wantErr  string
		wantKind schema.GroupVersionKind
	}{
		{name: "complete", data: envelopeOf("example.com/v1", "Sample", raw, ""), wantKind: sampleKind},
		{name: "kind from defaults", data: envelopeOf("example.com/v1", "", raw, ""), defaults: &sampleKind, wantKind: sampleKind},
		{name: "kind from into", data: envelopeOf("", "", raw, ""), into: &sample{}, wantKind: sampleKind},
		{name: "missing kind", data: envelopeOf("example.com/v1", "", raw, ""), wantErr: "Object 'Kind' is missing"},
		{name: "missing version", data: envelopeOf("", "Sample", raw, ""), wantErr: "Object 'apiVersion' is missing"},
		{name: "unregistered", data: envelopeOf("example.com/v2", "Sample", raw, ""), wantErr: "no kind"},
		{name: "into of another kind", data: envelopeOf("example.com/v1", "Other", raw, ""), into: &sample{}, wantErr: "decode into *protobuf.sample"},
		{name: "empty", data: nil, wantErr: "empty data"},
		{name: "prefix only", data: []byte(envelopePrefix), wantErr: "empty body"},
		{name: "JSON", data: []byte(`{"kind":"Sample"}`), wantErr: "does not appear to be a protobuf message"},
		{name: "content encoding", data: envelopeOf("example.com/v1", "Sample", raw, "gzip"), wantErr: `unsupported protobuf content encoding "gzip"`},
		{name: "bad envelope", data: append([]byte(envelopePrefix), 0x08, 0x01), wantErr: "decode the protobuf envelope"},
		{name: "bad object", data: envelopeOf("example.com/v1", "Sample", []byte{0x0a, 0x05}, ""), wantErr: "unexpected end of data"},
		{name: "bad group version", data: envelopeOf("a/b/c", "Sample", raw, ""), wantErr: "a/b/c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj, gvk, err := s.Decode(tt.data, tt.defaults, tt.into)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %v, want an error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if *gvk != tt.wantKind || obj.(*sample).Name != "a" {
				t.Fatalf("got %v %+v", gvk, obj)
			}
			if tt.into != nil && obj != tt.into {
				t.Fatal("did not decode into into")
			}
		})
	}
}

func TestDecodeIntoUnregisteredType(t *testing.T) {
	s := NewSerializer(newScheme())
	st := &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Code: 404, Reason: metav1.StatusReasonNotFound}
	data, err := runtime.Encode(s, st)
	if err != nil {
		t.Fatal(err)
	}
	var got metav1.Status
	if err := runtime.DecodeInto(s, data, &got); err != nil {
		t.Fatal(err)
	}
	if got.Code != 404 || got.Reason != metav1.StatusReasonNotFound || got.Kind != "Status" || got.APIVersion != "v1" {
		t.Fatalf("got %+v", got)
	}
	if _, err := runtime.Encode(s, &metav1.Status{}); err == nil {
		t.Fatal("encoded an unregistered object that names no kind")
	}
}

func TestWatchEvents(t *testing.T) {
	s := NewSerializer(newScheme())
	var stream bytes.Buffer
	events := []struct {
		typ string
		obj runtime.Object
	}{
		{"ADDED", &sample{ObjectMeta: metav1.ObjectMeta{Name: "a"}}},
		{"MODIFIED", &sample{ObjectMeta: metav1.ObjectMeta{Name: "a", ResourceVersion: "2"}, Str: strings.Repeat("y", 300)}},
		{"ERROR", &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Code: 410, Reason: metav1.StatusReasonExpired}},
	}
	var frames []byte
	for _, ev := range events {
		var err error
		if frames, err = s.AppendWatchEvent(frames, ev.typ, ev.obj); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := s.AppendWatchEvent(frames, "ADDED", &metav1.Status{}); err == nil || len(got) != len(frames) {
		t.Fatalf("a failed append: %v, %d bytes, want an error and %d", err, len(got), len(frames))
	}
	stream.Write(frames)
	first := binary.BigEndian.Uint32(stream.Bytes())
	var ev metav1.WatchEvent
	if err := s.Codec().Unmarshal(stream.Bytes()[4:4+first], &ev); err != nil || ev.Type != "ADDED" || !bytes.HasPrefix(ev.Object, []byte(envelopePrefix)) {
		t.Fatalf("first frame: %v %+v", err, ev)
	}
	for _, want := range events {
		typ, obj, err := s.DecodeWatchEvent(&stream)
		if err != nil {
			t.Fatal(err)
		}
		if typ != want.typ {
			t.Fatalf("got %s, want %s", typ, want.typ)
		}
		switch w := want.obj.(type) {
		case *sample:
			if g := obj.(*sample); g.ResourceVersion != w.ResourceVersion || g.Str != w.Str {
				t.Fatalf("got %+v", g)
			}
		case *metav1.Status:
			if g := obj.(*metav1.Status); g.Code != 410 || g.Reason != metav1.StatusReasonExpired {
				t.Fatalf("got %+v", g)
			}
		}
	}
	if _, _, err := s.DecodeWatchEvent(&stream); err != io.EOF {
		t.Fatalf("at the end: got %v, want io.EOF", err)
	}
	truncated := []byte{0, 0, 0, 9, 1, 2}
	if _, _, err := s.DecodeWatchEvent(bytes.NewReader(truncated)); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("truncated frame: got %v", err)
	}
	huge := []byte{0xff, 0xff, 0xff, 0xff}
	if _, _, err := s.DecodeWatchEvent(bytes.NewReader(huge)); err == nil || !strings.Contains(err.Error(), "exceeds") {
		t.Fatalf("huge frame: got %v", err)
	}
}
