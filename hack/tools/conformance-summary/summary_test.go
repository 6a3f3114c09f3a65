package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// report is shaped as ginkgo v2 writes a JUnit report: setup nodes, specs
// that passed, failed, skipped themselves, were filtered out or not reached.
const report = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="7" disabled="3" errors="1" failures="1" time="12.5">
  <testsuite name="Kubernetes e2e suite" package="/x" tests="8">
    <testcase name="[SynchronizedBeforeSuite]" classname="Kubernetes e2e suite" status="passed" time="1"></testcase>
    <testcase name="[It] [sig-apps] Deployment should run [Conformance] [sig-apps, Conformance]" classname="Kubernetes e2e suite" status="passed" time="3"></testcase>
    <testcase name="[It] [sig-apps] Job should fail [Conformance] [sig-apps, Conformance]" classname="Kubernetes e2e suite" status="failed" time="3">
      <failure message="Job.batch &#34;x&#34; is invalid&#xA;second line" type="failed">details</failure>
    </testcase>
    <testcase name="[It] [sig-auth] SA should mount [Conformance]" classname="Kubernetes e2e suite" status="skipped" time="0">
      <skipped message="skipped - only supported for providers [gce]"></skipped>
    </testcase>
    <testcase name="[It] [sig-auth] filtered out by focus" classname="Kubernetes e2e suite" status="skipped" time="0">
      <skipped message="skipped"></skipped>
    </testcase>
    <testcase name="[It] [sig-cli] Kubectl never reached [Conformance]" classname="Kubernetes e2e suite" status="skipped" time="0">
      <skipped message="skipped"></skipped>
    </testcase>
    <testcase name="[It] [sig-cli] Kubectl was running [Conformance]" classname="Kubernetes e2e suite" status="interrupted" time="9">
      <error message="interrupted by timeout" type="interrupted"></error>
    </testcase>
    <testcase name="[It] [sig-cli] Kubectl timed out [Conformance]" classname="Kubernetes e2e suite" status="timedout" time="9">
      <failure message="A spec timeout occurred" type="timedout"></failure>
    </testcase>
  </testsuite>
</testsuites>`

// dryRun marks as passed what a dry run of the same focus would run,
// including a spec that is missing from the real report.
const dryRun = `<testsuites><testsuite>
    <testcase name="[It] [sig-apps] Deployment should run [Conformance]" status="passed"></testcase>
    <testcase name="[It] [sig-apps] Job should fail [Conformance]" status="passed"></testcase>
    <testcase name="[It] [sig-auth] SA should mount [Conformance]" status="passed"></testcase>
    <testcase name="[It] [sig-auth] filtered out by focus" status="skipped"></testcase>
    <testcase name="[It] [sig-cli] Kubectl never reached [Conformance]" status="passed"></testcase>
    <testcase name="[It] [sig-cli] Kubectl was running [Conformance]" status="passed"></testcase>
    <testcase name="[It] [sig-cli] Kubectl timed out [Conformance]" status="passed"></testcase>
    <testcase name="[It] [sig-network] lost with its process [Conformance]" status="passed"></testcase>
</testsuite></testsuites>`

func TestSummarizeWithSelection(t *testing.T) {
	sel, err := ReadSelection(strings.NewReader(dryRun))
	if err != nil {
		t.Fatal(err)
	}
	if len(sel) != 7 {
		t.Fatalf("selection has %d specs, want 7", len(sel))
	}
	res, err := Summarize(strings.NewReader(report), sel)
	if err != nil {
		t.Fatal(err)
	}
	bySig, total := res.Counts()
	want := map[string][numOutcomes]int{
		"sig-apps":    {1, 1, 0, 0},
		"sig-auth":    {0, 0, 1, 0},
		"sig-cli":     {0, 1, 0, 2},
		"sig-network": {0, 0, 0, 1},
	}
	for sig, w := range want {
		if bySig[sig] != w {
			t.Errorf("%s: counts %v, want %v", sig, bySig[sig], w)
		}
	}
	if len(bySig) != len(want) {
		t.Errorf("sigs %v, want %d of them", bySig, len(want))
	}
	if total != [numOutcomes]int{1, 2, 1, 3} {
		t.Errorf("total %v, want [1 2 1 3]", total)
	}

	var table bytes.Buffer
	if err := res.WriteTable(&table, true); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"| sig | passed | failed | skipped | not-run | total |",
		"| sig-cli | 0 | 1 | 0 | 2 | 3 |",
		"| total | 1 | 2 | 1 | 3 | 7 |",
	} {
		if !strings.Contains(table.String(), line+"\n") {
			t.Errorf("markdown table lacks %q:\n%s", line, table.String())
		}
	}

	var failed bytes.Buffer
	if err := res.WriteFailed(&failed); err != nil {
		t.Fatal(err)
	}
	wantFailed := "failed\t[sig-apps] Job should fail [Conformance]\n\tJob.batch \"x\" is invalid\n" +
		"failed\t[sig-cli] Kubectl timed out [Conformance]\n\tA spec timeout occurred\n" +
		"not-run\t[sig-cli] Kubectl never reached [Conformance]\n" +
		"not-run\t[sig-cli] Kubectl was running [Conformance]\n\tinterrupted by timeout\n" +
		"not-run\t[sig-network] lost with its process [Conformance]\n"
	if failed.String() != wantFailed {
		t.Errorf("failed list:\n%s\nwant:\n%s", failed.String(), wantFailed)
	}
}

func TestSummarizeWithoutSelection(t *testing.T) {
	res, err := Summarize(strings.NewReader(report), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Unselected runs cannot tell a filtered spec from an unreached one,
	// so both are left out; the interrupted one still counts.
	if _, total := res.Counts(); total != [numOutcomes]int{1, 2, 1, 1} {
		t.Errorf("total %v, want [1 2 1 1]", total)
	}
}

func TestRunStrictAndBadInput(t *testing.T) {
	dir := t.TempDir()
	junit := filepath.Join(dir, "junit.xml")
	sel := filepath.Join(dir, "dry.xml")
	if err := os.WriteFile(junit, []byte(report), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sel, []byte(dryRun), 0o600); err != nil {
		t.Fatal(err)
	}
	summary, failed := filepath.Join(dir, "summary.txt"), filepath.Join(dir, "failed.txt")
	var out bytes.Buffer
	err := run([]string{"-junit", junit, "-selected", sel, "-summary", summary, "-failed", failed, "-strict"}, &out)
	if !errors.Is(err, errNotAllPassed) {
		t.Errorf("strict run: %v, want errNotAllPassed", err)
	}
	b, err := os.ReadFile(summary)
	if err != nil || !strings.Contains(string(b), "total") {
		t.Errorf("summary.txt: %q, %v", b, err)
	}
	if b, err := os.ReadFile(failed); err != nil || !strings.Contains(string(b), "Job should fail") {
		t.Errorf("failed.txt: %q, %v", b, err)
	}
	if err := run([]string{"-junit", junit}, &out); err != nil {
		t.Errorf("non-strict run: %v", err)
	}

	if err := os.WriteFile(junit, []byte("<testsuites><testsuite>"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"-junit", junit}, &out); err == nil || !strings.Contains(err.Error(), "decode JUnit report") {
		t.Errorf("truncated report: %v, want a decode error", err)
	}
	if err := run(nil, &out); err == nil || !strings.Contains(err.Error(), "usage") {
		t.Errorf("no arguments: %v, want usage", err)
	}
}

func TestSpecName(t *testing.T) {
	for in, want := range map[string]string{
		"[It] [sig-apps] Job should fail [Conformance] [sig-apps, Conformance]": "[sig-apps] Job should fail [Conformance]",
		"[It] [sig-apps] Job should fail [Conformance]":                         "[sig-apps] Job should fail [Conformance]",
		"[It] plain text [Feature:X]":                                           "plain text [Feature:X]",
		"[It] no labels":                                                        "no labels",
	} {
		if got, ok := specName(in); !ok || got != want {
			t.Errorf("specName(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	if _, ok := specName("[SynchronizedBeforeSuite]"); ok {
		t.Error("a suite node was taken for a spec")
	}
}

func TestExpect(t *testing.T) {
	dir := t.TempDir()
	sel := filepath.Join(dir, "dry.xml")
	if err := os.WriteFile(sel, []byte(dryRun), 0o600); err != nil {
		t.Fatal(err)
	}
	list := filepath.Join(dir, "smoke.txt")
	all := "# the smoke list\n\n[sig-apps] Deployment should run [Conformance]\n[sig-apps] Job should fail [Conformance]\n" +
		"[sig-auth] SA should mount [Conformance]\n[sig-cli] Kubectl never reached [Conformance]\n" +
		"[sig-cli] Kubectl was running [Conformance]\n[sig-cli] Kubectl timed out [Conformance]\n" +
		"[sig-network] lost with its process [Conformance]\n"
	if err := os.WriteFile(list, []byte(all), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run([]string{"-selected", sel, "-expect", list}, &out); err != nil {
		t.Errorf("matching list: %v\n%s", err, out.String())
	}
	short := strings.Replace(all, "[sig-cli] Kubectl timed out [Conformance]\n", "[sig-cli] renamed upstream [Conformance]\n", 1)
	if err := os.WriteFile(list, []byte(short), 0o600); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	err := run([]string{"-selected", sel, "-expect", list}, &out)
	if !errors.Is(err, errSelection) {
		t.Errorf("differing list: %v, want errSelection", err)
	}
	for _, want := range []string{
		"not a selected [Conformance] spec: [sig-cli] renamed upstream [Conformance]\n",
		"selected but not listed: [sig-cli] Kubectl timed out [Conformance]\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if err := run([]string{"-expect", list}, &out); err == nil || !strings.Contains(err.Error(), "usage") {
		t.Errorf("-expect without -selected: %v, want usage", err)
	}
}
