// Package resource implements Quantity, the fixed-point number with units
// used for cpu, memory and storage amounts ("100m", "1Gi", "2e3").
package resource

// Quantity is a fixed-point decimal amount with a unit suffix.
// PLACEHOLDER: the full implementation replaces this declaration.
type Quantity struct {
	s string
}
