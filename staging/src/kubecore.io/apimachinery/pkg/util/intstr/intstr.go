// Package intstr implements IntOrString, a field that holds an integer or a
// string such as a percentage ("25%") or a port name.
package intstr

// Type says which member of IntOrString is set.
type Type int64

// The kinds an IntOrString can hold.
const (
	Int    Type = iota // the IntVal member
	String             // the StrVal member
)

// IntOrString holds an int32 or a string.
// PLACEHOLDER: the full implementation (JSON, percentages) completes it.
type IntOrString struct {
	Type   Type
	IntVal int32
	StrVal string
}
