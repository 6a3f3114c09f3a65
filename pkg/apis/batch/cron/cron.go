// Package cron parses the schedules of CronJobs (five fields, or a macro
// such as @hourly) and computes when they fire next.
package cron

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Schedule is a parsed cron schedule: the set of minutes, hours, days of
// the month, months and days of the week at which it fires.
type Schedule struct {
	minute, hour, dom, month, dow uint64
	// domAny and dowAny say the day fields were "*" (or "?"): a day then
	// matches on the other field alone; when both are restricted, either
	// matching is enough, as in every cron since Vixie's.
	domAny, dowAny bool
}

// fieldRange is the bounds and names of one field.
type fieldRange struct {
	name     string
	min, max int
	names    map[string]int
}

var (
	minutes = fieldRange{name: "minute", min: 0, max: 59}
	hours   = fieldRange{name: "hour", min: 0, max: 23}
	doms    = fieldRange{name: "day of month", min: 1, max: 31}
	months  = fieldRange{name: "month", min: 1, max: 12, names: map[string]int{
		"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
		"jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
	}}
	dows = fieldRange{name: "day of week", min: 0, max: 6, names: map[string]int{
		"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6,
	}}
)

// macros are the named schedules and the five fields they stand for.
var macros = map[string]string{
	"@yearly":   "0 0 1 1 *",
	"@annually": "0 0 1 1 *",
	"@monthly":  "0 0 1 * *",
	"@weekly":   "0 0 * * 0",
	"@daily":    "0 0 * * *",
	"@midnight": "0 0 * * *",
	"@hourly":   "0 * * * *",
}

// Parse parses a schedule: five space-separated fields (minute, hour, day
// of month, month, day of week), each "*", a value, a range "a-b", a step
// "*/n", "a-b/n" or "a/n", or a comma-separated list of those; months and
// days of the week may be named (JAN, MON); or one of the macros @yearly,
// @annually, @monthly, @weekly, @daily, @midnight and @hourly.
func Parse(spec string) (*Schedule, error) {
	spec = strings.TrimSpace(spec)
	if strings.HasPrefix(spec, "@") {
		fields, ok := macros[strings.ToLower(spec)]
		if !ok {
			return nil, fmt.Errorf("unrecognized descriptor: %s", spec)
		}
		spec = fields
	}
	fields := strings.Fields(spec)
	if len(fields) != 5 {
		return nil, fmt.Errorf("expected exactly 5 fields, found %d: %s", len(fields), spec)
	}
	s := &Schedule{}
	var err error
	if s.minute, _, err = parseField(fields[0], minutes); err != nil {
		return nil, err
	}
	if s.hour, _, err = parseField(fields[1], hours); err != nil {
		return nil, err
	}
	if s.dom, s.domAny, err = parseField(fields[2], doms); err != nil {
		return nil, err
	}
	if s.month, _, err = parseField(fields[3], months); err != nil {
		return nil, err
	}
	if s.dow, s.dowAny, err = parseField(fields[4], dows); err != nil {
		return nil, err
	}
	return s, nil
}

// parseField returns the bit set of a field and whether it is unrestricted
// ("*" or "?" without a step).
func parseField(f string, r fieldRange) (uint64, bool, error) {
	var set uint64
	unrestricted := false
	for _, part := range strings.Split(f, ",") {
		b, star, err := parsePart(part, r)
		if err != nil {
			return 0, false, err
		}
		set |= b
		unrestricted = unrestricted || star
	}
	return set, unrestricted, nil
}

func parsePart(part string, r fieldRange) (uint64, bool, error) {
	rng, stepText, hasStep := strings.Cut(part, "/")
	lo, hi := r.min, r.max
	star := false
	switch {
	case rng == "*" || rng == "?":
		star = true
	default:
		first, last, isRange := strings.Cut(rng, "-")
		var err error
		if lo, err = value(first, r); err != nil {
			return 0, false, err
		}
		switch {
		case isRange:
			if hi, err = value(last, r); err != nil {
				return 0, false, err
			}
		case !hasStep:
			hi = lo
		}
	}
	step := 1
	if hasStep {
		n, err := strconv.Atoi(stepText)
		if err != nil || n <= 0 {
			return 0, false, fmt.Errorf("invalid step %q in %s field %q", stepText, r.name, part)
		}
		step = n
		if step > 1 {
			star = false
		}
	}
	if lo > hi {
		return 0, false, fmt.Errorf("beginning of range (%d) beyond end of range (%d) in %s field %q", lo, hi, r.name, part)
	}
	var set uint64
	for v := lo; v <= hi; v += step {
		set |= 1 << uint(v)
	}
	return set, star, nil
}

// value parses one number or name of a field and checks its bounds.
func value(s string, r fieldRange) (int, error) {
	if v, ok := r.names[strings.ToLower(s)]; ok {
		return v, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("failed to parse %s %q", r.name, s)
	}
	if v < r.min || v > r.max {
		return 0, fmt.Errorf("%s %d out of range [%d, %d]", r.name, v, r.min, r.max)
	}
	return v, nil
}

func has(set uint64, v int) bool { return set&(1<<uint(v)) != 0 }

// dayMatches reports whether the schedule fires on t's day.
func (s *Schedule) dayMatches(t time.Time) bool {
	dom, dow := has(s.dom, t.Day()), has(s.dow, int(t.Weekday()))
	if s.domAny || s.dowAny {
		return dom && dow
	}
	return dom || dow
}

// searchYears bounds the search of Next: a schedule that fires in no day
// of the next five years (February 30th) never fires.
const searchYears = 5

// Next returns the first time after t, to the minute, at which the
// schedule fires, read in t's location; the zero time if it never fires.
func (s *Schedule) Next(t time.Time) time.Time {
	loc := t.Location()
	t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), 0, 0, loc).Add(time.Minute)
	limit := t.Year() + searchYears
	for t.Year() <= limit {
		switch {
		case !has(s.month, int(t.Month())):
			t = time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, loc)
		case !s.dayMatches(t):
			t = time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, loc)
		case !has(s.hour, t.Hour()):
			next := time.Date(t.Year(), t.Month(), t.Day(), t.Hour()+1, 0, 0, 0, loc)
			if !next.After(t) {
				// A clock set back repeats the hour: leave it forward.
				next = t.Truncate(time.Hour).Add(time.Hour)
			}
			t = next
		case !has(s.minute, t.Minute()):
			t = t.Add(time.Minute)
		default:
			return t
		}
	}
	return time.Time{}
}

// LoadLocation returns the location a CronJob's timeZone names; a nil one
// is the local time zone. An empty name and "Local" are refused: the zone
// must be explicit.
func LoadLocation(tz *string) (*time.Location, error) {
	switch {
	case tz == nil:
		return time.Local, nil
	case *tz == "":
		return nil, fmt.Errorf("timeZone must be nil or non-empty string")
	case strings.EqualFold(*tz, "Local"):
		return nil, fmt.Errorf("timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones")
	}
	loc, err := time.LoadLocation(*tz)
	if err != nil {
		return nil, fmt.Errorf("unknown time zone %s", *tz)
	}
	return loc, nil
}
