package v1

import "kubecore.io/apimachinery/pkg/runtime/schema"

// MatchTaint reports whether t and other are the same taint for the
// purposes of replacing one with the other: same key and effect.
func (t *Taint) MatchTaint(other *Taint) bool {
	return t.Key == other.Key && t.Effect == other.Effect
}

// ToString writes the taint as kubectl shows it: "key=value:effect",
// dropping "=value" when the value is empty and the effect when it is.
func (t *Taint) ToString() string {
	s := t.Key
	if t.Value != "" {
		s += "=" + t.Value + ":"
	} else if t.Effect != "" {
		s += ":"
	}
	return s + string(t.Effect)
}

// MatchToleration reports whether t and other are the same toleration,
// ignoring tolerationSeconds.
func (t *Toleration) MatchToleration(other *Toleration) bool {
	return t.Key == other.Key && t.Effect == other.Effect &&
		t.Operator == other.Operator && t.Value == other.Value
}

// ToleratesTaint reports whether t tolerates taint. An empty effect or key
// matches any; Exists ignores the value; Equal, the default, compares it.
func (t *Toleration) ToleratesTaint(taint *Taint) bool {
	if t.Effect != "" && t.Effect != taint.Effect {
		return false
	}
	if t.Key != "" && t.Key != taint.Key {
		return false
	}
	switch t.Operator {
	case "", TolerationOpEqual:
		return t.Value == taint.Value
	case TolerationOpExists:
		return true
	}
	return false
}

var _ schema.ObjectKind = (*ObjectReference)(nil)

// SetGroupVersionKind sets the reference's apiVersion and kind.
func (r *ObjectReference) SetGroupVersionKind(gvk schema.GroupVersionKind) {
	r.APIVersion, r.Kind = gvk.ToAPIVersionAndKind()
}

// GroupVersionKind returns the group, version and kind the reference names.
func (r *ObjectReference) GroupVersionKind() schema.GroupVersionKind {
	return schema.FromAPIVersionAndKind(r.APIVersion, r.Kind)
}

// GetObjectKind lets a reference stand where an object's kind is asked for.
func (r *ObjectReference) GetObjectKind() schema.ObjectKind { return r }
