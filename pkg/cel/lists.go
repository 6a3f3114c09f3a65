package cel

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// comparableTypes are the element types isSorted, min and max accept.
var comparableTypes = []*cel.Type{
	cel.IntType, cel.UintType, cel.DoubleType, cel.BoolType,
	cel.DurationType, cel.TimestampType, cel.StringType, cel.BytesType,
}

// summableTypes are the element types sum accepts, with their zero.
var summableTypes = []struct {
	t    *cel.Type
	zero ref.Val
}{
	{cel.IntType, types.IntZero},
	{cel.UintType, types.Uint(0)},
	{cel.DoubleType, types.Double(0)},
	{cel.DurationType, types.Duration{}},
}

// listsLib is Kubernetes' list library: isSorted, sum, min, max, indexOf
// and lastIndexOf.
type listsLib struct{}

func (listsLib) LibraryName() string { return "kubecore.lists" }

func (listsLib) ProgramOptions() []cel.ProgramOption { return nil }

func (listsLib) CompileOptions() []cel.EnvOption {
	var isSorted, minO, maxO, sum []cel.FunctionOpt
	for _, t := range comparableTypes {
		name := t.String()
		lt := cel.ListType(t)
		isSorted = append(isSorted, cel.MemberOverload("list_"+name+"_is_sorted_bool", []*cel.Type{lt}, cel.BoolType, cel.UnaryBinding(listIsSorted)))
		minO = append(minO, cel.MemberOverload("list_"+name+"_min_"+name, []*cel.Type{lt}, t, cel.UnaryBinding(listExtreme(-1))))
		maxO = append(maxO, cel.MemberOverload("list_"+name+"_max_"+name, []*cel.Type{lt}, t, cel.UnaryBinding(listExtreme(1))))
	}
	for _, s := range summableTypes {
		name := s.t.String()
		zero := s.zero
		sum = append(sum, cel.MemberOverload("list_"+name+"_sum_"+name, []*cel.Type{cel.ListType(s.t)}, s.t,
			cel.UnaryBinding(func(v ref.Val) ref.Val { return listSum(v, zero) })))
	}
	a := cel.TypeParamType("A")
	return []cel.EnvOption{
		cel.Function("isSorted", isSorted...),
		cel.Function("min", minO...),
		cel.Function("max", maxO...),
		cel.Function("sum", sum...),
		cel.Function("indexOf", cel.MemberOverload("list_a_index_of_int", []*cel.Type{cel.ListType(a), a}, cel.IntType,
			cel.BinaryBinding(func(l, v ref.Val) ref.Val { return listIndexOf(l, v, false) }))),
		cel.Function("lastIndexOf", cel.MemberOverload("list_a_last_index_of_int", []*cel.Type{cel.ListType(a), a}, cel.IntType,
			cel.BinaryBinding(func(l, v ref.Val) ref.Val { return listIndexOf(l, v, true) }))),
	}
}

// listItems returns the elements of a list value.
func listItems(v ref.Val) ([]ref.Val, ref.Val) {
	l, ok := v.(traits.Lister)
	if !ok {
		return nil, types.MaybeNoSuchOverloadErr(v)
	}
	n := int64(l.Size().(types.Int))
	out := make([]ref.Val, 0, n)
	for i := int64(0); i < n; i++ {
		out = append(out, l.Get(types.Int(i)))
	}
	return out, nil
}

// compare orders two values of one comparable type.
func compare(a, b ref.Val) (int, ref.Val) {
	if ab, ok := a.(types.Bool); ok {
		bb, ok := b.(types.Bool)
		if !ok {
			return 0, types.MaybeNoSuchOverloadErr(b)
		}
		switch {
		case ab == bb:
			return 0, nil
		case !bool(ab):
			return -1, nil
		}
		return 1, nil
	}
	c, ok := a.(traits.Comparer)
	if !ok {
		return 0, types.MaybeNoSuchOverloadErr(a)
	}
	r := c.Compare(b)
	i, ok := r.(types.Int)
	if !ok {
		return 0, r
	}
	return int(i), nil
}

func listIsSorted(v ref.Val) ref.Val {
	items, err := listItems(v)
	if err != nil {
		return err
	}
	for i := 1; i < len(items); i++ {
		c, err := compare(items[i-1], items[i])
		if err != nil {
			return err
		}
		if c > 0 {
			return types.False
		}
	}
	return types.True
}

// listExtreme returns min (sign -1) or max (sign 1) of a list.
func listExtreme(sign int) func(ref.Val) ref.Val {
	name := "min"
	if sign > 0 {
		name = "max"
	}
	return func(v ref.Val) ref.Val {
		items, err := listItems(v)
		if err != nil {
			return err
		}
		if len(items) == 0 {
			return types.NewErr("%s called on empty list", name)
		}
		best := items[0]
		for _, e := range items[1:] {
			c, err := compare(e, best)
			if err != nil {
				return err
			}
			if c*sign > 0 {
				best = e
			}
		}
		return best
	}
}

func listSum(v, zero ref.Val) ref.Val {
	items, err := listItems(v)
	if err != nil {
		return err
	}
	acc := zero
	for _, e := range items {
		adder, ok := acc.(traits.Adder)
		if !ok {
			return types.MaybeNoSuchOverloadErr(acc)
		}
		acc = adder.Add(e)
		if types.IsError(acc) {
			return acc
		}
	}
	return acc
}

func listIndexOf(l, v ref.Val, last bool) ref.Val {
	items, err := listItems(l)
	if err != nil {
		return err
	}
	found := -1
	for i, e := range items {
		if e.Equal(v) == types.True {
			found = i
			if !last {
				break
			}
		}
	}
	return types.Int(found)
}
