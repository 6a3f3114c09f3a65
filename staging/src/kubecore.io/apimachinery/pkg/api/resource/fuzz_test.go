package resource

import (
	"encoding/json"
	"math"
	"testing"
)

// FuzzParseQuantity checks, for any input, that parsing does not panic and
// that an accepted quantity re-parses from its String() to an Equal quantity
// whose String() is the same (the canonical form is a fixed point), and that
// JSON round-trips the same way.
func FuzzParseQuantity(f *testing.F) {
	for _, tc := range parseCases() {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		q, err := ParseQuantity(in)
		if err != nil {
			return
		}
		text := q.String()
		again, err := ParseQuantity(text)
		if err != nil {
			t.Fatalf("%q: String() %q does not parse: %v", in, text, err)
		}
		if !again.Equal(q) {
			t.Fatalf("%q: String() %q parses to a different value %q", in, text, again.String())
		}
		if got := again.String(); got != text {
			t.Fatalf("%q: String() is not stable: %q then %q", in, text, got)
		}
		b, err := json.Marshal(q)
		if err != nil {
			t.Fatalf("%q: Marshal: %v", in, err)
		}
		var back Quantity
		if err := json.Unmarshal(b, &back); err != nil || !back.Equal(q) {
			t.Fatalf("%q: JSON %s round-trips to %q, %v", in, b, back.String(), err)
		}
		// Value rounds away from zero: unless it saturated at an int64
		// bound, it is never closer to zero than q.
		v := q.Value()
		if v != math.MaxInt64 && v != math.MinInt64 && (q.Sign() > 0 && q.CmpInt64(v) > 0 || q.Sign() < 0 && q.CmpInt64(v) < 0) {
			t.Fatalf("%q: Value() %d is inside the value", in, v)
		}
	})
}
