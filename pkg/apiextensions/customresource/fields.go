package customresource

import (
	"fmt"
	"strconv"

	"kubecore.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"kubecore.io/apimachinery/pkg/fields"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime"

	apiextensionsv1 "kubecore.io/api/apiextensions/v1"

	"kubecore.io/kubecore/pkg/storage"
)

// selectableField is a compiled selectable field: its label in field
// selectors ("spec.color") and the path to its value.
type selectableField struct {
	label string
	path  []string
}

// selectableFields compiles the selectable fields of versions, each label
// once (the validation of the definition has checked the paths).
func selectableFields(versions ...*apiextensionsv1.CustomResourceDefinitionVersion) []selectableField {
	var out []selectableField
	seen := map[string]bool{}
	for _, v := range versions {
		for _, f := range v.SelectableFields {
			path := SplitPath(f.JSONPath)
			label := FieldLabel(f.JSONPath)
			if seen[label] {
				continue
			}
			seen[label] = true
			out = append(out, selectableField{label: label, path: path})
		}
	}
	return out
}

// FieldLabel is the field selector label of a selectable field's path:
// the path without its leading dot.
func FieldLabel(jsonPath string) string {
	if len(jsonPath) > 0 && jsonPath[0] == '.' {
		return jsonPath[1:]
	}
	return jsonPath
}

// attrFunc returns the labels and selectable fields of custom objects:
// metadata.name, metadata.namespace when namespaced, and each of sel,
// empty when the object lacks it.
func attrFunc(namespaced bool, sel []selectableField) storage.AttrFunc {
	return func(obj runtime.Object) (labels.Set, fields.Set, error) {
		u, ok := storage.Unwrap(obj).(*unstructured.Unstructured)
		if !ok {
			return nil, nil, fmt.Errorf("unexpected object of type %T", obj)
		}
		fs := fields.Set{"metadata.name": u.GetName()}
		if namespaced {
			fs["metadata.namespace"] = u.GetNamespace()
		}
		for _, f := range sel {
			fs[f.label] = fieldValue(unstructured.NestedField(u.Object, f.path...))
		}
		return labels.Set(u.GetLabels()), fs, nil
	}
}

// fieldValue formats a string, integer or boolean for a field selector;
// anything else (absent included) is empty.
func fieldValue(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case bool:
		return strconv.FormatBool(t)
	case int64:
		return strconv.FormatInt(t, 10)
	case int:
		return strconv.Itoa(t)
	case float64:
		if t == float64(int64(t)) {
			return strconv.FormatInt(int64(t), 10)
		}
		return strconv.FormatFloat(t, 'g', -1, 64)
	}
	return ""
}
