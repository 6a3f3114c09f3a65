package customresource

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/runtime/strictjson"
	"sigs.k8s.io/yaml"

	apischema "kubecore.io/kubecore/pkg/apiextensions/schema"
)

// codec decodes the request bodies of one version's objects as the
// strict serializer decodes built-in kinds: the object with its kind, and
// beside it a *runtime.StrictDecodingError listing the duplicate fields
// and the unknown ones pruning dropped. Defaults are applied.
type codec struct {
	strategy *strategy
	json     *strictjson.Decoder
}

var _ runtime.Decoder = (*codec)(nil)

// Decode implements runtime.Decoder; into is ignored: the result is always
// an *unstructured.Unstructured.
func (c *codec) Decode(data []byte, defaults *schema.GroupVersionKind, _ runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	var strict []error
	js := data
	if trimmed := bytes.TrimLeft(data, " \t\r\n"); len(trimmed) == 0 || trimmed[0] != '{' {
		var err error
		if js, err = yaml.YAMLToJSON(data); err != nil {
			return nil, nil, err
		}
		if _, err := yaml.YAMLToJSONStrict(data); err != nil {
			strict = append(strict, err)
		}
	}
	var m map[string]any
	dups, err := c.json.UnmarshalStrict(js, &m)
	if err != nil {
		return nil, nil, err
	}
	if m == nil {
		return nil, nil, errors.New("the body must be a JSON object")
	}
	strict = append(strict, dups...)
	obj := &unstructured.Unstructured{Object: m}
	gvk := obj.GroupVersionKind()
	if defaults != nil {
		if gvk.Kind == "" {
			gvk.Kind = defaults.Kind
		}
		if obj.GetAPIVersion() == "" {
			gvk.Group, gvk.Version = defaults.Group, defaults.Version
		}
	}
	obj.SetGroupVersionKind(gvk)
	if err := checkMetadata(m["metadata"]); err != nil {
		return nil, &gvk, err
	}
	apischema.Default(m, c.strategy.schema)
	for _, f := range apischema.Prune(m, c.strategy.schema) {
		strict = append(strict, &strictjson.FieldError{Kind: strictjson.UnknownField, Path: f})
	}
	if len(strict) > 0 {
		return obj, &gvk, runtime.NewStrictDecodingError(strict)
	}
	return obj, &gvk, nil
}

// checkMetadata rejects metadata that does not decode as ObjectMeta
// (labels that are not strings, a name that is a number).
func checkMetadata(md any) error {
	if md == nil {
		return nil
	}
	if _, ok := md.(map[string]any); !ok {
		return fmt.Errorf("metadata must be an object, not %T", md)
	}
	data, err := json.Marshal(md)
	if err != nil {
		return err
	}
	var om metav1.ObjectMeta
	if err := json.Unmarshal(data, &om); err != nil {
		return fmt.Errorf("metadata: %w", err)
	}
	return nil
}
