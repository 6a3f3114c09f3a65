package main

import (
	"os"
	"strings"
	"testing"
)

func TestPatternMatches(t *testing.T) {
	for _, c := range []struct {
		pattern, path string
		want          bool
	}{
		{"m/pkg/controller/...", "m/pkg/controller", true},
		{"m/pkg/controller/...", "m/pkg/controller/job", true},
		{"m/pkg/controller/...", "m/pkg/controllermanager", false},
		{"m/pkg/controller/...", "m/pkg", false},
		{"m/pkg/etcd", "m/pkg/etcd", true},
		{"m/pkg/etcd", "m/pkg/etcd/x", false},
		{"m/...", "m", true},
		{"m/...", "mm/x", false},
	} {
		if got := Pattern(c.pattern).Matches(c.path); got != c.want {
			t.Errorf("%s matches %s = %v, want %v", c.pattern, c.path, got, c.want)
		}
	}
}

func TestParseRules(t *testing.T) {
	rules, err := ParseRules(strings.NewReader(`# a comment
module example.com/m
set comp  pkg/a/... cmd/a
x.io/lib/...  !-> @comp example.com/m/pkg/b : lib : stands alone
`), "r.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) != 1 {
		t.Fatalf("got %d rules, want 1", len(rules))
	}
	r := rules[0]
	var from, forbidden []string
	for _, p := range r.From {
		from = append(from, p.String())
	}
	for _, p := range r.Forbidden {
		forbidden = append(forbidden, p.String())
	}
	if got, want := strings.Join(from, " "), "x.io/lib/..."; got != want {
		t.Errorf("From = %q, want %q", got, want)
	}
	if got, want := strings.Join(forbidden, " "), "example.com/m/pkg/a/... example.com/m/cmd/a example.com/m/pkg/b"; got != want {
		t.Errorf("Forbidden = %q, want %q", got, want)
	}
	if r.Why != "lib : stands alone" || r.Pos != "r.txt:4" || r.Text != "x.io/lib/... !-> @comp example.com/m/pkg/b" {
		t.Errorf("rule = %+v", r)
	}
}

func TestParseRulesErrors(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"no rules", "module m.io/m\n", "no rules"},
		{"no reason", "module m.io/m\npkg/a !-> pkg/b\n", "without a reason"},
		{"empty reason", "module m.io/m\npkg/a !-> pkg/b : \n", "without a reason"},
		{"no arrow", "module m.io/m\npkg/a -> pkg/b : why\n", "want: FROM"},
		{"empty side", "module m.io/m\n!-> pkg/b : why\n", "both sides"},
		{"unknown set", "module m.io/m\n@x !-> pkg/b : why\n", "unknown set @x"},
		{"short before module", "pkg/a !-> pkg/b : why\n", "before the module line"},
		{"bad pattern", "module m.io/m\npkg/.../a !-> pkg/b : why\n", "bad pattern"},
		{"checked and forbidden", "module m.io/m\npkg/a/b !-> pkg/a/... : why\n", "both checked and forbidden"},
		{"set twice", "module m.io/m\nset a pkg/a\nset a pkg/b\n", "defined twice"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseRules(strings.NewReader(c.text), "r.txt")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// realRules parses the table hack/verify-imports.sh uses.
func realRules(t *testing.T) []Rule {
	t.Helper()
	f, err := os.Open("../../import-rules.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rules, err := ParseRules(f, "import-rules.txt")
	if err != nil {
		t.Fatal(err)
	}
	return rules
}

// TestRealRulesCanFail runs the self-test on the real table: every rule
// reports a chain through a neutral package and one from a test, and a
// clean graph passes.
func TestRealRulesCanFail(t *testing.T) {
	graphs, err := SelfTest(realRules(t))
	if err != nil {
		t.Fatal(err)
	}
	if graphs < 100 {
		t.Errorf("self-test checked %d graphs; the table has fewer pairs than DESIGN's rules need", graphs)
	}
}

// TestSelfTestHasTeeth shows the self-test fails on a rule that could never
// report: its checked packages are all forbidden, so none is checked.
func TestSelfTestHasTeeth(t *testing.T) {
	rules := []Rule{{Pos: "r.txt:1", From: []Pattern{"m/a/..."}, Forbidden: []Pattern{"m/a/..."}, Why: "w"}}
	if _, err := SelfTest(rules); err == nil || !strings.Contains(err.Error(), "r.txt:1") {
		t.Fatalf("SelfTest = %v, want a failure naming r.txt:1", err)
	}
}

const m = "kubecore.io/kubecore/"

// TestRealRulesForbid lists the dependencies DESIGN.md and issue 15 forbid:
// each, as a chain through a neutral package, breaks the real table.
func TestRealRulesForbid(t *testing.T) {
	rules := realRules(t)
	components := map[string][]string{
		"scheduler":  {m + "pkg/scheduler/framework", m + "cmd/kubecore/app/scheduler"},
		"controller": {m + "pkg/controller/job", m + "pkg/controllermanager", m + "cmd/kubecore/app/controllermanager"},
		"kubelet":    {m + "pkg/kubelet/server", m + "cmd/kubecore/app/kubelet"},
		"kubectl":    {m + "pkg/kubectl/cmd/get", m + "cmd/kubecore/app/kubectl"},
	}
	server := []string{m + "pkg/apiserver", m + "pkg/registry/generic", m + "pkg/storage/etcd3", m + "pkg/admission",
		m + "pkg/controlplane", m + "pkg/apiextensions/customresource"}
	type dep struct{ from, to string }
	var forbidden []dep
	for _, s := range []string{"kubecore.io/api/core/v1", "kubecore.io/apimachinery/pkg/runtime", "kubecore.io/client/rest"} {
		forbidden = append(forbidden, dep{s, m + "pkg/apis/core"}, dep{s, m + "cmd/kubecore/app"})
	}
	forbidden = append(forbidden,
		dep{"kubecore.io/apimachinery/pkg/runtime", "kubecore.io/api/core/v1"},
		dep{"kubecore.io/api/core/v1", "kubecore.io/client/rest"},
		dep{m + "pkg/controlplane", m + "cmd/kubecore/app/apiserver"})
	for name, pkgs := range components {
		for _, p := range pkgs {
			for _, s := range server {
				forbidden = append(forbidden, dep{p, s})
			}
			for other, others := range components {
				if other == name {
					continue
				}
				for _, o := range others {
					forbidden = append(forbidden, dep{p, o}, dep{o, p})
				}
			}
		}
	}
	forbidden = append(forbidden,
		dep{m + "pkg/controller/job", m + "pkg/controllermanager"},
		dep{m + "pkg/storage/cacher", m + "pkg/registry/generic"},
		dep{m + "pkg/storage", m + "pkg/apiserver"},
		dep{m + "pkg/storage", m + "pkg/admission"},
		dep{m + "pkg/registry/core/pod", m + "pkg/apiserver"},
		dep{m + "pkg/registry/core/pod", m + "pkg/admission/noderestriction"},
		dep{m + "pkg/admission", m + "pkg/registry/generic"},
		dep{m + "pkg/apis/strategy", m + "pkg/registry/generic"},
		dep{m + "pkg/apis/core", m + "pkg/storage"},
		dep{m + "pkg/apiextensions/customresource", m + "pkg/kubectl/jsonpath"},
		dep{m + "pkg/controlplane", m + "pkg/controller/job"},
		dep{m + "pkg/auth/authenticator", m + "pkg/registry/generic"})
	for _, d := range forbidden {
		g := Graph{
			d.from:          {ImportPath: d.from, Imports: []string{selfTestNeutral}},
			selfTestNeutral: {ImportPath: selfTestNeutral, Imports: []string{d.to}},
			d.to:            {ImportPath: d.to},
		}
		if len(Check(g, rules)) == 0 {
			t.Errorf("%s -> ... -> %s breaks no rule", d.from, d.to)
		}
	}
}

// TestRealRulesAllowLayering builds the dependencies the design intends and
// wants no violation: the rules forbid what DESIGN forbids, not more.
func TestRealRulesAllowLayering(t *testing.T) {
	edges := map[string][]string{
		"kubecore.io/apimachinery/pkg/runtime":   nil,
		"kubecore.io/api/core/v1":                {"kubecore.io/apimachinery/pkg/runtime"},
		"kubecore.io/client/util/jsonpath":       {"kubecore.io/apimachinery/pkg/runtime"},
		"kubecore.io/client/controller":          {"kubecore.io/api/core/v1"},
		m + "pkg/apis/core":                      {"kubecore.io/api/core/v1"},
		m + "pkg/apis/core/helper":               {"kubecore.io/api/core/v1"},
		m + "pkg/apirequest":                     nil,
		m + "pkg/auth/authenticator":             {m + "pkg/apirequest"},
		m + "pkg/pki":                            nil,
		m + "pkg/storage/etcd3":                  {"kubecore.io/apimachinery/pkg/runtime"},
		m + "pkg/registry/generic":               {m + "pkg/storage/etcd3", m + "pkg/apirequest"},
		m + "pkg/registry/core/pod":              {m + "pkg/registry/generic", m + "pkg/apis/core"},
		m + "pkg/admission":                      {m + "pkg/apis/core", m + "pkg/auth/authenticator"},
		m + "pkg/apiserver":                      {m + "pkg/registry/generic", m + "pkg/admission"},
		m + "pkg/apiextensions/customresource":   {m + "pkg/registry/generic", "kubecore.io/client/util/jsonpath"},
		m + "pkg/controlplane":                   {m + "pkg/apiserver", m + "pkg/registry/core/pod", m + "pkg/apiextensions/customresource"},
		m + "pkg/scheduler":                      {"kubecore.io/client/controller", m + "pkg/apis/core/helper"},
		m + "pkg/controller/job":                 {"kubecore.io/client/controller", m + "pkg/apis/core/helper"},
		m + "pkg/controllermanager":              {m + "pkg/controller/job"},
		m + "pkg/kubelet/server":                 {m + "pkg/auth/authenticator", m + "pkg/pki"},
		m + "pkg/kubectl/cmd/get":                {"kubecore.io/client/util/jsonpath"},
		m + "cmd/kubecore/app/options":           nil,
		m + "cmd/kubecore/app/scheduler":         {m + "pkg/scheduler", m + "cmd/kubecore/app/options"},
		m + "cmd/kubecore/app/controllermanager": {m + "pkg/controllermanager", m + "cmd/kubecore/app/options"},
		m + "cmd/kubecore/app/kubelet":           {m + "pkg/kubelet/server", m + "cmd/kubecore/app/options"},
		m + "cmd/kubecore/app/kubectl":           {m + "pkg/kubectl/cmd/get"},
		m + "cmd/kubecore/app/allinone": {m + "pkg/controlplane", m + "cmd/kubecore/app/scheduler",
			m + "cmd/kubecore/app/controllermanager", m + "cmd/kubecore/app/kubelet", m + "cmd/kubecore/app/kubectl"},
	}
	g := Graph{}
	for p, imps := range edges {
		g[p] = &Package{ImportPath: p, Imports: imps}
	}
	for _, v := range Check(g, realRules(t)) {
		t.Errorf("%s: intended dependency reported: %s", v.Rule.Pos, v)
	}
}
