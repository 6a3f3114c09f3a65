package resource

import (
	"math"
	"math/big"
)

// pow10 holds every power of ten an int64 can hold: 10^0 … 10^18. It is a
// lookup table and is never written.
var pow10 = [...]int64{
	1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
	1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
}

// maxExponent is the largest decimal exponent a written quantity may carry:
// the suffix "e2147483647" parses, "e2147483648" does not.
const maxExponent = math.MaxInt32

// canonicalExponentLimit is the largest multiple of three not above
// maxExponent: canonical output never writes a bigger exponent, so that it
// always parses back.
const canonicalExponentLimit = maxExponent - maxExponent%3

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func signInt64(a int64) int64 { return int64(cmpInt64(a, 0)) }

// mulPow10 returns m·10^k and whether it fits an int64 (k ≥ 0).
func mulPow10(m int64, k int64) (int64, bool) {
	if m == 0 || k == 0 {
		return m, true
	}
	if k < 0 || k >= int64(len(pow10)) {
		return 0, false
	}
	p := pow10[k]
	if (m > 0 && m > math.MaxInt64/p) || (m < 0 && m < math.MinInt64/p) {
		return 0, false
	}
	return m * p, true
}

// divPow10Away returns m/10^k rounded away from zero (k ≥ 1).
func divPow10Away(m int64, k int64) int64 {
	if k >= int64(len(pow10)) {
		// |m| < 10^19 ≤ 10^k: only the rounding unit is left.
		return signInt64(m)
	}
	p := pow10[k]
	q, r := m/p, m%p
	return q + signInt64(r)
}

// saturate returns the int64 bound on the side of sign.
func saturate(sign int) int64 {
	if sign < 0 {
		return math.MinInt64
	}
	return math.MaxInt64
}

// cmpSmall compares a·10^ae with b·10^be without allocating.
func cmpSmall(a int64, ae int32, b int64, be int32) int {
	if ae == be || a == 0 || b == 0 {
		return cmpInt64(a, b)
	}
	sa, sb := signInt64(a), signInt64(b)
	if sa != sb {
		return cmpInt64(sa, sb)
	}
	// Same sign, both non-zero. When lifting one side to the other's scale
	// overflows, that side is larger in magnitude: |x|·10^d > 2^63-1 ≥ |y|
	// (a multiple of 10 never equals ±2^63).
	if ae > be {
		if v, ok := mulPow10(a, int64(ae)-int64(be)); ok {
			return cmpInt64(v, b)
		}
		return int(sa)
	}
	if v, ok := mulPow10(b, int64(be)-int64(ae)); ok {
		return cmpInt64(a, v)
	}
	return int(-sa)
}

// addSmall returns a·10^ae + b·10^be at the smaller scale, or false when an
// int64 cannot hold it.
func addSmall(a int64, ae int32, b int64, be int32) (int64, int32, bool) {
	switch {
	case b == 0:
		return a, ae, true
	case a == 0:
		return b, be, true
	case ae > be:
		v, ok := mulPow10(a, int64(ae)-int64(be))
		if !ok {
			return 0, 0, false
		}
		a, ae = v, be
	case be > ae:
		v, ok := mulPow10(b, int64(be)-int64(ae))
		if !ok {
			return 0, 0, false
		}
		b = v
	}
	s := a + b
	// Overflow happened when both operands share a sign the sum lacks.
	if (a > 0 && b > 0 && s < 0) || (a < 0 && b < 0 && s >= 0) {
		return 0, 0, false
	}
	return s, ae, true
}

// decimal is m·10^e, the arbitrary-precision form every slow path works on.
// The exponent is wider than a Quantity's so intermediate steps cannot
// overflow. m is treated as read-only: operations build new integers.
type decimal struct {
	m *big.Int
	e int64
}

func pow10Big(k int64) *big.Int {
	if k < int64(len(pow10)) {
		return big.NewInt(pow10[k])
	}
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(k), nil)
}

// digitBounds brackets the number of decimal digits of a non-zero |m|:
// lo ≤ digits ≤ hi, from its bit length alone (log10 2 ≈ 0.30103).
func digitBounds(m *big.Int) (lo, hi int64) {
	n := int64(m.BitLen())
	if n == 0 {
		return 0, 0
	}
	return (n-1)*301029/1000000 + 1, n*30103/100000 + 1
}

// cmpDecimal compares a and b. Magnitudes far apart are told apart from their
// digit counts, so aligning the exponents only ever costs about as many digits
// as the operands already have.
func cmpDecimal(a, b decimal) int {
	sa, sb := a.m.Sign(), b.m.Sign()
	if sa != sb {
		return cmpInt64(int64(sa), int64(sb))
	}
	if sa == 0 {
		return 0
	}
	alo, ahi := digitBounds(a.m)
	blo, bhi := digitBounds(b.m)
	// |a| ≥ 10^(a.e+alo-1) and |b| < 10^(b.e+bhi).
	if a.e+alo-1 >= b.e+bhi {
		return sa
	}
	if b.e+blo-1 >= a.e+ahi {
		return -sa
	}
	am, bm := a.m, b.m
	switch {
	case a.e > b.e:
		am = new(big.Int).Mul(a.m, pow10Big(a.e-b.e))
	case b.e > a.e:
		bm = new(big.Int).Mul(b.m, pow10Big(b.e-a.e))
	}
	return am.Cmp(bm)
}

// addDecimal returns a+b exactly, at the smaller of the two exponents.
func addDecimal(a, b decimal) decimal {
	switch {
	case b.m.Sign() == 0:
		return a
	case a.m.Sign() == 0:
		return b
	}
	am, bm, e := a.m, b.m, a.e
	switch {
	case a.e > b.e:
		am = new(big.Int).Mul(a.m, pow10Big(a.e-b.e))
		e = b.e
	case b.e > a.e:
		bm = new(big.Int).Mul(b.m, pow10Big(b.e-a.e))
	}
	return decimal{m: new(big.Int).Add(am, bm), e: e}
}

func negDecimal(a decimal) decimal { return decimal{m: new(big.Int).Neg(a.m), e: a.e} }

// roundDecimal returns a rounded away from zero to exponent e when a is
// finer than that; a coarser a is returned as is.
func roundDecimal(a decimal, e int64) decimal {
	if a.e >= e || a.m.Sign() == 0 {
		return a
	}
	k := a.e - e // negative
	if _, hi := digitBounds(a.m); -k >= hi {
		// 0 < |m| < 10^hi ≤ 10^-k: the rounding unit alone remains.
		return decimal{m: big.NewInt(int64(a.m.Sign())), e: e}
	}
	q, r := new(big.Int).QuoRem(a.m, pow10Big(-k), new(big.Int))
	if r.Sign() != 0 {
		q.Add(q, big.NewInt(int64(a.m.Sign())))
	}
	return decimal{m: q, e: e}
}

// stripZeros moves factors of ten from m into the exponent while the exponent
// stays at or below limit. It returns a new integer; m is left alone.
func stripZeros(m *big.Int, e, limit int64) (*big.Int, int64) {
	x := new(big.Int).Set(m)
	if x.Sign() == 0 {
		return x, e
	}
	q, r := new(big.Int), new(big.Int)
	for _, step := range [...]int64{18, 1} {
		div := big.NewInt(pow10[step])
		for e <= limit-step {
			q.QuoRem(x, div, r)
			if r.Sign() != 0 {
				break
			}
			x, q = q, x
			e += step
		}
	}
	return x, e
}

// integerValue returns a as an integer when it is one.
func integerValue(a decimal) (*big.Int, bool) {
	if a.e >= 0 {
		return new(big.Int).Mul(a.m, pow10Big(a.e)), true
	}
	if a.m.Sign() == 0 {
		return new(big.Int), true
	}
	if _, hi := digitBounds(a.m); -a.e >= hi {
		return nil, false
	}
	q, r := new(big.Int).QuoRem(a.m, pow10Big(-a.e), new(big.Int))
	return q, r.Sign() == 0
}

// scaledDecimal returns a/10^scale rounded away from zero, saturated at the
// int64 bounds.
func scaledDecimal(a decimal, scale int64) int64 {
	sign := a.m.Sign()
	if sign == 0 {
		return 0
	}
	shift := a.e - scale
	lo, _ := digitBounds(a.m)
	if shift+lo-1 >= 19 {
		// |a/10^scale| ≥ 10^19 > 2^63.
		return saturate(sign)
	}
	var v *big.Int
	if shift >= 0 {
		v = new(big.Int).Mul(a.m, pow10Big(shift))
	} else {
		v = roundDecimal(decimal{m: a.m, e: shift}, 0).m
	}
	if !v.IsInt64() {
		return saturate(sign)
	}
	return v.Int64()
}
