package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// A Pattern names packages the way `go list` does: "a/b" is that package
// alone, "a/b/..." is a/b and every package below it.
type Pattern string

// Matches reports whether the import path is named by the pattern.
func (p Pattern) Matches(path string) bool {
	if tree, ok := strings.CutSuffix(string(p), "/..."); ok {
		return path == tree || strings.HasPrefix(path, tree+"/")
	}
	return path == string(p)
}

// Sample returns an import path the pattern matches, for the self-test.
func (p Pattern) Sample() string {
	return strings.TrimSuffix(string(p), "/...")
}

// String returns the pattern as written in the rules file.
func (p Pattern) String() string { return string(p) }

// A Rule forbids every package matching From, and its tests, to depend on
// a package matching Forbidden, directly or transitively.
type Rule struct {
	// Pos is "file:line" of the rule, for messages.
	Pos string
	// Text is the rule as written, with its @sets unexpanded.
	Text      string
	From      []Pattern
	Forbidden []Pattern
	Why       string
}

// IsSource reports whether the rule checks the package: it matches From
// and is not itself forbidden.
func (r *Rule) IsSource(path string) bool {
	return matchesAny(r.From, path) && !r.IsForbidden(path)
}

// IsForbidden reports whether the rule forbids depending on the package.
func (r *Rule) IsForbidden(path string) bool { return matchesAny(r.Forbidden, path) }

func matchesAny(patterns []Pattern, path string) bool {
	for _, p := range patterns {
		if p.Matches(path) {
			return true
		}
	}
	return false
}

// ParseRules reads a rules file (see hack/import-rules.txt for the syntax).
// name is the file's name, used in positions and errors.
func ParseRules(r io.Reader, name string) ([]Rule, error) {
	var (
		rules  []Rule
		module string
		sets   = map[string][]Pattern{}
	)
	// expand turns the words of a pattern list into patterns: @name is a
	// set, a path whose first element has no dot is below the module.
	expand := func(words []string) ([]Pattern, error) {
		var out []Pattern
		for _, w := range words {
			if name, ok := strings.CutPrefix(w, "@"); ok {
				set, ok := sets[name]
				if !ok {
					return nil, fmt.Errorf("unknown set @%s", name)
				}
				out = append(out, set...)
				continue
			}
			if w == "..." || strings.HasPrefix(w, "/") || strings.Contains(strings.TrimSuffix(w, "/..."), "...") {
				return nil, fmt.Errorf("bad pattern %q: want an import path, or one ending in /... for its tree", w)
			}
			first, _, _ := strings.Cut(w, "/")
			if !strings.Contains(first, ".") {
				if module == "" {
					return nil, fmt.Errorf("short pattern %q before the module line", w)
				}
				w = module + "/" + w
			}
			out = append(out, Pattern(w))
		}
		return out, nil
	}

	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		pos := fmt.Sprintf("%s:%d", name, n)
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		switch {
		case fields[0] == "module":
			if len(fields) != 2 {
				return nil, fmt.Errorf("%s: want: module PATH", pos)
			}
			module = fields[1]
		case fields[0] == "set":
			if len(fields) < 3 {
				return nil, fmt.Errorf("%s: want: set NAME PATTERN... (at least one pattern)", pos)
			}
			if _, dup := sets[fields[1]]; dup {
				return nil, fmt.Errorf("%s: set @%s defined twice", pos, fields[1])
			}
			patterns, err := expand(fields[2:])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", pos, err)
			}
			sets[fields[1]] = patterns
		default:
			rule, err := parseRule(line, expand)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", pos, err)
			}
			rule.Pos = pos
			rules = append(rules, rule)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(rules) == 0 {
		return nil, fmt.Errorf("%s: no rules", name)
	}
	return rules, nil
}

// parseRule parses "FROM... !-> FORBIDDEN... : WHY".
func parseRule(line string, expand func([]string) ([]Pattern, error)) (Rule, error) {
	from, rest, ok := strings.Cut(line, "!->")
	if !ok {
		return Rule{}, fmt.Errorf("want: FROM... !-> FORBIDDEN... : WHY, got %q", line)
	}
	forbidden, why, ok := strings.Cut(rest, " : ")
	why = strings.TrimSpace(why)
	if !ok || why == "" {
		return Rule{}, fmt.Errorf("rule without a reason (FROM... !-> FORBIDDEN... : WHY): %q", line)
	}
	rule := Rule{Why: why}
	rule.Text = strings.Join(strings.Fields(from), " ") + " !-> " + strings.Join(strings.Fields(forbidden), " ")
	var err error
	if rule.From, err = expand(strings.Fields(from)); err != nil {
		return Rule{}, err
	}
	if rule.Forbidden, err = expand(strings.Fields(forbidden)); err != nil {
		return Rule{}, err
	}
	if len(rule.From) == 0 || len(rule.Forbidden) == 0 {
		return Rule{}, fmt.Errorf("rule needs packages on both sides of !->: %q", line)
	}
	// A source that is itself forbidden would be skipped: such a rule
	// checks less than it says.
	for _, f := range rule.From {
		if rule.IsForbidden(f.Sample()) {
			return Rule{}, fmt.Errorf("%s is both checked and forbidden by %q", f, line)
		}
	}
	return rule, nil
}
