// Command conformance-summary turns the JUnit report of a conformance run
// (ginkgo --junit-report) into the tables hack/conformance.sh writes:
// passed, failed, skipped and not-run specs per sig and in total, and the
// list of failed and unrun specs with their first failure line.
//
//	conformance-summary -junit report.xml -selected dryrun.xml \
//	    -summary summary.txt -failed failed.txt [-markdown] [-strict]
//
// -strict exits 1 when any selected spec failed or did not run. Without
// -junit, -expect FILE checks that the dry run selects exactly the specs
// named in FILE, one a line (the smoke list).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "conformance-summary:", err)
		os.Exit(1)
	}
}

// errNotAllPassed is run's answer under -strict when a spec did not pass.
var errNotAllPassed = errors.New("not every selected spec passed")

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("conformance-summary", flag.ContinueOnError)
	junit := fs.String("junit", "", "the run's JUnit report (required)")
	selected := fs.String("selected", "", "JUnit report of a dry run with the same focus and skip: the specs the run was meant to run")
	summary := fs.String("summary", "", "file for the table (default: standard output)")
	failed := fs.String("failed", "", "file for the failed and unrun specs")
	markdown := fs.Bool("markdown", false, "write the table in Markdown")
	strict := fs.Bool("strict", false, "exit 1 unless every selected spec passed or skipped itself")
	expect := fs.String("expect", "", "without -junit: a file of spec names that -selected must select exactly")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 || (*junit == "") == (*expect == "") || (*expect != "" && *selected == "") {
		return errors.New("usage: conformance-summary -junit FILE [-selected FILE] [-summary FILE] [-failed FILE] [-markdown] [-strict]\n   or: conformance-summary -selected FILE -expect FILE")
	}
	var sel map[string]bool
	if *selected != "" {
		f, err := os.Open(*selected)
		if err != nil {
			return err
		}
		sel, err = ReadSelection(f)
		_ = f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", *selected, err)
		}
	}
	if *expect != "" {
		return checkExpected(*expect, sel, stdout)
	}
	f, err := os.Open(*junit)
	if err != nil {
		return err
	}
	res, err := Summarize(f, sel)
	_ = f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", *junit, err)
	}
	if err := writeTo(*summary, stdout, func(w io.Writer) error { return res.WriteTable(w, *markdown) }); err != nil {
		return err
	}
	if *failed != "" {
		if err := writeTo(*failed, nil, res.WriteFailed); err != nil {
			return err
		}
	}
	if _, total := res.Counts(); *strict && total[Failed]+total[NotRun] > 0 {
		return fmt.Errorf("%w: %d failed, %d did not run", errNotAllPassed, total[Failed], total[NotRun])
	}
	return nil
}

// writeTo runs write on the file at path, or on def when path is empty.
func writeTo(path string, def io.Writer, write func(io.Writer) error) error {
	if path == "" {
		return write(def)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		_ = f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

// errSelection is checkExpected's answer when the selection and the list
// differ.
var errSelection = errors.New("the selection differs from the list")

// checkExpected compares the selection with the names in the file at path
// and writes the differences to w.
func checkExpected(path string, sel map[string]bool, w io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	names, err := ReadNames(f)
	_ = f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	missing, extra := CompareSelection(sel, names)
	for _, n := range missing {
		fmt.Fprintf(w, "not a selected [Conformance] spec: %s\n", n)
	}
	for _, n := range extra {
		fmt.Fprintf(w, "selected but not listed: %s\n", n)
	}
	if len(missing)+len(extra) > 0 {
		return fmt.Errorf("%w: %d listed specs not selected, %d selected specs not listed", errSelection, len(missing), len(extra))
	}
	return nil
}
