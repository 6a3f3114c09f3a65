// Package strictjson decodes JSON as the Kubernetes API server does: names
// match case-sensitively and unknown or duplicate fields are reported by path.
package strictjson

import (
	"bytes"
	"encoding"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth bounds the nesting of arrays and objects, as encoding/json does,
// so that hostile input cannot exhaust the stack.
const maxDepth = 10000

// Decoder decodes JSON into Go values. Integers decoded into untyped values
// (any) stay int64 when they fit, as Kubernetes keeps them; other numbers
// are float64. It caches what it learns about each Go type, so keep one per
// process (or per scheme) rather than one per call. The zero value is ready
// to use; a Decoder is safe for concurrent use.
type Decoder struct {
	cache sync.Map // reflect.Type -> *typeDecoder

	mu sync.Mutex // serialises compiling new types
}

// StrictErrorKind says what a FieldError reports.
type StrictErrorKind string

// The kinds of strict errors, worded as Kubernetes words them.
const (
	UnknownField   StrictErrorKind = "unknown field"
	DuplicateField StrictErrorKind = "duplicate field"
)

// FieldError is a strict decoding problem: a field the target type does not
// have, or a field given twice. The value was decoded regardless (unknown
// fields are dropped, the last duplicate wins).
type FieldError struct {
	Kind StrictErrorKind
	// Path is the field's path, e.g. spec.containers[0].foo.
	Path string
}

func (e *FieldError) Error() string { return string(e.Kind) + " " + strconv.Quote(e.Path) }

// SyntaxError is malformed JSON.
type SyntaxError struct {
	Msg string
	// Offset is the byte offset of the offending byte; Line and Column
	// (both 1-based) locate it.
	Offset       int64
	Line, Column int
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s at line %d, column %d (byte offset %d)", e.Msg, e.Line, e.Column, e.Offset)
}

// Unmarshal decodes data into the value v points to, matching field names
// case-sensitively and dropping unknown fields. Type mismatches are reported
// as encoding/json reports them, with a *json.UnmarshalTypeError for the
// first one; the rest of the document is still decoded. On a syntax error
// (*SyntaxError) v may be partly written.
func (d *Decoder) Unmarshal(data []byte, v any) error {
	_, err := d.unmarshal(data, v, false)
	return err
}

// UnmarshalStrict is Unmarshal that also returns every unknown and
// duplicate field as a *FieldError, in document order. They do not fail the
// decoding: unknown fields are dropped and the last duplicate wins.
func (d *Decoder) UnmarshalStrict(data []byte, v any) (strict []error, err error) {
	return d.unmarshal(data, v, true)
}

func (d *Decoder) unmarshal(data []byte, v any, strict bool) ([]error, error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return nil, &json.InvalidUnmarshalError{Type: reflect.TypeOf(v)}
	}
	s := &state{data: data, dec: d, collect: strict}
	s.skipSpace()
	if s.off >= len(s.data) {
		return nil, s.syntaxError("unexpected end of JSON input")
	}
	elem := rv.Elem()
	if err := d.decoderFor(elem.Type()).fn(s, elem); err != nil {
		return s.strict, err
	}
	s.skipSpace()
	if s.off < len(s.data) {
		return s.strict, s.syntaxError("invalid character " + quoteChar(s.data[s.off]) + " after top-level value")
	}
	return s.strict, s.saved
}

// state is one decoding pass over a document.
type state struct {
	data  []byte
	off   int
	depth int
	dec   *Decoder
	// path is the field path from the root, for error messages.
	path []pathElem
	// strict collects unknown and duplicate fields when collect is set;
	// saved is the first type error.
	collect bool
	strict  []error
	saved   error
}

// pathElem is one step of the path: a field or map key, or an index.
type pathElem struct {
	name string
	// structName is the Go type holding the field, for type errors.
	structName string
	index      int
	isIndex    bool
	// isKey marks a map key, which type errors leave out of the path.
	isKey bool
}

func (s *state) pushField(name, structName string) {
	s.path = append(s.path, pathElem{name: name, structName: structName})
}

func (s *state) pushKey(key string) { s.path = append(s.path, pathElem{name: key, isKey: true}) }

func (s *state) pushIndex(i int) { s.path = append(s.path, pathElem{index: i, isIndex: true}) }

func (s *state) pop() { s.path = s.path[:len(s.path)-1] }

// fieldPath renders the path as Kubernetes does: a.b[0].c
func (s *state) fieldPath(last string) string {
	var b strings.Builder
	for _, e := range s.path {
		if e.isIndex {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(e.index))
			b.WriteByte(']')
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(e.name)
	}
	if last != "" {
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(last)
	}
	return b.String()
}

func (s *state) addStrict(kind StrictErrorKind, key string) {
	if !s.collect {
		return
	}
	s.strict = append(s.strict, &FieldError{Kind: kind, Path: s.fieldPath(key)})
}

// typeError records a JSON value that does not fit type t, like
// encoding/json: Struct is the innermost struct type and Field the dotted
// names from the root.
func (s *state) typeError(what string, t reflect.Type, off int) {
	if s.saved != nil {
		return
	}
	e := &json.UnmarshalTypeError{Value: what, Type: t, Offset: int64(off)}
	var names []string
	for _, p := range s.path {
		if p.isIndex || p.isKey {
			continue
		}
		names = append(names, p.name)
		if p.structName != "" {
			e.Struct = p.structName
		}
	}
	e.Field = strings.Join(names, ".")
	s.saved = e
}

func (s *state) save(err error) {
	if s.saved == nil {
		s.saved = err
	}
}

func (s *state) syntaxError(msg string) error {
	off := min(s.off, len(s.data))
	line := 1 + bytes.Count(s.data[:off], []byte{'\n'})
	col := off + 1
	if i := bytes.LastIndexByte(s.data[:off], '\n'); i >= 0 {
		col = off - i
	}
	return &SyntaxError{Msg: msg, Offset: int64(off), Line: line, Column: col}
}

func (s *state) unexpected(context string) error {
	if s.off >= len(s.data) {
		return s.syntaxError("unexpected end of JSON input")
	}
	return s.syntaxError("invalid character " + quoteChar(s.data[s.off]) + " " + context)
}

// quoteChar formats c the way encoding/json's syntax errors do.
func quoteChar(c byte) string {
	if c == '\'' {
		return `'\''`
	}
	if c == '"' {
		return `'"'`
	}
	q := strconv.Quote(string(rune(c)))
	return "'" + q[1:len(q)-1] + "'"
}

func (s *state) skipSpace() {
	for s.off < len(s.data) {
		switch s.data[s.off] {
		case ' ', '\t', '\n', '\r':
			s.off++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, or 0 at the end of input.
func (s *state) peek() byte {
	s.skipSpace()
	if s.off >= len(s.data) {
		return 0
	}
	return s.data[s.off]
}

func (s *state) enter() error {
	s.depth++
	if s.depth > maxDepth {
		return s.syntaxError("exceeded max depth")
	}
	return nil
}

func (s *state) leave() { s.depth-- }

// kindOf names the JSON value starting with c, for type errors.
func kindOf(c byte) string {
	switch c {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	}
	return "number"
}

// literal consumes one of true, false or null, whichever starts here.
func (s *state) literal() error {
	var want string
	switch s.data[s.off] {
	case 't':
		want = "true"
	case 'f':
		want = "false"
	case 'n':
		want = "null"
	default:
		return s.unexpected("looking for beginning of value")
	}
	for i := 0; i < len(want); i++ {
		if s.off >= len(s.data) {
			return s.syntaxError("unexpected end of JSON input")
		}
		if s.data[s.off] != want[i] {
			return s.unexpected("in literal " + want + " (expecting " + quoteChar(want[i]) + ")")
		}
		s.off++
	}
	return nil
}

// number consumes a number and returns its text.
func (s *state) number() ([]byte, error) {
	start := s.off
	d := s.data
	i := s.off
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		s.off = i
		return nil, s.unexpected("in numeric literal")
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			s.off = i
			return nil, s.unexpected("after decimal point in numeric literal")
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			s.off = i
			return nil, s.unexpected("in exponent of numeric literal")
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	s.off = i
	return d[start:i], nil
}

// stringBytes consumes a string and returns its decoded bytes. When the
// string has no escapes and is valid UTF-8 the result aliases the input.
func (s *state) stringBytes() ([]byte, error) {
	s.off++ // opening quote
	start := s.off
	d := s.data
	plain := true
	for i := start; i < len(d); i++ {
		c := d[i]
		switch {
		case c == '"':
			s.off = i + 1
			if plain {
				return d[start:i], nil
			}
			return s.unquote(d[start:i], start)
		case c == '\\':
			plain = false
			i++ // skip the escaped byte; validated by unquote
		case c < 0x20:
			s.off = i
			return nil, s.unexpected("in string literal")
		case c >= utf8.RuneSelf:
			plain = false
		}
	}
	s.off = len(d)
	return nil, s.syntaxError("unexpected end of JSON input")
}

// unquote decodes the escapes of a string body and replaces invalid UTF-8
// with U+FFFD, as encoding/json does. base is the offset of body in data.
func (s *state) unquote(body []byte, base int) ([]byte, error) {
	out := make([]byte, 0, len(body)+2*utf8.UTFMax)
	for i := 0; i < len(body); {
		c := body[i]
		if c == '\\' {
			if i+1 >= len(body) {
				s.off = base + i + 1
				return nil, s.unexpected("in string escape code")
			}
			switch e := body[i+1]; e {
			case '"', '\\', '/', '\'':
				if e == '\'' {
					s.off = base + i + 1
					return nil, s.unexpected("in string escape code")
				}
				out = append(out, e)
				i += 2
			case 'b':
				out = append(out, '\b')
				i += 2
			case 'f':
				out = append(out, '\f')
				i += 2
			case 'n':
				out = append(out, '\n')
				i += 2
			case 'r':
				out = append(out, '\r')
				i += 2
			case 't':
				out = append(out, '\t')
				i += 2
			case 'u':
				r, ok := hex4(body[i+2:])
				if !ok {
					s.off = base + i + 2 + badHex(body[i+2:])
					return nil, s.unexpected("in \\u hexadecimal character escape")
				}
				i += 6
				if utf16.IsSurrogate(r) {
					r2, ok := rune(-1), false
					if i+1 < len(body) && body[i] == '\\' && body[i+1] == 'u' {
						r2, ok = hex4(body[i+2:])
					}
					if dec := utf16.DecodeRune(r, r2); ok && dec != utf8.RuneError {
						r = dec
						i += 6
					} else {
						r = utf8.RuneError
					}
				}
				out = utf8.AppendRune(out, r)
			default:
				s.off = base + i + 1
				return nil, s.unexpected("in string escape code")
			}
			continue
		}
		if c < utf8.RuneSelf {
			out = append(out, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(body[i:])
		if r == utf8.RuneError && size == 1 {
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, body[i:i+size]...)
		}
		i += size
	}
	return out, nil
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r*16 + rune(c)
	}
	return r, true
}

// badHex returns the index of the first byte of b that is not a hex digit.
func badHex(b []byte) int {
	for i := 0; i < len(b) && i < 4; i++ {
		c := b[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return i
		}
	}
	return min(len(b), 4)
}

// skipValue consumes and validates one value of any kind.
func (s *state) skipValue() error {
	switch c := s.peek(); c {
	case '{':
		if err := s.enter(); err != nil {
			return err
		}
		defer s.leave()
		s.off++
		if s.peek() == '}' {
			s.off++
			return nil
		}
		for {
			if s.peek() != '"' {
				return s.unexpected("looking for beginning of object key string")
			}
			if _, err := s.stringBytes(); err != nil {
				return err
			}
			if s.peek() != ':' {
				return s.unexpected("after object key")
			}
			s.off++
			if err := s.skipValue(); err != nil {
				return err
			}
			switch s.peek() {
			case ',':
				s.off++
			case '}':
				s.off++
				return nil
			default:
				return s.unexpected("after object key:value pair")
			}
		}
	case '[':
		if err := s.enter(); err != nil {
			return err
		}
		defer s.leave()
		s.off++
		if s.peek() == ']' {
			s.off++
			return nil
		}
		for {
			if err := s.skipValue(); err != nil {
				return err
			}
			switch s.peek() {
			case ',':
				s.off++
			case ']':
				s.off++
				return nil
			default:
				return s.unexpected("after array element")
			}
		}
	case '"':
		_, err := s.stringBytes()
		return err
	case 't', 'f', 'n':
		return s.literal()
	case 0:
		if s.off >= len(s.data) {
			return s.syntaxError("unexpected end of JSON input")
		}
		return s.unexpected("looking for beginning of value")
	default:
		if c == '-' || c >= '0' && c <= '9' {
			_, err := s.number()
			return err
		}
		return s.unexpected("looking for beginning of value")
	}
}

// rawValue consumes one value and returns its text.
func (s *state) rawValue() ([]byte, error) {
	s.skipSpace()
	start := s.off
	if err := s.skipValue(); err != nil {
		return nil, err
	}
	return s.data[start:s.off], nil
}

// mismatch records a type error for the value starting here and skips it.
func (s *state) mismatch(t reflect.Type) error {
	c := s.peek()
	off := s.off
	if err := s.skipValue(); err != nil {
		return err
	}
	s.typeError(kindOf(c), t, off)
	return nil
}

// objectEntries walks the members of an object whose '{' is next, calling
// member with each key; member must consume the value.
func (s *state) objectEntries(member func(key []byte, keyOff int) error) error {
	if err := s.enter(); err != nil {
		return err
	}
	defer s.leave()
	s.off++
	if s.peek() == '}' {
		s.off++
		return nil
	}
	for {
		if s.peek() != '"' {
			return s.unexpected("looking for beginning of object key string")
		}
		keyOff := s.off
		key, err := s.stringBytes()
		if err != nil {
			return err
		}
		if s.peek() != ':' {
			return s.unexpected("after object key")
		}
		s.off++
		s.skipSpace()
		if err := member(key, keyOff); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.off++
		case '}':
			s.off++
			return nil
		default:
			return s.unexpected("after object key:value pair")
		}
	}
}

// arrayElements walks the elements of an array whose '[' is next.
func (s *state) arrayElements(elem func(i int) error) error {
	if err := s.enter(); err != nil {
		return err
	}
	defer s.leave()
	s.off++
	if s.peek() == ']' {
		s.off++
		return nil
	}
	for i := 0; ; i++ {
		s.skipSpace()
		if err := elem(i); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.off++
		case ']':
			s.off++
			return nil
		default:
			return s.unexpected("after array element")
		}
	}
}

// anyValue decodes a value into the generic form: map[string]any, []any,
// string, bool, nil, int64 for integers that fit, float64 otherwise.
func (s *state) anyValue(t reflect.Type) (any, error) {
	switch c := s.peek(); c {
	case '{':
		m := map[string]any{}
		err := s.objectEntries(func(key []byte, _ int) error {
			k := string(key)
			if _, dup := m[k]; dup {
				s.addStrict(DuplicateField, k)
			}
			s.pushKey(k)
			v, err := s.anyValue(t)
			s.pop()
			if err != nil {
				return err
			}
			m[k] = v
			return nil
		})
		return m, err
	case '[':
		a := []any{}
		err := s.arrayElements(func(i int) error {
			s.pushIndex(i)
			v, err := s.anyValue(t)
			s.pop()
			a = append(a, v)
			return err
		})
		return a, err
	case '"':
		b, err := s.stringBytes()
		return string(b), err
	case 't', 'f', 'n':
		if err := s.literal(); err != nil {
			return nil, err
		}
		switch c {
		case 't':
			return true, nil
		case 'f':
			return false, nil
		}
		return nil, nil
	default:
		if c != '-' && (c < '0' || c > '9') {
			return nil, s.unexpected("looking for beginning of value")
		}
		off := s.off
		num, err := s.number()
		if err != nil {
			return nil, err
		}
		if i, err := strconv.ParseInt(string(num), 10, 64); err == nil {
			return i, nil
		}
		f, err := strconv.ParseFloat(string(num), 64)
		if err != nil {
			s.typeError("number "+string(num), reflect.TypeFor[float64](), off)
			return nil, nil
		}
		return f, nil
	}
}

// typeDecoder decodes into values of one Go type. fn is set once the type
// is compiled; recursive types refer to their own typeDecoder.
type typeDecoder struct {
	fn func(s *state, v reflect.Value) error
}

var (
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	numberType          = reflect.TypeFor[json.Number]()
)

func (d *Decoder) decoderFor(t reflect.Type) *typeDecoder {
	if td, ok := d.cache.Load(t); ok {
		return td.(*typeDecoder)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	c := &compiler{dec: d, building: map[reflect.Type]*typeDecoder{}}
	td := c.compile(t)
	// Publish only complete decoders: a recursive type's decoders refer to
	// each other and must all have fn set before anyone can run them.
	for bt, btd := range c.building {
		d.cache.LoadOrStore(bt, btd)
	}
	return td
}

// compiler builds the decoders of a type and the types it contains.
type compiler struct {
	dec      *Decoder
	building map[reflect.Type]*typeDecoder
}

func (c *compiler) compile(t reflect.Type) *typeDecoder {
	if td, ok := c.dec.cache.Load(t); ok {
		return td.(*typeDecoder)
	}
	if td, ok := c.building[t]; ok {
		return td
	}
	td := &typeDecoder{}
	c.building[t] = td
	td.fn = c.build(t)
	return td
}

func (c *compiler) build(t reflect.Type) func(*state, reflect.Value) error {
	if t.Kind() != reflect.Pointer {
		pt := reflect.PointerTo(t)
		if pt.Implements(jsonUnmarshalerType) {
			return unmarshalerDecoder
		}
		if pt.Implements(textUnmarshalerType) {
			return textDecoder
		}
	}
	switch t.Kind() {
	case reflect.Bool:
		return boolDecoder
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return intDecoder
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return uintDecoder
	case reflect.Float32, reflect.Float64:
		return floatDecoder
	case reflect.String:
		if t == numberType {
			return numberDecoder
		}
		return stringDecoder
	case reflect.Interface:
		return interfaceDecoder
	case reflect.Pointer:
		return c.pointerDecoder(t)
	case reflect.Struct:
		return c.structDecoder(t)
	case reflect.Map:
		return c.mapDecoder(t)
	case reflect.Slice:
		return c.sliceDecoder(t)
	case reflect.Array:
		return c.arrayDecoder(t)
	}
	return unsupportedDecoder
}

func unsupportedDecoder(s *state, v reflect.Value) error {
	if s.peek() == 'n' {
		return s.literal()
	}
	return s.mismatch(v.Type())
}

func unmarshalerDecoder(s *state, v reflect.Value) error {
	raw, err := s.rawValue()
	if err != nil {
		return err
	}
	if err := v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(raw); err != nil {
		s.save(err)
	}
	return nil
}

func textDecoder(s *state, v reflect.Value) error {
	switch s.peek() {
	case 'n':
		return s.literal()
	case '"':
		off := s.off
		b, err := s.stringBytes()
		if err != nil {
			return err
		}
		if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText(b); err != nil {
			s.save(fmt.Errorf("json: decode %s at offset %d: %w", v.Type(), off, err))
		}
		return nil
	}
	return s.mismatch(v.Type())
}

func boolDecoder(s *state, v reflect.Value) error {
	switch s.peek() {
	case 't', 'f':
		b := s.data[s.off] == 't'
		if err := s.literal(); err != nil {
			return err
		}
		v.SetBool(b)
		return nil
	case 'n':
		return s.literal()
	}
	return s.mismatch(v.Type())
}

// numberFor consumes the number next in the input, or records a type error
// for anything else. ok is false when there is nothing to store.
func (s *state) numberFor(t reflect.Type) (num []byte, off int, ok bool, err error) {
	c := s.peek()
	if c == 'n' {
		return nil, 0, false, s.literal()
	}
	if c != '-' && (c < '0' || c > '9') {
		return nil, 0, false, s.mismatch(t)
	}
	off = s.off
	num, err = s.number()
	return num, off, err == nil, err
}

func intDecoder(s *state, v reflect.Value) error {
	num, off, ok, err := s.numberFor(v.Type())
	if !ok {
		return err
	}
	n, perr := strconv.ParseInt(string(num), 10, 64)
	if perr != nil || v.OverflowInt(n) {
		s.typeError("number "+string(num), v.Type(), off)
		return nil
	}
	v.SetInt(n)
	return nil
}

func uintDecoder(s *state, v reflect.Value) error {
	num, off, ok, err := s.numberFor(v.Type())
	if !ok {
		return err
	}
	n, perr := strconv.ParseUint(string(num), 10, 64)
	if perr != nil || v.OverflowUint(n) {
		s.typeError("number "+string(num), v.Type(), off)
		return nil
	}
	v.SetUint(n)
	return nil
}

func floatDecoder(s *state, v reflect.Value) error {
	num, off, ok, err := s.numberFor(v.Type())
	if !ok {
		return err
	}
	f, perr := strconv.ParseFloat(string(num), v.Type().Bits())
	if perr != nil || v.OverflowFloat(f) || math.IsInf(f, 0) {
		s.typeError("number "+string(num), v.Type(), off)
		return nil
	}
	v.SetFloat(f)
	return nil
}

func numberDecoder(s *state, v reflect.Value) error {
	switch c := s.peek(); {
	case c == 'n':
		return s.literal()
	case c == '"':
		off := s.off
		b, err := s.stringBytes()
		if err != nil {
			return err
		}
		if !isNumber(b) {
			s.save(fmt.Errorf("json: invalid number literal %q at offset %d, trying to unmarshal into Number", b, off))
			return nil
		}
		v.SetString(string(b))
		return nil
	case c == '-' || c >= '0' && c <= '9':
		num, err := s.number()
		if err != nil {
			return err
		}
		v.SetString(string(num))
		return nil
	}
	return s.mismatch(v.Type())
}

func isNumber(b []byte) bool {
	s := &state{data: b}
	if _, err := s.number(); err != nil {
		return false
	}
	return s.off == len(b)
}

func stringDecoder(s *state, v reflect.Value) error {
	switch s.peek() {
	case '"':
		b, err := s.stringBytes()
		if err != nil {
			return err
		}
		v.SetString(string(b))
		return nil
	case 'n':
		return s.literal()
	}
	return s.mismatch(v.Type())
}

func interfaceDecoder(s *state, v reflect.Value) error {
	if s.peek() == 'n' {
		if err := s.literal(); err != nil {
			return err
		}
		v.SetZero()
		return nil
	}
	// A non-nil pointer already in the interface is decoded into, as
	// encoding/json does.
	if !v.IsNil() {
		if e := v.Elem(); e.Kind() == reflect.Pointer && !e.IsNil() {
			return s.dec.decoderFor(e.Type()).fn(s, e)
		}
	}
	if v.NumMethod() != 0 {
		return s.mismatch(v.Type())
	}
	x, err := s.anyValue(v.Type())
	if err != nil {
		return err
	}
	if x == nil {
		v.SetZero()
	} else {
		v.Set(reflect.ValueOf(x))
	}
	return nil
}

func (c *compiler) pointerDecoder(t reflect.Type) func(*state, reflect.Value) error {
	elem := c.compile(t.Elem())
	return func(s *state, v reflect.Value) error {
		if s.peek() == 'n' {
			if err := s.literal(); err != nil {
				return err
			}
			v.SetZero()
			return nil
		}
		if v.IsNil() {
			v.Set(reflect.New(t.Elem()))
		}
		return elem.fn(s, v.Elem())
	}
}

func (c *compiler) sliceDecoder(t reflect.Type) func(*state, reflect.Value) error {
	et := t.Elem()
	if et.Kind() == reflect.Uint8 && !reflect.PointerTo(et).Implements(jsonUnmarshalerType) && !reflect.PointerTo(et).Implements(textUnmarshalerType) {
		return c.bytesDecoder(t)
	}
	elem := c.compile(et)
	return func(s *state, v reflect.Value) error {
		switch s.peek() {
		case 'n':
			if err := s.literal(); err != nil {
				return err
			}
			v.SetZero()
			return nil
		case '[':
		default:
			return s.mismatch(t)
		}
		if !v.IsNil() {
			v.SetLen(0)
		}
		n := 0
		err := s.arrayElements(func(i int) error {
			if n >= v.Cap() {
				grown := reflect.MakeSlice(t, n, max(4, 2*v.Cap()))
				reflect.Copy(grown, v)
				v.Set(grown)
			}
			v.SetLen(n + 1)
			e := v.Index(n)
			e.SetZero()
			n++
			s.pushIndex(i)
			defer s.pop()
			return elem.fn(s, e)
		})
		if err == nil && v.IsNil() {
			v.Set(reflect.MakeSlice(t, 0, 0))
		}
		return err
	}
}

// bytesDecoder decodes a base64 string, or an array of numbers, into a
// byte slice.
func (c *compiler) bytesDecoder(t reflect.Type) func(*state, reflect.Value) error {
	elem := c.compile(t.Elem())
	return func(s *state, v reflect.Value) error {
		switch s.peek() {
		case 'n':
			if err := s.literal(); err != nil {
				return err
			}
			v.SetZero()
			return nil
		case '"':
			off := s.off
			b, err := s.stringBytes()
			if err != nil {
				return err
			}
			out := make([]byte, base64.StdEncoding.DecodedLen(len(b)))
			n, derr := base64.StdEncoding.Decode(out, b)
			if derr != nil {
				s.save(fmt.Errorf("json: decode base64 at offset %d: %w", off, derr))
				return nil
			}
			v.SetBytes(out[:n])
			if t.Elem() != reflect.TypeFor[byte]() {
				// A named byte type: convert element by element.
				conv := reflect.MakeSlice(t, n, n)
				for i := range n {
					conv.Index(i).SetUint(uint64(out[i]))
				}
				v.Set(conv)
			}
			return nil
		case '[':
			n := 0
			bs := reflect.MakeSlice(t, 0, 0)
			err := s.arrayElements(func(i int) error {
				bs = reflect.Append(bs, reflect.Zero(t.Elem()))
				s.pushIndex(i)
				defer s.pop()
				err := elem.fn(s, bs.Index(n))
				n++
				return err
			})
			v.Set(bs)
			return err
		}
		return s.mismatch(t)
	}
}

func (c *compiler) arrayDecoder(t reflect.Type) func(*state, reflect.Value) error {
	elem := c.compile(t.Elem())
	return func(s *state, v reflect.Value) error {
		switch s.peek() {
		case 'n':
			return s.literal()
		case '[':
		default:
			return s.mismatch(t)
		}
		n := 0
		err := s.arrayElements(func(i int) error {
			if i >= v.Len() {
				return s.skipValue()
			}
			n++
			s.pushIndex(i)
			defer s.pop()
			e := v.Index(i)
			e.SetZero()
			return elem.fn(s, e)
		})
		for i := n; i < v.Len(); i++ {
			v.Index(i).SetZero()
		}
		return err
	}
}

func (c *compiler) mapDecoder(t reflect.Type) func(*state, reflect.Value) error {
	kt := t.Key()
	var keyFn func(k string, kv reflect.Value) bool
	switch {
	case kt.Kind() == reflect.String && !reflect.PointerTo(kt).Implements(textUnmarshalerType):
		keyFn = func(k string, kv reflect.Value) bool { kv.SetString(k); return true }
	case reflect.PointerTo(kt).Implements(textUnmarshalerType):
		keyFn = func(k string, kv reflect.Value) bool {
			return kv.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(k)) == nil
		}
	case kt.Kind() >= reflect.Int && kt.Kind() <= reflect.Int64:
		keyFn = func(k string, kv reflect.Value) bool {
			n, err := strconv.ParseInt(k, 10, 64)
			if err != nil || kv.OverflowInt(n) {
				return false
			}
			kv.SetInt(n)
			return true
		}
	case kt.Kind() >= reflect.Uint && kt.Kind() <= reflect.Uintptr:
		keyFn = func(k string, kv reflect.Value) bool {
			n, err := strconv.ParseUint(k, 10, 64)
			if err != nil || kv.OverflowUint(n) {
				return false
			}
			kv.SetUint(n)
			return true
		}
	default:
		return unsupportedDecoder
	}
	elem := c.compile(t.Elem())
	return func(s *state, v reflect.Value) error {
		switch s.peek() {
		case 'n':
			if err := s.literal(); err != nil {
				return err
			}
			v.SetZero()
			return nil
		case '{':
		default:
			return s.mismatch(t)
		}
		if v.IsNil() {
			v.Set(reflect.MakeMap(t))
		}
		// Duplicates are found by looking the key up when the map started
		// empty, with a set of the keys seen otherwise.
		var seen map[string]struct{}
		if v.Len() > 0 {
			seen = map[string]struct{}{}
		}
		kv := reflect.New(kt).Elem()
		ev := reflect.New(t.Elem()).Elem()
		return s.objectEntries(func(key []byte, keyOff int) error {
			k := string(key)
			kv.SetZero()
			if !keyFn(k, kv) {
				s.typeError("number "+k, kt, keyOff)
				return s.skipValue()
			}
			if seen != nil {
				if _, dup := seen[k]; dup {
					s.addStrict(DuplicateField, k)
				}
				seen[k] = struct{}{}
			} else if v.MapIndex(kv).IsValid() {
				s.addStrict(DuplicateField, k)
			}
			ev.SetZero()
			s.pushKey(k)
			err := elem.fn(s, ev)
			s.pop()
			if err != nil {
				return err
			}
			v.SetMapIndex(kv, ev)
			return nil
		})
	}
}
