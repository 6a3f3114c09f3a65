package v1

import (
	"encoding/json"
	"fmt"
	"time"
)

// Time is a time.Time that encodes as RFC 3339 in UTC with second precision,
// and as null when zero, as Kubernetes does.
type Time struct {
	time.Time `protobuf:"-"`
}

// NewTime wraps t.
func NewTime(t time.Time) Time { return Time{t} }

// Now returns the current local time truncated to seconds.
func Now() Time { return Time{time.Now().Truncate(time.Second)} }

// Unix returns the Time for the given seconds and nanoseconds since the epoch.
func Unix(sec, nsec int64) Time { return Time{time.Unix(sec, nsec)} }

// IsZero reports whether t is nil or the zero time.
func (t *Time) IsZero() bool { return t == nil || t.Time.IsZero() }

// Before reports whether t is before u.
func (t *Time) Before(u *Time) bool {
	if t != nil && u != nil {
		return t.Time.Before(u.Time)
	}
	return false
}

// Equal reports whether t and u are the same instant; two nils are equal.
func (t *Time) Equal(u *Time) bool {
	if t == nil || u == nil {
		return t == nil && u == nil
	}
	return t.Time.Equal(u.Time)
}

// Rfc3339Copy returns a copy truncated to the precision the wire keeps.
func (t Time) Rfc3339Copy() Time {
	c, _ := time.Parse(time.RFC3339, t.UTC().Format(time.RFC3339))
	return Time{c}
}

// MarshalJSON implements json.Marshaler.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.Time.IsZero() {
		return []byte("null"), nil
	}
	b := make([]byte, 0, len(time.RFC3339)+2)
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, time.RFC3339)
	return append(b, '"'), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (t *Time) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		t.Time = time.Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	pt, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return err
	}
	t.Time = pt.Local()
	return nil
}

// MarshalQueryParameter gives the query parameter form of t (PodLogOptions'
// sinceTime): RFC 3339 in UTC, or "" when zero.
func (t Time) MarshalQueryParameter() (string, error) {
	if t.Time.IsZero() {
		return "", nil
	}
	return t.UTC().Format(time.RFC3339), nil
}

// UnmarshalQueryParameter parses the query parameter form of a Time; "" and
// "null" give the zero Time.
func (t *Time) UnmarshalQueryParameter(s string) error {
	if s == "" || s == "null" {
		t.Time = time.Time{}
		return nil
	}
	pt, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return fmt.Errorf("parse time %q: %w", s, err)
	}
	t.Time = pt.Local()
	return nil
}

// ToUnstructured returns the value stored in unstructured JSON maps.
func (t Time) ToUnstructured() any {
	if t.Time.IsZero() {
		return nil
	}
	return t.UTC().Format(time.RFC3339)
}

// RFC3339Micro is the layout of MicroTime on the wire.
const RFC3339Micro = "2006-01-02T15:04:05.000000Z07:00"

// MicroTime is a time.Time with microsecond precision on the wire.
type MicroTime struct {
	time.Time `protobuf:"-"`
}

// NewMicroTime wraps t.
func NewMicroTime(t time.Time) MicroTime { return MicroTime{t} }

// NowMicro returns the current local time.
func NowMicro() MicroTime { return MicroTime{time.Now()} }

// IsZero reports whether t is nil or the zero time.
func (t *MicroTime) IsZero() bool { return t == nil || t.Time.IsZero() }

// Equal reports whether t and u are the same instant; two nils are equal.
func (t *MicroTime) Equal(u *MicroTime) bool {
	if t == nil || u == nil {
		return t == nil && u == nil
	}
	return t.Time.Equal(u.Time)
}

// MarshalJSON implements json.Marshaler.
func (t MicroTime) MarshalJSON() ([]byte, error) {
	if t.Time.IsZero() {
		return []byte("null"), nil
	}
	b := make([]byte, 0, len(RFC3339Micro)+2)
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, RFC3339Micro)
	return append(b, '"'), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (t *MicroTime) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		t.Time = time.Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	pt, err := time.Parse(RFC3339Micro, s)
	if err != nil {
		return err
	}
	t.Time = pt.Local()
	return nil
}

// Duration is a time.Duration that encodes as a Go duration string ("1m30s").
type Duration struct {
	time.Duration `protobuf:"varint,1,opt,name=duration"`
}

// MarshalJSON implements json.Marshaler.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.Duration.String()) }

// UnmarshalJSON implements json.Unmarshaler.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	pd, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	d.Duration = pd
	return nil
}
