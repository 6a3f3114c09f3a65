package types

import (
	"time"

	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/hack/tools/deepcopy-gen/testdata/external"
	markedv1 "kubecore.io/kubecore/hack/tools/deepcopy-gen/testdata/marked/v1"
)

// TypeMeta is the kind of an object.
type TypeMeta struct {
	Kind       string
	APIVersion string
}

// GetObjectKind returns t.
func (t *TypeMeta) GetObjectKind() schema.ObjectKind { return t }

// SetGroupVersionKind sets the kind.
func (t *TypeMeta) SetGroupVersionKind(gvk schema.GroupVersionKind) {
	t.APIVersion, t.Kind = gvk.ToAPIVersionAndKind()
}

// GroupVersionKind returns the kind.
func (t *TypeMeta) GroupVersionKind() schema.GroupVersionKind {
	return schema.FromAPIVersionAndKind(t.APIVersion, t.Kind)
}

// Phase is a string value type.
type Phase string

// Labels is a named map.
type Labels map[string]string

// Items is a named slice of structs.
type Items []Item

// Nested is a named map of slices of pointers.
type Nested map[string][]*Item

// Item is a struct with a slice and a recursive pointer.
type Item struct {
	Name   string
	Values []string
	Sub    *Item
}

// Inline is embedded by value.
type Inline struct {
	InlineTags []string
}

// EmbeddedPtr is embedded by pointer.
type EmbeddedPtr struct {
	PtrTags map[string]int
}

// localType is unexported: copied inline where used.
type localType struct {
	M map[string]int
}

// Object has a field of every kind.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type Object struct {
	TypeMeta
	Inline
	*EmbeddedPtr

	Name         string
	Phase        Phase
	Ptr          *int
	PtrPtr       **string
	PtrStruct    *Item
	Labels       Labels
	Plain        map[string]string
	MapOfPtrs    map[string]*Item
	MapOfSlices  map[string][]string
	MapOfStructs map[string]Item
	MapOfMaps    map[string]map[string]int
	MapOfAny     map[string]any
	Nested       Nested
	SliceOfPtrs  []*Item
	SliceOfSlice [][]string
	SliceOfMaps  []map[string]string
	Items        Items
	Array        [2]*int
	ArrayOfItems [2]Item
	Bytes        []byte
	Any          any
	Cells        []any
	Time         time.Time
	TimePtr      *time.Time
	Quantity     external.Quantity
	QuantityPtr  *external.Quantity
	Quantities   map[string]external.Quantity
	Handwritten  external.Handwritten
	HandList     []external.Handwritten
	External     external.Plain
	ExternalPtr  *external.Plain
	Copier       external.Copier
	Thing        markedv1.Thing
	Things       map[string]markedv1.Thing
	Flat         markedv1.Flat
	FlatPtr      *markedv1.Flat
	Raw          runtime.RawExtension
	Inner        runtime.Object
	Anon         struct {
		A []int
		B *string
	}
	Func   func() string
	Next   *Object
	hidden []string
	local  localType
}

// ObjectList is a list kind.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type ObjectList struct {
	TypeMeta
	Items []Object
}

// Custom has its own DeepCopyInto, which the generator leaves alone.
type Custom struct {
	data []int
}

// DeepCopyInto copies c into out.
func (c *Custom) DeepCopyInto(out *Custom) {
	*out = *c
	out.data = append([]int(nil), c.data...)
}

// Skipped opts out of generation.
//
// +kubecore:deepcopy-gen=false
type Skipped struct {
	X []int
}

type (
	// Grouped is declared in a group.
	Grouped struct {
		G []string
	}

	// GroupedObject is declared in a group, with its tag in its own
	// comment.
	// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
	GroupedObject struct {
		TypeMeta
		C Custom
	}
)

// Generic types are not generated.
type Generic[T any] struct {
	V []T
}
