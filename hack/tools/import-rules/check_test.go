package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func testRule(from, forbidden string) []Rule {
	return []Rule{{Pos: "r.txt:1", Text: from + " !-> " + forbidden, From: []Pattern{Pattern(from)}, Forbidden: []Pattern{Pattern(forbidden)}, Why: "because"}}
}

func graphOf(edges map[string][]string, tests map[string][]string) Graph {
	g := Graph{}
	for p, imps := range edges {
		g[p] = &Package{ImportPath: p, Imports: imps, TestImports: tests[p]}
	}
	return g
}

func chains(vs []Violation) string {
	var out []string
	for _, v := range vs {
		out = append(out, v.String())
	}
	return strings.Join(out, "\n")
}

func TestCheckShortestChainPerEntry(t *testing.T) {
	g := graphOf(map[string][]string{
		"a/x":    {"n/long"},
		"a/y":    {"n/mid", "n/long"},
		"n/long": {"n/mid"},
		"n/mid":  {"f/one"},
		"f/one":  {"f/two"},
		"f/two":  nil,
	}, nil)
	vs := Check(g, testRule("a/...", "f/..."))
	if got, want := chains(vs), "a/y -> n/mid -> f/one"; got != want {
		t.Fatalf("chains:\n%s\nwant:\n%s", got, want)
	}
	if vs[0].Sources != 2 {
		t.Errorf("Sources = %d, want 2 (a/x and a/y reach n/mid -> f/one)", vs[0].Sources)
	}
}

func TestCheckEveryEntryEdge(t *testing.T) {
	g := graphOf(map[string][]string{
		"a":   {"n", "f/2"},
		"n":   {"f/1"},
		"f/1": nil,
		"f/2": nil,
	}, nil)
	if got, want := chains(Check(g, testRule("a", "f/..."))), "a -> f/2\na -> n -> f/1"; got != want {
		t.Fatalf("chains:\n%s\nwant:\n%s", got, want)
	}
}

// Tests of the checked package count; tests of the packages it imports are
// not built with it and do not.
func TestCheckTestImports(t *testing.T) {
	g := graphOf(map[string][]string{
		"a":   nil,
		"n":   nil,
		"b":   {"n"},
		"f/1": nil,
	}, map[string][]string{
		"a": {"f/1"},
		"n": {"f/1"},
	})
	if got, want := chains(Check(g, testRule("a", "f/..."))), "a -(test)-> f/1"; got != want {
		t.Errorf("a: chains %q, want %q", got, want)
	}
	if got := chains(Check(g, testRule("b", "f/..."))); got != "" {
		t.Errorf("b: chains %q, want none (only n's tests import f/1)", got)
	}
}

func TestCheckPatterns(t *testing.T) {
	g := graphOf(map[string][]string{"a/b": nil, "c": nil}, nil)
	if err := CheckPatterns(g, testRule("a/...", "c")); err != nil {
		t.Errorf("CheckPatterns = %v", err)
	}
	err := CheckPatterns(g, testRule("a/...", "gone/..."))
	if err == nil || !strings.Contains(err.Error(), "gone/... matches no package") {
		t.Errorf("CheckPatterns = %v, want gone/... reported", err)
	}
}

// writeModule writes a throwaway module: files maps a path below dir to
// its content.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files["go.mod"] = "module example.com/fx\n\ngo 1.26.0\n"
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func goFile(pkg string, imports ...string) string {
	var b strings.Builder
	b.WriteString("package " + pkg + "\n\n")
	for _, imp := range imports {
		b.WriteString("import _ \"" + imp + "\"\n")
	}
	return b.String()
}

const fixtureRules = `module example.com/fx
pkg/top/... !-> pkg/bottom/... : top stays above bottom
`

// TestRunFixture drives the command over a real module with go list: a
// chain through a middle package and a test import are reported, a clean
// module passes, a broken one or a stale pattern stops the check.
func TestRunFixture(t *testing.T) {
	t.Setenv("GOWORK", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	runFixture := func(t *testing.T, files map[string]string) (int, string, string) {
		t.Helper()
		files["rules.txt"] = fixtureRules
		dir := writeModule(t, files)
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"-rules", filepath.Join(dir, "rules.txt"), "./..."}, dir, &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}

	t.Run("violations", func(t *testing.T) {
		code, out, errOut := runFixture(t, map[string]string{
			"pkg/top/a/a.go":      goFile("a", "example.com/fx/pkg/middle"),
			"pkg/top/b/b.go":      goFile("b"),
			"pkg/top/b/b_test.go": goFile("b_test", "example.com/fx/pkg/bottom/y"),
			"pkg/middle/m.go":     goFile("middle", "example.com/fx/pkg/bottom/x"),
			"pkg/bottom/x/x.go":   goFile("x"),
			"pkg/bottom/y/y.go":   goFile("y"),
		})
		if code != 1 {
			t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
		for _, want := range []string{
			"rules.txt:2: pkg/top/... !-> pkg/bottom/...",
			"why: top stays above bottom",
			"example.com/fx/pkg/top/a -> example.com/fx/pkg/middle -> example.com/fx/pkg/bottom/x",
			"example.com/fx/pkg/top/b -(test)-> example.com/fx/pkg/bottom/y",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("stdout lacks %q:\n%s", want, out)
			}
		}
		if !strings.Contains(errOut, "run: hack/verify-imports.sh") {
			t.Errorf("stderr does not say how to re-check:\n%s", errOut)
		}
	})
	t.Run("clean", func(t *testing.T) {
		code, out, errOut := runFixture(t, map[string]string{
			"pkg/top/a/a.go":    goFile("a", "example.com/fx/pkg/middle"),
			"pkg/middle/m.go":   goFile("middle"),
			"pkg/bottom/x/x.go": goFile("x", "example.com/fx/pkg/top/a"),
		})
		if code != 0 || !strings.Contains(out, "1 rules hold over 3 packages") {
			t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
	})
	t.Run("go list fails", func(t *testing.T) {
		code, out, errOut := runFixture(t, map[string]string{
			"pkg/top/a/a.go":    goFile("a", "example.com/fx/pkg/missing"),
			"pkg/bottom/x/x.go": goFile("x"),
		})
		if code != 2 || !strings.Contains(errOut, "go list -deps") || !strings.Contains(errOut, "pkg/missing") {
			t.Fatalf("exit %d, want 2 with go list's error\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
	})
	t.Run("stale pattern", func(t *testing.T) {
		code, out, errOut := runFixture(t, map[string]string{
			"pkg/top/a/a.go": goFile("a"),
		})
		if code != 2 || !strings.Contains(errOut, "example.com/fx/pkg/bottom/... matches no package") {
			t.Fatalf("exit %d, want 2 naming the stale pattern\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
	})
}
