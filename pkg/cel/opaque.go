package cel

import (
	"fmt"
	"reflect"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// opaque is a value of one of the libraries' opaque types (URL,
// Quantity, IP, CIDR, Semver, Format): a Go value with its CEL type and
// its equality.
type opaque[T any] struct {
	v     T
	typ   *types.Type
	equal func(a, b T) bool
}

var _ ref.Val = opaque[int]{}

func (o opaque[T]) ConvertToNative(typeDesc reflect.Type) (any, error) {
	if reflect.TypeOf(o.v).AssignableTo(typeDesc) {
		return o.v, nil
	}
	return nil, fmt.Errorf("type conversion error from %s to %v", o.typ.TypeName(), typeDesc)
}

func (o opaque[T]) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case o.typ:
		return o
	case types.TypeType:
		return o.typ
	case types.StringType:
		if s, ok := any(o.v).(fmt.Stringer); ok {
			return types.String(s.String())
		}
	}
	return types.NewErr("type conversion error from '%s' to '%s'", o.typ.TypeName(), t.TypeName())
}

func (o opaque[T]) Equal(other ref.Val) ref.Val {
	b, ok := other.(opaque[T])
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(o.equal(o.v, b.v))
}

func (o opaque[T]) Type() ref.Type { return o.typ }

func (o opaque[T]) Value() any { return o.v }

// unwrap returns the Go value of an opaque value of type T.
func unwrap[T any](v ref.Val) (T, ref.Val) {
	o, ok := v.(opaque[T])
	if !ok {
		var zero T
		return zero, types.MaybeNoSuchOverloadErr(v)
	}
	return o.v, nil
}

// str returns the Go string of a CEL string.
func str(v ref.Val) (string, ref.Val) {
	s, ok := v.(types.String)
	if !ok {
		return "", types.MaybeNoSuchOverloadErr(v)
	}
	return string(s), nil
}
