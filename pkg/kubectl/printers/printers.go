// Package printers prints what kubectl shows: the server's Tables as
// aligned columns, and objects as YAML, JSON, names, JSONPath,
// custom columns or Go templates.
package printers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/template"

	"sigs.k8s.io/yaml"

	"kubecore.io/client/dynamic"
	"kubecore.io/client/util/jsonpath"
)

// ResourcePrinter prints one object (a List prints its items as one list).
type ResourcePrinter interface {
	PrintObj(obj *dynamic.Unstructured, w io.Writer) error
}

// ResourcePrinterFunc adapts a function to ResourcePrinter.
type ResourcePrinterFunc func(obj *dynamic.Unstructured, w io.Writer) error

// PrintObj calls f.
func (f ResourcePrinterFunc) PrintObj(obj *dynamic.Unstructured, w io.Writer) error { return f(obj, w) }

var _ ResourcePrinter = ResourcePrinterFunc(nil)

// withoutManagedFields returns obj (or each item of a list) without
// metadata.managedFields, which kubectl hides by default.
func withoutManagedFields(obj *dynamic.Unstructured) map[string]any {
	out := dynamic.DeepCopyJSONValue(obj.Object).(map[string]any)
	strip := func(m map[string]any) {
		if md, ok := m["metadata"].(map[string]any); ok {
			delete(md, "managedFields")
		}
	}
	strip(out)
	if items, ok := out["items"].([]any); ok {
		for _, it := range items {
			if m, ok := it.(map[string]any); ok {
				strip(m)
			}
		}
	}
	return out
}

// shown is what the YAML and JSON printers print of obj: all of it with
// showManaged (--show-managed-fields), else obj without managedFields.
func shown(obj *dynamic.Unstructured, showManaged bool) map[string]any {
	if showManaged {
		return obj.Object
	}
	return withoutManagedFields(obj)
}

// YAMLPrinter prints objects as YAML documents, "---" between them.
type YAMLPrinter struct {
	printed int
	// ShowManagedFields keeps metadata.managedFields.
	ShowManagedFields bool
}

// PrintObj prints obj.
func (p *YAMLPrinter) PrintObj(obj *dynamic.Unstructured, w io.Writer) error {
	b, err := yaml.Marshal(shown(obj, p.ShowManagedFields))
	if err != nil {
		return fmt.Errorf("print YAML: %w", err)
	}
	if p.printed > 0 {
		if _, err := io.WriteString(w, "---\n"); err != nil {
			return err
		}
	}
	p.printed++
	_, err = w.Write(b)
	return err
}

// JSONPrinter prints objects as indented JSON.
type JSONPrinter struct {
	// ShowManagedFields keeps metadata.managedFields.
	ShowManagedFields bool
}

// PrintObj prints obj.
func (p JSONPrinter) PrintObj(obj *dynamic.Unstructured, w io.Writer) error {
	b, err := json.MarshalIndent(shown(obj, p.ShowManagedFields), "", "    ")
	if err != nil {
		return fmt.Errorf("print JSON: %w", err)
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

// NamePrinter prints "kind.group/name", followed by Operation when set
// ("configmap/x created").
type NamePrinter struct{ Operation string }

// PrintObj prints obj, or each item of a list.
func (p NamePrinter) PrintObj(obj *dynamic.Unstructured, w io.Writer) error {
	if obj.IsList() {
		for _, it := range obj.Items() {
			if err := p.PrintObj(it, w); err != nil {
				return err
			}
		}
		return nil
	}
	line := ObjectName(obj)
	if p.Operation != "" {
		line += " " + p.Operation
	}
	_, err := fmt.Fprintln(w, line)
	return err
}

// ObjectName returns "kind.group/name" of obj.
func ObjectName(obj *dynamic.Unstructured) string {
	gvk := obj.GroupVersionKind()
	kind := strings.ToLower(gvk.Kind)
	if gvk.Group != "" {
		kind += "." + gvk.Group
	}
	return kind + "/" + obj.GetName()
}

// JSONPathPrinter prints a JSONPath template.
type JSONPathPrinter struct{ jp *jsonpath.JSONPath }

// NewJSONPathPrinter parses tmpl; missing keys print nothing when allowed.
func NewJSONPathPrinter(tmpl string, allowMissing bool) (*JSONPathPrinter, error) {
	jp, err := jsonpath.New("out", tmpl)
	if err != nil {
		return nil, err
	}
	return &JSONPathPrinter{jp: jp.AllowMissingKeys(allowMissing)}, nil
}

// PrintObj prints obj.
func (p *JSONPathPrinter) PrintObj(obj *dynamic.Unstructured, w io.Writer) error {
	var buf bytes.Buffer
	if err := p.jp.Execute(&buf, obj.Object); err != nil {
		return fmt.Errorf("error executing jsonpath %q: Error executing template: %w. Printing more information for debugging the template", "", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// GoTemplatePrinter prints a Go text/template.
type GoTemplatePrinter struct{ t *template.Template }

// NewGoTemplatePrinter parses tmpl.
func NewGoTemplatePrinter(tmpl string) (*GoTemplatePrinter, error) {
	t, err := template.New("output").Funcs(template.FuncMap{
		"exists": func(m map[string]any, key string) bool { _, ok := m[key]; return ok },
	}).Parse(tmpl)
	if err != nil {
		return nil, fmt.Errorf("error parsing template %s, %w", tmpl, err)
	}
	return &GoTemplatePrinter{t: t}, nil
}

// PrintObj prints obj.
func (p *GoTemplatePrinter) PrintObj(obj *dynamic.Unstructured, w io.Writer) error {
	var buf bytes.Buffer
	if err := p.t.Execute(&buf, obj.Object); err != nil {
		return fmt.Errorf("error executing template %q: %w", p.t.Root.String(), err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}
