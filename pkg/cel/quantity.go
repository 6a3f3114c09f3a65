package cel

import (
	"math"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"kubecore.io/apimachinery/pkg/api/resource"
)

// QuantityType is the type of quantity(string).
var QuantityType = cel.OpaqueType("kubernetes.Quantity")

// quantityLib is Kubernetes' quantity library.
type quantityLib struct{}

func (quantityLib) LibraryName() string { return "kubecore.quantity" }

func (quantityLib) ProgramOptions() []cel.ProgramOption { return nil }

func newQuantity(q resource.Quantity) ref.Val {
	return opaque[resource.Quantity]{v: q, typ: QuantityType, equal: func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 }}
}

func (quantityLib) CompileOptions() []cel.EnvOption {
	q := func(v ref.Val) (resource.Quantity, ref.Val) { return unwrap[resource.Quantity](v) }
	unary := func(name string, out *cel.Type, f func(resource.Quantity) ref.Val) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload("quantity_"+name, []*cel.Type{QuantityType}, out,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				a, err := q(v)
				if err != nil {
					return err
				}
				return f(a)
			})))
	}
	binary := func(name string, out *cel.Type, f func(a, b resource.Quantity) ref.Val) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload("quantity_"+name, []*cel.Type{QuantityType, QuantityType}, out,
			cel.BinaryBinding(func(x, y ref.Val) ref.Val {
				a, err := q(x)
				if err != nil {
					return err
				}
				b, err := q(y)
				if err != nil {
					return err
				}
				return f(a, b)
			})))
	}
	arith := func(name string, sub bool) cel.EnvOption {
		apply := func(a, b resource.Quantity) ref.Val {
			if sub {
				a.Sub(b)
			} else {
				a.Add(b)
			}
			return newQuantity(a)
		}
		return cel.Function(name,
			cel.MemberOverload("quantity_"+name+"_quantity", []*cel.Type{QuantityType, QuantityType}, QuantityType,
				cel.BinaryBinding(func(x, y ref.Val) ref.Val {
					a, err := q(x)
					if err != nil {
						return err
					}
					b, err := q(y)
					if err != nil {
						return err
					}
					return apply(a, b)
				})),
			cel.MemberOverload("quantity_"+name+"_int", []*cel.Type{QuantityType, cel.IntType}, QuantityType,
				cel.BinaryBinding(func(x, y ref.Val) ref.Val {
					a, err := q(x)
					if err != nil {
						return err
					}
					i, ok := y.(types.Int)
					if !ok {
						return types.MaybeNoSuchOverloadErr(y)
					}
					return apply(a, *resource.NewQuantity(int64(i), resource.DecimalSI))
				})))
	}
	return []cel.EnvOption{
		cel.Function("quantity", cel.Overload("string_to_quantity", []*cel.Type{cel.StringType}, QuantityType,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				s, err := str(v)
				if err != nil {
					return err
				}
				parsed, perr := resource.ParseQuantity(s)
				if perr != nil {
					return types.WrapErr(perr)
				}
				return newQuantity(parsed)
			}))),
		cel.Function("isQuantity", cel.Overload("is_quantity_string", []*cel.Type{cel.StringType}, cel.BoolType,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				s, err := str(v)
				if err != nil {
					return err
				}
				_, perr := resource.ParseQuantity(s)
				return types.Bool(perr == nil)
			}))),
		unary("sign", cel.IntType, func(a resource.Quantity) ref.Val { return types.Int(a.Sign()) }),
		unary("isInteger", cel.BoolType, func(a resource.Quantity) ref.Val {
			_, ok := a.AsInt64()
			return types.Bool(ok)
		}),
		unary("asInteger", cel.IntType, func(a resource.Quantity) ref.Val {
			i, ok := a.AsInt64()
			if !ok {
				return types.NewErr("cannot convert value to integer")
			}
			return types.Int(i)
		}),
		unary("asApproximateFloat", cel.DoubleType, func(a resource.Quantity) ref.Val {
			f := a.AsApproximateFloat64()
			if math.IsInf(f, 0) || math.IsNaN(f) {
				return types.NewErr("quantity out of range for a double")
			}
			return types.Double(f)
		}),
		arith("add", false),
		arith("sub", true),
		binary("compareTo", cel.IntType, func(a, b resource.Quantity) ref.Val { return types.Int(a.Cmp(b)) }),
		binary("isGreaterThan", cel.BoolType, func(a, b resource.Quantity) ref.Val { return types.Bool(a.Cmp(b) > 0) }),
		binary("isLessThan", cel.BoolType, func(a, b resource.Quantity) ref.Val { return types.Bool(a.Cmp(b) < 0) }),
		cel.Function("string", cel.Overload("quantity_to_string", []*cel.Type{QuantityType}, cel.StringType,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				a, err := q(v)
				if err != nil {
					return err
				}
				return types.String(a.String())
			}))),
	}
}
