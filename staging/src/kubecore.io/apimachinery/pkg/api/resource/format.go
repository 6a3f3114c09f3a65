package resource

import (
	"math/big"
	"strconv"
)

// maxBinaryPower is the largest power of 1024 with a suffix (Ei, 1024^6).
const maxBinaryPower = 6

func binarySuffix(power int) string {
	switch power {
	case 1:
		return "Ki"
	case 2:
		return "Mi"
	case 3:
		return "Gi"
	case 4:
		return "Ti"
	case 5:
		return "Pi"
	case 6:
		return "Ei"
	}
	return ""
}

func decimalSuffix(exp int64) (string, bool) {
	switch exp {
	case -9:
		return "n", true
	case -6:
		return "u", true
	case -3:
		return "m", true
	case 0:
		return "", true
	case 3:
		return "k", true
	case 6:
		return "M", true
	case 9:
		return "G", true
	case 12:
		return "T", true
	case 15:
		return "P", true
	case 18:
		return "E", true
	}
	return "", false
}

// appendCanonical appends the canonical text of q:
//   - zero is "0";
//   - DecimalSI and DecimalExponent write an integer mantissa and the largest
//     exponent that is a multiple of three and keeps the value exact, as an SI
//     prefix or as "e<exp>" (DecimalSI falls back to "e<exp>" beyond n…E);
//   - BinarySI writes an integer and the largest power of 1024 dividing it
//     (up to Ei), and falls back to DecimalSI for values strictly between
//     -1024 and 1024, for fractions, and past Ei;
//   - any other Format writes as DecimalExponent.
func (q Quantity) appendCanonical(buf []byte) []byte {
	if q.IsZero() {
		return append(buf, '0')
	}
	sh := shapeOf(q.Format)
	if sh == shapeBinary {
		if q.CmpInt64(-1024) > 0 && q.CmpInt64(1024) < 0 {
			sh = shapeDecimal
		} else if out, ok := q.appendBinary(buf); ok {
			return out
		} else {
			sh = shapeDecimal
		}
	}
	return q.appendDecimal(buf, sh)
}

// appendBinary appends q as an integer times a power of 1024, or reports
// false when q is not an integer or needs a power past Ei.
func (q Quantity) appendBinary(buf []byte) ([]byte, bool) {
	if q.big == nil {
		v, ok := q.AsInt64()
		if ok {
			// An int64 holds at most 8·1024^6 in magnitude.
			power := 0
			for v%1024 == 0 {
				v /= 1024
				power++
			}
			buf = strconv.AppendInt(buf, v, 10)
			return append(buf, binarySuffix(power)...), true
		}
		if q.exp < 0 {
			return buf, false // a fraction
		}
		// An integer past the int64 range: continue in big arithmetic.
	}
	d := q.decimal()
	if d.e >= 0 && int64(d.m.TrailingZeroBits())+d.e >= 10*(maxBinaryPower+1) {
		// 10^e contributes e factors of two: the power of 1024 is past Ei.
		return buf, false
	}
	v, ok := integerValue(d)
	if !ok {
		return buf, false
	}
	power := int(v.TrailingZeroBits() / 10)
	if power > maxBinaryPower {
		return buf, false
	}
	v.Rsh(v, uint(10*power))
	buf = v.Append(buf, 10)
	return append(buf, binarySuffix(power)...), true
}

// appendDecimal appends q as an integer mantissa and a power of ten that is
// a multiple of three, written as an SI prefix (shapeDecimal, when one
// exists) or as "e<exp>".
func (q Quantity) appendDecimal(buf []byte, sh shape) []byte {
	if q.big == nil {
		m, e := q.mant, int64(q.exp)
		for m%10 == 0 && e < canonicalExponentLimit {
			m /= 10
			e++
		}
		if adjust := floorMod3(e); adjust == 0 {
			return appendExponent(strconv.AppendInt(buf, m, 10), e, sh)
		} else if v, ok := mulPow10(m, adjust); ok {
			return appendExponent(strconv.AppendInt(buf, v, 10), e-adjust, sh)
		}
		// The mantissa outgrows an int64: continue in big arithmetic.
	}
	d := q.decimal()
	m, e := stripZeros(d.m, d.e, canonicalExponentLimit)
	if adjust := floorMod3(e); adjust != 0 {
		m = new(big.Int).Mul(m, pow10Big(adjust))
		e -= adjust
	}
	return appendExponent(m.Append(buf, 10), e, sh)
}

// floorMod3 returns e mod 3 in 0..2, for negative e too.
func floorMod3(e int64) int64 { return ((e % 3) + 3) % 3 }

func appendExponent(buf []byte, e int64, sh shape) []byte {
	if sh == shapeDecimal {
		if suffix, ok := decimalSuffix(e); ok {
			return append(buf, suffix...)
		}
	}
	if e == 0 {
		return buf
	}
	return strconv.AppendInt(append(buf, 'e'), e, 10)
}
