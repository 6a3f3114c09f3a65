package fieldmanager

import (
	"errors"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// errNoFastPath makes createFields give up: the slow path (the library's
// Compare) then decides, errors included.
var errNoFastPath = errors.New("no create fast path for this value")

// createFields is the field set a create records: the Added and Modified
// fields of structured-merge-diff's Compare of the empty object (empty)
// with the new one (obj), built in one walk of obj into the set's tree
// rather than by comparing two values and inserting whole paths. It
// follows Compare's rules exactly (the empty object's zero fields, null
// and empty lists and maps as leaves, list items by key, duplicated keys
// as one member); anything it does not mirror (a list item Compare fails
// on, an empty object with list items, values of two atom kinds) answers
// errNoFastPath. The reset fields are not removed here.
func createFields(sch *schema.Schema, tr schema.TypeRef, empty, obj value.Value) (*fieldpath.Set, error) {
	w := createWalker{schema: sch, alloc: value.NewFreelistAllocator()}
	root := &fieldpath.Set{}
	// Both values are present at the root: Compare records no root path.
	a, ok := sch.Resolve(tr)
	if !ok {
		return nil, errNoFastPath
	}
	if err := w.present(root, nil, a, empty, obj); err != nil {
		return nil, err
	}
	return root, nil
}

type createWalker struct {
	schema *schema.Schema
	alloc  value.Allocator
}

// present records the node pe (nil at the root) of parent where both the
// empty object (lhs) and the new one (rhs) have a value.
func (w *createWalker) present(parent *fieldpath.Set, pe *fieldpath.PathElement, a schema.Atom, lhs, rhs value.Value) error {
	// Both are a narrowed to a value's kind, or a itself: the same
	// pointers are the same atom (Atom.Equals would compare every field).
	al, ar := deduceAtom(a, lhs), deduceAtom(a, rhs)
	if al.Map != ar.Map || al.Scalar != ar.Scalar || al.List != ar.List {
		return errNoFastPath
	}
	switch {
	case ar.Map != nil:
		t := ar.Map
		lm, rm := w.mapOf(lhs), w.mapOf(rhs)
		if lm != nil {
			defer w.alloc.Free(lm)
		}
		if rm != nil {
			defer w.alloc.Free(rm)
		}
		lEmpty, rEmpty := lm == nil || lm.Empty(), rm == nil || rm.Empty()
		if t.ElementRelationship == schema.Atomic || (lEmpty && rEmpty) {
			w.leaf(parent, pe, lhs, rhs)
			return nil
		}
		if rEmpty {
			return nil // only removals
		}
		node := &fieldpath.Set{}
		var err error
		rm.IterateUsing(w.alloc, func(key string, rv value.Value) bool {
			k := fieldpath.PathElement{FieldName: &key}
			ft := fieldType(t, key)
			fa, ok := w.schema.Resolve(ft)
			if !ok {
				err = errNoFastPath
				return false
			}
			if lm != nil {
				if lv, found := lm.GetUsing(w.alloc, key); found {
					err = w.present(node, &k, fa, lv, rv)
					return err == nil
				}
			}
			err = w.added(node, k, fa, rv)
			return err == nil
		})
		attach(parent, pe, node)
		return err
	case ar.Scalar != nil:
		w.leaf(parent, pe, lhs, rhs)
		return nil
	case ar.List != nil:
		t := ar.List
		ll, rl := w.listOf(lhs), w.listOf(rhs)
		if ll != nil {
			defer w.alloc.Free(ll)
		}
		if rl != nil {
			defer w.alloc.Free(rl)
		}
		lEmpty, rEmpty := ll == nil || ll.Length() == 0, rl == nil || rl.Length() == 0
		if t.ElementRelationship == schema.Atomic || (lEmpty && rEmpty) {
			w.leaf(parent, pe, lhs, rhs)
			return nil
		}
		if !lEmpty {
			return errNoFastPath
		}
		node := &fieldpath.Set{}
		err := w.items(node, t, rl)
		attach(parent, pe, node)
		return err
	}
	return errNoFastPath
}

// added records the node pe of parent that only the new object has:
// Compare adds it and everything under it.
func (w *createWalker) added(parent *fieldpath.Set, pe fieldpath.PathElement, a schema.Atom, v value.Value) error {
	a = deduceAtom(a, v)
	switch {
	case a.Map != nil:
		t := a.Map
		m := w.mapOf(v)
		if m != nil {
			defer w.alloc.Free(m)
		}
		if t.ElementRelationship != schema.Atomic && m != nil && !m.Empty() {
			node := parent.Children.Descend(pe)
			var err error
			m.IterateUsing(w.alloc, func(key string, cv value.Value) bool {
				ca, ok := w.schema.Resolve(fieldType(t, key))
				if !ok {
					err = errNoFastPath
					return false
				}
				err = w.added(node, fieldpath.PathElement{FieldName: &key}, ca, cv)
				return err == nil
			})
			if err != nil {
				return err
			}
		}
	case a.Scalar != nil:
	case a.List != nil:
		t := a.List
		l := w.listOf(v)
		if l != nil {
			defer w.alloc.Free(l)
		}
		if t.ElementRelationship != schema.Atomic && l != nil && l.Length() > 0 {
			if err := w.items(parent.Children.Descend(pe), t, l); err != nil {
				return err
			}
		}
	default:
		return errNoFastPath
	}
	parent.Members.Insert(pe)
	return nil
}

// items records the items of a granular list the empty object does not
// have (null or empty there) into node, the list's own set: an item whose
// key occurs once is added with its fields; a key that occurs twice or
// more is one member, not descended, as Compare records it.
func (w *createWalker) items(node *fieldpath.Set, t *schema.List, l value.List) error {
	if t.ElementRelationship != schema.Associative {
		return errNoFastPath
	}
	ea, ok := w.schema.Resolve(t.ElementType)
	if !ok {
		return errNoFastPath
	}
	n := l.Length()
	pes := make([]fieldpath.PathElement, n)
	for i := range n {
		pe, err := w.itemPathElement(t, l.At(i))
		if err != nil {
			return errNoFastPath
		}
		pes[i] = pe
	}
	dups := duplicates(pes)
	if node.Members.Size() == 0 {
		node.Members = fieldpath.MakePathElementSet(n)
	}
	for i, pe := range pes {
		if dups != nil && dups[i] {
			node.Members.Insert(pe)
			continue
		}
		if err := w.added(node, pe, ea, l.At(i)); err != nil {
			return err
		}
	}
	return nil
}

// duplicates marks the path elements that occur more than once; nil when
// none does (the usual case, found without a map for short lists).
func duplicates(pes []fieldpath.PathElement) []bool {
	var dups []bool
	mark := func(i, j int) {
		if dups == nil {
			dups = make([]bool, len(pes))
		}
		dups[i], dups[j] = true, true
	}
	if len(pes) <= 16 {
		for i := range pes {
			for j := i + 1; j < len(pes); j++ {
				if pes[i].Equals(pes[j]) {
					mark(i, j)
				}
			}
		}
		return dups
	}
	first := fieldpath.MakePathElementMap(len(pes))
	for i, pe := range pes {
		if j, found := first.Get(pe); found {
			mark(i, j.(int))
		} else {
			first.Insert(pe, i)
		}
	}
	return dups
}

// itemPathElement is the path element of a list item as Compare makes
// it: by the keys (with their schema defaults) or, in a set, by value.
func (w *createWalker) itemPathElement(t *schema.List, item value.Value) (fieldpath.PathElement, error) {
	if len(t.Keys) == 0 {
		if item.IsMap() || item.IsList() || item.IsNull() {
			return fieldpath.PathElement{}, errNoFastPath
		}
		return fieldpath.PathElement{Value: &item}, nil
	}
	if !item.IsMap() {
		return fieldpath.PathElement{}, errNoFastPath
	}
	m := item.AsMapUsing(w.alloc)
	defer w.alloc.Free(m)
	keys := make(value.FieldList, 0, len(t.Keys))
	var elem *schema.Map
	for _, name := range t.Keys {
		if v, ok := m.Get(name); ok {
			keys = append(keys, value.Field{Name: name, Value: v})
			continue
		}
		if elem == nil {
			a, ok := w.schema.Resolve(t.ElementType)
			if !ok || a.Map == nil {
				return fieldpath.PathElement{}, errNoFastPath
			}
			elem = a.Map
		}
		if f, _ := elem.FindField(name); f.Default != nil {
			keys = append(keys, value.Field{Name: name, Value: value.NewValueInterface(f.Default)})
		}
	}
	if len(keys) == 0 {
		return fieldpath.PathElement{}, errNoFastPath
	}
	keys.Sort()
	return fieldpath.PathElement{Key: &keys}, nil
}

// leaf records a leaf both objects have when its values differ (Compare's
// Modified).
func (w *createWalker) leaf(parent *fieldpath.Set, pe *fieldpath.PathElement, lhs, rhs value.Value) {
	if pe == nil {
		return
	}
	// A null equals only a null (EqualsUsing's answer, without its walk
	// through every kind).
	if lhs.IsNull() {
		if rhs.IsNull() {
			return
		}
	} else if value.EqualsUsing(w.alloc, rhs, lhs) {
		return
	}
	parent.Members.Insert(*pe)
}

// mapOf is v as a map, nil when it is null or not a map (Compare treats
// both as an empty map).
func (w *createWalker) mapOf(v value.Value) value.Map {
	if v == nil || v.IsNull() || !v.IsMap() {
		return nil
	}
	return v.AsMapUsing(w.alloc)
}

// listOf is v as a list, nil when it is null or not a list.
func (w *createWalker) listOf(v value.Value) value.List {
	if v == nil || v.IsNull() || !v.IsList() {
		return nil
	}
	return v.AsListUsing(w.alloc)
}

// attach makes node pe's child set of parent (parent itself at the root)
// unless it is empty: a set holds no empty children.
func attach(parent *fieldpath.Set, pe *fieldpath.PathElement, node *fieldpath.Set) {
	if node.Empty() {
		return
	}
	if pe == nil {
		*parent = *node
		return
	}
	*parent.Children.Descend(*pe) = *node
}

func fieldType(t *schema.Map, key string) schema.TypeRef {
	if f, ok := t.FindField(key); ok {
		return f.Type
	}
	return t.ElementType
}

// deduceAtom narrows an atom of several kinds (an untyped value) to the
// kind of v, as structured-merge-diff does.
func deduceAtom(a schema.Atom, v value.Value) schema.Atom {
	switch {
	case v == nil:
	case v.IsFloat(), v.IsInt(), v.IsString(), v.IsBool():
		if a.Scalar != nil {
			return schema.Atom{Scalar: a.Scalar}
		}
	case v.IsList():
		if a.List != nil {
			return schema.Atom{List: a.List}
		}
	case v.IsMap():
		if a.Map != nil {
			return schema.Atom{Map: a.Map}
		}
	}
	return a
}
