// Package external holds types of an unmarked package, as API types use
// them from other libraries: with and without their own DeepCopyInto.
package external

// Quantity is a value type with unexported fields and a value-receiver
// DeepCopyInto, like resource.Quantity.
type Quantity struct {
	value int64
	unit  string
}

// NewQuantity returns a Quantity.
func NewQuantity(v int64, unit string) Quantity { return Quantity{value: v, unit: unit} }

// DeepCopyInto copies q into out.
func (q Quantity) DeepCopyInto(out *Quantity) { *out = q }

// Handwritten has a pointer-receiver DeepCopyInto.
type Handwritten struct {
	Data []int
}

// DeepCopyInto copies h into out.
func (h *Handwritten) DeepCopyInto(out *Handwritten) {
	*out = *h
	if h.Data != nil {
		out.Data = append([]int(nil), h.Data...)
	}
}

// Plain has no DeepCopyInto; its exported fields are copied inline.
type Plain struct {
	Names []string
	Ref   *string
}

// Copier is an interface that can copy its values.
type Copier interface {
	DeepCopyCopier() Copier
}

// StringCopier implements Copier.
type StringCopier struct {
	S []string
}

// DeepCopyCopier returns a copy.
func (c *StringCopier) DeepCopyCopier() Copier {
	return &StringCopier{S: append([]string(nil), c.S...)}
}
