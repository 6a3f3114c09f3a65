package main

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// A Hop is one package of a chain and how the previous one imports it.
type Hop struct {
	Path string
	// Test is true when the previous package imports this one only from
	// its tests.
	Test bool
}

// A Violation is one import that brings a rule's packages to a package
// the rule forbids: the last hop of Chain. Sources counts the rule's
// packages that reach it; Chain is the shortest of their chains.
type Violation struct {
	Rule    *Rule
	Chain   []Hop
	Sources int
}

// String renders the chain as "a -> b -(test)-> c".
func (v Violation) String() string {
	var b strings.Builder
	for i, h := range v.Chain {
		switch {
		case i == 0:
		case h.Test:
			b.WriteString(" -(test)-> ")
		default:
			b.WriteString(" -> ")
		}
		b.WriteString(h.Path)
	}
	return b.String()
}

// Check applies every rule to the graph and returns the violations, rule
// by rule in table order.
func Check(g Graph, rules []Rule) []Violation {
	var out []Violation
	for i := range rules {
		out = append(out, checkRule(g, &rules[i])...)
	}
	return out
}

// checkRule walks the graph breadth first from each of the rule's packages,
// and reports each import edge that enters a forbidden package. It does not
// walk through forbidden packages: the first entry is the one to cut.
func checkRule(g Graph, r *Rule) []Violation {
	reach := reachesForbidden(g, r)
	type edge struct{ from, to string }
	found := map[edge]*Violation{}
	var order []edge
	for _, src := range g.Paths() {
		if !r.IsSource(src) {
			continue
		}
		parent := map[string]Hop{src: {}}
		queue := []string{src}
		for len(queue) > 0 {
			cur := queue[0]
			queue = queue[1:]
			visit := func(imp string, test bool) {
				if r.IsForbidden(imp) {
					chain := append(chainTo(parent, cur), Hop{Path: imp, Test: test})
					e := edge{cur, imp}
					if v, ok := found[e]; ok {
						v.Sources++
						if len(chain) < len(v.Chain) {
							v.Chain = chain
						}
					} else {
						found[e] = &Violation{Rule: r, Chain: chain, Sources: 1}
						order = append(order, e)
					}
					return
				}
				if _, seen := parent[imp]; seen || !reach[imp] {
					return
				}
				parent[imp] = Hop{Path: cur, Test: test}
				queue = append(queue, imp)
			}
			p := g[cur]
			if p == nil {
				continue // a test-only dependency go list did not walk into
			}
			for _, imp := range p.Imports {
				visit(imp, false)
			}
			if cur == src { // only the checked package's own tests are built with it
				for _, imp := range p.TestImports {
					visit(imp, true)
				}
			}
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		if order[i].from != order[j].from {
			return order[i].from < order[j].from
		}
		return order[i].to < order[j].to
	})
	out := make([]Violation, 0, len(order))
	for _, e := range order {
		out = append(out, *found[e])
	}
	return out
}

// chainTo follows the BFS parents back from path to the source.
func chainTo(parent map[string]Hop, path string) []Hop {
	var rev []Hop
	for {
		up := parent[path]
		rev = append(rev, Hop{Path: path, Test: up.Test})
		if up.Path == "" {
			break
		}
		path = up.Path
	}
	chain := make([]Hop, len(rev))
	for i, h := range rev {
		chain[len(rev)-1-i] = h
	}
	return chain
}

// reachesForbidden returns the packages from which a forbidden package can
// be reached through non-test imports, forbidden ones included: the only
// packages worth walking into.
func reachesForbidden(g Graph, r *Rule) map[string]bool {
	importers := map[string][]string{}
	var queue []string
	reach := map[string]bool{}
	for path, p := range g {
		for _, imp := range p.Imports {
			importers[imp] = append(importers[imp], path)
		}
		if r.IsForbidden(path) {
			reach[path] = true
			queue = append(queue, path)
		}
	}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, up := range importers[cur] {
			if !reach[up] {
				reach[up] = true
				queue = append(queue, up)
			}
		}
	}
	return reach
}

// CheckPatterns fails when a pattern of a rule names no package of the
// graph: a rule about a renamed or mistyped package would check nothing.
func CheckPatterns(g Graph, rules []Rule) error {
	paths := g.Paths()
	var errs []error
	seen := map[Pattern]bool{}
	for _, r := range rules {
		for _, p := range append(append([]Pattern(nil), r.From...), r.Forbidden...) {
			if seen[p] {
				continue
			}
			seen[p] = true
			if !anyMatch(p, paths) {
				errs = append(errs, fmt.Errorf("%s: %s matches no package", r.Pos, p))
			}
		}
	}
	return errors.Join(errs...)
}

func anyMatch(p Pattern, paths []string) bool {
	for _, path := range paths {
		if p.Matches(path) {
			return true
		}
	}
	return false
}

// selfTestNeutral is a package no rule names, the middle of the chains the
// self-test builds.
const selfTestNeutral = "selftest.invalid/neutral"

// SelfTest proves each rule can fail: for every pair of a checked and a
// forbidden pattern it builds three small graphs, and wants a violation
// through a neutral package, a violation through a test import, and none
// when the checked package imports only the neutral one. It returns the
// number of graphs checked.
func SelfTest(rules []Rule) (int, error) {
	var errs []error
	graphs := 0
	clean := Graph{selfTestNeutral: {ImportPath: selfTestNeutral}}
	for i := range rules {
		r := &rules[i]
		if r.IsForbidden(selfTestNeutral) || r.IsSource(selfTestNeutral) {
			return 0, fmt.Errorf("%s: the rule names %s, the self-test's neutral package", r.Pos, selfTestNeutral)
		}
		for _, from := range r.From {
			src := from.Sample()
			for _, forbidden := range r.Forbidden {
				dst := forbidden.Sample()
				cases := []struct {
					name string
					g    Graph
					want string // the chain, or "" for no violation
				}{{
					name: "through a neutral package",
					g: Graph{
						src:             {ImportPath: src, Imports: []string{selfTestNeutral}},
						selfTestNeutral: {ImportPath: selfTestNeutral, Imports: []string{dst}},
						dst:             {ImportPath: dst},
					},
					want: src + " -> " + selfTestNeutral + " -> " + dst,
				}, {
					name: "from a test",
					g: Graph{
						src: {ImportPath: src, TestImports: []string{dst}},
						dst: {ImportPath: dst},
					},
					want: src + " -(test)-> " + dst,
				}, {
					name: "clean",
					g: Graph{
						src:             {ImportPath: src, Imports: []string{selfTestNeutral}},
						selfTestNeutral: {ImportPath: selfTestNeutral},
						dst:             {ImportPath: dst},
					},
				}}
				for _, c := range cases {
					graphs++
					var got []string
					for _, v := range checkRule(c.g, r) {
						got = append(got, v.String())
					}
					var want []string
					if c.want != "" {
						want = []string{c.want}
					}
					if strings.Join(got, "\n") != strings.Join(want, "\n") {
						errs = append(errs, fmt.Errorf("%s: %s !-> %s %s: got violations %q, want %q", r.Pos, from, forbidden, c.name, got, want))
					}
				}
				clean[src] = &Package{ImportPath: src, Imports: []string{selfTestNeutral}}
				clean[dst] = &Package{ImportPath: dst}
			}
		}
	}
	// Every rule's packages together, each importing only the neutral
	// package: the whole table passes.
	graphs++
	for _, v := range Check(clean, rules) {
		errs = append(errs, fmt.Errorf("%s: a clean graph breaks the rule: %s", v.Rule.Pos, v))
	}
	return graphs, errors.Join(errs...)
}
