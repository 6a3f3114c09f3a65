// Package intstr implements IntOrString, a field that holds an integer or a
// string such as a percentage ("25%") or a port name.
package intstr

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Type says which member of IntOrString is set.
type Type int64

// The kinds an IntOrString can hold.
const (
	Int    Type = iota // the IntVal member
	String             // the StrVal member
)

// IntOrString holds an int32 or a string. In JSON it is a bare number or a
// string, such as maxSurge: 1 or maxSurge: "25%".
type IntOrString struct {
	Type   Type
	IntVal int32
	StrVal string
}

var (
	_ fmt.Stringer     = (*IntOrString)(nil)
	_ json.Marshaler   = IntOrString{}
	_ json.Unmarshaler = (*IntOrString)(nil)
)

// FromInt32 returns an IntOrString holding val.
func FromInt32(val int32) IntOrString {
	return IntOrString{Type: Int, IntVal: val}
}

// FromInt returns an IntOrString holding val. A val outside the int32 range
// is clamped to the nearest bound; prefer FromInt32.
func FromInt(val int) IntOrString {
	return FromInt32(int32(min(max(val, math.MinInt32), math.MaxInt32)))
}

// FromString returns an IntOrString holding val.
func FromString(val string) IntOrString {
	return IntOrString{Type: String, StrVal: val}
}

// Parse returns an Int for a decimal integer string in the int32 range and a
// String for anything else ("8080" is an Int, "http" and "25%" are Strings).
func Parse(val string) IntOrString {
	i, err := strconv.ParseInt(val, 10, 32)
	if err != nil {
		return FromString(val)
	}
	return FromInt32(int32(i))
}

// String returns the string member, or the decimal text of the int member.
func (intstr *IntOrString) String() string {
	if intstr == nil {
		return "<nil>"
	}
	if intstr.Type == String {
		return intstr.StrVal
	}
	return strconv.Itoa(intstr.IntValue())
}

// IntValue returns the int member, or the string member read as a decimal
// integer (0 when it is not one).
func (intstr *IntOrString) IntValue() int {
	if intstr == nil {
		return 0
	}
	if intstr.Type == String {
		i, _ := strconv.Atoi(intstr.StrVal)
		return i
	}
	return int(intstr.IntVal)
}

// MarshalJSON writes the set member as a JSON number or string.
func (intstr IntOrString) MarshalJSON() ([]byte, error) {
	switch intstr.Type {
	case Int:
		return strconv.AppendInt(nil, int64(intstr.IntVal), 10), nil
	case String:
		return json.Marshal(intstr.StrVal)
	}
	return []byte{}, fmt.Errorf("impossible IntOrString.Type")
}

// UnmarshalJSON reads a JSON string into the string member and a JSON
// integer into the int member. null leaves the value unchanged, as the
// encoding/json convention asks; any other JSON value is an error.
func (intstr *IntOrString) UnmarshalJSON(value []byte) error {
	if len(value) == 0 {
		return errors.New("decode IntOrString: empty input")
	}
	switch {
	case string(value) == "null":
		return nil
	case value[0] == '"':
		var s string
		if err := json.Unmarshal(value, &s); err != nil {
			return fmt.Errorf("decode IntOrString string: %w", err)
		}
		*intstr = FromString(s)
	default:
		var i int32
		if err := json.Unmarshal(value, &i); err != nil {
			return fmt.Errorf("decode IntOrString: %w", err)
		}
		*intstr = FromInt32(i)
	}
	return nil
}

// ToUnstructured returns the form the value takes in unstructured JSON maps:
// an int64 or a string (nil for an unknown Type).
func (intstr IntOrString) ToUnstructured() any {
	switch intstr.Type {
	case Int:
		return int64(intstr.IntVal)
	case String:
		return intstr.StrVal
	}
	return nil
}

// DeepCopyInto copies the value into out.
func (intstr *IntOrString) DeepCopyInto(out *IntOrString) { *out = *intstr }

// DeepCopy returns a copy of the value, or nil for nil.
func (intstr *IntOrString) DeepCopy() *IntOrString {
	if intstr == nil {
		return nil
	}
	out := *intstr
	return &out
}

// ValueOrDefault returns intOrPercent, or defaultValue when it is nil.
func ValueOrDefault(intOrPercent *IntOrString, defaultValue IntOrString) *IntOrString {
	if intOrPercent == nil {
		return &defaultValue
	}
	return intOrPercent
}

// GetScaledValueFromIntOrPercent returns an Int as is, and a percentage
// string ("25%") as that share of total, rounded up or down: 25% of 10 is 3
// rounded up and 2 rounded down. Other strings are an error, with
// Kubernetes' messages.
func GetScaledValueFromIntOrPercent(intOrPercent *IntOrString, total int, roundUp bool) (int, error) {
	if intOrPercent == nil {
		return 0, errors.New("nil value for IntOrString")
	}
	value, isPercent, err := intOrPercentValue(intOrPercent)
	if err != nil {
		return 0, fmt.Errorf("invalid value for IntOrString: %w", err)
	}
	if !isPercent {
		return value, nil
	}
	share := float64(value) * float64(total) / 100
	if roundUp {
		share = math.Ceil(share)
	} else {
		share = math.Floor(share)
	}
	// float64(math.MaxInt) rounds up to 2^63, itself out of range.
	if share >= float64(math.MaxInt) || share < float64(math.MinInt) {
		return 0, fmt.Errorf("invalid value for IntOrString: %q of %d overflows int", intOrPercent.StrVal, total)
	}
	return int(share), nil
}

// intOrPercentValue returns the number an IntOrString holds and whether it
// is a percentage.
func intOrPercentValue(intOrStr *IntOrString) (int, bool, error) {
	switch intOrStr.Type {
	case Int:
		return int(intOrStr.IntVal), false, nil
	case String:
		digits, ok := strings.CutSuffix(intOrStr.StrVal, "%")
		if !ok {
			return 0, false, errors.New("invalid type: string is not a percentage")
		}
		v, err := strconv.Atoi(digits)
		if err != nil {
			return 0, false, fmt.Errorf("invalid value %q: %w", intOrStr.StrVal, err)
		}
		return v, true, nil
	}
	return 0, false, errors.New("invalid type: neither int nor percentage")
}
