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
	buf := make([]byte, 0, 1024)
	buf = append(buf, '{')
	buf, ok, err := appendSetV1(buf, set, false)
	if err != nil {
		return nil, err
	}
	if !ok {
		return set.ToJSON()
	}
	return append(buf, '}'), nil
}

// appendSetV1 appends the contents of set's object (without braces): "."
// first when includeSelf and the set is not empty, then members and
// children merged in path element order, as emitContentsV1 does. It
// reports false when an element would need escaping.
func appendSetV1(buf []byte, set *fieldpath.Set, includeSelf bool) ([]byte, bool, error) {
	first := true
	sep := func() {
		if first {
			first = false
			return
		}
		buf = append(buf, ',')
	}
	var members []fieldpath.PathElement
	set.Members.Iterate(func(pe fieldpath.PathElement) { members = append(members, pe) })
	type child struct {
		pe  fieldpath.PathElement
		set *fieldpath.Set
	}
	var children []child
	set.Children.Iterate(func(pe fieldpath.PathElement) {
		children = append(children, child{pe, set.Children.Descend(pe)})
	})
	if includeSelf && (len(members) > 0 || len(children) > 0) {
		sep()
		buf = append(buf, `".":{}`...)
	}
	var ok bool
	var err error
	mi, ci := 0, 0
	for mi < len(members) || ci < len(children) {
		var c int
		switch {
		case mi == len(members):
			c = 1
		case ci == len(children):
			c = -1
		default:
			c = members[mi].Compare(children[ci].pe)
		}
		sep()
		if c < 0 {
			if buf, ok, err = appendPathElementV1(buf, members[mi]); !ok || err != nil {
				return buf, ok, err
			}
			buf = append(buf, ":{}"...)
			mi++
			continue
		}
		if buf, ok, err = appendPathElementV1(buf, children[ci].pe); !ok || err != nil {
			return buf, ok, err
		}
		buf = append(buf, ":{"...)
		if buf, ok, err = appendSetV1(buf, children[ci].set, c == 0); !ok || err != nil {
			return buf, ok, err
		}
		buf = append(buf, '}')
		if c == 0 {
			mi++
		}
		ci++
	}
	return buf, true, nil
}

// appendPathElementV1 appends pe's quoted text ("f:name", "k:{...}", ...).
func appendPathElementV1(buf []byte, pe fieldpath.PathElement) ([]byte, bool, error) {
	var text string
	if pe.FieldName != nil {
		buf = append(buf, `"f:`...)
		text = *pe.FieldName
	} else {
		s, err := fieldpath.SerializePathElement(pe)
		if err != nil {
			return buf, false, err
		}
		buf = append(buf, '"')
		text = s
	}
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '"' || c == '\\':
			buf = append(buf, '\\', c)
		case c < 0x20 || c >= 0x7f:
			return buf, false, nil
		default:
			buf = append(buf, c)
		}
	}
	return append(buf, '"'), true, nil
}
