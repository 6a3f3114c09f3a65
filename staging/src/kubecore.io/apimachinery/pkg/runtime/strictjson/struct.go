package strictjson

import (
	"fmt"
	"reflect"
	"strings"
	"unicode"
)

// field is one JSON member of a struct type.
type field struct {
	name string
	// index leads from the struct through embedded structs to the field.
	index []int
	dec   *typeDecoder
	// quoted is the ",string" option: the value comes inside a string.
	quoted bool
}

// structInfo is what decoding needs to know about a struct type; it is
// computed once per type.
type structInfo struct {
	typeName string
	fields   []field
	byName   map[string]int
}

func (c *compiler) structDecoder(t reflect.Type) func(*state, reflect.Value) error {
	info := &structInfo{typeName: t.Name(), byName: map[string]int{}}
	for _, f := range structFields(t) {
		info.byName[f.name] = len(info.fields)
		f.dec = c.compile(t.FieldByIndex(f.index).Type)
		info.fields = append(info.fields, f)
	}
	return func(s *state, v reflect.Value) error {
		switch s.peek() {
		case 'n':
			return s.literal()
		case '{':
		default:
			return s.mismatch(t)
		}
		var seenSmall uint64
		var seenLarge []bool
		if len(info.fields) > 64 {
			seenLarge = make([]bool, len(info.fields))
		}
		return s.objectEntries(func(key []byte, _ int) error {
			i, ok := info.byName[string(key)]
			if !ok {
				s.addStrict(UnknownField, string(key))
				return s.skipValue()
			}
			f := &info.fields[i]
			if seenLarge != nil {
				if seenLarge[i] {
					s.addStrict(DuplicateField, f.name)
				}
				seenLarge[i] = true
			} else {
				if seenSmall&(1<<i) != 0 {
					s.addStrict(DuplicateField, f.name)
				}
				seenSmall |= 1 << i
			}
			s.pushField(f.name, info.typeName)
			defer s.pop()
			fv, ok := fieldValue(v, f.index)
			if !ok {
				s.save(fmt.Errorf("json: cannot set embedded pointer to unexported struct %v to decode field %q", v.Type(), f.name))
				return s.skipValue()
			}
			if f.quoted {
				return s.quotedValue(f.dec, fv)
			}
			return f.dec.fn(s, fv)
		})
	}
}

// fieldValue walks index from v, allocating embedded pointers on the way.
// It fails on a nil pointer to an unexported embedded struct, which cannot
// be set.
func fieldValue(v reflect.Value, index []int) (reflect.Value, bool) {
	for n, i := range index {
		if n > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				if !v.CanSet() {
					return reflect.Value{}, false
				}
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(i)
	}
	return v, true
}

// quotedValue decodes a ",string" field: the JSON string holds the literal.
func (s *state) quotedValue(dec *typeDecoder, v reflect.Value) error {
	switch s.peek() {
	case 'n':
		return s.literal()
	case '"':
	default:
		return s.mismatch(v.Type())
	}
	off := s.off
	b, err := s.stringBytes()
	if err != nil {
		return err
	}
	inner := &state{data: b, dec: s.dec, path: s.path}
	if err := dec.fn(inner, v); err != nil || inner.saved != nil || inner.peek() != 0 {
		s.typeError("string", v.Type(), off)
	}
	return nil
}

// structFields lists the JSON members of struct type t, following
// encoding/json's rules: the json tag names a field, "-" drops it, the
// fields of untagged embedded structs are promoted, a shallower field hides
// deeper ones of the same name, and among equally deep ones a single tagged
// field wins; otherwise the name is dropped.
func structFields(t reflect.Type) []field {
	type candidate struct {
		field
		tagged bool
	}
	type embedded struct {
		typ   reflect.Type
		index []int
	}
	var out []field
	taken := map[string]bool{}
	visited := map[reflect.Type]bool{}
	level := []embedded{{typ: t}}
	for len(level) > 0 {
		var next []embedded
		byName := map[string][]candidate{}
		var order []string
		for _, e := range level {
			if visited[e.typ] {
				continue
			}
			for i := range e.typ.NumField() {
				sf := e.typ.Field(i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if sf.Anonymous {
					if !sf.IsExported() && ft.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !validTagName(name) {
					name = ""
				}
				index := append(append([]int(nil), e.index...), i)
				if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
					next = append(next, embedded{typ: ft, index: index})
					continue
				}
				tagged := name != ""
				if !tagged {
					name = sf.Name
				}
				quoted := false
				if hasOption(opts, "string") {
					switch ft.Kind() {
					case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
						reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
						reflect.Float32, reflect.Float64, reflect.String:
						quoted = true
					}
				}
				if _, ok := byName[name]; !ok {
					order = append(order, name)
				}
				byName[name] = append(byName[name], candidate{field: field{name: name, index: index, quoted: quoted}, tagged: tagged})
			}
		}
		for _, e := range level {
			visited[e.typ] = true
		}
		for _, name := range order {
			if taken[name] {
				continue
			}
			taken[name] = true
			cs := byName[name]
			if len(cs) == 1 {
				out = append(out, cs[0].field)
				continue
			}
			var winner *candidate
			ambiguous := false
			for i := range cs {
				if cs[i].tagged {
					if winner != nil {
						ambiguous = true
					}
					winner = &cs[i]
				}
			}
			if winner != nil && !ambiguous {
				out = append(out, winner.field)
			}
		}
		level = next
	}
	return out
}

func hasOption(opts, want string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == want {
			return true
		}
	}
	return false
}

// validTagName accepts the names encoding/json accepts.
func validTagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
