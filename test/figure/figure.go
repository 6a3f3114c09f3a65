// Package figure prints the figures benchmarks measure in the one format
// `make bench` shows: each beside its target, a missed target marked.
package figure

import (
	"fmt"
	"strconv"
	"time"
)

// Print prints one figure on stdout: its name, value and unit, then the
// target and "ok" or "MISSED". A float64 value is printed with two
// decimals, anything else as fmt prints it.
func Print(name string, value any, unit, target string, met bool) {
	verdict := "ok"
	if !met {
		verdict = "MISSED"
	}
	if v, ok := value.(float64); ok {
		value = strconv.FormatFloat(v, 'f', 2, 64)
	}
	fmt.Printf("figure: %-62s %12v %-4s (target %s: %s)\n", name, value, unit, target, verdict)
}

// Milliseconds is d in milliseconds, for Print.
func Milliseconds(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
