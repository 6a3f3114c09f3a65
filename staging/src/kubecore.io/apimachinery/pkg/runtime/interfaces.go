// Package runtime maps Go API types to their kinds and resources (the
// Scheme) and encodes and decodes them as JSON or YAML, strictly on request.
package runtime

import (
	"bytes"
	"fmt"
	"io"

	"kubecore.io/apimachinery/pkg/runtime/schema"
)

// Object is an API object: it knows its serialized kind and can copy itself.
// API types get GetObjectKind from an embedded metav1.TypeMeta and
// DeepCopyObject from deepcopy-gen.
type Object interface {
	GetObjectKind() schema.ObjectKind
	DeepCopyObject() Object
}

// Encoder writes an object in some wire format.
type Encoder interface {
	Encode(obj Object, w io.Writer) error
}

// Decoder reads an object from its wire form. defaults fills in parts of the
// kind the data leaves out; into, when not nil, is decoded into if the data
// is of its kind. It returns the object and the kind the data named.
type Decoder interface {
	Decode(data []byte, defaults *schema.GroupVersionKind, into Object) (Object, *schema.GroupVersionKind, error)
}

// Encode returns the encoding of obj.
func Encode(e Encoder, obj Object) ([]byte, error) {
	var buf bytes.Buffer
	if err := e.Encode(obj, &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Decode decodes data into a new object of the kind it names.
func Decode(d Decoder, data []byte) (Object, error) {
	obj, _, err := d.Decode(data, nil, nil)
	return obj, err
}

// DecodeInto decodes data into into. A *StrictDecodingError still leaves
// into decoded.
func DecodeInto(d Decoder, data []byte, into Object) error {
	out, gvk, err := d.Decode(data, nil, into)
	if out != nil && out != into {
		return fmt.Errorf("decode %s into %T: got a %T", describeKind(gvk), into, out)
	}
	return err
}

func describeKind(gvk *schema.GroupVersionKind) string {
	if gvk == nil {
		return "object"
	}
	return fmt.Sprintf("kind %q of apiVersion %q", gvk.Kind, gvk.GroupVersion().String())
}
