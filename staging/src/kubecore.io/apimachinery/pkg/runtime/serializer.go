package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"

	"sigs.k8s.io/yaml"

	"kubecore.io/apimachinery/pkg/runtime/schema"
)

// SerializerOptions choose the wire format of a Serializer.
type SerializerOptions struct {
	// Yaml makes Encode write YAML. Decode reads JSON and YAML either way.
	Yaml bool
	// Pretty makes Encode indent JSON.
	Pretty bool
	// Strict makes Decode return a *StrictDecodingError, alongside the
	// decoded object, when the data has unknown or duplicate fields.
	Strict bool
}

// Serializer encodes and decodes the objects of a scheme as JSON or YAML.
// It is safe for concurrent use.
type Serializer struct {
	scheme *Scheme
	opts   SerializerOptions
}

var (
	_ Encoder = (*Serializer)(nil)
	_ Decoder = (*Serializer)(nil)
)

// NewSerializer returns a serializer of the kinds registered in s.
func NewSerializer(s *Scheme, opts SerializerOptions) *Serializer {
	return &Serializer{scheme: s, opts: opts}
}

// Encode writes obj with its apiVersion and kind set from the scheme. obj
// itself is not modified: when its TypeMeta is not already right, a shallow
// copy carrying the kind is encoded instead. An object of a type the scheme
// does not know is written as it is if it names its own kind.
func (s *Serializer) Encode(obj Object, w io.Writer) error {
	obj, err := s.scheme.withKind(obj)
	if err != nil {
		return err
	}
	switch {
	case s.opts.Yaml:
		data, err := json.Marshal(obj)
		if err != nil {
			return fmt.Errorf("encode %T: %w", obj, err)
		}
		out, err := yaml.JSONToYAML(data)
		if err != nil {
			return fmt.Errorf("encode %T as YAML: %w", obj, err)
		}
		_, err = w.Write(out)
		return err
	case s.opts.Pretty:
		data, err := json.MarshalIndent(obj, "", "  ")
		if err != nil {
			return fmt.Errorf("encode %T: %w", obj, err)
		}
		_, err = w.Write(append(data, '\n'))
		return err
	}
	if err := json.NewEncoder(w).Encode(obj); err != nil {
		return fmt.Errorf("encode %T: %w", obj, err)
	}
	return nil
}

// withKind returns obj, or a shallow copy of it, with its kind set to the
// one it encodes as.
func (s *Scheme) withKind(obj Object) (Object, error) {
	if v := reflect.ValueOf(obj); obj == nil || v.Kind() == reflect.Pointer && v.IsNil() {
		return nil, fmt.Errorf("encode: nil %T", obj)
	}
	current := obj.GetObjectKind().GroupVersionKind()
	gvks, unversioned, err := s.ObjectKinds(obj)
	if err != nil {
		if current.Kind != "" && current.Version != "" {
			return obj, nil
		}
		return nil, err
	}
	want := gvks[0]
	if current == want || !unversioned && slices.Contains(gvks, current) {
		return obj, nil
	}
	v := reflect.ValueOf(obj)
	cp := reflect.New(v.Type().Elem())
	cp.Elem().Set(v.Elem())
	out := cp.Interface().(Object)
	out.GetObjectKind().SetGroupVersionKind(want)
	return out, nil
}

// typeMeta is what Decode reads first. Its layout matches the one
// Kubernetes reads with, so that errors about malformed documents read the
// same.
type typeMeta = struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
}

// Decode decodes JSON or YAML data (YAML unless the first byte that is not
// white space is '{'). The kind comes from the data's apiVersion and kind,
// with missing parts taken from into's registered kind and then from
// defaults. When into is of that kind it is decoded into and returned; when
// into is of a type the scheme does not know, it is decoded into whatever
// the data says; otherwise a new object of the kind is made. The object
// returned has its kind set.
//
// In strict mode unknown and duplicate fields give a *StrictDecodingError
// together with the fully decoded object and its kind.
func (s *Serializer) Decode(data []byte, defaults *schema.GroupVersionKind, into Object) (Object, *schema.GroupVersionKind, error) {
	js, strictErrs, err := s.toJSON(data)
	if err != nil {
		return nil, nil, err
	}
	var tm typeMeta
	if err := s.scheme.json.Unmarshal(js, &tm); err != nil {
		return nil, nil, fmt.Errorf("couldn't get version/kind; json parse error: %w", err)
	}
	gv, err := schema.ParseGroupVersion(tm.APIVersion)
	if err != nil {
		return nil, nil, err
	}
	actual := gv.WithKind(tm.Kind)
	if defaults != nil {
		actual = withDefaults(actual, *defaults)
	}

	var intoKinds []schema.GroupVersionKind
	if into != nil {
		kinds, _, err := s.scheme.ObjectKinds(into)
		if err != nil {
			// A type the scheme does not know (an unstructured object, say)
			// takes the data as it is.
			strict, err := s.unmarshal(js, into)
			if err != nil {
				return nil, &actual, err
			}
			return into, &actual, s.strictError(strictErrs, strict)
		}
		intoKinds = kinds
		actual = withDefaults(actual, kinds[0])
	}
	if actual.Kind == "" {
		return nil, &actual, NewMissingKindErr(string(data))
	}
	if actual.Version == "" {
		return nil, &actual, NewMissingVersionErr(string(data))
	}

	var obj Object
	switch {
	case into != nil && slices.Contains(intoKinds, actual):
		obj = into
	case into != nil:
		return nil, &actual, fmt.Errorf("decode into %T: the data is %s, the type is registered as %s",
			into, describeKind(&actual), describeKind(&intoKinds[0]))
	default:
		if obj, err = s.scheme.New(actual); err != nil {
			return nil, &actual, err
		}
	}
	strict, err := s.unmarshal(js, obj)
	if err != nil {
		return nil, &actual, err
	}
	obj.GetObjectKind().SetGroupVersionKind(actual)
	return obj, &actual, s.strictError(strictErrs, strict)
}

// toJSON converts YAML to JSON. In strict mode duplicate YAML keys, which
// the conversion would silently merge, are returned as strict errors.
func (s *Serializer) toJSON(data []byte) ([]byte, []error, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '{' {
		return data, nil, nil
	}
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, nil, err
	}
	if !s.opts.Strict {
		return js, nil, nil
	}
	if _, err := yaml.YAMLToJSONStrict(data); err != nil {
		return js, []error{err}, nil
	}
	return js, nil, nil
}

func (s *Serializer) unmarshal(js []byte, obj Object) ([]error, error) {
	if s.opts.Strict {
		return s.scheme.json.UnmarshalStrict(js, obj)
	}
	return nil, s.scheme.json.Unmarshal(js, obj)
}

func (s *Serializer) strictError(fromYAML, fromJSON []error) error {
	if !s.opts.Strict || len(fromYAML)+len(fromJSON) == 0 {
		return nil
	}
	return NewStrictDecodingError(append(fromYAML, fromJSON...))
}

// withDefaults fills the empty parts of gvk from defaults, as Kubernetes
// does: the kind; group and version together when both are missing; the
// version alone when the groups agree.
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
