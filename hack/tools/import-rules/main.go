// Command import-rules enforces the import rules of DESIGN.md on the
// transitive import graph: which packages may depend on which, through any
// chain of imports and from their tests.
//
// Usage:
//
//	import-rules [-rules file] [-self-test] package-pattern...
//
// It loads the graph with one `go list -deps` over the patterns, then, for
// each rule of the file, walks it breadth first from every package the rule
// checks and prints each import that enters a forbidden package with the
// shortest chain that leads there and the rule's reason. Before that it
// proves each rule can fail on small synthetic graphs (-self-test does only
// that). It exits 1 when a rule is broken and 2 when it cannot check: a bad
// rules file, a pattern that names no package, or go list failing.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], ".", os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the command, with its working directory and output made explicit
// for the tests.
func run(ctx context.Context, args []string, dir string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("import-rules", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rulesFile := fs.String("rules", "hack/import-rules.txt", "the rules file")
	selfTestOnly := fs.Bool("self-test", false, "only prove on synthetic graphs that every rule can fail")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: import-rules [-rules file] [-self-test] package-pattern...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, "import-rules:", err)
		return 2
	}

	f, err := os.Open(*rulesFile)
	if err != nil {
		return fail(err)
	}
	rules, err := ParseRules(f, *rulesFile)
	f.Close()
	if err != nil {
		return fail(err)
	}
	graphs, err := SelfTest(rules)
	if err != nil {
		return fail(fmt.Errorf("self-test: a rule would not catch what it forbids:\n%w", err))
	}
	if *selfTestOnly {
		fmt.Fprintf(stdout, "import-rules: self-test passed: %d rules, each caught on its synthetic graphs (%d graphs)\n", len(rules), graphs)
		return 0
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}

	g, err := LoadGraph(ctx, dir, fs.Args())
	if err != nil {
		return fail(err)
	}
	if err := CheckPatterns(g, rules); err != nil {
		return fail(fmt.Errorf("%w\n(rename the pattern in %s to the package's new path)", err, *rulesFile))
	}
	violations := Check(g, rules)
	if len(violations) == 0 {
		fmt.Fprintf(stdout, "import-rules: %d rules hold over %d packages (each proven able to fail on %d synthetic graphs)\n", len(rules), len(g), graphs)
		return 0
	}
	broken := 0
	var last *Rule
	for _, v := range violations {
		if v.Rule != last {
			last = v.Rule
			broken++
			fmt.Fprintf(stdout, "%s: %s\n  why: %s\n", v.Rule.Pos, v.Rule.Text, v.Rule.Why)
		}
		fmt.Fprintf(stdout, "  %s", v)
		if v.Sources > 1 {
			fmt.Fprintf(stdout, "  (%d of the rule's packages reach it)", v.Sources)
		}
		fmt.Fprintln(stdout)
	}
	fmt.Fprintf(stderr, "%d import rules broken by %d imports (the last step of each chain above); move the code as each rule says, then run: hack/verify-imports.sh\n", broken, len(violations))
	return 1
}
