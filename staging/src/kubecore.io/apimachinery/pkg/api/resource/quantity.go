// Package resource implements Quantity, the fixed-point number with units
// used for cpu, memory and storage amounts ("100m", "1Gi", "2e3").
package resource

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Format is the notation a Quantity is written in. Parsing remembers the
// notation of the input; String writes the value back in the same one.
type Format string

// The three notations. Any other Format value writes as DecimalExponent.
const (
	DecimalExponent = Format("DecimalExponent") // 12e6
	BinarySI        = Format("BinarySI")        // 12Mi, 12·2^20
	DecimalSI       = Format("DecimalSI")       // 12M, 12·10^6
)

// Scale is a power of ten: a Quantity's value at Scale s counts units of
// 10^s. Milli (-3) counts thousandths.
type Scale int32

// The scales that have an SI prefix.
const (
	Nano  Scale = -9
	Micro Scale = -6
	Milli Scale = -3
	Kilo  Scale = 3
	Mega  Scale = 6
	Giga  Scale = 9
	Tera  Scale = 12
	Peta  Scale = 15
	Exa   Scale = 18
)

// Quantity is an exact decimal amount, such as 100m cpu or 1Gi memory.
//
// The text form is a signed decimal number followed by a suffix: a decimal
// SI prefix (n u m k M G T P E, or none), a binary one (Ki Mi Gi Ti Pi Ei) or
// a decimal exponent (e3, E-2). Parsing keeps values down to nano, rounding a
// finer non-zero value away from zero, and caps binary-suffixed values at
// 2^63-1. String writes the canonical form: no fraction, the largest suffix
// that keeps the value exact, in the notation the value was parsed from
// ("1.5" is "1500m", "1.5Gi" is "1536Mi").
//
// A Quantity is a value: copies share nothing that any method changes. The
// zero value is 0. Compare quantities with Cmp or Equal, not ==.
type Quantity struct {
	// mant·10^exp is the value while big is nil.
	mant int64
	exp  int32
	// shape is the rendering s holds; shapeNone when s is not set.
	shape shape
	// big holds values an int64 mantissa cannot; never changed once set.
	big *bigAmount
	// s caches the canonical text for shape.
	s string

	// Format is the notation String writes. It may be changed at will.
	Format
}

var (
	_ fmt.Stringer     = Quantity{}
	_ json.Marshaler   = Quantity{}
	_ json.Unmarshaler = (*Quantity)(nil)
)

// bigAmount is mant·10^exp. It is immutable, so Quantity copies share it.
type bigAmount struct {
	mant *big.Int
	exp  int32
}

// shape is how String renders a Format.
type shape uint8

const (
	shapeNone shape = iota
	shapeExponent
	shapeBinary
	shapeDecimal
)

func shapeOf(f Format) shape {
	switch f {
	case BinarySI:
		return shapeBinary
	case DecimalSI:
		return shapeDecimal
	}
	return shapeExponent
}

// NewQuantity returns value in the given format.
func NewQuantity(value int64, format Format) *Quantity {
	return &Quantity{mant: value, Format: format}
}

// NewMilliQuantity returns value/1000 in the given format.
func NewMilliQuantity(value int64, format Format) *Quantity {
	return &Quantity{mant: value, exp: int32(Milli), Format: format}
}

// NewScaledQuantity returns value·10^scale in DecimalSI.
func NewScaledQuantity(value int64, scale Scale) *Quantity {
	return &Quantity{mant: value, exp: int32(scale), Format: DecimalSI}
}

// MustParse is ParseQuantity for strings known to be valid; it panics
// otherwise, so use it for constants and tests only.
func MustParse(str string) Quantity {
	q, err := ParseQuantity(str)
	if err != nil {
		panic(fmt.Errorf("cannot parse '%v': %v", str, err))
	}
	return q
}

// decimal returns q in the arbitrary-precision working form.
func (q Quantity) decimal() decimal {
	if q.big != nil {
		return decimal{m: q.big.mant, e: int64(q.big.exp)}
	}
	return decimal{m: big.NewInt(q.mant), e: int64(q.exp)}
}

// setDecimal stores d, in the int64 form when it fits. It forgets the cached
// text.
func (q *Quantity) setDecimal(d decimal) {
	q.s, q.shape = "", shapeNone
	q.mant, q.exp, q.big = 0, 0, nil
	if d.m.Sign() == 0 {
		return
	}
	m, e := d.m, d.e
	if e < math.MinInt32 {
		// Unreachable from exponents that fit a Scale; round like parsing
		// rounds below nano rather than wrap.
		r := roundDecimal(d, math.MinInt32)
		m, e = r.m, r.e
	}
	if !m.IsInt64() || e > math.MaxInt32 {
		m, e = stripZeros(m, e, math.MaxInt32)
	}
	if e > math.MaxInt32 {
		m = new(big.Int).Mul(m, pow10Big(e-math.MaxInt32))
		e = math.MaxInt32
	}
	if m.IsInt64() {
		q.mant, q.exp = m.Int64(), int32(e)
		return
	}
	q.big = &bigAmount{mant: m, exp: int32(e)}
}

// IsZero reports whether q is 0.
func (q Quantity) IsZero() bool { return q.Sign() == 0 }

// Sign returns -1, 0 or 1 as q is negative, zero or positive.
func (q Quantity) Sign() int {
	if q.big != nil {
		return q.big.mant.Sign()
	}
	return int(signInt64(q.mant))
}

// Cmp returns -1, 0 or 1 as q is less than, equal to or greater than y.
// It does not allocate when both fit the int64 form.
func (q Quantity) Cmp(y Quantity) int {
	if q.big == nil && y.big == nil {
		return cmpSmall(q.mant, q.exp, y.mant, y.exp)
	}
	return cmpDecimal(q.decimal(), y.decimal())
}

// CmpInt64 compares q with the integer y, as Cmp does.
func (q Quantity) CmpInt64(y int64) int {
	if q.big == nil {
		return cmpSmall(q.mant, q.exp, y, 0)
	}
	return cmpDecimal(q.decimal(), decimal{m: big.NewInt(y)})
}

// Equal reports whether q and v are the same amount, whatever their formats.
func (q Quantity) Equal(v Quantity) bool { return q.Cmp(v) == 0 }

// Add adds y to q. A zero q takes y's format.
func (q *Quantity) Add(y Quantity) {
	switch {
	case q.IsZero():
		*q = y
		return
	case y.IsZero():
		return
	}
	if q.big == nil && y.big == nil {
		if m, e, ok := addSmall(q.mant, q.exp, y.mant, y.exp); ok {
			q.mant, q.exp, q.s, q.shape = m, e, "", shapeNone
			return
		}
	}
	q.setDecimal(addDecimal(q.decimal(), y.decimal()))
}

// Sub subtracts y from q. A zero q takes y's format.
func (q *Quantity) Sub(y Quantity) {
	switch {
	case q.IsZero():
		*q = y
		q.Neg()
		return
	case y.IsZero():
		return
	}
	if q.big == nil && y.big == nil && y.mant != math.MinInt64 {
		if m, e, ok := addSmall(q.mant, q.exp, -y.mant, y.exp); ok {
			q.mant, q.exp, q.s, q.shape = m, e, "", shapeNone
			return
		}
	}
	q.setDecimal(addDecimal(q.decimal(), negDecimal(y.decimal())))
}

// Neg negates q.
func (q *Quantity) Neg() {
	if q.big == nil && q.mant != math.MinInt64 {
		q.mant, q.s, q.shape = -q.mant, "", shapeNone
		return
	}
	q.setDecimal(negDecimal(q.decimal()))
}

// Set sets q to value, keeping its format.
func (q *Quantity) Set(value int64) { q.SetScaled(value, 0) }

// SetMilli sets q to value/1000, keeping its format.
func (q *Quantity) SetMilli(value int64) { q.SetScaled(value, Milli) }

// SetScaled sets q to value·10^scale, keeping its format.
func (q *Quantity) SetScaled(value int64, scale Scale) {
	q.mant, q.exp, q.big, q.s, q.shape = value, int32(scale), nil, "", shapeNone
}

// Value returns q rounded away from zero to an integer (1500m is 2, -1500m
// is -2). A value beyond the int64 range saturates at its bound.
func (q Quantity) Value() int64 { return q.ScaledValue(0) }

// MilliValue returns q in thousandths, rounded away from zero and saturated
// like Value.
func (q Quantity) MilliValue() int64 { return q.ScaledValue(Milli) }

// ScaledValue returns q/10^scale rounded away from zero and saturated at the
// int64 bounds: NewQuantity(1, DecimalSI).ScaledValue(Milli) is 1000.
func (q Quantity) ScaledValue(scale Scale) int64 {
	if q.big != nil {
		return scaledDecimal(q.decimal(), int64(scale))
	}
	if q.mant == 0 {
		return 0
	}
	shift := int64(q.exp) - int64(scale)
	if shift < 0 {
		return divPow10Away(q.mant, -shift)
	}
	if v, ok := mulPow10(q.mant, shift); ok {
		return v
	}
	return saturate(int(signInt64(q.mant)))
}

// AsInt64 returns q as an int64 when q is an integer in the int64 range.
func (q Quantity) AsInt64() (int64, bool) {
	if q.big == nil {
		switch {
		case q.mant == 0:
			return 0, true
		case q.exp >= 0:
			return mulPow10(q.mant, int64(q.exp))
		case -q.exp >= int32(len(pow10)):
			return 0, false
		}
		p := pow10[-q.exp]
		if q.mant%p != 0 {
			return 0, false
		}
		return q.mant / p, true
	}
	d := q.decimal()
	if lo, _ := digitBounds(d.m); d.e+lo-1 >= 19 {
		return 0, false
	}
	v, ok := integerValue(d)
	if !ok || !v.IsInt64() {
		return 0, false
	}
	return v.Int64(), true
}

// AsApproximateFloat64 returns q as the nearest float64, or ±Inf beyond its
// range.
func (q Quantity) AsApproximateFloat64() float64 {
	if q.big == nil {
		if q.exp == 0 {
			return float64(q.mant)
		}
		return float64(q.mant) * math.Pow10(int(q.exp))
	}
	text := q.big.mant.String() + "e" + strconv.FormatInt(int64(q.big.exp), 10)
	// A range error still returns ±Inf or ±0, which is the answer wanted.
	f, _ := strconv.ParseFloat(text, 64)
	return f
}

// String returns the canonical text of q. It does not change q, so it is
// safe on values shared between goroutines.
func (q Quantity) String() string {
	if q.s != "" && q.shape == shapeOf(q.Format) {
		return q.s
	}
	var buf [40]byte
	return string(q.appendCanonical(buf[:0]))
}

// MarshalJSON writes q as a JSON string of its canonical text.
func (q Quantity) MarshalJSON() ([]byte, error) {
	if q.s != "" && q.shape == shapeOf(q.Format) {
		out := make([]byte, 0, len(q.s)+2)
		out = append(out, '"')
		out = append(out, q.s...)
		return append(out, '"'), nil
	}
	out := make([]byte, 1, 24)
	out[0] = '"'
	out = q.appendCanonical(out)
	return append(out, '"'), nil
}

// UnmarshalJSON reads a JSON string or number; null sets q to zero.
// Surrounding spaces inside a string are ignored, as Kubernetes does.
func (q *Quantity) UnmarshalJSON(data []byte) error {
	text := string(data)
	switch {
	case text == "null":
		*q = Quantity{Format: q.Format}
		return nil
	case len(text) >= 2 && text[0] == '"' && text[len(text)-1] == '"':
		if strings.IndexByte(text, '\\') < 0 {
			text = text[1 : len(text)-1]
		} else if err := json.Unmarshal(data, &text); err != nil {
			return err
		}
	}
	parsed, err := ParseQuantity(strings.TrimSpace(text))
	if err != nil {
		return err
	}
	*q = parsed
	return nil
}

// ToUnstructured returns the form q takes in unstructured JSON maps: its
// canonical string.
func (q Quantity) ToUnstructured() any { return q.String() }

// Copy returns a pointer to a copy of q.
func (q Quantity) Copy() *Quantity { return &q }

// DeepCopy returns a copy of q. Copies share only immutable state.
func (q Quantity) DeepCopy() Quantity { return q }

// DeepCopyInto copies q into out.
func (q Quantity) DeepCopyInto(out *Quantity) { *out = q }
