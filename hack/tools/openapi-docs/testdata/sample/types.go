// Package sample is input for the openapi-docs tests.
package sample

// Widget is a sample type.
// It spans two lines.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type Widget struct {
	// Embedded documents an embedded field.
	Base `json:",inline"`
	// Size is the size.
	//
	// A second paragraph.
	Size, Count int `json:"size"`
	// +optional
	Marked string `json:"marked"`
	Plain  string `json:"plain"`
	// Items are merged by name.
	// +listType=map
	// +listMapKey=name
	// +listMapKey=kind
	Items []Base `json:"items"`
	// hidden is unexported and still documented.
	hidden string
}

// Base is embedded.
// +structType=atomic
type Base struct{}

type undocumented int

// Grouped are declared in a group.
type (
	// GroupedA has its own comment.
	GroupedA string
	GroupedB string
)
