package cel

import (
	"net/url"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// URLType is the type of url(string).
var URLType = cel.OpaqueType("kubernetes.URL")

// urlsLib is Kubernetes' URL library: url, isURL and the accessors of a
// URL.
type urlsLib struct{}

func (urlsLib) LibraryName() string { return "kubecore.urls" }

func (urlsLib) ProgramOptions() []cel.ProgramOption { return nil }

func newURL(u *url.URL) ref.Val {
	return opaque[*url.URL]{v: u, typ: URLType, equal: func(a, b *url.URL) bool { return a.String() == b.String() }}
}

func parseURL(v ref.Val) ref.Val {
	s, err := str(v)
	if err != nil {
		return err
	}
	u, perr := url.ParseRequestURI(s)
	if perr != nil {
		return types.NewErr("URL parse error during conversion from string: %v", perr)
	}
	return newURL(u)
}

func (urlsLib) CompileOptions() []cel.EnvOption {
	accessor := func(name string, out *cel.Type, f func(*url.URL) ref.Val) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload("url_"+name, []*cel.Type{URLType}, out,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				u, err := unwrap[*url.URL](v)
				if err != nil {
					return err
				}
				return f(u)
			})))
	}
	return []cel.EnvOption{
		cel.Function("url", cel.Overload("string_to_url", []*cel.Type{cel.StringType}, URLType, cel.UnaryBinding(parseURL))),
		cel.Function("isURL", cel.Overload("is_url_string", []*cel.Type{cel.StringType}, cel.BoolType,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				s, err := str(v)
				if err != nil {
					return err
				}
				_, perr := url.ParseRequestURI(s)
				return types.Bool(perr == nil)
			}))),
		cel.Function("string", cel.Overload("url_to_string", []*cel.Type{URLType}, cel.StringType,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				u, err := unwrap[*url.URL](v)
				if err != nil {
					return err
				}
				return types.String(u.String())
			}))),
		accessor("getScheme", cel.StringType, func(u *url.URL) ref.Val { return types.String(u.Scheme) }),
		accessor("getHost", cel.StringType, func(u *url.URL) ref.Val { return types.String(u.Host) }),
		accessor("getHostname", cel.StringType, func(u *url.URL) ref.Val { return types.String(u.Hostname()) }),
		accessor("getPort", cel.StringType, func(u *url.URL) ref.Val { return types.String(u.Port()) }),
		accessor("getEscapedPath", cel.StringType, func(u *url.URL) ref.Val { return types.String(u.EscapedPath()) }),
		accessor("getQuery", cel.MapType(cel.StringType, cel.ListType(cel.StringType)), func(u *url.URL) ref.Val {
			q := map[string][]string(u.Query())
			if q == nil {
				q = map[string][]string{}
			}
			return types.DefaultTypeAdapter.NativeToValue(q)
		}),
	}
}
