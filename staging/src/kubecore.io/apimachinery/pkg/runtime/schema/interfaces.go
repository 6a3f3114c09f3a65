package schema

// ObjectKind gives access to the kind and version an object is serialized
// as. API types implement it through their embedded TypeMeta.
type ObjectKind interface {
	// SetGroupVersionKind sets or clears the serialized kind; an empty
	// GroupVersionKind clears it.
	SetGroupVersionKind(kind GroupVersionKind)
	// GroupVersionKind returns the serialized kind, or the empty value.
	GroupVersionKind() GroupVersionKind
}

// EmptyObjectKind is an ObjectKind for objects that carry no kind: setting
// is ignored and the kind is always empty. It is stateless.
var EmptyObjectKind ObjectKind = emptyObjectKind{}

type emptyObjectKind struct{}

var _ ObjectKind = emptyObjectKind{}

func (emptyObjectKind) SetGroupVersionKind(GroupVersionKind) {}

func (emptyObjectKind) GroupVersionKind() GroupVersionKind { return GroupVersionKind{} }
