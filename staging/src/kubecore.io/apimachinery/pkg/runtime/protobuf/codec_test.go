package protobuf

import (
	"bytes"
	"encoding/hex"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/intstr"
)

func ptr[T any](v T) *T { return &v }

func fullSample() *sample {
	return &sample{
		ObjectMeta: metav1.ObjectMeta{
			Name: "a", Namespace: "ns", UID: "u-1", ResourceVersion: "42", Generation: 3,
			CreationTimestamp: metav1.Unix(1700000000, 0),
			DeletionTimestamp: ptr(metav1.Unix(1700000100, 0)),
			Labels:            map[string]string{"b": "2", "a": "1"},
			OwnerReferences:   []metav1.OwnerReference{{APIVersion: "v1", Kind: "X", Name: "o", UID: "ou", Controller: ptr(true)}},
			Finalizers:        []string{"f1", "f2"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m", Operation: "Update", Time: ptr(metav1.Unix(5, 0)),
				FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:a":{}}`)}}},
		},
		Str: "hello", Int32: -7, Int64: 1 << 40, Bool: true,
		PStr: ptr(""), PInt: ptr(int32(-1)),
		Bytes:    []byte{0, 1, 2},
		Strs:     []string{"x", "", "z"},
		Ints:     []int64{1, -2, 300},
		Map:      map[string]string{"k2": "v2", "k1": "", "": "empty key"},
		BMap:     map[string][]byte{"a": {9}, "empty": {}},
		QMap:     map[namedString]resource.Quantity{"cpu": resource.MustParse("1500m"), "memory": resource.MustParse("1Gi")},
		Child:    child{Name: "c", N: 300},
		PChild:   &child{},
		Children: []child{{Name: "one"}, {N: 2}},
		Time:     metav1.Unix(1700000000, 0),
		PTime:    &metav1.Time{},
		Micro:    metav1.NewMicroTime(time.Unix(1700000000, 123456000)),
		Qty:      resource.MustParse("-2.5Ki"),
		PQty:     ptr(resource.MustParse("0")),
		IOS:      intstr.FromString("25%"),
		PIOS:     ptr(intstr.FromInt32(-3)),
		Raw:      runtime.RawExtension{Raw: []byte(`{"a":1}`)},
		RawMsg:   []byte(`{"b":2}`),
		Verbs:    metav1.Verbs{"get", "list"},
		F64:      3.25, F32: -1.5, U32: 1 << 31,
		Named:   "n",
		Dur:     metav1.Duration{Duration: 90 * time.Second},
		Raws:    []runtime.RawExtension{{Raw: []byte("x")}, {}},
		Far:     "far",
		Hidden:  "not on the wire",
		Left:    "not on the wire either",
		private: "private",
	}
}

// wireForm is what a value becomes after a trip through the wire: fields
// the wire does not carry are zero.
func wireForm(s *sample) *sample {
	c := *s
	c.TypeMeta = metav1.TypeMeta{}
	c.Hidden, c.Left, c.private = "", "", ""
	return &c
}

func TestRoundTrip(t *testing.T) {
	long := strings.Repeat("x", 20000)
	tests := []struct {
		name string
		in   *sample
	}{
		{"zero", &sample{}},
		{"full", fullSample()},
		{"three-byte lengths", &sample{Str: long, Child: child{Name: long}, Children: []child{{Name: long[:200]}}, Map: map[string]string{long: long}}},
		{"empty but not nil", &sample{Bytes: []byte{}, Verbs: metav1.Verbs{}, RawMsg: []byte{}, Raw: runtime.RawExtension{Raw: []byte{}}}},
	}
	c := NewCodec()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := c.Marshal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			got := &sample{Hidden: "stale", Str: "stale"}
			if err := c.Unmarshal(data, got); err != nil {
				t.Fatal(err)
			}
			if want := wireForm(tt.in); !equalSamples(want, got) {
				t.Fatalf("round trip changed the value\nwant %+v\ngot  %+v", want, got)
			}
			again, err := c.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(data, again) {
				t.Fatalf("encoding is not stable\n%x\n%x", data, again)
			}
		})
	}
}

// equalSamples compares with Quantity and time semantics.
func equalSamples(a, b *sample) bool {
	qa, qb := a.QMap, b.QMap
	a2, b2 := *a, *b
	a2.QMap, b2.QMap = nil, nil
	for _, p := range []*sample{&a2, &b2} {
		p.Qty, p.PQty = resource.Quantity{}, nil
		p.Time, p.PTime, p.Micro = metav1.Time{}, nil, metav1.MicroTime{}
		p.ObjectMeta.CreationTimestamp, p.ObjectMeta.DeletionTimestamp = metav1.Time{}, nil
		p.ObjectMeta.ManagedFields = nil
	}
	if !reflect.DeepEqual(a2, b2) || len(qa) != len(qb) || !a.Qty.Equal(b.Qty) || (a.PQty == nil) != (b.PQty == nil) {
		return false
	}
	if a.PQty != nil && !a.PQty.Equal(*b.PQty) {
		return false
	}
	for k, v := range qa {
		if w, ok := qb[k]; !ok || !v.Equal(w) {
			return false
		}
	}
	return a.Time.Equal(&b.Time) && a.PTime.Equal(b.PTime) && a.Micro.Equal(&b.Micro) &&
		a.CreationTimestamp.Equal(&b.CreationTimestamp) && a.DeletionTimestamp.Equal(b.DeletionTimestamp) &&
		reflect.DeepEqual(stripTimes(a.ManagedFields), stripTimes(b.ManagedFields))
}

func stripTimes(in []metav1.ManagedFieldsEntry) []metav1.ManagedFieldsEntry {
	out := make([]metav1.ManagedFieldsEntry, len(in))
	for i, e := range in {
		if e.Time != nil {
			e.Time = ptr(metav1.Unix(e.Time.Unix(), 0))
		}
		out[i] = e
	}
	return out
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestEncodingLayout checks the exact bytes of the rules Kubernetes'
// marshallers follow.
func TestEncodingLayout(t *testing.T) {
	type scalars struct {
		S  string  `protobuf:"bytes,1,opt,name=s"`
		I  int32   `protobuf:"varint,2,opt,name=i"`
		P  *string `protobuf:"bytes,3,opt,name=p"`
		B  []byte  `protobuf:"bytes,4,opt,name=b"`
		R  []int32 `protobuf:"varint,5,rep,name=r"`
		Ch child   `protobuf:"bytes,6,opt,name=ch"`
	}
	type specials struct {
		T  metav1.Time        `protobuf:"bytes,1,opt,name=t"`
		PT *metav1.Time       `protobuf:"bytes,2,opt,name=pt"`
		M  metav1.MicroTime   `protobuf:"bytes,3,opt,name=m"`
		Q  resource.Quantity  `protobuf:"bytes,4,opt,name=q"`
		IS intstr.IntOrString `protobuf:"bytes,5,opt,name=is"`
	}
	type maps struct {
		M map[string]string `protobuf:"bytes,1,rep,name=m"`
		B map[string][]byte `protobuf:"bytes,2,rep,name=b"`
	}
	type values []string
	type wrapped struct {
		W map[string]values `protobuf:"bytes,1,rep,name=w"`
	}
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"zero scalars are written, nil pointers and slices are not", &scalars{},
			"0a00 1000 3204 0a00 1000"},
		{"values", &scalars{S: "a", I: -1, P: ptr(""), B: []byte{}, R: []int32{1, 2}, Ch: child{Name: "b", N: 300}},
			"0a0161 10ffffffffffffffffff01 1a00 2200 2801 2802 3206 0a0162 10ac02"},
		{"zero times are empty messages", &specials{PT: &metav1.Time{}},
			"0a00 1200 1a00 2203 0a0130 2a06 0800 1000 1a00"},
		{"times drop nanoseconds, micro times keep microseconds",
			&specials{T: metav1.NewTime(time.Unix(1, 999)), M: metav1.NewMicroTime(time.Unix(1, 1999)), Q: resource.MustParse("100m"), IS: intstr.FromString("a")},
			"0a04 0801 1000 1a05 0801 10e807 2206 0a043130306d 2a07 0801 1000 1a0161"},
		{"map entries sorted by key, nil []byte values left out", &maps{M: map[string]string{"b": "2", "a": ""}, B: map[string][]byte{"x": nil}},
			"0a05 0a0161 1200 0a06 0a0162 120132 1203 0a0178"},
		{"slice map values are messages {repeated items = 1}", &wrapped{W: map[string]values{"k": {"a", "b"}, "e": {}}},
			"0a05 0a0165 1200 0a0b 0a016b 1206 0a0161 0a0162"},
	}
	c := NewCodec()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.Marshal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if want := mustHex(t, tt.want); !bytes.Equal(got, want) {
				t.Fatalf("got  %x\nwant %x", got, want)
			}
		})
	}
	// Slice map values decode back, empty ones as empty slices.
	data, _ := c.Marshal(&wrapped{W: map[string]values{"k": {"a", "b"}, "e": {}}})
	var back wrapped
	if err := c.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.W) != 2 || strings.Join(back.W["k"], ",") != "a,b" || back.W["e"] == nil || len(back.W["e"]) != 0 {
		t.Errorf("decoded %#v", back.W)
	}
}

func TestDecodeLeniency(t *testing.T) {
	tests := []struct {
		name  string
		data  string
		check func(*sample) bool
	}{
		{"packed repeated varints", "5203 01 02 03", func(s *sample) bool { return reflect.DeepEqual(s.Ints, []int64{1, 2, 3}) }},
		{"packed and unpacked mixed", "5001 5202 0203", func(s *sample) bool { return reflect.DeepEqual(s.Ints, []int64{1, 2, 3}) }},
		{"unknown fields of every wire type are skipped",
			"c00201 c9020102030405060708 d20202aabb dd0201020304 e302 0801 e402 1201 61",
			func(s *sample) bool { return s.Str == "a" }},
		{"the last scalar wins", "120161 120162", func(s *sample) bool { return s.Str == "b" }},
		{"repeated messages merge", "7203 0a0161 7202 1005", func(s *sample) bool { return s.Child == child{Name: "a", N: 5} }},
		{"a map entry without a value", "5a03 0a0161", func(s *sample) bool { v, ok := s.Map["a"]; return ok && v == "" }},
		{"int32 keeps the low bits", "18 ffffffff0f", func(s *sample) bool { return s.Int32 == -1 }},
		{"far field numbers", "c2b80203 666172", func(s *sample) bool { return s.Far == "far" }},
		{"an empty wrapper is an empty slice", "d20100", func(s *sample) bool { return s.Verbs != nil && len(s.Verbs) == 0 }},
	}
	c := NewCodec()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s sample
			if err := c.Unmarshal(mustHex(t, tt.data), &s); err != nil {
				t.Fatal(err)
			}
			if !tt.check(&s) {
				t.Fatalf("unexpected result %+v", s)
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"truncated varint", "18ff", "unexpected end of data"},
		{"truncated length", "1205 61", "unexpected end of data"},
		{"varint too long", "18 ffffffffffffffffffff01", "overflows"},
		{"field number zero", "0001", "invalid field number 0"},
		{"wrong wire type", "1a0161", "int32: wire type 2 cannot hold a int32"},
		{"wrong wire type deep", "8201 06 0a0178 120178", "children[0].n: wire type 2 cannot hold a int32"},
		{"invalid quantity", "a201 05 0a03 78797a", "qty: "},
		{"invalid quantity in a map", "6a 0a 0a03637075 1203 0a0178", `qMap["cpu"]: `},
		{"invalid IntOrString type", "b201 02 0807", "ios: invalid IntOrString type 7"},
		{"unexpected end group", "0c", "invalid wire type 4"},
		{"unterminated group", "0b 0801", "unexpected end of data"},
		{"mismatched group", "0b 14", "group 1 ended by field 2"},
		{"invalid wire type", "0e", "invalid wire type 6"},
	}
	c := NewCodec()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s sample
			err := c.Unmarshal(mustHex(t, tt.data), &s)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got error %v, want one containing %q", err, tt.want)
			}
		})
	}
	if err := c.Unmarshal(nil, sample{}); err == nil {
		t.Fatal("decoding into a non-pointer succeeded")
	}
	var pe *PathError
	err := c.Unmarshal(mustHex(t, "8201 06 0a0178 120178"), &sample{})
	if !errors.As(err, &pe) || !reflect.DeepEqual(pe.Path, []string{"children", "[0]", "n"}) {
		t.Fatalf("got %#v, want a PathError at children[0].n", err)
	}
}

func TestUnsupportedTypes(t *testing.T) {
	type untagged struct {
		A string `json:"a"`
	}
	type badTag struct {
		A string `protobuf:"bytes,x,opt"`
	}
	type wrongWire struct {
		A string `protobuf:"varint,1,opt,name=a"`
	}
	type duplicate struct {
		A string `protobuf:"bytes,1,opt,name=a"`
		B string `protobuf:"bytes,1,opt,name=b"`
	}
	type intKeys struct {
		M map[int]string `protobuf:"bytes,1,rep,name=m"`
	}
	type iface struct {
		V any `protobuf:"bytes,1,opt,name=v"`
	}
	type repScalar struct {
		A string `protobuf:"bytes,1,rep,name=a"`
	}
	type nested struct {
		C untagged `protobuf:"bytes,1,opt,name=c"`
	}
	type reserved struct {
		A string `protobuf:"bytes,19001,opt,name=a"`
	}
	tests := []struct {
		v    any
		want string
	}{
		{untagged{}, "has no protobuf tag"},
		{badTag{}, "invalid field number"},
		{wrongWire{}, "is not encoded as varint"},
		{duplicate{}, "field number 1 is also A"},
		{intKeys{}, "is not a string"},
		{iface{}, "has no protobuf encoding"},
		{repScalar{}, "not opt"},
		{nested{}, "untagged.A has no protobuf tag"},
		{reserved{}, "invalid field number"},
		{metav1.Table{}, "has no protobuf tag"},
	}
	c := NewCodec()
	for _, tt := range tests {
		err := c.Supports(reflect.TypeOf(tt.v))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%T: got %v, want an error containing %q", tt.v, err, tt.want)
		}
		if _, err := c.Marshal(tt.v); err == nil {
			t.Errorf("%T: Marshal succeeded", tt.v)
		}
	}
}

func TestMetaTypesSupported(t *testing.T) {
	c := NewCodec()
	for _, v := range []any{
		&metav1.Status{}, &metav1.DeleteOptions{}, &metav1.ListOptions{}, &metav1.GetOptions{},
		&metav1.CreateOptions{}, &metav1.UpdateOptions{}, &metav1.PatchOptions{}, &metav1.WatchEvent{},
		&metav1.APIResourceList{}, &metav1.APIGroupList{}, &metav1.APIVersions{},
		&metav1.PartialObjectMetadata{}, &metav1.PartialObjectMetadataList{}, &metav1.TableOptions{},
		&metav1.LabelSelector{}, &metav1.Condition{},
	} {
		if err := c.Supports(reflect.TypeOf(v)); err != nil {
			t.Errorf("%T: %v", v, err)
		}
	}
}

func TestRecursiveType(t *testing.T) {
	type node struct {
		Name string `protobuf:"bytes,1,opt,name=name"`
		Next *node  `protobuf:"bytes,2,opt,name=next"`
		Kids []node `protobuf:"bytes,3,rep,name=kids"`
	}
	in := &node{Name: "a", Next: &node{Name: "b"}, Kids: []node{{Name: "c", Next: &node{Name: "d"}}}}
	c := NewCodec()
	data, err := c.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out node
	if err := c.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, &out) {
		t.Fatalf("got %+v", out)
	}
	// A chain deeper than maxDepth is refused, not followed.
	var chain []byte
	for range maxDepth + 5 {
		msg := appendKey(nil, 2, wireBytes)
		msg = appendBytes(msg, chain)
		chain = msg
	}
	if err := c.Unmarshal(chain, &out); err == nil || !strings.Contains(err.Error(), "nested deeper") {
		t.Fatalf("got %v, want a depth error", err)
	}
}

func TestRawExtensionObject(t *testing.T) {
	type holder struct {
		R runtime.RawExtension `protobuf:"bytes,1,opt,name=r"`
	}
	c := NewCodec()
	st := &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Code: 7}
	data, err := c.Marshal(&holder{R: runtime.RawExtension{Object: st}})
	if err != nil {
		t.Fatal(err)
	}
	var out holder
	if err := c.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	if want := `{"kind":"Status","apiVersion":"v1","metadata":{},"code":7}`; string(out.R.Raw) != want {
		t.Fatalf("got %s, want %s", out.R.Raw, want)
	}
}

func TestEndMessageShifts(t *testing.T) {
	for _, n := range []int{0, 1, 127, 128, 16383, 16384, 1 << 21} {
		b := []byte{0xff}
		b, start := beginMessage(b)
		b = append(b, bytes.Repeat([]byte{7}, n)...)
		b = endMessage(b, start)
		l, k, err := consumeVarint(b[1:])
		if err != nil || int(l) != n || len(b) != 1+k+n || b[0] != 0xff {
			t.Fatalf("n=%d: length %d (%v), total %d", n, l, err, len(b))
		}
		if n > 0 && (b[1+k] != 7 || b[len(b)-1] != 7) {
			t.Fatalf("n=%d: content moved wrong", n)
		}
	}
}
