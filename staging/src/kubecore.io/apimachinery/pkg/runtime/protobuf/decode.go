package protobuf

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"time"

	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/intstr"
)

// maxDepth bounds the nesting of messages a decode follows.
const maxDepth = 100

// Unmarshal decodes the message data into v, a non-nil pointer to a
// struct, which is zeroed first. Fields v does not know are skipped.
func (c *Codec) Unmarshal(data []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("decode into %T: not a non-nil pointer", v)
	}
	rv = rv.Elem()
	msg, err := c.table(rv.Type())
	if err != nil {
		return err
	}
	rv.SetZero()
	if err := decodeMessage(data, msg, rv, 0); err != nil {
		return fmt.Errorf("decode %s: %w", rv.Type(), err)
	}
	return nil
}

// decodeMessage merges the fields in b into struct value v.
func decodeMessage(b []byte, m *message, v reflect.Value, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("messages nested deeper than %d", maxDepth)
	}
	if m.special != notSpecial {
		return decodeSpecial(b, m.special, v)
	}
	for len(b) > 0 {
		num, wt, n, err := consumeKey(b)
		if err != nil {
			return err
		}
		val, l, err := consumeValue(num, wt, b[n:])
		if err != nil {
			return fmt.Errorf("field %d: %w", num, err)
		}
		b = b[n+l:]
		f := m.lookup(num)
		if f == nil {
			continue
		}
		if err := decodeField(f, val, v.Field(f.index), depth); err != nil {
			return within(f.name, err)
		}
	}
	return nil
}

// lookupSlow finds a field by number in a table without an index.
func (m *message) lookupSlow(num int) *field {
	for _, f := range m.fields {
		if f.num == num {
			return f
		}
	}
	return nil
}

func decodeField(f *field, val value, v reflect.Value, depth int) error {
	switch f.shape {
	case shapeSingle:
		return decodeElem(f.elem, val, v, depth)
	case shapePointer:
		if v.IsNil() {
			v.Set(reflect.New(f.elem.typ))
		}
		return decodeElem(f.elem, val, v.Elem(), depth)
	case shapeBytes:
		if val.wt != wireBytes {
			return wrongWire(val.wt, v.Type())
		}
		v.SetBytes(append(make([]byte, 0, len(val.data)), val.data...))
		return nil
	case shapeRepeated:
		return decodeRepeated(f.elem, val, v, depth)
	case shapeWrapped:
		if val.wt != wireBytes {
			return wrongWire(val.wt, v.Type())
		}
		if v.IsNil() {
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		}
		return eachField(val.data, func(num int, item value) error {
			if num != 1 {
				return nil
			}
			return decodeRepeated(f.elem, item, v, depth)
		})
	case shapeMap:
		if val.wt != wireBytes {
			return wrongWire(val.wt, v.Type())
		}
		return decodeMapEntry(f, val.data, v, depth)
	}
	return fmt.Errorf("unknown field shape %d", f.shape)
}

// decodeRepeated appends the elements val holds, one or, for a packed
// scalar field, many.
func decodeRepeated(e *elemCoder, val value, v reflect.Value, depth int) error {
	if val.wt == wireBytes && e.wire != wireBytes {
		b := val.data
		for len(b) > 0 {
			item, n, err := consumeValue(0, e.wire, b)
			if err != nil {
				return fmt.Errorf("[%d]: %w", v.Len(), err)
			}
			b = b[n:]
			if err := decodeRepeated(e, item, v, depth); err != nil {
				return err
			}
		}
		return nil
	}
	i := v.Len()
	v.Set(reflect.Append(v, reflect.New(e.typ).Elem()))
	if err := decodeElem(e, val, v.Index(i), depth); err != nil {
		return within(fmt.Sprintf("[%d]", i), err)
	}
	return nil
}

func decodeMapEntry(f *field, b []byte, v reflect.Value, depth int) error {
	if v.IsNil() {
		v.Set(reflect.MakeMap(v.Type()))
	}
	key := reflect.New(f.key.typ).Elem()
	var val reflect.Value
	if f.wrappedValue {
		val = reflect.MakeSlice(f.valueType, 0, 0)
	} else {
		val = reflect.New(f.elem.typ).Elem()
	}
	err := eachField(b, func(num int, item value) error {
		switch {
		case num == 1:
			return decodeElem(f.key, item, key, depth)
		case num == 2 && f.wrappedValue:
			if item.wt != wireBytes {
				return wrongWire(item.wt, f.valueType)
			}
			items := reflect.New(f.valueType).Elem()
			items.Set(val)
			err := eachField(item.data, func(n int, e value) error {
				if n != 1 {
					return nil
				}
				return decodeRepeated(f.elem, e, items, depth)
			})
			val = items
			return err
		case num == 2:
			return decodeElem(f.elem, item, val, depth)
		}
		return nil
	})
	if err != nil {
		return within(fmt.Sprintf("[%q]", key.String()), err)
	}
	v.SetMapIndex(key, val)
	return nil
}

// eachField calls fn with every field of message b.
func eachField(b []byte, fn func(num int, val value) error) error {
	for len(b) > 0 {
		num, wt, n, err := consumeKey(b)
		if err != nil {
			return err
		}
		val, l, err := consumeValue(num, wt, b[n:])
		if err != nil {
			return fmt.Errorf("field %d: %w", num, err)
		}
		b = b[n+l:]
		if wt == wireStartGroup {
			continue
		}
		if err := fn(num, val); err != nil {
			return err
		}
	}
	return nil
}

func wrongWire(wt wireType, t reflect.Type) error {
	return fmt.Errorf("wire type %d cannot hold a %s", wt, t)
}

// decodeElem sets v from one value.
func decodeElem(e *elemCoder, val value, v reflect.Value, depth int) error {
	if val.wt != e.wire {
		return wrongWire(val.wt, e.typ)
	}
	switch e.kind {
	case reflect.String:
		v.SetString(string(val.data))
		return nil
	case reflect.Bool:
		v.SetBool(val.x != 0)
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		// Narrow integers keep their low bits, as proto does.
		shift := 64 - e.typ.Bits()
		v.SetInt(int64(val.x<<shift) >> shift)
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		shift := 64 - e.typ.Bits()
		v.SetUint(val.x << shift >> shift)
		return nil
	case reflect.Float32:
		v.SetFloat(float64(math.Float32frombits(uint32(val.x))))
		return nil
	case reflect.Float64:
		v.SetFloat(math.Float64frombits(val.x))
		return nil
	}
	if e.special != notSpecial {
		return decodeSpecial(val.data, e.special, v)
	}
	if e.kind == reflect.Slice {
		v.SetBytes(append(make([]byte, 0, len(val.data)), val.data...))
		return nil
	}
	return decodeMessage(val.data, e.msg, v, depth+1)
}

// decodeSpecial sets v, of a type with its own message form, from b.
func decodeSpecial(b []byte, s special, v reflect.Value) error {
	switch s {
	case specialTime, specialMicroTime:
		var seconds, nanos int64
		err := eachField(b, func(num int, val value) error {
			if num != 1 && num != 2 {
				return nil
			}
			if val.wt != wireVarint {
				return wrongWire(val.wt, reflect.TypeFor[int64]())
			}
			if num == 1 {
				seconds = int64(val.x)
			} else {
				nanos = int64(int32(val.x))
			}
			return nil
		})
		if err != nil {
			return err
		}
		var t time.Time
		if len(b) > 0 {
			if s == specialTime {
				nanos = 0
			}
			t = time.Unix(seconds, int64(time.Duration(nanos).Truncate(time.Microsecond))).Local()
		}
		if s == specialTime {
			v.Set(reflect.ValueOf(metav1.Time{Time: t}))
		} else {
			v.Set(reflect.ValueOf(metav1.MicroTime{Time: t}))
		}
		return nil
	case specialQuantity:
		q := resource.Quantity{}
		err := eachField(b, func(num int, val value) error {
			if num != 1 {
				return nil
			}
			if val.wt != wireBytes {
				return wrongWire(val.wt, reflect.TypeFor[string]())
			}
			var err error
			q, err = resource.ParseQuantity(string(val.data))
			return err
		})
		if err != nil {
			return err
		}
		v.Set(reflect.ValueOf(q))
		return nil
	case specialIntOrString:
		var is intstr.IntOrString
		err := eachField(b, func(num int, val value) error {
			want := wireVarint
			if num == 3 {
				want = wireBytes
			}
			if num < 1 || num > 3 {
				return nil
			}
			if val.wt != want {
				return wrongWire(val.wt, reflect.TypeFor[intstr.IntOrString]())
			}
			switch num {
			case 1:
				is.Type = intstr.Type(val.x)
			case 2:
				is.IntVal = int32(val.x)
			case 3:
				is.StrVal = string(val.data)
			}
			return nil
		})
		if err != nil {
			return err
		}
		if is.Type != intstr.Int && is.Type != intstr.String {
			return fmt.Errorf("invalid IntOrString type %d", is.Type)
		}
		v.Set(reflect.ValueOf(is))
		return nil
	case specialRawExtension, specialRawMessage:
		var raw []byte
		err := eachField(b, func(num int, val value) error {
			if num != 1 {
				return nil
			}
			if val.wt != wireBytes {
				return wrongWire(val.wt, reflect.TypeFor[[]byte]())
			}
			raw = append(make([]byte, 0, len(val.data)), val.data...)
			return nil
		})
		if err != nil {
			return err
		}
		if s == specialRawExtension {
			v.Set(reflect.ValueOf(runtime.RawExtension{Raw: raw}))
		} else {
			v.SetBytes(raw)
		}
		return nil
	}
	return errors.New("no decoding for " + v.Type().String())
}
