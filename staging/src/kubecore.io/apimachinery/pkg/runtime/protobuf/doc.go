// Package protobuf encodes and decodes API objects in Kubernetes' protobuf
// wire form: proto2 messages laid out by the types' protobuf struct tags.
//
// A Codec reads the tags by reflection, once per type, and encodes exactly
// the bytes Kubernetes' generated marshallers write: every non-pointer field
// (zero or not) in field-number order, pointers and []byte when not nil,
// repeated fields unpacked, and map entries sorted by key. It decodes any
// valid proto2 encoding of the same messages, skipping unknown fields.
//
// The tag is `protobuf:"<wire>,<number>,<opt|rep>,name=<name>"`: wire is
// varint, bytes, fixed32 or fixed64. A slice field tagged opt is a wrapper
// message whose field 1 repeats the elements (metav1.Verbs). A few types
// have their own message forms: metav1.Time and MicroTime are
// {seconds = 1, nanos = 2}, resource.Quantity is {string = 1},
// intstr.IntOrString is {type = 1, intVal = 2, strVal = 3}, and
// runtime.RawExtension and json.RawMessage are {raw = 1}. Exported fields
// without a tag are an error unless they are an embedded metav1.TypeMeta or
// tagged json:"-"; `protobuf:"-"` leaves a field out explicitly.
//
// A Serializer wraps messages in Kubernetes' envelope: the magic prefix
// "k8s\x00", then a runtime.Unknown message carrying apiVersion, kind and
// the object's bytes.
package protobuf
