package cel

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// SemverType is the type of semver(string).
var SemverType = cel.OpaqueType("kubernetes.Semver")

// semverLib is Kubernetes' semantic version library.
type semverLib struct{}

func (semverLib) LibraryName() string { return "kubecore.semver" }

func (semverLib) ProgramOptions() []cel.ProgramOption { return nil }

// version is a semantic version (semver.org 2.0.0).
type version struct {
	major, minor, patch uint64
	pre                 []string
	build               string
}

func (v version) String() string {
	s := fmt.Sprintf("%d.%d.%d", v.major, v.minor, v.patch)
	if len(v.pre) > 0 {
		s += "-" + strings.Join(v.pre, ".")
	}
	if v.build != "" {
		s += "+" + v.build
	}
	return s
}

func validIdent(s string, numericNoLeadingZero bool) bool {
	if s == "" {
		return false
	}
	numeric := true
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '-':
			numeric = false
		default:
			return false
		}
	}
	return !(numeric && numericNoLeadingZero && len(s) > 1 && s[0] == '0')
}

// parseSemver parses a version; normalize accepts a leading "v", a
// missing minor or patch, and leading zeros, as Kubernetes' semver(s,
// true) does.
func parseSemver(s string, normalize bool) (version, error) {
	var v version
	in := s
	if normalize {
		s = strings.TrimPrefix(s, "v")
	}
	if i := strings.IndexByte(s, '+'); i >= 0 {
		v.build = s[i+1:]
		s = s[:i]
		for _, id := range strings.Split(v.build, ".") {
			if !validIdent(id, false) {
				return version{}, fmt.Errorf("invalid build metadata %q in %q", v.build, in)
			}
		}
	}
	if i := strings.IndexByte(s, '-'); i >= 0 {
		v.pre = strings.Split(s[i+1:], ".")
		s = s[:i]
		for _, id := range v.pre {
			if !validIdent(id, true) {
				return version{}, fmt.Errorf("invalid prerelease %q in %q", id, in)
			}
		}
	}
	parts := strings.Split(s, ".")
	if normalize {
		for len(parts) < 3 {
			parts = append(parts, "0")
		}
	}
	if len(parts) != 3 {
		return version{}, fmt.Errorf("no Major.Minor.Patch elements found in %q", in)
	}
	nums := make([]uint64, 3)
	for i, p := range parts {
		if p == "" || (!normalize && len(p) > 1 && p[0] == '0') {
			return version{}, fmt.Errorf("invalid version number %q in %q", p, in)
		}
		n, err := strconv.ParseUint(p, 10, 64)
		if err != nil {
			return version{}, fmt.Errorf("invalid version number %q in %q", p, in)
		}
		nums[i] = n
	}
	v.major, v.minor, v.patch = nums[0], nums[1], nums[2]
	return v, nil
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// compareSemver orders versions by precedence; build metadata does not
// count.
func compareSemver(a, b version) int {
	for _, c := range []int{cmpUint(a.major, b.major), cmpUint(a.minor, b.minor), cmpUint(a.patch, b.patch)} {
		if c != 0 {
			return c
		}
	}
	switch {
	case len(a.pre) == 0 && len(b.pre) == 0:
		return 0
	case len(a.pre) == 0:
		return 1
	case len(b.pre) == 0:
		return -1
	}
	for i := 0; i < len(a.pre) && i < len(b.pre); i++ {
		x, y := a.pre[i], b.pre[i]
		xn, xerr := strconv.ParseUint(x, 10, 64)
		yn, yerr := strconv.ParseUint(y, 10, 64)
		var c int
		switch {
		case xerr == nil && yerr == nil:
			c = cmpUint(xn, yn)
		case xerr == nil:
			c = -1
		case yerr == nil:
			c = 1
		default:
			c = strings.Compare(x, y)
		}
		if c != 0 {
			return c
		}
	}
	return cmpUint(uint64(len(a.pre)), uint64(len(b.pre)))
}

func newSemver(v version) ref.Val {
	return opaque[version]{v: v, typ: SemverType, equal: func(a, b version) bool { return compareSemver(a, b) == 0 }}
}

func (semverLib) CompileOptions() []cel.EnvOption {
	parse := func(args ...ref.Val) ref.Val {
		s, err := str(args[0])
		if err != nil {
			return err
		}
		normalize := len(args) > 1 && args[1] == types.True
		v, perr := parseSemver(s, normalize)
		if perr != nil {
			return types.NewErr("Semver parse error during conversion from string: %v", perr)
		}
		return newSemver(v)
	}
	is := func(args ...ref.Val) ref.Val {
		s, err := str(args[0])
		if err != nil {
			return err
		}
		_, perr := parseSemver(s, len(args) > 1 && args[1] == types.True)
		return types.Bool(perr == nil)
	}
	part := func(name string, f func(version) uint64) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload("semver_"+name, []*cel.Type{SemverType}, cel.IntType,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				s, err := unwrap[version](v)
				if err != nil {
					return err
				}
				return types.Int(f(s))
			})))
	}
	cmp := func(name string, out *cel.Type, f func(int) ref.Val) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload("semver_"+name, []*cel.Type{SemverType, SemverType}, out,
			cel.BinaryBinding(func(x, y ref.Val) ref.Val {
				a, err := unwrap[version](x)
				if err != nil {
					return err
				}
				b, err := unwrap[version](y)
				if err != nil {
					return err
				}
				return f(compareSemver(a, b))
			})))
	}
	return []cel.EnvOption{
		cel.Function("semver",
			cel.Overload("string_to_semver", []*cel.Type{cel.StringType}, SemverType, cel.FunctionBinding(parse)),
			cel.Overload("string_bool_to_semver", []*cel.Type{cel.StringType, cel.BoolType}, SemverType, cel.FunctionBinding(parse))),
		cel.Function("isSemver",
			cel.Overload("is_semver_string", []*cel.Type{cel.StringType}, cel.BoolType, cel.FunctionBinding(is)),
			cel.Overload("is_semver_string_bool", []*cel.Type{cel.StringType, cel.BoolType}, cel.BoolType, cel.FunctionBinding(is))),
		part("major", func(v version) uint64 { return v.major }),
		part("minor", func(v version) uint64 { return v.minor }),
		part("patch", func(v version) uint64 { return v.patch }),
		cmp("compareTo", cel.IntType, func(c int) ref.Val { return types.Int(c) }),
		cmp("isGreaterThan", cel.BoolType, func(c int) ref.Val { return types.Bool(c > 0) }),
		cmp("isLessThan", cel.BoolType, func(c int) ref.Val { return types.Bool(c < 0) }),
	}
}
