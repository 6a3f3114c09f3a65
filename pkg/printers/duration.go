package printers

import (
	"fmt"
	"time"
)

// HumanDuration renders d the way kubectl shows ages: whole seconds up to
// two minutes, then coarser units with at most two fields ("3m2s", "10m",
// "3h5m", "2d3h", "5y"). Durations slightly in the future (up to a second,
// clock skew) read "0s"; further in the future, "<invalid>".
func HumanDuration(d time.Duration) string {
	seconds := int64(d / time.Second)
	switch {
	case seconds < -1:
		return "<invalid>"
	case seconds < 0:
		return "0s"
	case seconds < 2*60:
		return fmt.Sprintf("%ds", seconds)
	}
	minutes := int64(d / time.Minute)
	switch {
	case minutes < 10:
		return twoUnits(minutes, "m", seconds%60, "s")
	case minutes < 3*60:
		return fmt.Sprintf("%dm", minutes)
	}
	hours := int64(d / time.Hour)
	const day, year = 24, 24 * 365
	switch {
	case hours < 8:
		return twoUnits(hours, "h", minutes%60, "m")
	case hours < 2*day:
		return fmt.Sprintf("%dh", hours)
	case hours < 8*day:
		return twoUnits(hours/day, "d", hours%day, "h")
	case hours < 2*year:
		return fmt.Sprintf("%dd", hours/day)
	case hours < 8*year:
		return twoUnits(hours/year, "y", (hours/day)%365, "d")
	}
	return fmt.Sprintf("%dy", hours/year)
}

// twoUnits prints "<major><unit><minor><unit>", leaving out a zero minor.
func twoUnits(major int64, majorUnit string, minor int64, minorUnit string) string {
	if minor == 0 {
		return fmt.Sprintf("%d%s", major, majorUnit)
	}
	return fmt.Sprintf("%d%s%d%s", major, majorUnit, minor, minorUnit)
}
