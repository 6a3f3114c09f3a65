package cron

import (
	"strings"
	"testing"
	"time"
)

func mustLoad(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func TestParseErrors(t *testing.T) {
	for spec, want := range map[string]string{
		"":                 "expected exactly 5 fields, found 0",
		"* * * *":          "expected exactly 5 fields, found 4",
		"* * * * * *":      "expected exactly 5 fields, found 6",
		"60 * * * *":       "minute 60 out of range [0, 59]",
		"* 24 * * *":       "hour 24 out of range [0, 23]",
		"* * 0 * *":        "day of month 0 out of range [1, 31]",
		"* * * 13 *":       "month 13 out of range [1, 12]",
		"* * * * 7":        "day of week 7 out of range [0, 6]",
		"*/0 * * * *":      `invalid step "0"`,
		"*/x * * * *":      `invalid step "x"`,
		"5-1 * * * *":      "beginning of range (5) beyond end of range (1)",
		"a * * * *":        `failed to parse minute "a"`,
		"* * * FOO *":      `failed to parse month "FOO"`,
		"@every 1h":        "unrecognized descriptor: @every 1h",
		"@fortnightly":     "unrecognized descriptor",
		"1,,2 * * * *":     `failed to parse minute ""`,
		"TZ=UTC * * * * *": "expected exactly 5 fields, found 6",
	} {
		if _, err := Parse(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", spec, err, want)
		}
	}
}

func TestNext(t *testing.T) {
	utc := time.UTC
	ny := mustLoad(t, "America/New_York")
	at := func(loc *time.Location, s string) time.Time {
		v, err := time.ParseInLocation("2006-01-02 15:04", s, loc)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		spec       string
		loc        *time.Location
		from, want string
	}{
		{"*/1 * * * *", utc, "2026-11-24 17:00", "2026-11-24 17:01"},
		{"* * * * *", utc, "2026-11-24 17:00", "2026-11-24 17:01"},
		{"*/15 * * * *", utc, "2026-11-24 17:16", "2026-11-24 17:30"},
		{"5 * * * *", utc, "2026-11-24 17:05", "2026-11-24 18:05"},
		{"0 0 * * *", utc, "2026-12-31 23:59", "2027-01-01 00:00"},
		{"@hourly", utc, "2026-11-24 17:59", "2026-11-24 18:00"},
		{"@daily", utc, "2026-11-24 00:00", "2026-11-25 00:00"},
		{"@weekly", utc, "2026-11-24 12:00", "2026-11-29 00:00"}, // a Sunday
		{"@monthly", utc, "2026-11-24 12:00", "2026-12-01 00:00"},
		{"@yearly", utc, "2026-11-24 12:00", "2027-01-01 00:00"},
		{"0 9 * * MON-FRI", utc, "2026-11-27 10:00", "2026-11-30 09:00"}, // Friday to Monday
		{"30 2 * JAN,jul *", utc, "2026-11-24 12:00", "2027-01-01 02:30"},
		{"0 0 29 2 *", utc, "2026-03-01 00:00", "2028-02-29 00:00"},
		{"10-20/5 * * * *", utc, "2026-11-24 17:16", "2026-11-24 17:20"},
		{"50/5 * * * *", utc, "2026-11-24 17:56", "2026-11-24 18:50"},
		// Both day fields restricted: either one matches.
		{"0 0 1 * 1", utc, "2026-11-24 12:00", "2026-11-30 00:00"},
		{"0 0 1 * 1", utc, "2026-11-30 12:00", "2026-12-01 00:00"},
		// Day of month alone when the week day is "*".
		{"0 0 1 * *", utc, "2026-11-24 12:00", "2026-12-01 00:00"},
		// In a time zone, across the spring-forward gap: 02:30 does not
		// exist on 2026-03-08, the next 02:30 is a day later.
		{"30 2 * * *", ny, "2026-03-08 00:00", "2026-03-09 02:30"},
		{"0 12 * * *", ny, "2026-11-24 12:00", "2026-11-25 12:00"},
	}
	for _, tt := range tests {
		s, err := Parse(tt.spec)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.spec, err)
		}
		got := s.Next(at(tt.loc, tt.from))
		if want := at(tt.loc, tt.want); !got.Equal(want) {
			t.Errorf("%q from %s: next = %s, want %s", tt.spec, tt.from, got.In(tt.loc), want)
		}
	}
}

func TestNextNever(t *testing.T) {
	s, err := Parse("0 0 30 2 *")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Next(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)); !got.IsZero() {
		t.Fatalf("February 30th fires at %s", got)
	}
}

func TestNextInZone(t *testing.T) {
	s, err := Parse("0 9 * * *")
	if err != nil {
		t.Fatal(err)
	}
	tokyo := mustLoad(t, "Asia/Tokyo")
	from := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC) // 09:00 in Tokyo
	got := s.Next(from.In(tokyo))
	if want := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Fatalf("next = %s, want %s", got.UTC(), want)
	}
}
