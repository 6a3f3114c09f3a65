// Package explain renders the documentation of a resource, or of a field
// path in it, from the server's OpenAPI v3 document of the resource's
// group version, laid out as kubectl explain lays it out.
package explain

import (
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"

	"kubecore.io/apimachinery/pkg/runtime/schema"
)

// schemaObj is an OpenAPI schema (or any JSON object) as decoded into Go
// maps.
type schemaObj = map[string]any

// Error is an explain failure, printed as it is ("error: field ...").
type Error string

func (e Error) Error() string { return string(e) }

// Render writes the explanation of fieldPath in the resource gvr of doc,
// the OpenAPI v3 document of gvr's group version, to w. With recursive,
// fields are listed with their own fields, without descriptions. A field
// path that leads nowhere is an Error after the resource's header.
func Render(w io.Writer, doc schemaObj, gvr schema.GroupVersionResource, fieldPath []string, recursive bool) error {
	gvk := findGVK(doc, gvr)
	if gvk == nil {
		return Error(fmt.Sprintf("error: GVR (%s) not found in OpenAPI schema", gvr))
	}
	var b strings.Builder
	if g, _ := gvk["group"].(string); g != "" {
		fmt.Fprintf(&b, "GROUP:      %s\n", g)
	}
	fmt.Fprintf(&b, "KIND:       %v\nVERSION:    %v\n\n", gvk["kind"], gvk["version"])
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	root := findSchema(doc, gvk)
	if root == nil {
		return Error(fmt.Sprintf("error: GVK %v not found in OpenAPI schema", gvk))
	}
	r := renderer{doc: doc, recursive: recursive}
	body := r.output(root, fieldPath, nil)
	if body == "" {
		last := ""
		if len(fieldPath) > 0 {
			last = fieldPath[len(fieldPath)-1]
		}
		return Error(fmt.Sprintf("error: field %q does not exist", last))
	}
	_, err := io.WriteString(w, body+"\n")
	return err
}

// findGVK reads the kind of gvr from the operations of its paths: the
// list and item paths, cluster-wide and namespaced.
func findGVK(doc schemaObj, gvr schema.GroupVersionResource) schemaObj {
	prefix := "/apis/" + gvr.Group
	if gvr.Group == "" {
		prefix = "/api"
	}
	base := prefix + "/" + gvr.Version
	paths, _ := doc["paths"].(schemaObj)
	for _, p := range []string{
		base + "/" + gvr.Resource,
		base + "/" + gvr.Resource + "/{name}",
		base + "/namespaces/{namespace}/" + gvr.Resource,
		base + "/namespaces/{namespace}/" + gvr.Resource + "/{name}",
	} {
		item, _ := paths[p].(schemaObj)
		for _, method := range []string{"get", "post", "put", "patch", "delete"} {
			op, _ := item[method].(schemaObj)
			if gvk, ok := op["x-kubernetes-group-version-kind"].(schemaObj); ok && len(gvk) > 0 {
				return gvk
			}
		}
	}
	return nil
}

// findSchema returns the component schema of gvk.
func findSchema(doc schemaObj, gvk schemaObj) schemaObj {
	components, _ := doc["components"].(schemaObj)
	schemas, _ := components["schemas"].(schemaObj)
	for _, name := range sortedKeys(schemas) {
		s, _ := schemas[name].(schemaObj)
		kinds, _ := s["x-kubernetes-group-version-kind"].([]any)
		if slices.ContainsFunc(kinds, func(k any) bool { return reflect.DeepEqual(k, any(gvk)) }) {
			return s
		}
	}
	return nil
}

// renderer walks schemas of one document. Refs already followed on the
// way to a schema (its history) are not followed again, which ends the
// walk of recursive types.
type renderer struct {
	doc       schemaObj
	recursive bool
}

// history is the set of refs followed so far.
type history map[string]bool

func (h history) with(ref string) history {
	out := make(history, len(h)+1)
	for k := range h {
		out[k] = true
	}
	out[ref] = true
	return out
}

// resolve returns the schema a "#/components/schemas/NAME" ref points at.
func (r *renderer) resolve(ref string) schemaObj {
	name, ok := strings.CutPrefix(ref, "#/components/schemas/")
	if !ok {
		return nil
	}
	components, _ := r.doc["components"].(schemaObj)
	schemas, _ := components["schemas"].(schemaObj)
	s, _ := schemas[name].(schemaObj)
	return s
}

// resolved is s, or what its $ref points at.
func (r *renderer) resolved(s schemaObj) (schemaObj, string) {
	ref, _ := s["$ref"].(string)
	if t := r.resolve(ref); t != nil {
		return t, ref
	}
	return s, ref
}

// output follows path from s and renders what it leads to: its
// description and fields; "" when the path leads nowhere.
func (r *renderer) output(s schemaObj, path []string, seen history) string {
	res, ref := r.resolved(s)
	next := seen.with(ref)
	if len(path) == 0 {
		var b strings.Builder
		b.WriteString("DESCRIPTION:\n")
		desc := r.description(res)
		if desc == "" {
			desc = "<empty>"
		}
		b.WriteString(indent(wrap(desc, 76), 4) + "\n")
		if docs := externalDocs(res, 0); docs != "" {
			b.WriteString("\n" + docs)
		}
		if fields := r.fieldList(res, 1, nil); fields != "" {
			b.WriteString("FIELDS:\n" + fields)
		}
		return b.String()
	}
	if ref != "" && seen[ref] {
		return "" // a cycle
	}
	props, _ := res["properties"].(schemaObj)
	if sub, ok := props[path[0]].(schemaObj); ok && truthy(props[path[0]]) {
		var b strings.Builder
		if len(path) == 1 {
			fmt.Fprintf(&b, "FIELD: %s <%s>\n%s\n\n", path[0], r.typeGuess(sub), enumList(sub, true, -1, 0))
		}
		b.WriteString(r.output(sub, path[1:], nil))
		return b.String()
	}
	if items := schemaOf(res, "items"); items != nil {
		return r.output(items, path, next)
	}
	if ap := schemaOf(res, "additionalProperties"); ap != nil {
		return r.output(ap, path, next)
	}
	allOf, _ := res["allOf"].([]any)
	for _, a := range allOf {
		if sub, ok := a.(schemaObj); ok {
			if out := r.output(sub, path, next); out != "" {
				return out
			}
		}
	}
	return ""
}

// fieldList lists the fields of s at an indentation of level, with their
// own fields when recursive, else with their descriptions.
func (r *renderer) fieldList(s schemaObj, level int, seen history) string {
	if ref, _ := s["$ref"].(string); ref != "" && seen[ref] {
		return ""
	}
	res, ref := r.resolved(s)
	next := seen.with(ref)
	var b strings.Builder
	props, _ := res["properties"].(schemaObj)
	for _, name := range sortedKeys(props) {
		b.WriteString(r.fieldDetail(name, res, level))
		if r.recursive {
			if sub, ok := props[name].(schemaObj); ok {
				b.WriteString(r.fieldList(sub, level+1, next))
			}
		}
	}
	allOf, _ := res["allOf"].([]any)
	for _, a := range allOf {
		if sub, ok := a.(schemaObj); ok {
			b.WriteString(r.fieldList(sub, level, next))
		}
	}
	if items := schemaOf(res, "items"); items != nil {
		b.WriteString(r.fieldList(items, level, next))
	}
	if ap := schemaOf(res, "additionalProperties"); ap != nil {
		b.WriteString(r.fieldList(ap, level, next))
	}
	return b.String()
}

// fieldDetail is one field of parent: its name, type and whether it is
// required, then (unless recursive) its description.
func (r *renderer) fieldDetail(name string, parent schemaObj, level int) string {
	pad := level * 2
	props, _ := parent["properties"].(schemaObj)
	field, _ := props[name].(schemaObj)
	var b strings.Builder
	fmt.Fprintf(&b, "%s%s\t<%s>", strings.Repeat(" ", pad), name, r.typeGuess(field))
	if required, _ := parent["required"].([]any); slices.Contains(required, any(name)) {
		b.WriteString(" -required-")
	}
	b.WriteString(enumList(field, false, 4, pad) + "\n")
	if r.recursive {
		return b.String()
	}
	desc, _ := field["description"].(string)
	if desc == "" {
		desc = "<no description>"
	}
	b.WriteString(indent(wrap(desc, 78-pad), pad+2) + "\n")
	b.WriteString(externalDocs(field, pad+2))
	b.WriteString("\n")
	return b.String()
}

// description joins the descriptions of s and of the schemas it is made
// of (allOf, items, map values), one a line.
func (r *renderer) description(s schemaObj) string {
	res, _ := r.resolved(s)
	var b strings.Builder
	if d, _ := res["description"].(string); d != "" {
		b.WriteString(d + "\n")
	}
	allOf, _ := res["allOf"].([]any)
	for _, a := range allOf {
		if sub, ok := a.(schemaObj); ok {
			b.WriteString(r.description(sub))
		}
	}
	if items := schemaOf(res, "items"); items != nil {
		b.WriteString(r.description(items))
	}
	if ap := schemaOf(res, "additionalProperties"); ap != nil {
		b.WriteString(r.description(ap))
	}
	return b.String()
}

// typeGuess names the type of s as kubectl does: string, integer, a
// kind's name, []T, map[string]T, or Object.
func (r *renderer) typeGuess(s schemaObj) string {
	if items := schemaOf(s, "items"); items != nil {
		return "[]" + r.typeGuess(items)
	}
	if ap := schemaOf(s, "additionalProperties"); ap != nil {
		return "map[string]" + r.typeGuess(ap)
	}
	allOf, _ := s["allOf"].([]any)
	if len(allOf) == 1 && !truthy(s["properties"]) {
		if sub, ok := allOf[0].(schemaObj); ok {
			return r.typeGuess(sub)
		}
	}
	typ, _ := s["type"].(string)
	if ref, _ := s["$ref"].(string); ref != "" {
		target := r.resolve(ref)
		targetType, _ := target["type"].(string)
		if target == nil || targetType == "" || targetType == "object" {
			name := ref[strings.LastIndex(ref, "/")+1:]
			if short := name[strings.LastIndex(name, ".")+1:]; short != "" {
				return short
			}
			return "Object"
		}
		return targetType
	}
	if typ == "" || typ == "object" {
		return "Object"
	}
	return typ
}

// enumList renders the values a field may take: on their own lines under
// "ENUM:" in the long view of one field, else on an "enum:" line of at
// most limit values.
func enumList(s schemaObj, long bool, limit, pad int) string {
	values, _ := s["enum"].([]any)
	if len(values) == 0 {
		return ""
	}
	var b strings.Builder
	if long {
		b.WriteString("ENUM:")
	} else {
		b.WriteString("\n" + strings.Repeat(" ", pad) + "enum: ")
	}
	for i, v := range values {
		if limit >= 0 && i >= limit {
			b.WriteString(", ....")
			break
		}
		switch {
		case long:
			b.WriteString("\n    ")
		case i > 0:
			b.WriteString(", ")
		}
		if str, ok := v.(string); ok && str == "" {
			b.WriteString(`""`)
		} else {
			fmt.Fprint(&b, v)
		}
	}
	return b.String()
}

// externalDocs renders a schema's externalDocs at an indentation of pad.
func externalDocs(s schemaObj, pad int) string {
	docs, _ := s["externalDocs"].(schemaObj)
	if !truthy(docs) {
		return ""
	}
	var b strings.Builder
	b.WriteString(indent("EXTERNAL DOCS:", pad) + "\n")
	if d, _ := docs["description"].(string); d != "" {
		b.WriteString(indent(wrap(d, 76-pad), pad+4) + "\n")
	}
	if u, _ := docs["url"].(string); u != "" {
		b.WriteString(indent("URL: "+u, pad+4) + "\n")
	}
	return b.String()
}

// schemaOf returns s[key] when it is a schema with something in it (an
// empty schema or a bool counts as none).
func schemaOf(s schemaObj, key string) schemaObj {
	sub, ok := s[key].(schemaObj)
	if !ok || len(sub) == 0 {
		return nil
	}
	return sub
}

// truthy is a JSON value's truth as a template sees it: not empty, not
// zero, not false.
func truthy(v any) bool {
	switch t := v.(type) {
	case nil:
		return false
	case bool:
		return t
	case string:
		return t != ""
	case map[string]any:
		return len(t) > 0
	case []any:
		return len(t) > 0
	case float64:
		return t != 0
	}
	return true
}

func sortedKeys(m schemaObj) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// indent puts n spaces before every line of s.
func indent(s string, n int) string {
	pad := strings.Repeat(" ", n)
	return pad + strings.ReplaceAll(s, "\n", "\n"+pad)
}
