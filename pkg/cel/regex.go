package cel

import (
	"regexp"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// regexLib is Kubernetes' regex library: find and findAll.
type regexLib struct{}

func (regexLib) LibraryName() string { return "kubecore.regex" }

func (regexLib) ProgramOptions() []cel.ProgramOption { return nil }

func (regexLib) CompileOptions() []cel.EnvOption {
	return []cel.EnvOption{
		cel.Function("find", cel.MemberOverload("string_find_string", []*cel.Type{cel.StringType, cel.StringType}, cel.StringType,
			cel.BinaryBinding(func(s, re ref.Val) ref.Val {
				r, err := compileRegex(re)
				if err != nil {
					return err
				}
				return types.String(r.FindString(string(s.(types.String))))
			}))),
		cel.Function("findAll",
			cel.MemberOverload("string_find_all_string", []*cel.Type{cel.StringType, cel.StringType}, cel.ListType(cel.StringType),
				cel.BinaryBinding(func(s, re ref.Val) ref.Val { return findAll(s, re, types.Int(-1)) })),
			cel.MemberOverload("string_find_all_string_int", []*cel.Type{cel.StringType, cel.StringType, cel.IntType}, cel.ListType(cel.StringType),
				cel.FunctionBinding(func(args ...ref.Val) ref.Val { return findAll(args[0], args[1], args[2]) }))),
	}
}

func compileRegex(re ref.Val) (*regexp.Regexp, ref.Val) {
	s, ok := re.(types.String)
	if !ok {
		return nil, types.MaybeNoSuchOverloadErr(re)
	}
	r, err := regexp.Compile(string(s))
	if err != nil {
		return nil, types.WrapErr(err)
	}
	return r, nil
}

func findAll(s, re, limit ref.Val) ref.Val {
	r, err := compileRegex(re)
	if err != nil {
		return err
	}
	n, ok := limit.(types.Int)
	if !ok {
		return types.MaybeNoSuchOverloadErr(limit)
	}
	matches := r.FindAllString(string(s.(types.String)), int(n))
	if matches == nil {
		matches = []string{}
	}
	return types.DefaultTypeAdapter.NativeToValue(matches)
}
