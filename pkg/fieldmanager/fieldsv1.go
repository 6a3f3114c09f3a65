package fieldmanager

import (
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// encodeFieldsV1 is set.ToJSON(), byte for byte, written without
// structured-merge-diff's streaming encoder: field names (nearly every
// element of a set) are appended directly, and the other elements (list
// keys, set values, indexes) through fieldpath.SerializePathElement, and
// escaped as the library escapes them (quotes and backslashes). A set
// with an element holding a control or non-ASCII character is left
// to ToJSON.
func encodeFieldsV1(set *fieldpath.Set) ([]byte, error) {
	e := fieldsEncoder{buf: make([]byte, 0, 512)}
	e.buf = append(e.buf, '{')
	ok, err := e.set(set, false)
	if err != nil {
		return nil, err
	}
	if !ok {
		return set.ToJSON()
	}
	return append(e.buf, '}'), nil
}

// fieldsEncoder writes a set; members and children are stacks shared by
// the levels of the walk, each level using the entries past its parent's.
type fieldsEncoder struct {
	buf      []byte
	members  []fieldpath.PathElement
	children []fieldsChild
}

type fieldsChild struct {
	pe  fieldpath.PathElement
	set *fieldpath.Set
}

// set appends the contents of set's object (without braces): "." first
// when includeSelf and the set has members or children, then members and
// children merged in path element order, as the library's emitContentsV1
// does. It reports false when an element would need escaping.
func (e *fieldsEncoder) set(set *fieldpath.Set, includeSelf bool) (bool, error) {
	m0, c0 := len(e.members), len(e.children)
	defer func() {
		e.members, e.children = e.members[:m0], e.children[:c0]
	}()
	set.Members.Iterate(func(pe fieldpath.PathElement) { e.members = append(e.members, pe) })
	set.Children.Iterate(func(pe fieldpath.PathElement) {
		e.children = append(e.children, fieldsChild{pe, set.Children.Descend(pe)})
	})
	m1, c1 := len(e.members), len(e.children)
	first := true
	sep := func() {
		if first {
			first = false
			return
		}
		e.buf = append(e.buf, ',')
	}
	if includeSelf && (m1 > m0 || c1 > c0) {
		sep()
		e.buf = append(e.buf, `".":{}`...)
	}
	mi, ci := m0, c0
	for mi < m1 || ci < c1 {
		var c int
		switch {
		case mi == m1:
			c = 1
		case ci == c1:
			c = -1
		default:
			c = e.members[mi].Compare(e.children[ci].pe)
		}
		sep()
		if c < 0 {
			if ok, err := e.pathElement(e.members[mi]); !ok || err != nil {
				return ok, err
			}
			e.buf = append(e.buf, ":{}"...)
			mi++
			continue
		}
		child := e.children[ci]
		if ok, err := e.pathElement(child.pe); !ok || err != nil {
			return ok, err
		}
		e.buf = append(e.buf, ":{"...)
		if ok, err := e.set(child.set, c == 0); !ok || err != nil {
			return ok, err
		}
		e.buf = append(e.buf, '}')
		if c == 0 {
			mi++
		}
		ci++
	}
	return true, nil
}

// pathElement appends pe's quoted text ("f:name", "k:{...}", ...).
func (e *fieldsEncoder) pathElement(pe fieldpath.PathElement) (bool, error) {
	buf := e.buf
	defer func() { e.buf = buf }()
	var text string
	if pe.FieldName != nil {
		buf = append(buf, `"f:`...)
		text = *pe.FieldName
	} else {
		s, err := fieldpath.SerializePathElement(pe)
		if err != nil {
			return false, err
		}
		buf = append(buf, '"')
		text = s
	}
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '"' || c == '\\':
			buf = append(buf, '\\', c)
		case c < 0x20 || c >= 0x7f:
			return false, nil
		default:
			buf = append(buf, c)
		}
	}
	buf = append(buf, '"')
	return true, nil
}
