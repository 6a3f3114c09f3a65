// Package yaml splits a stream of YAML documents or JSON values into single
// documents and converts YAML to JSON, for manifests that hold many objects.
package yaml

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"unicode"

	"sigs.k8s.io/yaml"
)

// ToJSON converts a YAML document to JSON. Data that already starts like a
// JSON object or array is returned unchanged.
func ToJSON(data []byte) ([]byte, error) {
	if hasJSONPrefix(data) {
		return data, nil
	}
	return yaml.YAMLToJSON(data)
}

// hasJSONPrefix reports whether the first non-space byte opens a JSON object
// or array.
func hasJSONPrefix(data []byte) bool {
	trimmed := bytes.TrimLeftFunc(data, unicode.IsSpace)
	return len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[')
}

// DocumentError is an error in one document of a stream.
type DocumentError struct {
	// Document is the 1-based position of the document in the stream,
	// counting the empty documents that were skipped.
	Document int
	// Line is the 1-based line of the stream the error points at: the line
	// of a syntax error when the parser names one, else the first line of
	// the document.
	Line int
	Err  error
	// text, when set, is Err's message with its line made relative to the
	// stream rather than to the document.
	text string
}

func (e *DocumentError) Error() string {
	if e.text != "" {
		return fmt.Sprintf("document %d: %s", e.Document, e.text)
	}
	return fmt.Sprintf("document %d (line %d): %v", e.Document, e.Line, e.Err)
}

func (e *DocumentError) Unwrap() error { return e.Err }

// YAMLOrJSONDecoder decodes a stream of YAML documents separated by "---"
// lines, or a stream of JSON values, one document per Decode call.
type YAMLOrJSONDecoder struct {
	r       *bufio.Reader
	started bool
	yaml    *YAMLReader
	json    *jsonStream
	// documents counts the documents read so far, empty ones included.
	documents int
}

// NewYAMLOrJSONDecoder returns a decoder reading r through a buffer of
// bufferSize bytes (4096 when bufferSize is not positive). The stream is JSON
// when its first non-space byte is '{', YAML otherwise.
func NewYAMLOrJSONDecoder(r io.Reader, bufferSize int) *YAMLOrJSONDecoder {
	if bufferSize <= 0 {
		bufferSize = 4096
	}
	return &YAMLOrJSONDecoder{r: bufio.NewReaderSize(r, bufferSize)}
}

// Decode decodes the next non-empty document into into, as encoding/json
// would decode its JSON form. It returns io.EOF after the last document.
func (d *YAMLOrJSONDecoder) Decode(into any) error {
	if !d.started {
		if err := d.sniff(); err != nil {
			return err
		}
	}
	if d.json != nil {
		return d.decodeJSON(into)
	}
	return d.decodeYAML(into)
}

// sniff picks the stream format from the first byte that is not white
// space, without consuming anything.
func (d *YAMLOrJSONDecoder) sniff() error {
	d.started = true
	for i := 0; i < d.r.Size(); i++ {
		buf, err := d.r.Peek(i + 1)
		if len(buf) <= i {
			if err != nil && err != io.EOF {
				return fmt.Errorf("read stream: %w", err)
			}
			break
		}
		if c := buf[i]; c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			continue
		} else if c == '{' {
			d.json = newJSONStream(d.r)
			return nil
		}
		break
	}
	d.yaml = NewYAMLReader(d.r)
	return nil
}

func (d *YAMLOrJSONDecoder) decodeYAML(into any) error {
	for {
		doc, err := d.yaml.Read()
		if err != nil {
			return err
		}
		d.documents++
		start := d.yaml.DocumentLine()
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		data, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return yamlError(d.documents, start, err)
		}
		if isEmptyDocument(data) {
			continue
		}
		if err := json.Unmarshal(data, into); err != nil {
			return &DocumentError{Document: d.documents, Line: start, Err: err}
		}
		return nil
	}
}

func (d *YAMLOrJSONDecoder) decodeJSON(into any) error {
	for {
		raw, start, err := d.json.next()
		if err == io.EOF {
			return io.EOF
		}
		d.documents++
		if err != nil {
			return &DocumentError{Document: d.documents, Line: start, Err: err, text: err.Error()}
		}
		if isEmptyDocument(raw) {
			continue
		}
		if err := json.Unmarshal(raw, into); err != nil {
			return &DocumentError{Document: d.documents, Line: start, Err: err}
		}
		return nil
	}
}

func isEmptyDocument(data []byte) bool {
	data = bytes.TrimSpace(data)
	return len(data) == 0 || string(data) == "null"
}

// jsonStream reads JSON values one after another and keeps just enough of
// the consumed input to turn byte offsets into lines and columns.
type jsonStream struct {
	rec *recorder
	dec *json.Decoder
	// base is the stream offset of rec.buf[0], line the line it is on and
	// lineStart the stream offset where that line begins.
	base      int64
	line      int
	lineStart int64
}

// recorder keeps a copy of what the json.Decoder reads.
type recorder struct {
	r   io.Reader
	buf []byte
}

func (r *recorder) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.buf = append(r.buf, p[:n]...)
	return n, err
}

func newJSONStream(r io.Reader) *jsonStream {
	rec := &recorder{r: r}
	return &jsonStream{rec: rec, dec: json.NewDecoder(rec), line: 1}
}

// next returns the next JSON value and the line it starts on; on a syntax
// error, the line of the error.
func (s *jsonStream) next() (json.RawMessage, int, error) {
	var raw json.RawMessage
	err := s.dec.Decode(&raw)
	if err == io.EOF {
		return nil, 0, io.EOF
	}
	if err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			line, col := s.position(syn.Offset - 1)
			return nil, line, fmt.Errorf("%w at line %d, column %d", err, line, col)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			line, col := s.position(s.base + int64(len(s.rec.buf)))
			return nil, line, fmt.Errorf("unexpected end of JSON input at line %d, column %d", line, col)
		}
		return nil, s.line, err
	}
	end := s.dec.InputOffset()
	start, _ := s.position(end - int64(len(raw)))
	s.advance(end)
	return raw, start, nil
}

// position returns the 1-based line and column of a stream offset that has
// not been advanced past.
func (s *jsonStream) position(off int64) (line, col int) {
	i := int(max(0, min(off-s.base, int64(len(s.rec.buf)))))
	before := s.rec.buf[:i]
	line = s.line + bytes.Count(before, []byte{'\n'})
	if j := bytes.LastIndexByte(before, '\n'); j >= 0 {
		return line, i - j
	}
	return line, int(s.base+int64(i)-s.lineStart) + 1
}

// advance forgets the input before stream offset off.
func (s *jsonStream) advance(off int64) {
	n := int(max(0, min(off-s.base, int64(len(s.rec.buf)))))
	done := s.rec.buf[:n]
	s.line += bytes.Count(done, []byte{'\n'})
	if j := bytes.LastIndexByte(done, '\n'); j >= 0 {
		s.lineStart = s.base + int64(j) + 1
	}
	s.rec.buf = append(s.rec.buf[:0], s.rec.buf[n:]...)
	s.base += int64(n)
}

// YAMLReader reads the YAML documents of a stream one at a time. A line that
// starts with "---", followed by nothing but space or a comment, separates
// documents.
type YAMLReader struct {
	r *bufio.Reader
	// line is the number of lines consumed; docLine is where the last
	// document returned by Read starts.
	line    int
	docLine int
}

// NewYAMLReader returns a reader of the documents in r.
func NewYAMLReader(r *bufio.Reader) *YAMLReader {
	return &YAMLReader{r: r}
}

// Read returns the next document without its separator, or io.EOF. A
// document may hold only comments or white space.
func (r *YAMLReader) Read() ([]byte, error) {
	var buf bytes.Buffer
	start := r.line + 1
	for {
		line, err := r.r.ReadBytes('\n')
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("read YAML stream at line %d: %w", r.line+1, err)
		}
		if len(line) > 0 {
			r.line++
		}
		if isSeparator(line) {
			if buf.Len() > 0 {
				r.docLine = start
				return buf.Bytes(), nil
			}
			start = r.line + 1
		} else {
			buf.Write(line)
		}
		if err == io.EOF {
			if buf.Len() > 0 {
				r.docLine = start
				return buf.Bytes(), nil
			}
			return nil, io.EOF
		}
	}
}

// DocumentLine returns the 1-based line on which the document last returned
// by Read starts.
func (r *YAMLReader) DocumentLine() int { return r.docLine }

func isSeparator(line []byte) bool {
	rest, ok := bytes.CutPrefix(line, []byte("---"))
	if !ok {
		return false
	}
	rest = bytes.TrimSpace(rest)
	return len(rest) == 0 || rest[0] == '#'
}

// yamlLine matches the document-relative line a YAML parser error names.
var yamlLine = regexp.MustCompile(`line (\d+)`)

// yamlError reports a YAML parser error with its line made relative to the
// stream.
func yamlError(document, start int, err error) *DocumentError {
	de := &DocumentError{Document: document, Line: start, Err: err}
	msg := err.Error()
	m := yamlLine.FindStringSubmatchIndex(msg)
	if m == nil {
		return de
	}
	n, convErr := strconv.Atoi(msg[m[2]:m[3]])
	if convErr != nil {
		return de
	}
	de.Line = start + n - 1
	de.text = msg[:m[2]] + strconv.Itoa(de.Line) + msg[m[3]:]
	return de
}
