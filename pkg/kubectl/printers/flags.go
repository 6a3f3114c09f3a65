package printers

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"
)

// allowedFormats is what -o accepts, for the error naming them.
const allowedFormats = "custom-columns,custom-columns-file,go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,name,template,templatefile,wide,yaml"

// PrintFlags are the output flags: -o and, for commands that print
// tables, the table options.
type PrintFlags struct {
	OutputFormat string
	Template     string
	// AllowMissingKeys makes templates print nothing for missing fields.
	AllowMissingKeys bool
	// ShowManagedFields keeps metadata.managedFields in YAML and JSON.
	ShowManagedFields bool

	// Table flags (get).
	NoHeaders    bool
	ShowLabels   bool
	LabelColumns []string
	SortBy       string

	// Operation is what a mutating verb did ("created"), printed after
	// names by the default and name outputs.
	Operation string
	// DryRunSuffix is " (dry run)" or " (server dry run)" when set.
	DryRunSuffix string
}

// NewPrintFlags returns flags for a verb doing operation.
func NewPrintFlags(operation string) *PrintFlags {
	return &PrintFlags{Operation: operation, AllowMissingKeys: true}
}

// AddFlags registers -o and --template (and the table flags when table).
func (f *PrintFlags) AddFlags(fs *pflag.FlagSet, table bool) {
	help := "Output format. One of: (json, yaml, name, go-template, go-template-file, template, templatefile, jsonpath, jsonpath-as-json, jsonpath-file)."
	if table {
		help = "Output format. One of: (json, yaml, name, go-template, go-template-file, template, templatefile, jsonpath, jsonpath-as-json, jsonpath-file, custom-columns, custom-columns-file, wide)."
	}
	fs.StringVarP(&f.OutputFormat, "output", "o", f.OutputFormat, help)
	fs.StringVar(&f.Template, "template", f.Template, "Template string or path to template file to use when -o=go-template, -o=go-template-file. The template format is golang templates [http://golang.org/pkg/text/template/#pkg-overview].")
	fs.BoolVar(&f.AllowMissingKeys, "allow-missing-template-keys", f.AllowMissingKeys, "If true, ignore any errors in templates when a field or map key is missing in the template. Only applies to golang and jsonpath output formats.")
	fs.BoolVar(&f.ShowManagedFields, "show-managed-fields", f.ShowManagedFields, "If true, keep the managedFields when printing objects in JSON or YAML format.")
	if table {
		fs.BoolVar(&f.NoHeaders, "no-headers", false, "When using the default or custom-column output format, don't print headers (default print headers).")
		fs.BoolVar(&f.ShowLabels, "show-labels", false, "When printing, show all labels as the last column (default hide labels column)")
		fs.StringSliceVarP(&f.LabelColumns, "label-columns", "L", nil, "Accepts a comma separated list of labels that are going to be presented as columns. Names are case-sensitive. You can also use multiple flag options like -L label1 -L label2...")
		fs.StringVar(&f.SortBy, "sort-by", "", "If non-empty, sort list types using this field specification.  The field specification is expressed as a JSONPath expression (e.g. '{.metadata.name}'). The field in the API resource specified by this JSONPath expression must be an integer or a string.")
	}
}

// IsTable reports whether the output is a server-side Table (default or
// wide).
func (f *PrintFlags) IsTable() bool { return f.OutputFormat == "" || f.OutputFormat == "wide" }

// IsDefault reports whether no -o was given.
func (f *PrintFlags) IsDefault() bool { return f.OutputFormat == "" }

// ToPrinter returns the printer of a non-table output.
func (f *PrintFlags) ToPrinter() (ResourcePrinter, error) {
	format, arg, hasArg := strings.Cut(f.OutputFormat, "=")
	if f.Template != "" && !hasArg {
		arg, hasArg = f.Template, true
	}
	readArg := func() (string, error) {
		b, err := os.ReadFile(arg)
		if err != nil {
			return "", fmt.Errorf("error reading --template %s, %w", arg, err)
		}
		return string(b), nil
	}
	switch format {
	case "":
		return NamePrinter{Operation: f.Operation + f.DryRunSuffix}, nil
	case "name":
		return NamePrinter{}, nil
	case "yaml":
		return &YAMLPrinter{ShowManagedFields: f.ShowManagedFields}, nil
	case "json":
		return JSONPrinter{ShowManagedFields: f.ShowManagedFields}, nil
	case "jsonpath", "jsonpath-file":
		if !hasArg || arg == "" {
			return nil, fmt.Errorf("template format specified but no template given")
		}
		tmpl := arg
		if format == "jsonpath-file" {
			var err error
			if tmpl, err = readArg(); err != nil {
				return nil, err
			}
		}
		return NewJSONPathPrinter(tmpl, f.AllowMissingKeys)
	case "go-template", "template", "go-template-file", "templatefile":
		if !hasArg || arg == "" {
			return nil, fmt.Errorf("template format specified but no template given")
		}
		tmpl := arg
		if strings.HasSuffix(format, "file") {
			var err error
			if tmpl, err = readArg(); err != nil {
				return nil, err
			}
		}
		return NewGoTemplatePrinter(tmpl)
	case "custom-columns":
		return ParseCustomColumns(arg, f.NoHeaders)
	case "custom-columns-file":
		return ParseCustomColumnsFile(arg, f.NoHeaders)
	}
	return nil, fmt.Errorf("unable to match a printer suitable for the output format %q, allowed formats are: %s", f.OutputFormat, allowedFormats)
}
