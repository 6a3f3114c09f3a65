package labels

import (
	"fmt"
	"slices"

	"kubecore.io/apimachinery/pkg/selection"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

// tokenKind is the kind of a lexical token of the selector syntax.
type tokenKind int

const (
	tokEnd tokenKind = iota
	tokIdentifier
	tokNot       // !
	tokEquals    // =
	tokDouble    // ==
	tokNotEquals // !=
	tokGreater   // >
	tokLess      // <
	tokIn        // in
	tokNotIn     // notin
	tokOpen      // (
	tokClose     // )
	tokComma     // ,
)

type token struct {
	kind tokenKind
	text string // the input text of the token; "" at the end
}

func isSelectorSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n'
}

func isSelectorSymbol(c byte) bool {
	switch c {
	case '=', '!', '(', ')', ',', '>', '<':
		return true
	}
	return false
}

// lex splits a selector into tokens, ending with tokEnd. An identifier runs
// up to whitespace or a symbol; "in" and "notin" are keywords where the
// grammar expects an operator and identifiers elsewhere.
func lex(s string) []token {
	toks := make([]token, 0, 8)
	for i := 0; ; {
		for i < len(s) && isSelectorSpace(s[i]) {
			i++
		}
		if i == len(s) {
			return append(toks, token{kind: tokEnd})
		}
		start := i
		c := s[i]
		if !isSelectorSymbol(c) {
			for i < len(s) && !isSelectorSpace(s[i]) && !isSelectorSymbol(s[i]) {
				i++
			}
			t := token{kind: tokIdentifier, text: s[start:i]}
			switch t.text {
			case "in":
				t.kind = tokIn
			case "notin":
				t.kind = tokNotIn
			}
			toks = append(toks, t)
			continue
		}
		i++
		var kind tokenKind
		switch c {
		case '!', '=':
			kind = tokNot
			if c == '=' {
				kind = tokEquals
			}
			if i < len(s) && s[i] == '=' {
				i++
				kind = tokNotEquals
				if c == '=' {
					kind = tokDouble
				}
			}
		case '>':
			kind = tokGreater
		case '<':
			kind = tokLess
		case '(':
			kind = tokOpen
		case ')':
			kind = tokClose
		case ',':
			kind = tokComma
		}
		toks = append(toks, token{kind: kind, text: s[start:i]})
	}
}

// parser is a recursive-descent parser over the tokens of one selector.
type parser struct {
	toks []token
	pos  int
	path *field.Path
}

// peek returns the next token. Where values are expected (asValue), the
// keywords in and notin are plain identifiers.
func (p *parser) peek(asValue bool) token {
	t := p.toks[p.pos]
	if asValue && (t.kind == tokIn || t.kind == tokNotIn) {
		t.kind = tokIdentifier
	}
	return t
}

func (p *parser) next(asValue bool) token {
	t := p.peek(asValue)
	if p.pos < len(p.toks)-1 {
		p.pos++
	}
	return t
}

// Parse reads a label selector:
//
//	<selector>    ::= <requirement> | <requirement> "," <selector>
//	<requirement> ::= [!] KEY [ <set-based> | <exact> | <compare> ]
//	<set-based>   ::= ("in" | "notin") "(" VALUE { "," VALUE } ")"
//	<exact>       ::= ("=" | "==" | "!=") VALUE
//	<compare>     ::= (">" | "<") INTEGER
//
// KEY is a qualified name, VALUE a label value (possibly empty); whitespace
// separates tokens. "x in (a,,b),y,!z" is valid. Errors name the offending
// token with the texts of Kubernetes' parser. The result's String is
// canonical: requirements sorted by key, set values sorted.
func Parse(selector string) (Selector, error) {
	reqs, err := parseRequirements(selector, nil)
	if err != nil {
		return nil, err
	}
	return reqs, nil
}

// ParseToRequirements is Parse returning the requirements, sorted by key.
func ParseToRequirements(selector string) ([]Requirement, error) {
	return parseRequirements(selector, nil)
}

func parseRequirements(selector string, path *field.Path) (internalSelector, error) {
	p := &parser{toks: lex(selector), path: path}
	var reqs internalSelector
	for {
		t := p.peek(true)
		switch t.kind {
		case tokEnd:
			sortByKey(reqs)
			return reqs, nil
		case tokIdentifier, tokNot:
		default:
			return nil, fmt.Errorf("found '%s', expected: !, identifier, or 'end of string'", t.text)
		}
		r, err := p.requirement()
		if err != nil {
			return nil, fmt.Errorf("unable to parse requirement: %w", err)
		}
		reqs = append(reqs, r)
		switch t := p.next(true); t.kind {
		case tokEnd:
			sortByKey(reqs)
			return reqs, nil
		case tokComma:
			if t2 := p.peek(true); t2.kind != tokIdentifier && t2.kind != tokNot {
				return nil, fmt.Errorf("found '%s', expected: identifier after ','", t2.text)
			}
		default:
			return nil, fmt.Errorf("found '%s', expected: ',' or 'end of string'", t.text)
		}
	}
}

func (p *parser) requirement() (Requirement, error) {
	var op selection.Operator
	t := p.next(true)
	if t.kind == tokNot {
		op = selection.DoesNotExist
		t = p.next(true)
	}
	if t.kind != tokIdentifier {
		return Requirement{}, fmt.Errorf("found '%s', expected: identifier", t.text)
	}
	key := t.text
	if err := validateLabelKey(key, p.path); err != nil {
		return Requirement{}, err
	}
	if k := p.peek(true).kind; op == selection.DoesNotExist || k == tokEnd || k == tokComma {
		if op == "" {
			op = selection.Exists
		}
		return newRequirement(key, op, nil, p.path)
	}
	op, err := p.operator()
	if err != nil {
		return Requirement{}, err
	}
	var vals []string
	if op == selection.In || op == selection.NotIn {
		vals, err = p.valueSet()
	} else {
		vals, err = p.exactValue()
	}
	if err != nil {
		return Requirement{}, err
	}
	return newRequirement(key, op, vals, p.path)
}

func (p *parser) operator() (selection.Operator, error) {
	t := p.next(false)
	switch t.kind {
	case tokIn:
		return selection.In, nil
	case tokNotIn:
		return selection.NotIn, nil
	case tokEquals:
		return selection.Equals, nil
	case tokDouble:
		return selection.DoubleEquals, nil
	case tokNotEquals:
		return selection.NotEquals, nil
	case tokGreater:
		return selection.GreaterThan, nil
	case tokLess:
		return selection.LessThan, nil
	}
	return "", fmt.Errorf("found '%s', expected: in, notin, =, ==, !=, gt, lt", t.text)
}

// valueSet reads "(a,b,...)". Empty entries, as in "()", "(,a)" or "(a,,b)",
// are the empty value. The result is sorted without duplicates.
func (p *parser) valueSet() ([]string, error) {
	if t := p.next(true); t.kind != tokOpen {
		return nil, fmt.Errorf("found '%s' expected: '('", t.text)
	}
	switch t := p.peek(true); t.kind {
	case tokClose:
		p.next(true)
		return []string{""}, nil
	case tokIdentifier, tokComma:
	default:
		return nil, fmt.Errorf("found '%s', expected: ',', ')' or identifier", t.text)
	}
	var vals []string
	for {
		// One entry: a value, or nothing before a comma or ')'.
		switch t := p.peek(true); t.kind {
		case tokIdentifier:
			p.next(true)
			vals = append(vals, t.text)
		case tokComma, tokClose:
			vals = append(vals, "")
		default:
			return nil, fmt.Errorf("found '%s', expected: ',', or identifier", t.text)
		}
		switch t := p.next(true); t.kind {
		case tokComma:
		case tokClose:
			return sortedUnique(vals), nil
		default:
			return nil, fmt.Errorf("found '%s', expected: ',' or ')'", t.text)
		}
	}
}

// exactValue reads the one value after =, ==, !=, > or <; nothing before a
// comma or the end is the empty value.
func (p *parser) exactValue() ([]string, error) {
	switch t := p.peek(true); t.kind {
	case tokEnd, tokComma:
		return []string{""}, nil
	case tokIdentifier:
		p.next(true)
		return []string{t.text}, nil
	default:
		p.next(true)
		return nil, fmt.Errorf("found '%s', expected: identifier", t.text)
	}
}

func sortedUnique(vals []string) []string {
	slices.Sort(vals)
	return slices.Compact(vals)
}
