package resource

import (
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"strings"
	"sync"
	"testing"
)

// parseCase is one row of the parse/format table, shared with the fuzz seeds.
type parseCase struct {
	in     string
	want   string // canonical String(); empty when err is set
	format Format
	err    error
}

func parseCases() []parseCase {
	return []parseCase{
		// decimal SI
		{in: "0", want: "0", format: DecimalSI},
		{in: "100m", want: "100m", format: DecimalSI},
		{in: "1", want: "1", format: DecimalSI},
		{in: "1.5", want: "1500m", format: DecimalSI},
		{in: "0.1", want: "100m", format: DecimalSI},
		{in: "1000m", want: "1", format: DecimalSI},
		{in: "1000M", want: "1G", format: DecimalSI},
		{in: "50k", want: "50k", format: DecimalSI},
		{in: "5n", want: "5n", format: DecimalSI},
		{in: "4u", want: "4u", format: DecimalSI},
		{in: "8.1k", want: "8100", format: DecimalSI},
		{in: "10.035M", want: "10035k", format: DecimalSI},
		{in: "7.123456M", want: "7123456", format: DecimalSI},
		{in: "2.5P", want: "2500T", format: DecimalSI},
		{in: "1E", want: "1E", format: DecimalSI},
		{in: "12E", want: "12E", format: DecimalSI},
		{in: "1000E", want: "1e21", format: DecimalSI},
		{in: ".001", want: "1m", format: DecimalSI},
		{in: "1.", want: "1", format: DecimalSI},
		{in: "1.G", want: "1G", format: DecimalSI},
		{in: "+1", want: "1", format: DecimalSI},
		{in: "01", want: "1", format: DecimalSI},
		{in: "-0", want: "0", format: DecimalSI},
		{in: "1.001", want: "1001m", format: DecimalSI},
		{in: "-1500m", want: "-1500m", format: DecimalSI},
		{in: "0.00050k", want: "500m", format: DecimalSI},
		// rounding up below nano, away from zero
		{in: "3.001n", want: "4n", format: DecimalSI},
		{in: "0.9n", want: "1n", format: DecimalSI},
		{in: "-0.1n", want: "-1n", format: DecimalSI},
		{in: "0.00000012345", want: "124n", format: DecimalSI},
		{in: "0.0000000001", want: "1n", format: DecimalSI},
		// binary SI
		{in: "1Ki", want: "1Ki", format: BinarySI},
		{in: "1Gi", want: "1Gi", format: BinarySI},
		{in: "500Mi", want: "500Mi", format: BinarySI},
		{in: "1024Mi", want: "1Gi", format: BinarySI},
		{in: "1.5Gi", want: "1536Mi", format: BinarySI},
		{in: "0.5Mi", want: "512Ki", format: BinarySI},
		{in: "0.5Ki", want: "512", format: BinarySI},
		{in: "1.1Ki", want: "1126400m", format: BinarySI},
		{in: "100.035Ki", want: "102435840m", format: BinarySI},
		{in: ".001Ki", want: "1024m", format: BinarySI},
		{in: "0.0009765625Ki", want: "1", format: BinarySI},
		{in: "0.0009765624Ki", want: "999999898n", format: DecimalSI},
		{in: ".000000000001Ki", want: "2n", format: DecimalSI},
		{in: "0Ki", want: "0", format: BinarySI},
		{in: "3Ei", want: "3Ei", format: BinarySI},
		{in: "-8Ei", want: "-9223372036854775807", format: BinarySI},
		{in: "9Ei", want: "9223372036854775807", format: BinarySI},
		{in: "9223372036854775807Ki", want: "9223372036854775807", format: BinarySI},
		// decimal exponents
		{in: "1e3", want: "1e3", format: DecimalExponent},
		{in: "2e3", want: "2e3", format: DecimalExponent},
		{in: "1E3", want: "1e3", format: DecimalExponent},
		{in: "1E-3", want: "1e-3", format: DecimalExponent},
		{in: "1.2e3", want: "1200", format: DecimalExponent},
		{in: "1.3E+6", want: "1300e3", format: DecimalExponent},
		{in: "0.5e-2", want: "5e-3", format: DecimalExponent},
		{in: "1e13", want: "10e12", format: DecimalExponent},
		{in: "1.1E-9", want: "2e-9", format: DecimalExponent},
		{in: "-.484785E-7466", want: "-1e-9", format: DecimalExponent},
		{in: "1e2147483647", want: "10e2147483646", format: DecimalExponent},
		{in: "100e2147483647", want: "1000e2147483646", format: DecimalExponent},
		{in: "1e-2147483647", want: "1e-9", format: DecimalExponent},
		// values past int64
		{in: "12345678901234567890", want: "12345678901234567890", format: DecimalSI},
		{in: "9223372036854775808", want: "9223372036854775808", format: DecimalSI},
		{in: "-9223372036854775808", want: "-9223372036854775808", format: DecimalSI},
		{in: "999999999999999999.1", want: "999999999999999999100m", format: DecimalSI},
		{in: "1000000000000000000", want: "1E", format: DecimalSI},
		{in: "10000000000000000000000m", want: "10E", format: DecimalSI},
		{in: "1.0000000000000000001E", want: "1000000000000000000100m", format: DecimalSI},
		{in: "9.5000000001Gi", want: "10200547328107374183n", format: BinarySI},
		{in: "123456789012345678901234567890e-40", want: "1e-9", format: DecimalExponent},
		// invalid
		{in: "", err: ErrFormatWrong},
		{in: "1.2.3", err: ErrFormatWrong},
		{in: "1.1.M", err: ErrFormatWrong},
		{in: "1Mb", err: ErrFormatWrong},
		{in: "--1", err: ErrFormatWrong},
		{in: "1e", err: ErrSuffix},
		{in: "Gi", err: ErrFormatWrong},
		{in: "1 Gi", err: ErrFormatWrong},
		{in: " 1", err: ErrFormatWrong},
		{in: "1 ", err: ErrFormatWrong},
		{in: "aoeu", err: ErrFormatWrong},
		{in: "1+1.0M", err: ErrFormatWrong},
		{in: "0.1mi", err: ErrSuffix},
		{in: "0.1am", err: ErrFormatWrong},
		{in: ".5i", err: ErrSuffix},
		{in: "1i", err: ErrSuffix},
		{in: "-3.01e-", err: ErrSuffix},
		{in: "1kM", err: ErrSuffix},
		{in: "1e4294967297", err: ErrSuffix},
		{in: "1e2147483648", err: ErrSuffix},
		{in: "1e-2147483648", err: ErrSuffix},
		{in: "-", err: ErrFormatWrong},
		{in: ".", err: ErrNumeric},
		{in: "-.Ki", err: ErrNumeric},
		{in: "1e3k", err: ErrFormatWrong},
	}
}

func TestParseQuantity(t *testing.T) {
	for _, tc := range parseCases() {
		q, err := ParseQuantity(tc.in)
		if tc.err != nil {
			if !errors.Is(err, tc.err) {
				t.Errorf("ParseQuantity(%q) error = %v, want %v", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseQuantity(%q) unexpected error: %v", tc.in, err)
			continue
		}
		if got := q.String(); got != tc.want {
			t.Errorf("ParseQuantity(%q).String() = %q, want %q", tc.in, got, tc.want)
		}
		if q.Format != tc.format {
			t.Errorf("ParseQuantity(%q).Format = %s, want %s", tc.in, q.Format, tc.format)
		}
		// The negated input is the negated value, in the same format.
		if tc.in[0] != '-' && tc.in[0] != '+' && !q.IsZero() {
			n, err := ParseQuantity("-" + tc.in)
			if err != nil {
				t.Errorf("ParseQuantity(-%s): %v", tc.in, err)
				continue
			}
			neg := q
			neg.Neg()
			if n.Cmp(neg) != 0 || n.Format != q.Format {
				t.Errorf("ParseQuantity(-%s) = %s %s, want %s %s", tc.in, n.String(), n.Format, neg.String(), q.Format)
			}
		}
	}
}

func TestErrorTexts(t *testing.T) {
	want := map[error]string{
		ErrFormatWrong: "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
		ErrNumeric:     "unable to parse numeric part of quantity",
		ErrSuffix:      "unable to parse quantity's suffix",
	}
	for err, text := range want {
		if err.Error() != text {
			t.Errorf("error text = %q, want %q", err.Error(), text)
		}
	}
}

func TestMustParsePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("MustParse(\"x\") did not panic")
		}
	}()
	MustParse("x")
}

func TestConstructedString(t *testing.T) {
	tests := []struct {
		name string
		q    Quantity
		want string
	}{
		{"zero value", Quantity{}, "0"},
		{"NewQuantity DecimalSI", *NewQuantity(1000, DecimalSI), "1k"},
		{"NewQuantity 1234000", *NewQuantity(1234000, DecimalSI), "1234k"},
		{"NewQuantity BinarySI", *NewQuantity(1024, BinarySI), "1Ki"},
		{"NewQuantity BinarySI 1Mi", *NewQuantity(1024*1024, BinarySI), "1Mi"},
		{"NewQuantity BinarySI 1025", *NewQuantity(1025, BinarySI), "1025"},
		{"NewQuantity BinarySI small", *NewQuantity(5, BinarySI), "5"},
		{"NewQuantity BinarySI 2000", *NewQuantity(2000, BinarySI), "2000"},
		{"NewQuantity BinarySI -2000", *NewQuantity(-2000, BinarySI), "-2000"},
		{"NewQuantity BinarySI min int64", *NewQuantity(math.MinInt64, BinarySI), "-8Ei"},
		{"unknown format writes exponent", *NewQuantity(1000000, "bogus"), "1e6"},
		{"empty format writes exponent", *NewQuantity(1000, ""), "1e3"},
		{"NewMilliQuantity", *NewMilliQuantity(1, DecimalSI), "1m"},
		{"NewMilliQuantity 1000", *NewMilliQuantity(1000, DecimalSI), "1"},
		{"NewMilliQuantity 1234000", *NewMilliQuantity(1234000, DecimalSI), "1234"},
		{"NewMilliQuantity BinarySI below 1024", *NewMilliQuantity(1024, BinarySI), "1024m"},
		{"NewMilliQuantity BinarySI fraction", *NewMilliQuantity(1024*1024, BinarySI), "1048576m"},
		{"NewMilliQuantity exponent", *NewMilliQuantity(1000000, "bogus"), "1e3"},
		{"NewScaledQuantity nano", *NewScaledQuantity(1, Nano), "1n"},
		{"NewScaledQuantity 1000 nano", *NewScaledQuantity(1000, Nano), "1u"},
		{"NewScaledQuantity 1000 milli", *NewScaledQuantity(1000, Milli), "1"},
		{"NewScaledQuantity 0 milli", *NewScaledQuantity(0, Milli), "0"},
		{"DecimalSI below nano", *NewScaledQuantity(1, -12), "1e-12"},
		{"DecimalSI 10^-10", *NewScaledQuantity(1, -10), "100e-12"},
		{"DecimalSI past E", *NewScaledQuantity(5, 21), "5e21"},
		{"DecimalExponent 80e-3", *NewMilliQuantity(80, DecimalExponent), "80e-3"},
		{"DecimalExponent 300e6", Quantity{mant: 300, exp: 6, Format: DecimalExponent}, "300e6"},
		{"BinarySI 10^70 past Ei", Quantity{mant: 1, exp: 70, Format: BinarySI}, "10e69"},
		{"BinarySI 10^72 past Ei", Quantity{mant: 1, exp: 72, Format: BinarySI}, "1e72"},
		{"BinarySI 2^63", func() Quantity { q := *NewQuantity(math.MinInt64, BinarySI); q.Neg(); return q }(), "8Ei"},
		{"BinarySI 2^70", func() Quantity {
			q := MustParse("1Ei")
			for range 10 {
				q.Add(q)
			}
			return q
		}(), "1180591620717411303424"},
		{"int64 overflow while canonicalizing", *NewScaledQuantity(math.MaxInt64, 1), "92233720368547758070"},
		{"largest exponent", *NewScaledQuantity(100, math.MaxInt32), "1000e2147483646"},
	}
	for _, tc := range tests {
		if got := tc.q.String(); got != tc.want {
			t.Errorf("%s: String() = %q, want %q", tc.name, got, tc.want)
		}
		// Every canonical text that a parse can produce parses back equal.
		if tc.q.exp >= int32(Nano) || tc.q.big != nil {
			back, err := ParseQuantity(tc.want)
			if err != nil {
				t.Errorf("%s: ParseQuantity(%q): %v", tc.name, tc.want, err)
			} else if back.Cmp(tc.q) != 0 && tc.q.Format != BinarySI {
				t.Errorf("%s: %q parses to %s", tc.name, tc.want, back.String())
			}
		}
	}
}

func TestFormatChangeAfterParse(t *testing.T) {
	q := MustParse("1024")
	if got := q.String(); got != "1024" {
		t.Fatalf("String() = %q", got)
	}
	q.Format = BinarySI
	if got := q.String(); got != "1Ki" {
		t.Errorf("after switching to BinarySI: String() = %q, want 1Ki", got)
	}
	q.Format = DecimalExponent
	if got := q.String(); got != "1024" {
		t.Errorf("after switching to DecimalExponent: String() = %q, want 1024", got)
	}
	q = MustParse("2k")
	q.Format = DecimalExponent
	if got, _ := q.MarshalJSON(); string(got) != `"2e3"` {
		t.Errorf("MarshalJSON after format change = %s, want \"2e3\"", got)
	}
}

func TestScaledValues(t *testing.T) {
	tests := []struct {
		in           string
		value, milli int64
		micro        int64
	}{
		{"0", 0, 0, 0},
		{"1", 1, 1000, 1000000},
		{"-1", -1, -1000, -1000000},
		{"100m", 1, 100, 100000},
		{"1500m", 2, 1500, 1500000},
		{"-1500m", -2, -1500, -1500000},
		{"0.0005", 1, 1, 500},
		{"-0.0005", -1, -1, -500},
		{"1n", 1, 1, 1},
		{"-1n", -1, -1, -1},
		{"1001n", 1, 1, 2},
		{"1Ki", 1024, 1024000, 1024000000},
		{"1.5Gi", 1610612736, 1610612736000, 1610612736000000},
		{"9.5000000001Gi", 10200547329, 10200547328108, 10200547328107375},
		{"-9.5000000001Gi", -10200547329, -10200547328108, -10200547328107375},
		{"-.484785E-7466", -1, -1, -1},
		{"9223372036854775807", math.MaxInt64, math.MaxInt64, math.MaxInt64},
		{"9223372036854775808", math.MaxInt64, math.MaxInt64, math.MaxInt64},
		{"-9223372036854775809", math.MinInt64, math.MinInt64, math.MinInt64},
		{"1e2147483647", math.MaxInt64, math.MaxInt64, math.MaxInt64},
		{"-1e2147483647", math.MinInt64, math.MinInt64, math.MinInt64},
		{"9223372036854775807.5", math.MaxInt64, math.MaxInt64, math.MaxInt64},
		{"123456789012345678.9", 123456789012345679, math.MaxInt64, math.MaxInt64},
		{"10E", math.MaxInt64, math.MaxInt64, math.MaxInt64},
	}
	for _, tc := range tests {
		q := MustParse(tc.in)
		if got := q.Value(); got != tc.value {
			t.Errorf("%s.Value() = %d, want %d", tc.in, got, tc.value)
		}
		if got := q.MilliValue(); got != tc.milli {
			t.Errorf("%s.MilliValue() = %d, want %d", tc.in, got, tc.milli)
		}
		if got := q.ScaledValue(Micro); got != tc.micro {
			t.Errorf("%s.ScaledValue(Micro) = %d, want %d", tc.in, got, tc.micro)
		}
	}
	scales := []struct {
		from, to Scale
		want     int64
	}{
		{Nano, Nano, 1}, {Nano, Micro, 1}, {Nano, 0, 1},
		{Micro, Nano, 1000}, {Milli, Micro, 1000}, {0, Nano, 1e9},
		{2, -2, 10000}, {Exa, Exa, 1}, {Exa, 0, 1e18}, {Exa, Milli, math.MaxInt64},
	}
	for _, tc := range scales {
		if got := NewScaledQuantity(1, tc.from).ScaledValue(tc.to); got != tc.want {
			t.Errorf("1e%d.ScaledValue(%d) = %d, want %d", tc.from, tc.to, got, tc.want)
		}
	}
}

func TestAsInt64(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"1k", 1000, true},
		{"1000m", 1, true},
		{"1500m", 0, false},
		{"1Gi", 1 << 30, true},
		{"-1E", -1e18, true},
		{"9223372036854775807", math.MaxInt64, true},
		{"-9223372036854775808", math.MinInt64, true},
		{"9223372036854775808", 0, false},
		{"10E", 0, false},
		{"1n", 0, false},
		{"1000000000000000000000000000000e-12", 1e18, true},
		{"1000000000000000000000000000001e-12", 0, false},
		{"12345678901234567890.1", 0, false},
		{"123456789012345678901", 0, false},
		{"-123456789012345678901e-40", 0, false},
	}
	for _, tc := range tests {
		got, ok := MustParse(tc.in).AsInt64()
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s.AsInt64() = %d, %t; want %d, %t", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestAsApproximateFloat64(t *testing.T) {
	tests := []struct {
		in   string
		want float64
	}{
		{"0", 0},
		{"2Ki", 2048},
		{"1.1Ki", 1126.4},
		{"1Mi", 1048576},
		{"100m", 0.1},
		{"12E", 1.2e19},
		{"12345678901234567890", 12345678901234567890},
		{"1e2147483647", math.Inf(1)},
		{"-1e2147483647", math.Inf(-1)},
		{"123456789012345678901", 123456789012345678901},
		{"-12345678901234567890.5", -12345678901234567890.5},
	}
	for _, tc := range tests {
		if got := MustParse(tc.in).AsApproximateFloat64(); got != tc.want {
			t.Errorf("%s.AsApproximateFloat64() = %g, want %g", tc.in, got, tc.want)
		}
	}
}

func TestCmp(t *testing.T) {
	tests := []struct {
		x, y string
		want int
	}{
		{"0", "0", 0},
		{"0", "0Ki", 0},
		{"100m", "50m", 1},
		{"50m", "100m", -1},
		{"1", "1000m", 0},
		{"1Ki", "1024", 0},
		{"1k", "1Ki", -1},
		{"10000T", "100Gi", 1},
		{"-1", "1", -1},
		{"-1", "-2", 1},
		{"-1", "0", -1},
		{"0", "1n", -1},
		{"1E", "999999999999999999", 1},
		{"9223372036854775807", "9223372036854775808", -1},
		{"9223372036854775808", "9223372036854775807", 1},
		{"-9223372036854775809", "-9223372036854775808", -1},
		{"12345678901234567890", "12345678901234567890", 0},
		{"12345678901234567890", "12345678901234567891", -1},
		{"1e2147483647", "1", 1},
		{"1e2147483647", "1e2147483646", 1},
		{"-1e2147483647", "1n", -1},
		{"1e21", "1000E", 0},
		{"1.0000000000000000001E", "1E", 1},
		{"9223372036854775807", "90E", -1},
		{"-90E", "-9223372036854775807", -1},
	}
	for _, tc := range tests {
		x, y := MustParse(tc.x), MustParse(tc.y)
		if got := x.Cmp(y); got != tc.want {
			t.Errorf("Cmp(%s, %s) = %d, want %d", tc.x, tc.y, got, tc.want)
		}
		if got := y.Cmp(x); got != -tc.want {
			t.Errorf("Cmp(%s, %s) = %d, want %d", tc.y, tc.x, got, -tc.want)
		}
		if got := x.Equal(y); got != (tc.want == 0) {
			t.Errorf("Equal(%s, %s) = %t", tc.x, tc.y, got)
		}
	}
	// Scales far apart, where lifting one side overflows int64.
	small := []struct {
		a    Quantity
		b    Quantity
		want int
	}{
		{*NewScaledQuantity(math.MaxInt64, 0), *NewScaledQuantity(1, -1), 1},
		{*NewScaledQuantity(math.MaxInt64, 1), *NewScaledQuantity(1, 0), 1},
		{*NewScaledQuantity(math.MaxInt64, -16), *NewScaledQuantity(1, 3), -1},
		{*NewScaledQuantity(math.MinInt64, -18), *NewScaledQuantity(-1, 0), -1},
		{*NewScaledQuantity(math.MinInt64, -19), *NewScaledQuantity(-1, 0), 1},
		{*NewScaledQuantity(1e18, -17), *NewScaledQuantity(1, 1), 0},
		{*NewScaledQuantity(-1e18, -17), *NewScaledQuantity(-10, 0), 0},
		{*NewScaledQuantity(1e18+1, -17), *NewScaledQuantity(1, 1), 1},
		{*NewScaledQuantity(0, 5), *NewScaledQuantity(0, -5), 0},
		{*NewScaledQuantity(1, math.MaxInt32), *NewScaledQuantity(math.MaxInt64, math.MinInt32), 1},
	}
	for _, tc := range small {
		if got := tc.a.Cmp(tc.b); got != tc.want {
			t.Errorf("Cmp(%s, %s) = %d, want %d", tc.a.String(), tc.b.String(), got, tc.want)
		}
		if got := tc.b.Cmp(tc.a); got != -tc.want {
			t.Errorf("Cmp(%s, %s) = %d, want %d", tc.b.String(), tc.a.String(), got, -tc.want)
		}
	}
	if got := MustParse("1k").CmpInt64(999); got != 1 {
		t.Errorf("1k.CmpInt64(999) = %d", got)
	}
	if got := MustParse("12345678901234567890").CmpInt64(math.MaxInt64); got != 1 {
		t.Errorf("big.CmpInt64(MaxInt64) = %d", got)
	}
	if got := MustParse("-1500m").CmpInt64(-2); got != 1 {
		t.Errorf("-1500m.CmpInt64(-2) = %d", got)
	}
}

func TestArithmetic(t *testing.T) {
	tests := []struct {
		name   string
		op     func(q *Quantity)
		start  string
		want   string
		format Format
	}{
		{"add same scale", func(q *Quantity) { q.Add(MustParse("200m")) }, "100m", "300m", DecimalSI},
		{"add across scales", func(q *Quantity) { q.Add(MustParse("1")) }, "100m", "1100m", DecimalSI},
		{"add binary into decimal keeps format", func(q *Quantity) { q.Add(MustParse("1Ki")) }, "1k", "2024", DecimalSI},
		{"add decimal into binary keeps format", func(q *Quantity) { q.Add(MustParse("1024")) }, "1Ki", "2Ki", BinarySI},
		{"zero takes the format of y", func(q *Quantity) { q.Add(MustParse("1Gi")) }, "0", "1Gi", BinarySI},
		{"adding zero keeps the suffix", func(q *Quantity) { q.Add(MustParse("0")) }, "100m", "100m", DecimalSI},
		{"sub", func(q *Quantity) { q.Sub(MustParse("1")) }, "10", "9", DecimalSI},
		{"sub to zero", func(q *Quantity) { q.Sub(MustParse("1k")) }, "1000", "0", DecimalSI},
		{"sub from zero negates", func(q *Quantity) { q.Sub(MustParse("1Gi")) }, "0", "-1Gi", BinarySI},
		{"sub zero keeps", func(q *Quantity) { q.Sub(MustParse("0")) }, "1Gi", "1Gi", BinarySI},
		{"add overflows into big", func(q *Quantity) { q.Add(MustParse("9223372036854775807")) }, "9223372036854775807", "18446744073709551614", DecimalSI},
		{"add overflow across scales", func(q *Quantity) { q.Add(MustParse("1n")) }, "9223372036854775807", "9223372036854775807000000001n", DecimalSI},
		{"big back to small", func(q *Quantity) { q.Sub(MustParse("12345678901234567889")) }, "12345678901234567890", "1", DecimalSI},
		{"sub min int64", func(q *Quantity) { q.Sub(*NewQuantity(math.MinInt64, DecimalSI)) }, "1", "9223372036854775809", DecimalSI},
		{"zero sub min int64", func(q *Quantity) { q.Sub(*NewQuantity(math.MinInt64, DecimalSI)) }, "0", "9223372036854775808", DecimalSI},
		{"neg", func(q *Quantity) { q.Neg() }, "9.01", "-9010m", DecimalSI},
		{"neg min int64", func(q *Quantity) { q.Set(math.MinInt64); q.Neg() }, "0", "9223372036854775808", DecimalSI},
		{"neg big back to min int64", func(q *Quantity) { q.Neg() }, "9223372036854775808", "-9223372036854775808", DecimalSI},
		{"set", func(q *Quantity) { q.Set(5) }, "1Gi", "5", BinarySI},
		{"set milli", func(q *Quantity) { q.SetMilli(1500) }, "12345678901234567890", "1500m", DecimalSI},
		{"set scaled", func(q *Quantity) { q.SetScaled(3, Kilo) }, "1", "3k", DecimalSI},
	}
	for _, tc := range tests {
		q := MustParse(tc.start)
		tc.op(&q)
		if got := q.String(); got != tc.want || q.Format != tc.format {
			t.Errorf("%s: %s → %s %s, want %s %s", tc.name, tc.start, got, q.Format, tc.want, tc.format)
		}
		if want := MustParse(tc.want); !q.Equal(want) {
			t.Errorf("%s: result %s is not Equal to %s", tc.name, q.String(), tc.want)
		}
	}
}

func TestSetDecimalBounds(t *testing.T) {
	// Exponents past the int32 range fold back into range without changing
	// the value.
	var q Quantity
	q.setDecimal(decimal{m: big.NewInt(25), e: math.MaxInt32 + 2})
	if q.exp != math.MaxInt32 || q.mant != 2500 {
		t.Errorf("high exponent stored as %d·10^%d", q.mant, q.exp)
	}
	q.setDecimal(decimal{m: big.NewInt(-25), e: math.MinInt32 - 5})
	if q.exp != math.MinInt32 || q.mant != -1 {
		t.Errorf("low exponent stored as %d·10^%d, want -1·10^MinInt32", q.mant, q.exp)
	}
	q.setDecimal(decimal{m: new(big.Int)})
	if !q.IsZero() || q.big != nil {
		t.Errorf("zero stored as %#v", q)
	}
}

func TestAddSubRoundTrip(t *testing.T) {
	var q Quantity
	var terms []Quantity
	for i := range 200 {
		v := int64(i)*7919*1_000_003_007 + int64(i)
		terms = append(terms, *NewScaledQuantity(v, Scale(i%25-12)))
	}
	for _, x := range terms {
		q.Add(x)
	}
	for _, x := range terms {
		q.Sub(x)
	}
	if !q.IsZero() {
		t.Errorf("adding then subtracting the same terms left %s", q.String())
	}
}

func TestCopiesAreIndependent(t *testing.T) {
	for _, in := range []string{"100m", "12345678901234567890"} {
		orig := MustParse(in)
		c := orig.DeepCopy()
		c.Add(MustParse("1"))
		p := orig.Copy()
		p.Neg()
		var into Quantity
		orig.DeepCopyInto(&into)
		into.SetMilli(7)
		if got := orig.String(); got != in || !orig.Equal(MustParse(in)) {
			t.Errorf("changing copies of %s changed the original to %s", in, got)
		}
		if c.Equal(orig) || p.Equal(orig) || into.Equal(orig) {
			t.Errorf("copies of %s did not change", in)
		}
	}
}

func TestZeroValue(t *testing.T) {
	var q Quantity
	if !q.IsZero() || q.Sign() != 0 || q.Value() != 0 || q.MilliValue() != 0 || q.String() != "0" {
		t.Errorf("zero value misbehaves: %#v", q)
	}
	if b, err := json.Marshal(q); err != nil || string(b) != `"0"` {
		t.Errorf("zero value marshals to %s, %v", b, err)
	}
	if q.Cmp(MustParse("0")) != 0 || q.CmpInt64(0) != 0 {
		t.Error("zero value does not compare equal to 0")
	}
	if q.ToUnstructured() != "0" {
		t.Errorf("ToUnstructured() = %v", q.ToUnstructured())
	}
}

func TestJSON(t *testing.T) {
	type holder struct {
		Q Quantity `json:"q"`
	}
	tests := []struct {
		in      string
		want    string // canonical text after decoding
		wantErr bool
	}{
		{in: `{"q":"100m"}`, want: "100m"},
		{in: `{"q":"1.5Gi"}`, want: "1536Mi"},
		{in: `{"q":" 1 "}`, want: "1"},
		{in: `{"q":"\u0031k"}`, want: "1k"},
		{in: `{"q":1}`, want: "1"},
		{in: `{"q":1.5}`, want: "1500m"},
		{in: `{"q":-1}`, want: "-1"},
		{in: `{"q":1e3}`, want: "1e3"},
		{in: `{"q":0.1}`, want: "100m"},
		{in: `{"q":null}`, want: "0"},
		{in: `{"q":12345678901234567890}`, want: "12345678901234567890"},
		{in: `{"q":"1Mb"}`, wantErr: true},
		{in: `{"q":""}`, wantErr: true},
		{in: `{"q":true}`, wantErr: true},
		{in: `{"q":{}}`, wantErr: true},
		{in: `{"q":["1"]}`, wantErr: true},
	}
	for _, tc := range tests {
		var h holder
		h.Q = MustParse("5")
		err := json.Unmarshal([]byte(tc.in), &h)
		if tc.wantErr {
			if err == nil {
				t.Errorf("Unmarshal(%s) succeeded with %s", tc.in, h.Q.String())
			}
			continue
		}
		if err != nil {
			t.Errorf("Unmarshal(%s): %v", tc.in, err)
			continue
		}
		if got := h.Q.String(); got != tc.want {
			t.Errorf("Unmarshal(%s) = %s, want %s", tc.in, got, tc.want)
		}
		out, err := json.Marshal(h)
		if err != nil {
			t.Errorf("Marshal: %v", err)
			continue
		}
		if want := `{"q":"` + tc.want + `"}`; string(out) != want {
			t.Errorf("Marshal round trip of %s = %s, want %s", tc.in, out, want)
		}
	}
	// The error reaching a decoder is Kubernetes' own text.
	var q Quantity
	if err := q.UnmarshalJSON([]byte(`"abc"`)); !errors.Is(err, ErrFormatWrong) || err.Error() != ErrFormatWrong.Error() {
		t.Errorf("UnmarshalJSON(abc) error = %v", err)
	}
	// Constructed, arithmetic and big values marshal to their canonical text.
	for _, q := range []Quantity{*NewMilliQuantity(1500, DecimalSI), *NewQuantity(3<<30, BinarySI), MustParse("-12345678901234567890")} {
		b, err := q.MarshalJSON()
		if err != nil || string(b) != `"`+q.String()+`"` {
			t.Errorf("MarshalJSON(%s) = %s, %v", q.String(), b, err)
		}
		var back Quantity
		if err := json.Unmarshal(b, &back); err != nil || !back.Equal(q) {
			t.Errorf("JSON round trip of %s gave %s, %v", q.String(), back.String(), err)
		}
	}
}

func TestMapValues(t *testing.T) {
	list := map[string]Quantity{"cpu": MustParse("250m"), "memory": MustParse("64Mi")}
	if got := list["cpu"].String(); got != "250m" {
		t.Errorf("map element String() = %q", got)
	}
	if got := list["memory"].Value(); got != 64<<20 {
		t.Errorf("map element Value() = %d", got)
	}
	b, err := json.Marshal(list)
	if err != nil || string(b) != `{"cpu":"250m","memory":"64Mi"}` {
		t.Errorf("Marshal(map) = %s, %v", b, err)
	}
}

// TestConcurrentReads runs read-only methods on one shared value from many
// goroutines; under -race it proves they do not write to the receiver.
func TestConcurrentReads(t *testing.T) {
	shared := []Quantity{MustParse("1.5"), *NewMilliQuantity(2500, DecimalSI), MustParse("12345678901234567890")}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for _, q := range shared {
				_ = q.String()
				_, _ = q.MarshalJSON()
				_ = q.Cmp(shared[0])
				_ = q.Value()
				_, _ = q.AsInt64()
			}
		})
	}
	wg.Wait()
}

func TestNoAllocations(t *testing.T) {
	a, b := MustParse("1500m"), MustParse("2")
	parsed := MustParse("1.5Gi")
	checks := map[string]func(){
		"Cmp":         func() { _ = a.Cmp(b) },
		"CmpInt64":    func() { _ = a.CmpInt64(1) },
		"Value":       func() { _ = a.Value() },
		"MilliValue":  func() { _ = a.MilliValue() },
		"Add":         func() { c := a; c.Add(b) },
		"Sub":         func() { c := a; c.Sub(b) },
		"IsZero":      func() { _ = a.IsZero() },
		"cached text": func() { _ = parsed.String() },
		"parse canonical": func() {
			if _, err := ParseQuantity("100m"); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, f := range checks {
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s allocates %.0f times", name, n)
		}
	}
}

func benchmarkInputs() []string {
	return []string{"1Gi", "1Ti", "1G", "1m", "80m", "1080m", "0", "1e9", "1n", "10P", "500Mi", "250m"}
}

func BenchmarkParseQuantity(b *testing.B) {
	in := benchmarkInputs()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := ParseQuantity(in[i%len(in)]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseQuantityNonCanonical(b *testing.B) {
	in := []string{"1.5Gi", "0.5", "1000m", "1024Mi", "+1", "2.5e3"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := ParseQuantity(in[i%len(in)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkQuantityString formats quantities that carry no cached text, as
// arithmetic results do. Results are kept so that they reach the heap, as
// they do when a caller stores or encodes them.
func BenchmarkQuantityString(b *testing.B) {
	var qs []Quantity
	for _, s := range benchmarkInputs() {
		q := MustParse(s)
		q.s, q.shape = "", shapeNone
		qs = append(qs, q)
	}
	out := make([]string, len(qs))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		out[i%len(qs)] = qs[i%len(qs)].String()
	}
	if out[0] != "1Gi" {
		b.Fatal(out[0])
	}
}

func BenchmarkQuantityStringCached(b *testing.B) {
	var qs []Quantity
	for _, s := range benchmarkInputs() {
		qs = append(qs, MustParse(s))
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if s := qs[i%len(qs)].String(); s == "" {
			b.Fatal("empty")
		}
	}
}

func BenchmarkQuantityCmp(b *testing.B) {
	var qs []Quantity
	for _, s := range benchmarkInputs() {
		qs = append(qs, MustParse(s))
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		x, y := qs[i%len(qs)], qs[(i+1)%len(qs)]
		if x.Cmp(y) == 2 {
			b.Fatal("impossible")
		}
	}
}

func BenchmarkQuantityAdd(b *testing.B) {
	var qs []Quantity
	for _, s := range []string{"100m", "250m", "1", "2", "500m"} {
		qs = append(qs, MustParse(s))
	}
	var sum Quantity
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		sum.Add(qs[i%len(qs)])
	}
	if sum.Sign() <= 0 || !strings.HasSuffix(sum.String(), "m") && sum.Value() <= 0 {
		b.Fatal(sum.String())
	}
}
