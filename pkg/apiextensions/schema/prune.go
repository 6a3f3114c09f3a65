package schema

import (
	"slices"
	"strconv"
	"strings"
)

// objectMetaFields are the fields of metadata that a resource (or an
// embedded resource) keeps; any other is pruned.
var objectMetaFields = []string{
	"name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
	"creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels",
	"annotations", "ownerReferences", "finalizers", "managedFields",
}

// Prune removes from obj, in place, every field the schema does not
// declare (unless x-kubernetes-preserve-unknown-fields keeps it) and
// returns the paths of the removed fields, sorted, as fieldValidation
// reports unknown fields ("spec.foo", ".metadata.bar" style without the
// leading dot).
func Prune(obj map[string]any, s *Structural) []string {
	removed := pruneValue(obj, s, nil, true)
	slices.Sort(removed)
	return removed
}

// pruneValue prunes v per s; path is where v is. resource is true for the
// root of a resource or of an embedded one, whose apiVersion and kind are
// kept and whose metadata is pruned to ObjectMeta's fields.
func pruneValue(v any, s *Structural, path []string, resource bool) []string {
	if s == nil {
		return nil
	}
	var removed []string
	switch t := v.(type) {
	case map[string]any:
		resource = resource || s.EmbeddedResource
		for _, k := range sortedKeys(t) {
			child := append(slices.Clip(path), k)
			if resource && (k == "apiVersion" || k == "kind") {
				continue
			}
			if resource && k == "metadata" {
				removed = append(removed, pruneMetadata(t[k], child)...)
				continue
			}
			switch ps, ok := s.Properties[k]; {
			case ok:
				removed = append(removed, pruneValue(t[k], ps, child, false)...)
			case s.AdditionalProperties != nil:
				removed = append(removed, pruneValue(t[k], s.AdditionalProperties, child, false)...)
			case s.PreserveUnknownFields:
			default:
				delete(t, k)
				removed = append(removed, joinPath(child))
			}
		}
	case []any:
		for i, e := range t {
			removed = append(removed, pruneValue(e, s.Items, appendIndex(path, i), false)...)
		}
	}
	return removed
}

// pruneMetadata keeps only the fields of ObjectMeta.
func pruneMetadata(v any, path []string) []string {
	md, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	var removed []string
	for _, k := range sortedKeys(md) {
		if !slices.Contains(objectMetaFields, k) {
			delete(md, k)
			removed = append(removed, joinPath(append(slices.Clip(path), k)))
		}
	}
	return removed
}

// appendIndex appends "[i]" to the last path element.
func appendIndex(path []string, i int) []string {
	out := slices.Clone(path)
	if len(out) == 0 {
		return []string{"[" + strconv.Itoa(i) + "]"}
	}
	out[len(out)-1] += "[" + strconv.Itoa(i) + "]"
	return out
}

func joinPath(path []string) string { return strings.Join(path, ".") }
