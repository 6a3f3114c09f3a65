package resource

import (
	"errors"
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"
)

// The pattern Kubernetes quotes in ErrFormatWrong. The parser itself is
// stricter: the number needs at least one digit.
const quantityPattern = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"

// Errors returned by ParseQuantity; their texts are those Kubernetes sends.
var (
	ErrFormatWrong = errors.New("quantities must match the regular expression '" + quantityPattern + "'")
	ErrNumeric     = errors.New("unable to parse numeric part of quantity")
	ErrSuffix      = errors.New("unable to parse quantity's suffix")
)

// suffixLetters are the letters a suffix is made of.
const suffixLetters = "eEinumkKMGTP"

// scanned is a quantity string split into its parts.
type scanned struct {
	negative bool
	whole    string // digits before the point
	frac     string // digits after the point
	suffix   string
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// scanQuantity splits str into sign, number and suffix without interpreting
// them.
func scanQuantity(str string) (scanned, error) {
	var p scanned
	i := 0
	if str[0] == '+' || str[0] == '-' {
		p.negative = str[0] == '-'
		i++
	}
	start := i
	for i < len(str) && isDigit(str[i]) {
		i++
	}
	p.whole = str[start:i]
	dot := i < len(str) && str[i] == '.'
	if dot {
		i++
		start = i
		for i < len(str) && isDigit(str[i]) {
			i++
		}
		p.frac = str[start:i]
	}
	if p.whole == "" && p.frac == "" {
		if dot {
			return p, ErrNumeric
		}
		return p, ErrFormatWrong
	}
	start = i
	for i < len(str) && strings.IndexByte(suffixLetters, str[i]) >= 0 {
		i++
	}
	if i < len(str) && (str[i] == '+' || str[i] == '-') {
		i++
	}
	for i < len(str) && isDigit(str[i]) {
		i++
	}
	if i != len(str) {
		return p, ErrFormatWrong
	}
	p.suffix = str[start:]
	return p, nil
}

// interpretSuffix returns the base (10 or 2), the exponent of that base and
// the format a suffix stands for.
func interpretSuffix(s string) (base int, exp int64, format Format, ok bool) {
	switch s {
	case "":
		return 10, 0, DecimalSI, true
	case "n":
		return 10, -9, DecimalSI, true
	case "u":
		return 10, -6, DecimalSI, true
	case "m":
		return 10, -3, DecimalSI, true
	case "k":
		return 10, 3, DecimalSI, true
	case "M":
		return 10, 6, DecimalSI, true
	case "G":
		return 10, 9, DecimalSI, true
	case "T":
		return 10, 12, DecimalSI, true
	case "P":
		return 10, 15, DecimalSI, true
	case "E":
		return 10, 18, DecimalSI, true
	case "Ki":
		return 2, 10, BinarySI, true
	case "Mi":
		return 2, 20, BinarySI, true
	case "Gi":
		return 2, 30, BinarySI, true
	case "Ti":
		return 2, 40, BinarySI, true
	case "Pi":
		return 2, 50, BinarySI, true
	case "Ei":
		return 2, 60, BinarySI, true
	}
	if len(s) > 1 && (s[0] == 'e' || s[0] == 'E') {
		v, err := strconv.ParseInt(s[1:], 10, 64)
		if err != nil || v > maxExponent || v < -maxExponent {
			return 0, 0, "", false
		}
		return 10, v, DecimalExponent, true
	}
	return 0, 0, "", false
}

// significant trims the zeros that carry no digits from a number written as
// whole.frac. The value is digits(whole+frac)·10^exp.
func significant(whole, frac string) (w, f string, exp int64) {
	w = strings.TrimLeft(whole, "0")
	f = strings.TrimRight(frac, "0")
	exp = -int64(len(f))
	if f == "" {
		t := strings.TrimRight(w, "0")
		exp += int64(len(w) - len(t))
		w = t
	}
	if w == "" {
		f = strings.TrimLeft(f, "0")
	}
	return w, f, exp
}

// digitsInt64 reads up to 18 digits split across two strings.
func digitsInt64(w, f string) int64 {
	var v int64
	for i := 0; i < len(w); i++ {
		v = v*10 + int64(w[i]-'0')
	}
	for i := 0; i < len(f); i++ {
		v = v*10 + int64(f[i]-'0')
	}
	return v
}

// ParseQuantity reads a quantity such as "100m", "1.5Gi", "2e3" or "-1k".
// The error is ErrFormatWrong, ErrNumeric or ErrSuffix, as in Kubernetes.
func ParseQuantity(str string) (Quantity, error) {
	if str == "" {
		return Quantity{}, ErrFormatWrong
	}
	if str == "0" {
		return Quantity{Format: DecimalSI, s: "0", shape: shapeDecimal}, nil
	}
	p, err := scanQuantity(str)
	if err != nil {
		return Quantity{}, err
	}
	base, sexp, format, ok := interpretSuffix(p.suffix)
	if !ok {
		return Quantity{}, ErrSuffix
	}
	w, f, exp := significant(p.whole, p.frac)
	q := Quantity{Format: format}
	switch {
	case w == "" && f == "":
		// zero, in the suffix's format
	case base == 10:
		q.setParsedDecimal(p.negative, w, f, exp+sexp)
	default:
		q.setParsedBinary(p.negative, w, f, exp, uint(sexp))
	}
	q.cacheCanonical(str)
	return q, nil
}

// setParsedDecimal stores ±digits·10^exp, rounded up to nano.
func (q *Quantity) setParsedDecimal(negative bool, w, f string, exp int64) {
	if len(w)+len(f) <= 18 && exp <= math.MaxInt32 {
		m := digitsInt64(w, f)
		if exp < int64(Nano) {
			m, exp = divPow10Away(m, int64(Nano)-exp), int64(Nano)
		}
		if negative {
			m = -m
		}
		q.mant, q.exp = m, int32(exp)
		return
	}
	m, _ := new(big.Int).SetString(w+f, 10) // digits only: cannot fail
	if negative {
		m.Neg(m)
	}
	q.setDecimal(roundDecimal(decimal{m: m, e: exp}, int64(Nano)))
}

// setParsedBinary stores ±digits·10^exp·2^shift, rounded up to nano and
// capped at 2^63-1 in magnitude. A value below one switches to DecimalSI.
func (q *Quantity) setParsedBinary(negative bool, w, f string, exp int64, shift uint) {
	if len(w)+len(f) <= 18 && exp > -19 && exp < 19 {
		m := digitsInt64(w, f)
		if exp > 0 {
			m, _ = mulPow10(m, exp) // may overflow: checked with the shift
		}
		if exp >= 0 && m > 0 && bits.Len64(uint64(m))+int(shift) <= 63 {
			m <<= shift
			if negative {
				m = -m
			}
			q.mant = m
			return
		}
		if exp < 0 && bits.Len64(uint64(m))+int(shift) <= 63 {
			m <<= shift
			if exp < int64(Nano) {
				m, exp = divPow10Away(m, int64(Nano)-exp), int64(Nano)
			}
			if m < pow10[-exp] {
				q.Format = DecimalSI
			}
			if negative {
				m = -m
			}
			q.mant, q.exp = m, int32(exp)
			return
		}
	}
	m, _ := new(big.Int).SetString(w+f, 10) // digits only: cannot fail
	d := decimal{m: m.Lsh(m, shift), e: exp}
	if cmpDecimal(d, decimal{m: big.NewInt(math.MaxInt64)}) > 0 {
		d = decimal{m: big.NewInt(math.MaxInt64)}
	}
	d = roundDecimal(d, int64(Nano))
	if cmpDecimal(d, decimal{m: big.NewInt(1)}) < 0 {
		q.Format = DecimalSI
	}
	if negative {
		d = negDecimal(d)
	}
	q.setDecimal(d)
}

// cacheCanonical remembers q's canonical text, reusing str when it already
// is that text.
func (q *Quantity) cacheCanonical(str string) {
	var buf [40]byte
	out := q.appendCanonical(buf[:0])
	if string(out) == str {
		q.s = str
	} else {
		q.s = string(out)
	}
	q.shape = shapeOf(q.Format)
}
