package policy

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/interpreter"

	kcel "kubecore.io/kubecore/pkg/cel"
)

// The names an expression sees, as Kubernetes declares them.
const (
	varObject          = "object"
	varOldObject       = "oldObject"
	varParams          = "params"
	varRequest         = "request"
	varNamespaceObject = "namespaceObject"
	varVariables       = "variables"
)

// errOutOfBudget is the error of an expression run after the policy's
// runtime cost budget is spent.
var errOutOfBudget = errors.New("validation failed due to running out of cost budget, no further validation rules will be run")

// newEnv returns the environment of a policy's expressions. Objects are
// dynamic (a policy may match any kind, custom ones included); mutating
// policies also get the Object{...} and JSONPatch{...} constructors and
// jsonpatch.escapeKey.
func newEnv(mutating bool) (*cel.Env, error) {
	opts := []cel.EnvOption{
		cel.Variable(varObject, cel.DynType),
		cel.Variable(varOldObject, cel.DynType),
		cel.Variable(varParams, cel.DynType),
		cel.Variable(varRequest, cel.DynType),
		cel.Variable(varNamespaceObject, cel.DynType),
		cel.Variable(varVariables, cel.MapType(cel.StringType, cel.DynType)),
	}
	if mutating {
		base, err := kcel.NewEnv()
		if err != nil {
			return nil, err
		}
		opts = append(opts,
			cel.CustomTypeProvider(&applyProvider{Provider: base.CELTypeProvider()}),
			cel.Function("jsonpatch.escapeKey", cel.Overload("jsonpatch_escape_key_string", []*cel.Type{cel.StringType}, cel.StringType,
				cel.UnaryBinding(func(v ref.Val) ref.Val {
					s, ok := v.(types.String)
					if !ok {
						return types.NoSuchOverloadErr()
					}
					return types.String(strings.ReplaceAll(strings.ReplaceAll(string(s), "~", "~0"), "/", "~1"))
				}))),
		)
	}
	return kcel.NewEnv(opts...)
}

// program is one compiled expression.
type program struct {
	expression string
	prg        cel.Program
}

// compile compiles expression in env; want, when set, is the type its
// result must have (dyn results are checked when evaluated).
func compile(env *cel.Env, expression string, want ...*cel.Type) (*program, error) {
	ast, iss := env.Compile(expression)
	if iss.Err() != nil {
		return nil, fmt.Errorf("compilation failed: %v", iss.Err())
	}
	if len(want) > 0 {
		ok := ast.OutputType() == cel.DynType
		for _, t := range want {
			ok = ok || ast.OutputType().IsExactType(t)
		}
		if !ok {
			return nil, fmt.Errorf("must evaluate to %v but got %v", want[0], ast.OutputType())
		}
	}
	prg, err := env.Program(ast, kcel.ProgramOptions()...)
	if err != nil {
		return nil, fmt.Errorf("program construction failed: %w", err)
	}
	return &program{expression: expression, prg: prg}, nil
}

// evaluation is what the expressions of one policy binding see on one
// request, and the cost budget they share.
type evaluation struct {
	ctx    context.Context
	budget int64
	vars   map[string]any
}

var _ interpreter.Activation = (*evaluation)(nil)

func newEvaluation(ctx context.Context, in *input, params ref.Val, variables []variable) *evaluation {
	e := &evaluation{ctx: ctx, budget: kcel.RuntimeCELCostBudget, vars: map[string]any{
		varObject: in.object, varOldObject: in.oldObject, varRequest: in.request,
		varNamespaceObject: in.namespace, varParams: params,
	}}
	e.vars[varVariables] = &lazyVariables{eval: e, defs: variables, values: map[string]ref.Val{}}
	return e
}

// ResolveName implements interpreter.Activation.
func (e *evaluation) ResolveName(name string) (any, bool) {
	v, ok := e.vars[name]
	return v, ok
}

// Parent implements interpreter.Activation.
func (e *evaluation) Parent() interpreter.Activation { return nil }

// run evaluates p, charging its cost to the budget.
func (e *evaluation) run(p *program) (ref.Val, error) {
	if e.budget < 0 {
		return nil, errOutOfBudget
	}
	out, det, err := p.prg.ContextEval(e.ctx, e)
	if det != nil && det.ActualCost() != nil {
		e.budget -= int64(min(*det.ActualCost(), uint64(kcel.RuntimeCELCostBudget)+1))
	}
	if e.budget < 0 {
		return nil, errOutOfBudget
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// variable is a compiled spec.variables entry.
type variable struct {
	name string
	prg  *program
	err  error
}

// lazyVariables is the variables map: each is evaluated when first read,
// once per evaluation, as Kubernetes does.
type lazyVariables struct {
	eval   *evaluation
	defs   []variable
	values map[string]ref.Val
}

var _ traits.Mapper = (*lazyVariables)(nil)

func (l *lazyVariables) lookup(name string) (ref.Val, bool) {
	if v, ok := l.values[name]; ok {
		return v, true
	}
	for _, d := range l.defs {
		if d.name != name {
			continue
		}
		var v ref.Val
		switch {
		case d.err != nil:
			v = types.NewErr("variable %q: %v", name, d.err)
		default:
			out, err := l.eval.run(d.prg)
			if err != nil {
				v = types.WrapErr(err)
			} else {
				v = out
			}
		}
		l.values[name] = v
		return v, true
	}
	return nil, false
}

func (l *lazyVariables) Find(key ref.Val) (ref.Val, bool) {
	s, ok := key.(types.String)
	if !ok {
		return types.ValOrErr(key, "no such key: %v", key), false
	}
	return l.lookup(string(s))
}

func (l *lazyVariables) Get(key ref.Val) ref.Val {
	v, ok := l.Find(key)
	if !ok {
		return types.NewErr("no such key: %v", key)
	}
	return v
}

func (l *lazyVariables) Contains(key ref.Val) ref.Val {
	_, ok := l.Find(key)
	return types.Bool(ok)
}

func (l *lazyVariables) names() []string {
	out := make([]string, len(l.defs))
	for i, d := range l.defs {
		out[i] = d.name
	}
	return out
}

func (l *lazyVariables) Iterator() traits.Iterator {
	return types.NewStringList(types.DefaultTypeAdapter, l.names()).Iterator()
}

func (l *lazyVariables) Size() ref.Val { return types.Int(len(l.defs)) }

func (l *lazyVariables) ConvertToNative(reflect.Type) (any, error) {
	return nil, errors.New("variables cannot be converted to a native value")
}

func (l *lazyVariables) ConvertToType(t ref.Type) ref.Val {
	if t == types.TypeType {
		return types.MapType
	}
	return types.NewErr("type conversion error from map to %s", t.TypeName())
}

func (l *lazyVariables) Equal(other ref.Val) ref.Val { return types.Bool(other == ref.Val(l)) }
func (l *lazyVariables) Type() ref.Type              { return types.MapType }
func (l *lazyVariables) Value() any                  { return l }

// applyProvider knows the types mutations build: Object and its nested
// Object.<field>... types (an apply configuration of the matched object),
// and JSONPatch. Their fields are free-form: the object's schema checks
// them when the result is merged.
type applyProvider struct{ types.Provider }

const (
	applyObjectType = "Object"
	jsonPatchType   = "JSONPatch"
)

func isApplyType(name string) bool {
	return name == applyObjectType || strings.HasPrefix(name, applyObjectType+".") || name == jsonPatchType
}

func (p *applyProvider) FindStructType(name string) (*types.Type, bool) {
	if isApplyType(name) {
		return types.NewTypeTypeWithParam(types.NewObjectType(name)), true
	}
	return p.Provider.FindStructType(name)
}

func (p *applyProvider) FindStructFieldNames(name string) ([]string, bool) {
	if isApplyType(name) {
		if name == jsonPatchType {
			return []string{"op", "path", "from", "value"}, true
		}
		return nil, true
	}
	return p.Provider.FindStructFieldNames(name)
}

func (p *applyProvider) FindStructFieldType(name, fieldName string) (*types.FieldType, bool) {
	if name == jsonPatchType {
		switch fieldName {
		case "op", "path", "from":
			return &types.FieldType{Type: types.StringType}, true
		case "value":
			return &types.FieldType{Type: types.DynType}, true
		}
		return nil, false
	}
	if isApplyType(name) {
		return &types.FieldType{Type: types.DynType}, true
	}
	return p.Provider.FindStructFieldType(name, fieldName)
}

func (p *applyProvider) NewValue(name string, fields map[string]ref.Val) ref.Val {
	if isApplyType(name) {
		return &structVal{typ: types.NewObjectType(name), fields: fields}
	}
	return p.Provider.NewValue(name, fields)
}

// structVal is a value built by Object{...} or JSONPatch{...}.
type structVal struct {
	typ    *types.Type
	fields map[string]ref.Val
}

var _ traits.Indexer = (*structVal)(nil)

func (s *structVal) ConvertToNative(reflect.Type) (any, error) { return fromCEL(s) }
func (s *structVal) ConvertToType(t ref.Type) ref.Val {
	if t == types.TypeType {
		return s.typ
	}
	return types.NewErr("type conversion error from %s to %s", s.typ.TypeName(), t.TypeName())
}
func (s *structVal) Equal(other ref.Val) ref.Val {
	o, ok := other.(*structVal)
	return types.Bool(ok && reflect.DeepEqual(s.fields, o.fields))
}
func (s *structVal) Type() ref.Type { return s.typ }
func (s *structVal) Value() any     { return s.fields }
func (s *structVal) Get(key ref.Val) ref.Val {
	k, ok := key.(types.String)
	if !ok {
		return types.NewErr("no such field: %v", key)
	}
	if v, ok := s.fields[string(k)]; ok {
		return v
	}
	return types.NewErr("no such field: %s", k)
}

// fromCEL converts a CEL value to its JSON form.
func fromCEL(v ref.Val) (any, error) {
	switch t := v.(type) {
	case nil:
		return nil, nil
	case *structVal:
		out := make(map[string]any, len(t.fields))
		for k, f := range t.fields {
			n, err := fromCEL(f)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[k] = n
		}
		return out, nil
	case types.Null:
		return nil, nil
	case types.Bool:
		return bool(t), nil
	case types.Int:
		return int64(t), nil
	case types.Uint:
		return uint64(t), nil
	case types.Double:
		return float64(t), nil
	case types.String:
		return string(t), nil
	case *types.Err:
		return nil, t
	case traits.Mapper:
		out := map[string]any{}
		it := t.Iterator()
		for it.HasNext() == types.True {
			k := it.Next()
			ks, ok := k.(types.String)
			if !ok {
				return nil, fmt.Errorf("map key %v is not a string", k)
			}
			n, err := fromCEL(t.Get(k))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", ks, err)
			}
			out[string(ks)] = n
		}
		return out, nil
	case traits.Lister:
		out := []any{}
		it := t.Iterator()
		for it.HasNext() == types.True {
			n, err := fromCEL(it.Next())
			if err != nil {
				return nil, err
			}
			out = append(out, n)
		}
		return out, nil
	}
	n, err := v.ConvertToNative(reflect.TypeFor[any]())
	if err != nil {
		return nil, fmt.Errorf("value of type %s has no JSON form: %w", v.Type().TypeName(), err)
	}
	return n, nil
}
