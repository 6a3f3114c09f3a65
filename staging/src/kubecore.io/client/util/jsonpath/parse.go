// Package jsonpath evaluates kubectl's JSONPath templates over objects
// decoded from JSON: text with {actions} holding paths (.a.b, ['a'], [n],
// [a:b], [*], ..name, [?(@.k=="v")]), string literals, and {range}{end}.
package jsonpath

import (
	"fmt"
	"strconv"
	"strings"
)

// node is one piece of a parsed template.
type node interface{ isNode() }

// textNode is literal output.
type textNode struct{ text string }

// pathNode is a path to evaluate and print.
type pathNode struct{ steps []step }

// rangeNode prints its body once per value of its path.
type rangeNode struct {
	path pathNode
	body []node
}

func (textNode) isNode()  {}
func (pathNode) isNode()  {}
func (rangeNode) isNode() {}

// stepKind says what one step of a path does.
type stepKind int

const (
	stepRoot      stepKind = iota // $: back to the root object
	stepCurrent                   // @: the current object
	stepField                     // .name or ['name']; name "*" for every value
	stepRecursive                 // ..name: name at any depth
	stepIndex                     // [i], [a:b], [a:b:s]
	stepWildcard                  // [*]
	stepFilter                    // [?(...)]
	stepLiteral                   // "text"
	stepUnion                     // ['a','b'] or [0,1]
)

type step struct {
	kind   stepKind
	names  []string // field names (one unless a union)
	slice  sliceSpec
	filter *filter
	text   string
}

type sliceSpec struct {
	start, end, stride    int
	hasStart, hasEnd, one bool
}

// filter is the condition of [?(...)]: left op right, or left alone (the
// value exists).
type filter struct {
	left, right operand
	op          string
}

type operand struct {
	path    *pathNode // a path relative to @ (or $)
	literal any       // string, float64, bool or nil
}

// parse parses a whole template.
func parse(tmpl string) ([]node, error) {
	p := &parser{}
	nodes, rest, err := p.parseNodes(tmpl, false)
	if err != nil {
		return nil, err
	}
	if rest != "" {
		return nil, fmt.Errorf("unexpected %q", rest)
	}
	return nodes, nil
}

type parser struct{}

// parseNodes reads text and actions until the end, or until {end} when
// inRange.
func (p *parser) parseNodes(s string, inRange bool) ([]node, string, error) {
	var nodes []node
	for s != "" {
		open := strings.IndexByte(s, '{')
		if open < 0 {
			nodes = append(nodes, textNode{s})
			s = ""
			break
		}
		if open > 0 {
			nodes = append(nodes, textNode{s[:open]})
		}
		closeAt, err := matchBrace(s, open)
		if err != nil {
			return nil, "", err
		}
		action := strings.TrimSpace(s[open+1 : closeAt])
		s = s[closeAt+1:]
		switch {
		case action == "end":
			if !inRange {
				return nil, "", fmt.Errorf("not in range, nothing to end")
			}
			return nodes, s, nil
		case strings.HasPrefix(action, "range ") || strings.HasPrefix(action, "range."):
			path, err := parsePath(strings.TrimSpace(strings.TrimPrefix(action, "range")))
			if err != nil {
				return nil, "", err
			}
			body, rest, err := p.parseNodes(s, true)
			if err != nil {
				return nil, "", err
			}
			if rest == s && len(body) == 0 {
				return nil, "", fmt.Errorf("unclosed range")
			}
			nodes = append(nodes, rangeNode{path: path, body: body})
			s = rest
		default:
			path, err := parsePath(action)
			if err != nil {
				return nil, "", err
			}
			nodes = append(nodes, path)
		}
	}
	if inRange {
		return nil, "", fmt.Errorf("unclosed action: range without {end}")
	}
	return nodes, "", nil
}

// matchBrace returns the index of the } closing the { at open, skipping
// quoted strings.
func matchBrace(s string, open int) (int, error) {
	depth := 0
	for i := open; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\'':
			end, err := skipQuoted(s, i)
			if err != nil {
				return 0, err
			}
			i = end
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i, nil
			}
		}
	}
	return 0, fmt.Errorf("unclosed action")
}

// skipQuoted returns the index of the quote closing the one at i.
func skipQuoted(s string, i int) (int, error) {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		if s[j] == '\\' {
			j++
			continue
		}
		if s[j] == q {
			return j, nil
		}
	}
	return 0, fmt.Errorf("unterminated quoted string")
}

// parsePath parses the inside of one action.
func parsePath(s string) (pathNode, error) {
	var steps []step
	for s != "" {
		switch {
		case s[0] == ' ':
			s = s[1:]
		case s[0] == '$':
			steps = append(steps, step{kind: stepRoot})
			s = s[1:]
		case s[0] == '@':
			steps = append(steps, step{kind: stepCurrent})
			s = s[1:]
		case s[0] == '"' || s[0] == '\'':
			end, err := skipQuoted(s, 0)
			if err != nil {
				return pathNode{}, err
			}
			text, err := unquote(s[:end+1])
			if err != nil {
				return pathNode{}, err
			}
			steps = append(steps, step{kind: stepLiteral, text: text})
			s = s[end+1:]
		case strings.HasPrefix(s, ".."):
			name, rest := cutIdent(s[2:])
			if name == "" {
				return pathNode{}, fmt.Errorf("missing field name after '..'")
			}
			steps = append(steps, step{kind: stepRecursive, names: []string{name}})
			s = rest
		case s[0] == '.':
			name, rest := cutIdent(s[1:])
			if name == "" {
				// A lone "." is the current object.
				s = rest
				continue
			}
			steps = append(steps, step{kind: stepField, names: []string{name}})
			s = rest
		case s[0] == '[':
			end, err := matchBracket(s)
			if err != nil {
				return pathNode{}, err
			}
			st, err := parseBracket(s[1:end])
			if err != nil {
				return pathNode{}, err
			}
			steps = append(steps, st)
			s = s[end+1:]
		default:
			name, rest := cutIdent(s)
			if name == "" {
				return pathNode{}, fmt.Errorf("unrecognized character in action: %q", s[:1])
			}
			steps = append(steps, step{kind: stepField, names: []string{name}})
			s = rest
		}
	}
	return pathNode{steps: steps}, nil
}

// cutIdent reads a field name: anything up to '.', '[', or space.
func cutIdent(s string) (string, string) {
	i := strings.IndexAny(s, ".[ ")
	if i < 0 {
		return s, ""
	}
	return s[:i], s[i:]
}

func matchBracket(s string) (int, error) {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"', '\'':
			end, err := skipQuoted(s, i)
			if err != nil {
				return 0, err
			}
			i = end
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				return i, nil
			}
		}
	}
	return 0, fmt.Errorf("unterminated array")
}

func unquote(s string) (string, error) {
	if s[0] == '\'' {
		s = `"` + strings.ReplaceAll(strings.ReplaceAll(s[1:len(s)-1], `"`, `\"`), `\'`, `'`) + `"`
	}
	out, err := strconv.Unquote(s)
	if err != nil {
		return "", fmt.Errorf("invalid string %s: %w", s, err)
	}
	return out, nil
}

// parseBracket parses what is between [ and ].
func parseBracket(in string) (step, error) {
	s := strings.TrimSpace(in)
	switch {
	case s == "*":
		return step{kind: stepWildcard}, nil
	case strings.HasPrefix(s, "?(") && strings.HasSuffix(s, ")"):
		f, err := parseFilter(strings.TrimSpace(s[2 : len(s)-1]))
		if err != nil {
			return step{}, err
		}
		return step{kind: stepFilter, filter: f}, nil
	case strings.HasPrefix(s, "'") || strings.HasPrefix(s, `"`):
		var names []string
		for _, part := range splitTopLevel(s, ',') {
			part = strings.TrimSpace(part)
			if len(part) < 2 {
				return step{}, fmt.Errorf("invalid array index %s", in)
			}
			name, err := unquote(part)
			if err != nil {
				return step{}, err
			}
			names = append(names, name)
		}
		if len(names) == 1 {
			return step{kind: stepField, names: names}, nil
		}
		return step{kind: stepUnion, names: names}, nil
	}
	if strings.Contains(s, ",") {
		var names []string
		for _, part := range strings.Split(s, ",") {
			names = append(names, strings.TrimSpace(part))
		}
		return step{kind: stepUnion, names: names}, nil
	}
	parts := strings.Split(s, ":")
	if len(parts) > 3 {
		return step{}, fmt.Errorf("invalid array index %s", in)
	}
	var sl sliceSpec
	sl.stride = 1
	for i, part := range parts {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		n, err := strconv.Atoi(part)
		if err != nil {
			return step{}, fmt.Errorf("invalid array index %s", in)
		}
		switch i {
		case 0:
			sl.start, sl.hasStart = n, true
		case 1:
			sl.end, sl.hasEnd = n, true
		case 2:
			if n == 0 {
				return step{}, fmt.Errorf("invalid array index %s: step may not be 0", in)
			}
			sl.stride = n
		}
	}
	sl.one = len(parts) == 1
	if sl.one && !sl.hasStart {
		return step{}, fmt.Errorf("invalid array index %s", in)
	}
	return step{kind: stepIndex, slice: sl}, nil
}

// splitTopLevel splits s at sep outside quotes.
func splitTopLevel(s string, sep byte) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"', '\'':
			if end, err := skipQuoted(s, i); err == nil {
				i = end
			}
		case sep:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

var filterOps = []string{"==", "!=", "<=", ">=", "<", ">", "=~"}

func parseFilter(s string) (*filter, error) {
	for i := 0; i < len(s); i++ {
		if s[i] == '"' || s[i] == '\'' {
			end, err := skipQuoted(s, i)
			if err != nil {
				return nil, err
			}
			i = end
			continue
		}
		for _, op := range filterOps {
			if strings.HasPrefix(s[i:], op) {
				left, err := parseOperand(strings.TrimSpace(s[:i]))
				if err != nil {
					return nil, err
				}
				right, err := parseOperand(strings.TrimSpace(s[i+len(op):]))
				if err != nil {
					return nil, err
				}
				return &filter{left: left, right: right, op: op}, nil
			}
		}
	}
	left, err := parseOperand(s)
	if err != nil {
		return nil, err
	}
	return &filter{left: left}, nil
}

func parseOperand(s string) (operand, error) {
	switch {
	case s == "":
		return operand{}, fmt.Errorf("empty operand in filter")
	case s[0] == '"' || s[0] == '\'':
		text, err := unquote(s)
		if err != nil {
			return operand{}, err
		}
		return operand{literal: text}, nil
	case s[0] == '@' || s[0] == '$':
		p, err := parsePath(s)
		if err != nil {
			return operand{}, err
		}
		return operand{path: &p}, nil
	case s == "true" || s == "false":
		return operand{literal: s == "true"}, nil
	case s == "nil" || s == "null":
		return operand{literal: nil}, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return operand{}, fmt.Errorf("unrecognized filter operand %q", s)
	}
	return operand{literal: f}, nil
}
