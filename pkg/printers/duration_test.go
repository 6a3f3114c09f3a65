package printers

import (
	"testing"
	"time"
)

func TestHumanDuration(t *testing.T) {
	const day, year = 24 * time.Hour, 365 * 24 * time.Hour
	tests := []struct {
		d    time.Duration
		want string
	}{
		{-2 * time.Second, "<invalid>"},
		{-1500 * time.Millisecond, "0s"},
		{-time.Second, "0s"},
		{0, "0s"},
		{999 * time.Millisecond, "0s"},
		{5 * time.Second, "5s"},
		{119 * time.Second, "119s"},
		{2 * time.Minute, "2m"},
		{3*time.Minute + 2*time.Second, "3m2s"},
		{9*time.Minute + 59*time.Second, "9m59s"},
		{10 * time.Minute, "10m"},
		{10*time.Minute + 30*time.Second, "10m"},
		{179 * time.Minute, "179m"},
		{3 * time.Hour, "3h"},
		{3*time.Hour + 5*time.Minute, "3h5m"},
		{7*time.Hour + 59*time.Minute, "7h59m"},
		{8 * time.Hour, "8h"},
		{47 * time.Hour, "47h"},
		{2 * day, "2d"},
		{2*day + 3*time.Hour, "2d3h"},
		{7*day + 23*time.Hour, "7d23h"},
		{8 * day, "8d"},
		{729 * day, "729d"},
		{2 * year, "2y"},
		{2*year + 10*day, "2y10d"},
		{7*year + 364*day, "7y364d"},
		{8 * year, "8y"},
		{8*year + 100*day, "8y"},
	}
	for _, tt := range tests {
		if got := HumanDuration(tt.d); got != tt.want {
			t.Errorf("HumanDuration(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}
