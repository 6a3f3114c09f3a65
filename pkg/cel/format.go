package cel

import (
	"encoding/base64"
	"net/url"
	"regexp"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"kubecore.io/apimachinery/pkg/util/validation"
)

// FormatType is the type of format.named(...) and format.<name>().
var FormatType = cel.OpaqueType("kubernetes.NamedFormat")

// formatLib is Kubernetes' format library: named string formats whose
// validate returns none when a string is valid, else its errors.
type formatLib struct{}

func (formatLib) LibraryName() string { return "kubecore.format" }

func (formatLib) ProgramOptions() []cel.ProgramOption { return nil }

type namedFormat struct {
	name     string
	validate func(string) []string
}

var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// prefixed validates a generateName-like prefix: a trailing dash is
// allowed.
func prefixed(f func(string) []string) func(string) []string {
	return func(s string) []string {
		if len(s) > 1 && s[len(s)-1] == '-' {
			s = s[:len(s)-1] + "a"
		}
		return f(s)
	}
}

// namedFormats lists the formats by their names.
func namedFormats() []namedFormat {
	return []namedFormat{
		{"dns1123Label", validation.IsDNS1123Label},
		{"dns1123Subdomain", validation.IsDNS1123Subdomain},
		{"dns1035Label", validation.IsDNS1035Label},
		{"qualifiedName", validation.IsQualifiedName},
		{"dns1123LabelPrefix", prefixed(validation.IsDNS1123Label)},
		{"dns1123SubdomainPrefix", prefixed(validation.IsDNS1123Subdomain)},
		{"dns1035LabelPrefix", prefixed(validation.IsDNS1035Label)},
		{"labelValue", validation.IsValidLabelValue},
		{"uri", func(s string) []string {
			if _, err := url.ParseRequestURI(s); err != nil {
				return []string{"invalid URI: " + err.Error()}
			}
			return nil
		}},
		{"uuid", func(s string) []string {
			if !uuidPattern.MatchString(s) {
				return []string{"does not match the UUID format"}
			}
			return nil
		}},
		{"byte", func(s string) []string {
			if _, err := base64.StdEncoding.DecodeString(s); err != nil {
				return []string{"invalid base64"}
			}
			return nil
		}},
		{"date", func(s string) []string {
			if _, err := time.Parse(time.DateOnly, s); err != nil {
				return []string{"invalid date"}
			}
			return nil
		}},
		{"datetime", func(s string) []string {
			if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
				return []string{"invalid datetime"}
			}
			return nil
		}},
	}
}

func newFormat(f namedFormat) ref.Val {
	return opaque[namedFormat]{v: f, typ: FormatType, equal: func(a, b namedFormat) bool { return a.name == b.name }}
}

func (formatLib) CompileOptions() []cel.EnvOption {
	formats := namedFormats()
	byName := map[string]namedFormat{}
	opts := []cel.EnvOption{}
	for _, f := range formats {
		byName[f.name] = f
		opts = append(opts, cel.Function("format."+f.name, cel.Overload("format_"+f.name, nil, FormatType,
			cel.FunctionBinding(func(...ref.Val) ref.Val { return newFormat(f) }))))
	}
	opts = append(opts,
		cel.Function("format.named", cel.Overload("format_named", []*cel.Type{cel.StringType}, cel.OptionalType(FormatType),
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				s, err := str(v)
				if err != nil {
					return err
				}
				f, ok := byName[s]
				if !ok {
					return types.OptionalNone
				}
				return types.OptionalOf(newFormat(f))
			}))),
		cel.Function("validate", cel.MemberOverload("format_validate", []*cel.Type{FormatType, cel.StringType}, cel.OptionalType(cel.ListType(cel.StringType)),
			cel.BinaryBinding(func(fv, sv ref.Val) ref.Val {
				f, err := unwrap[namedFormat](fv)
				if err != nil {
					return err
				}
				s, err := str(sv)
				if err != nil {
					return err
				}
				if msgs := f.validate(s); len(msgs) > 0 {
					return types.OptionalOf(types.DefaultTypeAdapter.NativeToValue(msgs))
				}
				return types.OptionalNone
			}))),
	)
	return opts
}
