package protobuf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
)

// The media types of Kubernetes' protobuf encoding.
const (
	// ContentType is one object in its envelope.
	ContentType = "application/vnd.kubernetes.protobuf"
	// WatchContentType is a watch stream: each event is a 4-byte
	// big-endian length, then a metav1.WatchEvent message whose object is
	// the enveloped object.
	WatchContentType = ContentType + ";stream=watch"
)

// envelopePrefix starts every enveloped object: "k8s", then 0 for "a
// runtime.Unknown message follows".
const envelopePrefix = "k8s\x00"

// maxFrameSize bounds one event of a watch stream that DecodeWatchEvent
// reads.
const maxFrameSize = 64 << 20

// Serializer encodes and decodes the objects of a scheme in Kubernetes'
// protobuf envelope. It is safe for concurrent use.
type Serializer struct {
	scheme *runtime.Scheme
	codec  *Codec
}

var (
	_ runtime.Encoder = (*Serializer)(nil)
	_ runtime.Decoder = (*Serializer)(nil)
)

// NewSerializer returns a serializer of the kinds registered in s.
func NewSerializer(s *runtime.Scheme) *Serializer {
	return &Serializer{scheme: s, codec: NewCodec()}
}

// Codec returns the codec of the bare messages.
func (s *Serializer) Codec() *Codec { return s.codec }

// Supports tells whether obj's type has a protobuf encoding.
func (s *Serializer) Supports(obj runtime.Object) bool {
	return obj != nil && s.codec.Supports(reflect.TypeOf(obj)) == nil
}

// Encode writes obj in its envelope, with the apiVersion and kind the
// scheme registers for its type (or, for a type the scheme does not know,
// the ones obj names itself).
func (s *Serializer) Encode(obj runtime.Object, w io.Writer) error {
	data, err := s.appendObject(nil, obj)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// Marshal returns obj in its envelope.
func (s *Serializer) Marshal(obj runtime.Object) ([]byte, error) {
	return s.appendObject(nil, obj)
}

// IsEnveloped tells whether data starts as an enveloped object does: the
// way to tell it from JSON (which starts with '{').
func IsEnveloped(data []byte) bool {
	return len(data) >= len(envelopePrefix) && string(data[:len(envelopePrefix)]) == envelopePrefix
}

// appendObject appends obj in its envelope.
func (s *Serializer) appendObject(b []byte, obj runtime.Object) ([]byte, error) {
	if v := reflect.ValueOf(obj); obj == nil || v.Kind() == reflect.Pointer && v.IsNil() {
		return nil, fmt.Errorf("encode: nil %T", obj)
	}
	gvk, err := s.kindOf(obj)
	if err != nil {
		return nil, err
	}
	rv := reflect.ValueOf(obj)
	if rv.Kind() == reflect.Pointer {
		rv = rv.Elem()
	}
	msg, err := s.codec.table(rv.Type())
	if err != nil {
		return nil, err
	}
	b = append(b, envelopePrefix...)
	b = appendKey(b, 1, wireBytes)
	b, start := beginMessage(b)
	b = appendKey(b, 1, wireBytes)
	b = appendString(b, gvk.GroupVersion().String())
	b = appendKey(b, 2, wireBytes)
	b = appendString(b, gvk.Kind)
	b = endMessage(b, start)
	b = appendKey(b, 2, wireBytes)
	b, start = beginMessage(b)
	if b, err = appendMessage(b, msg, rv); err != nil {
		return nil, fmt.Errorf("encode %s: %w", rv.Type(), err)
	}
	b = endMessage(b, start)
	// contentEncoding and contentType, both empty.
	b = appendKey(b, 3, wireBytes)
	b = appendString(b, "")
	b = appendKey(b, 4, wireBytes)
	return appendString(b, ""), nil
}

// kindOf returns the kind obj is encoded as.
func (s *Serializer) kindOf(obj runtime.Object) (schema.GroupVersionKind, error) {
	current := obj.GetObjectKind().GroupVersionKind()
	gvks, unversioned, err := s.scheme.ObjectKinds(obj)
	if err != nil {
		if current.Kind != "" && current.Version != "" {
			return current, nil
		}
		return schema.GroupVersionKind{}, err
	}
	if !unversioned && slices.Contains(gvks, current) {
		return current, nil
	}
	return gvks[0], nil
}

// KindOf returns the apiVersion and kind an enveloped object's envelope
// names, without decoding the object.
func KindOf(data []byte) (schema.GroupVersionKind, error) {
	env, err := parseEnvelope(data)
	if err != nil {
		return schema.GroupVersionKind{}, err
	}
	gv, err := schema.ParseGroupVersion(env.apiVersion)
	if err != nil {
		return schema.GroupVersionKind{}, err
	}
	return gv.WithKind(env.kind), nil
}

// envelope is a decoded runtime.Unknown.
type envelope struct {
	apiVersion, kind string
	raw              []byte
	contentEncoding  string
}

// parseEnvelope checks the prefix and reads the runtime.Unknown after it.
func parseEnvelope(data []byte) (envelope, error) {
	var env envelope
	switch {
	case len(data) == 0:
		return env, errors.New("empty data")
	case !IsEnveloped(data):
		return env, fmt.Errorf("provided data does not appear to be a protobuf message, expected prefix %v", []byte(envelopePrefix))
	case len(data) == len(envelopePrefix):
		return env, errors.New("empty body")
	}
	err := eachField(data[len(envelopePrefix):], func(num int, val value) error {
		if num > 4 {
			return nil
		}
		if val.wt != wireBytes {
			return fmt.Errorf("runtime.Unknown field %d: %w", num, wrongWire(val.wt, reflect.TypeFor[string]()))
		}
		switch num {
		case 1:
			return eachField(val.data, func(num int, val value) error {
				if num > 2 {
					return nil
				}
				if val.wt != wireBytes {
					return fmt.Errorf("runtime.TypeMeta field %d: %w", num, wrongWire(val.wt, reflect.TypeFor[string]()))
				}
				if num == 1 {
					env.apiVersion = string(val.data)
				} else {
					env.kind = string(val.data)
				}
				return nil
			})
		case 2:
			env.raw = val.data
		case 3:
			env.contentEncoding = string(val.data)
		}
		return nil
	})
	if err != nil {
		return env, fmt.Errorf("decode the protobuf envelope: %w", err)
	}
	if env.contentEncoding != "" {
		return env, fmt.Errorf("unsupported protobuf content encoding %q", env.contentEncoding)
	}
	return env, nil
}

// Decode decodes an enveloped object. The kind comes from the envelope,
// with missing parts taken from into's registered kind and then from
// defaults. When into is of that kind it is decoded into and returned; when
// into is of a type the scheme does not know, it is decoded into as it is;
// otherwise a new object of the kind is made. The object returned has its
// kind set. Unknown fields are skipped: protobuf has nothing for strict
// decoding to report.
func (s *Serializer) Decode(data []byte, defaults *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	env, err := parseEnvelope(data)
	if err != nil {
		return nil, nil, err
	}
	gv, err := schema.ParseGroupVersion(env.apiVersion)
	if err != nil {
		return nil, nil, err
	}
	actual := gv.WithKind(env.kind)
	if defaults != nil {
		actual = withDefaults(actual, *defaults)
	}
	var intoKinds []schema.GroupVersionKind
	if into != nil {
		kinds, _, err := s.scheme.ObjectKinds(into)
		if err != nil {
			if err := s.codec.Unmarshal(env.raw, into); err != nil {
				return nil, &actual, err
			}
			into.GetObjectKind().SetGroupVersionKind(actual)
			return into, &actual, nil
		}
		intoKinds = kinds
		actual = withDefaults(actual, kinds[0])
	}
	if actual.Kind == "" {
		return nil, &actual, runtime.NewMissingKindErr(describe(env))
	}
	if actual.Version == "" {
		return nil, &actual, runtime.NewMissingVersionErr(describe(env))
	}
	var obj runtime.Object
	switch {
	case into != nil && slices.Contains(intoKinds, actual):
		obj = into
	case into != nil:
		return nil, &actual, fmt.Errorf("decode into %T: the data is kind %q of apiVersion %q, the type is registered as kind %q of apiVersion %q",
			into, actual.Kind, actual.GroupVersion().String(), intoKinds[0].Kind, intoKinds[0].GroupVersion().String())
	default:
		if obj, err = s.scheme.New(actual); err != nil {
			return nil, &actual, err
		}
	}
	if err := s.codec.Unmarshal(env.raw, obj); err != nil {
		return nil, &actual, err
	}
	obj.GetObjectKind().SetGroupVersionKind(actual)
	return obj, &actual, nil
}

func describe(env envelope) string {
	return fmt.Sprintf("apiVersion: %q, kind: %q", env.apiVersion, env.kind)
}

// withDefaults fills the empty parts of gvk from defaults: the kind; group
// and version together when both are missing; the version alone when the
// groups agree.
func withDefaults(gvk, defaults schema.GroupVersionKind) schema.GroupVersionKind {
	if gvk.Kind == "" {
		gvk.Kind = defaults.Kind
	}
	if gvk.Version == "" && gvk.Group == "" {
		gvk.Group = defaults.Group
		gvk.Version = defaults.Version
	}
	if gvk.Version == "" && gvk.Group == defaults.Group {
		gvk.Version = defaults.Version
	}
	return gvk
}

// AppendWatchEvent appends one event of a watch stream (WatchContentType)
// to dst: the frame's 4-byte length, then the metav1.WatchEvent message.
// On error dst is returned unchanged.
func (s *Serializer) AppendWatchEvent(dst []byte, eventType string, obj runtime.Object) ([]byte, error) {
	object, err := s.appendObject(nil, obj)
	if err != nil {
		return dst, err
	}
	return s.AppendEncodedWatchEvent(dst, eventType, object)
}

// AppendEncodedWatchEvent is AppendWatchEvent for an object already
// encoded in its envelope (Encode), as a server shares among watchers.
func (s *Serializer) AppendEncodedWatchEvent(dst []byte, eventType string, object []byte) ([]byte, error) {
	start := len(dst)
	frame := append(dst, 0, 0, 0, 0)
	frame, err := s.codec.Append(frame, &metav1.WatchEvent{Type: eventType, Object: object})
	if err != nil {
		return dst, err
	}
	binary.BigEndian.PutUint32(frame[start:], uint32(len(frame)-start-4))
	return frame, nil
}

// DecodeWatchEvent reads one event of a watch stream from r. It returns
// io.EOF at the end of the stream. An event's object is decoded with the
// scheme; an ERROR event's metav1.Status, which schemes do not register,
// too.
func (s *Serializer) DecodeWatchEvent(r io.Reader) (string, runtime.Object, error) {
	ev, err := s.ReadWatchEvent(r)
	if err != nil {
		return "", nil, err
	}
	var into runtime.Object
	if env, err := parseEnvelope(ev.Object); err == nil && env.kind == "Status" && env.apiVersion == "v1" {
		into = &metav1.Status{}
	}
	obj, _, err := s.Decode(ev.Object, nil, into)
	if err != nil {
		return "", nil, fmt.Errorf("decode the object of a %s event: %w", ev.Type, err)
	}
	return ev.Type, obj, nil
}

// ReadWatchEvent reads one event of a watch stream from r, leaving its
// object enveloped for the caller to decode (Decode). It returns io.EOF at
// the end of the stream.
func (s *Serializer) ReadWatchEvent(r io.Reader) (metav1.WatchEvent, error) {
	var size [4]byte
	if _, err := io.ReadFull(r, size[:]); err != nil {
		return metav1.WatchEvent{}, err
	}
	n := binary.BigEndian.Uint32(size[:])
	if n > maxFrameSize {
		return metav1.WatchEvent{}, fmt.Errorf("watch event of %d bytes exceeds the limit of %d", n, maxFrameSize)
	}
	frame := make([]byte, n)
	if _, err := io.ReadFull(r, frame); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return metav1.WatchEvent{}, fmt.Errorf("read watch event: %w", err)
	}
	var ev metav1.WatchEvent
	if err := s.codec.Unmarshal(frame, &ev); err != nil {
		return metav1.WatchEvent{}, err
	}
	return ev, nil
}
