package main

import (
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"text/tabwriter"
)

// junitSuites is the part of a ginkgo JUnit report the summary reads.
type junitSuites struct {
	Suites []struct {
		Cases []junitCase `xml:"testcase"`
	} `xml:"testsuite"`
}

type junitCase struct {
	Name    string `xml:"name,attr"`
	Status  string `xml:"status,attr"`
	Skipped *struct {
		Message string `xml:"message,attr"`
	} `xml:"skipped"`
	Failure *junitMessage `xml:"failure"`
	Error   *junitMessage `xml:"error"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

// Outcome is what became of one selected spec.
type Outcome int

// The outcomes, in the summary's column order.
const (
	Passed  Outcome = iota
	Failed          // failed, timed out, panicked or aborted
	Skipped         // the spec skipped itself (a missing provider, feature or node)
	NotRun          // selected, but the run ended (time cap, interrupt) before it
	numOutcomes
)

var outcomeNames = [numOutcomes]string{"passed", "failed", "skipped", "not-run"}

func (o Outcome) String() string { return outcomeNames[o] }

// Spec is one spec of the run with its outcome.
type Spec struct {
	Name    string // the spec's full text, without ginkgo's "[It] " prefix
	Sig     string // "sig-apps"; "other" when the name carries none
	Outcome Outcome
	Message string // the failure's message, for failed specs
}

// Result is a run's specs, in the order of the report.
type Result struct {
	Specs []Spec
}

var sigRE = regexp.MustCompile(`\[(sig-[a-z0-9-]+)\]`)

// labelsRE matches the list of labels ginkgo appends to a spec's text in a
// JUnit name (" [sig-apps, Conformance]"); the text itself ends in "]".
var labelsRE = regexp.MustCompile(`\] \[[^][]*\]$`)

// specName is a spec's text as the upstream suite spells it (and the smoke
// list holds it): the JUnit name without ginkgo's leaf node type before it
// and the labels after it.
func specName(junitName string) (string, bool) {
	name, ok := strings.CutPrefix(junitName, "[It] ")
	if loc := labelsRE.FindStringIndex(name); loc != nil {
		name = name[:loc[0]+1]
	}
	return name, ok
}

// ReadNames reads a list of spec names, one a line; blank lines and lines
// starting with # are left out.
func ReadNames(r io.Reader) ([]string, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var names []string
	for l := range strings.SplitSeq(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			names = append(names, l)
		}
	}
	return names, nil
}

// CompareSelection returns the expected names the selection lacks and the
// selected names not expected, each sorted.
func CompareSelection(selected map[string]bool, expected []string) (missing, extra []string) {
	want := map[string]bool{}
	for _, n := range expected {
		want[n] = true
		if !selected[n] {
			missing = append(missing, n)
		}
	}
	for n := range selected {
		if !want[n] {
			extra = append(extra, n)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	return missing, extra
}

// readCases decodes a JUnit report's test cases, keeping the specs only
// (not the suite's setup and teardown nodes).
func readCases(r io.Reader) ([]junitCase, error) {
	var s junitSuites
	if err := xml.NewDecoder(r).Decode(&s); err != nil {
		return nil, fmt.Errorf("decode JUnit report: %w", err)
	}
	var out []junitCase
	for _, suite := range s.Suites {
		for _, c := range suite.Cases {
			if name, ok := specName(c.Name); ok {
				c.Name = name
				out = append(out, c)
			}
		}
	}
	return out, nil
}

// ReadSelection reads the specs a dry run of the same focus and skip would
// run: those it reports passed.
func ReadSelection(r io.Reader) (map[string]bool, error) {
	cases, err := readCases(r)
	if err != nil {
		return nil, err
	}
	sel := map[string]bool{}
	for _, c := range cases {
		if c.Status == "passed" {
			sel[c.Name] = true
		}
	}
	return sel, nil
}

// Summarize classifies the specs of a run's JUnit report. Ginkgo reports
// every spec of the binary, marking those its focus left out "skipped" with
// no message, just as it marks the specs an interrupt or time cap kept from
// running; selected (from a dry run) tells the two apart. With selected nil,
// only specs that ran or skipped themselves are counted.
func Summarize(r io.Reader, selected map[string]bool) (*Result, error) {
	cases, err := readCases(r)
	if err != nil {
		return nil, err
	}
	res := &Result{}
	seen := map[string]bool{}
	for _, c := range cases {
		if selected != nil && !selected[c.Name] {
			continue
		}
		s := Spec{Name: c.Name, Sig: "other"}
		if m := sigRE.FindStringSubmatch(c.Name); m != nil {
			s.Sig = m[1]
		}
		switch c.Status {
		case "passed":
			s.Outcome = Passed
		case "failed", "timedout", "panicked", "aborted":
			s.Outcome = Failed
			if m := c.Failure; m != nil {
				s.Message = m.Message
			} else if m := c.Error; m != nil {
				s.Message = m.Message
			}
		case "skipped", "pending":
			if c.Skipped != nil && strings.HasPrefix(c.Skipped.Message, "skipped - ") {
				s.Outcome = Skipped
				s.Message = strings.TrimPrefix(c.Skipped.Message, "skipped - ")
			} else if selected != nil {
				s.Outcome = NotRun
			} else {
				continue
			}
		default: // interrupted: the run ended while it ran
			s.Outcome = NotRun
			if m := c.Error; m != nil {
				s.Message = m.Message
			}
		}
		seen[c.Name] = true
		res.Specs = append(res.Specs, s)
	}
	// A selected spec missing from the report (a process that died before
	// writing its part) did not run either.
	var missing []string
	for name := range selected {
		if !seen[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	for _, name := range missing {
		s := Spec{Name: name, Sig: "other", Outcome: NotRun}
		if m := sigRE.FindStringSubmatch(name); m != nil {
			s.Sig = m[1]
		}
		res.Specs = append(res.Specs, s)
	}
	return res, nil
}

// Counts returns the number of specs of each outcome per sig, and the totals.
func (r *Result) Counts() (map[string][numOutcomes]int, [numOutcomes]int) {
	bySig := map[string][numOutcomes]int{}
	var total [numOutcomes]int
	for _, s := range r.Specs {
		c := bySig[s.Sig]
		c[s.Outcome]++
		bySig[s.Sig] = c
		total[s.Outcome]++
	}
	return bySig, total
}

// WriteTable writes one table: a row per sig, sorted, and a total row.
// markdown selects a Markdown table instead of aligned columns.
func (r *Result) WriteTable(w io.Writer, markdown bool) error {
	bySig, total := r.Counts()
	sigs := make([]string, 0, len(bySig))
	for sig := range bySig {
		sigs = append(sigs, sig)
	}
	sort.Strings(sigs)
	row := func(name string, c [numOutcomes]int) []string {
		sum := 0
		cells := []string{name}
		for _, n := range c {
			cells = append(cells, fmt.Sprint(n))
			sum += n
		}
		return append(cells, fmt.Sprint(sum))
	}
	header := append(append([]string{"sig"}, outcomeNames[:]...), "total")
	rows := [][]string{header}
	for _, sig := range sigs {
		rows = append(rows, row(sig, bySig[sig]))
	}
	rows = append(rows, row("total", total))
	if markdown {
		for i, cells := range rows {
			if _, err := fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | ")); err != nil {
				return err
			}
			if i == 0 {
				if _, err := fmt.Fprintf(w, "|%s\n", strings.Repeat(" --- |", len(cells))); err != nil {
					return err
				}
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, cells := range rows {
		if _, err := fmt.Fprintf(tw, "%s\t\n", strings.Join(cells, "\t")); err != nil {
			return err
		}
	}
	return tw.Flush()
}

// WriteFailed lists the specs that failed, each with the first line of its
// message, then those that did not run; sorted by sig and name.
func (r *Result) WriteFailed(w io.Writer) error {
	specs := append([]Spec(nil), r.Specs...)
	sort.SliceStable(specs, func(i, j int) bool {
		if specs[i].Sig != specs[j].Sig {
			return specs[i].Sig < specs[j].Sig
		}
		return specs[i].Name < specs[j].Name
	})
	for _, want := range []Outcome{Failed, NotRun} {
		for _, s := range specs {
			if s.Outcome != want {
				continue
			}
			line := fmt.Sprintf("%s\t%s", s.Outcome, s.Name)
			if msg := firstLine(s.Message); msg != "" {
				line += "\n\t" + msg
			}
			if _, err := fmt.Fprintln(w, line); err != nil {
				return err
			}
		}
	}
	return nil
}

// firstLine is the first non-empty line of s, at most 400 bytes of it.
func firstLine(s string) string {
	for l := range strings.SplitSeq(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if len(l) > 400 {
				l = l[:400] + "..."
			}
			return l
		}
	}
	return ""
}
