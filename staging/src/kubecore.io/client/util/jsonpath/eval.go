package jsonpath

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// JSONPath is a parsed template.
type JSONPath struct {
	name             string
	nodes            []node
	allowMissingKeys bool
}

// New parses tmpl; name appears in errors.
func New(name, tmpl string) (*JSONPath, error) {
	nodes, err := parse(tmpl)
	if err != nil {
		return nil, fmt.Errorf("error parsing jsonpath %s, %w", tmpl, err)
	}
	return &JSONPath{name: name, nodes: nodes}, nil
}

// AllowMissingKeys makes a missing field print nothing instead of failing.
func (j *JSONPath) AllowMissingKeys(allow bool) *JSONPath {
	j.allowMissingKeys = allow
	return j
}

// Execute prints the template for data (a value decoded from JSON).
func (j *JSONPath) Execute(w io.Writer, data any) error {
	var buf bytes.Buffer
	if err := j.exec(&buf, j.nodes, data, data); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// FindResults returns, for each path action of the template, the values it
// selects (custom-columns and --sort-by use it).
func (j *JSONPath) FindResults(data any) ([][]any, error) {
	var out [][]any
	for _, n := range j.nodes {
		p, ok := n.(pathNode)
		if !ok {
			continue
		}
		vals, err := j.eval(p, data, data)
		if err != nil {
			return nil, err
		}
		out = append(out, vals)
	}
	return out, nil
}

func (j *JSONPath) exec(w *bytes.Buffer, nodes []node, root, cur any) error {
	for _, n := range nodes {
		switch t := n.(type) {
		case textNode:
			w.WriteString(t.text)
		case pathNode:
			vals, err := j.eval(t, root, cur)
			if err != nil {
				return err
			}
			for i, v := range vals {
				if i > 0 {
					w.WriteByte(' ')
				}
				s, err := ValueText(v)
				if err != nil {
					return err
				}
				w.WriteString(s)
			}
		case rangeNode:
			vals, err := j.eval(t.path, root, cur)
			if err != nil {
				return err
			}
			for _, v := range vals {
				if err := j.exec(w, t.body, root, v); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// ValueText prints one value as kubectl does: strings bare, everything
// else as JSON.
func ValueText(v any) (string, error) {
	switch t := v.(type) {
	case string:
		return t, nil
	case json.Number:
		return t.String(), nil
	case nil:
		return "", nil
	case bool:
		return strconv.FormatBool(t), nil
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("print value: %w", err)
	}
	return string(b), nil
}

func (j *JSONPath) eval(p pathNode, root, cur any) ([]any, error) {
	vals := []any{cur}
	for _, st := range p.steps {
		next, err := j.step(st, root, vals)
		if err != nil {
			return nil, err
		}
		vals = next
	}
	return vals, nil
}

func (j *JSONPath) step(st step, root any, vals []any) ([]any, error) {
	var out []any
	switch st.kind {
	case stepRoot:
		return []any{root}, nil
	case stepCurrent:
		return vals, nil
	case stepLiteral:
		return []any{st.text}, nil
	case stepField, stepUnion:
		if st.kind == stepUnion && len(st.names) > 0 && isIndex(st.names[0]) {
			return j.unionIndex(st, vals)
		}
		for _, v := range vals {
			m, ok := v.(map[string]any)
			if !ok {
				if v == nil {
					continue
				}
				if j.allowMissingKeys {
					continue
				}
				return nil, fmt.Errorf("%s is not found", st.names[0])
			}
			for _, name := range st.names {
				if name == "*" {
					for _, k := range sortedKeys(m) {
						out = append(out, m[k])
					}
					continue
				}
				fv, ok := m[name]
				if !ok {
					if j.allowMissingKeys {
						continue
					}
					return nil, fmt.Errorf("%s is not found", name)
				}
				out = append(out, fv)
			}
		}
	case stepRecursive:
		for _, v := range vals {
			out = append(out, recurse(v, st.names[0])...)
		}
	case stepWildcard:
		for _, v := range vals {
			switch t := v.(type) {
			case []any:
				out = append(out, t...)
			case map[string]any:
				for _, k := range sortedKeys(t) {
					out = append(out, t[k])
				}
			}
		}
	case stepIndex:
		for _, v := range vals {
			arr, ok := v.([]any)
			if !ok {
				if v == nil || j.allowMissingKeys {
					continue
				}
				return nil, fmt.Errorf("%v is not array or slice", v)
			}
			sel, err := applySlice(st.slice, arr)
			if err != nil {
				return nil, err
			}
			out = append(out, sel...)
		}
	case stepFilter:
		for _, v := range vals {
			var items []any
			switch t := v.(type) {
			case []any:
				items = t
			case map[string]any:
				items = []any{t}
			default:
				continue
			}
			for _, it := range items {
				ok, err := j.match(st.filter, root, it)
				if err != nil {
					return nil, err
				}
				if ok {
					out = append(out, it)
				}
			}
		}
	}
	return out, nil
}

func isIndex(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

func (j *JSONPath) unionIndex(st step, vals []any) ([]any, error) {
	var out []any
	for _, v := range vals {
		arr, ok := v.([]any)
		if !ok {
			continue
		}
		for _, n := range st.names {
			i, err := strconv.Atoi(n)
			if err != nil {
				return nil, fmt.Errorf("invalid array index %s", n)
			}
			sel, err := applySlice(sliceSpec{start: i, hasStart: true, one: true, stride: 1}, arr)
			if err != nil {
				return nil, err
			}
			out = append(out, sel...)
		}
	}
	return out, nil
}

func applySlice(sl sliceSpec, arr []any) ([]any, error) {
	n := len(arr)
	if sl.one {
		i := sl.start
		if i < 0 {
			i += n
		}
		if i < 0 || i >= n {
			return nil, fmt.Errorf("array index out of bounds: index %d, length %d", sl.start, n)
		}
		return []any{arr[i]}, nil
	}
	start, end := 0, n
	if sl.hasStart {
		start = sl.start
		if start < 0 {
			start += n
		}
	}
	if sl.hasEnd {
		end = sl.end
		if end < 0 {
			end += n
		}
	}
	start, end = max(0, min(start, n)), max(0, min(end, n))
	var out []any
	if sl.stride > 0 {
		for i := start; i < end; i += sl.stride {
			out = append(out, arr[i])
		}
	} else {
		for i := end - 1; i >= start; i += sl.stride {
			out = append(out, arr[i])
		}
	}
	return out, nil
}

// recurse collects the values of key name at any depth under v, parents
// before children.
func recurse(v any, name string) []any {
	var out []any
	switch t := v.(type) {
	case map[string]any:
		if fv, ok := t[name]; ok {
			out = append(out, fv)
		}
		for _, k := range sortedKeys(t) {
			out = append(out, recurse(t[k], name)...)
		}
	case []any:
		for _, e := range t {
			out = append(out, recurse(e, name)...)
		}
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (j *JSONPath) operandValues(o operand, root, cur any) ([]any, error) {
	if o.path == nil {
		return []any{o.literal}, nil
	}
	lax := &JSONPath{allowMissingKeys: true}
	return lax.eval(*o.path, root, cur)
}

func (j *JSONPath) match(f *filter, root, cur any) (bool, error) {
	left, err := j.operandValues(f.left, root, cur)
	if err != nil {
		return false, err
	}
	if f.op == "" {
		return len(left) > 0 && left[0] != nil && left[0] != false, nil
	}
	right, err := j.operandValues(f.right, root, cur)
	if err != nil {
		return false, err
	}
	if len(left) == 0 || len(right) == 0 {
		return false, nil
	}
	return compare(left[0], right[0], f.op)
}

func compare(a, b any, op string) (bool, error) {
	if op == "=~" {
		pat, ok := b.(string)
		if !ok {
			return false, fmt.Errorf("=~ needs a string pattern")
		}
		re, err := regexp.Compile(pat)
		if err != nil {
			return false, fmt.Errorf("invalid pattern %q: %w", pat, err)
		}
		s, _ := ValueText(a)
		return re.MatchString(s), nil
	}
	af, aNum := toFloat(a)
	bf, bNum := toFloat(b)
	if aNum && bNum {
		switch op {
		case "==":
			return af == bf, nil
		case "!=":
			return af != bf, nil
		case "<":
			return af < bf, nil
		case ">":
			return af > bf, nil
		case "<=":
			return af <= bf, nil
		case ">=":
			return af >= bf, nil
		}
	}
	as, aErr := ValueText(a)
	bs, bErr := ValueText(b)
	if aErr != nil || bErr != nil {
		return false, nil
	}
	switch op {
	case "==":
		return as == bs && kindOf(a) == kindOf(b), nil
	case "!=":
		return as != bs || kindOf(a) != kindOf(b), nil
	case "<":
		return strings.Compare(as, bs) < 0, nil
	case ">":
		return strings.Compare(as, bs) > 0, nil
	case "<=":
		return strings.Compare(as, bs) <= 0, nil
	case ">=":
		return strings.Compare(as, bs) >= 0, nil
	}
	return false, fmt.Errorf("unknown operator %q", op)
}

func kindOf(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "bool"
	case nil:
		return "nil"
	}
	return "other"
}

func toFloat(v any) (float64, bool) {
	switch t := v.(type) {
	case float64:
		return t, true
	case json.Number:
		f, err := t.Float64()
		return f, err == nil
	case int:
		return float64(t), true
	case int64:
		return float64(t), true
	}
	return 0, false
}

// RelaxedTemplate turns a bare path as custom-columns and --sort-by accept
// it ("metadata.name", ".metadata.name", "{.metadata.name}") into a
// template.
func RelaxedTemplate(path string) (string, error) {
	p := strings.TrimSpace(path)
	if strings.HasPrefix(p, "{") {
		if !strings.HasSuffix(p, "}") {
			return "", fmt.Errorf("unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'")
		}
		p = p[1 : len(p)-1]
	}
	p = strings.TrimPrefix(p, ".")
	return "{." + p + "}", nil
}
