package labels

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"kubecore.io/apimachinery/pkg/selection"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

const (
	valueMsg   = `a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`
	namePart   = `name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`
	wantOpList = "expected: in, notin, =, ==, !=, gt, lt"
)

// parseCases seeds both TestParse and FuzzParseSelector. want is the
// canonical String() of a valid selector; err the exact error text.
var parseCases = []struct {
	in   string
	want string
	err  string
}{
	{in: "", want: ""},
	{in: "   ", want: ""},
	{in: "x", want: "x"},
	{in: "!x", want: "!x"},
	{in: "x=a", want: "x=a"},
	{in: "x==a", want: "x==a"},
	{in: "x!=a", want: "x!=a"},
	{in: "x=", want: "x="},
	{in: "x!=", want: "x!="},
	{in: "z=c,y=b,x=a", want: "x=a,y=b,z=c"},
	{in: "  a  =  b  ,\tc\n", want: "a=b,c"},
	{in: "x in (foo,,baz),y,z notin ()", want: "x in (,baz,foo),y,z notin ()"},
	{in: "a in (c,b,a,b)", want: "a in (a,b,c)"},
	{in: "a in (,)", want: "a in ()"},
	{in: "a in (,b)", want: "a in (,b)"},
	{in: "a notin(b)", want: "a notin (b)"},
	{in: "x>1", want: "x>1"},
	{in: "x < 10", want: "x<10"},
	{in: "in in (in)", want: "in in (in)"},
	{in: "notin=notin", want: "notin=notin"},
	{in: "example.com/app=web,!example.com/gone", want: "example.com/app=web,!example.com/gone"},
	{in: "b,a=1,b!=2", want: "a=1,b,b!=2"},
	{in: "a=b,!a", want: "a=b,!a"},
	{in: "x=a,", err: "found '', expected: identifier after ','"},
	{in: "x,=a", err: "found '=', expected: identifier after ','"},
	{in: ",x", err: "found ',', expected: !, identifier, or 'end of string'"},
	{in: "(", err: "found '(', expected: !, identifier, or 'end of string'"},
	{in: "x=a b", err: "found 'b', expected: ',' or 'end of string'"},
	{in: "x=a==b", err: "found '==', expected: ',' or 'end of string'"},
	{in: "!x=y", err: "found '=', expected: ',' or 'end of string'"},
	{in: "x in (a b)", err: "unable to parse requirement: found 'b', expected: ',' or ')'"},
	{in: "x in (a", err: "unable to parse requirement: found '', expected: ',' or ')'"},
	{in: "x in (a,", err: "unable to parse requirement: found '', expected: ',', or identifier"},
	{in: "x notin (a,=)", err: "unable to parse requirement: found '=', expected: ',', or identifier"},
	{in: "x in (=)", err: "unable to parse requirement: found '=', expected: ',', ')' or identifier"},
	{in: "x in a", err: "unable to parse requirement: found 'a' expected: '('"},
	{in: "x in", err: "unable to parse requirement: found '' expected: '('"},
	{in: "x in )", err: "unable to parse requirement: found ')' expected: '('"},
	{in: "x (", err: "unable to parse requirement: found '(', " + wantOpList},
	{in: "a b c", err: "unable to parse requirement: found 'b', " + wantOpList},
	{in: "!!x", err: "unable to parse requirement: found '!', expected: identifier"},
	{in: "!", err: "unable to parse requirement: found '', expected: identifier"},
	{in: "x=(", err: "unable to parse requirement: found '(', expected: identifier"},
	{in: "x>a", err: `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`},
	{in: "x<", err: `unable to parse requirement: values[0]: Invalid value: "": for 'Gt', 'Lt' operators, the value must be an integer`},
	{in: "x=-a", err: `unable to parse requirement: values[0][x]: Invalid value: "-a": ` + valueMsg},
	{in: "x in (ok,-a)", err: `unable to parse requirement: values[0][x]: Invalid value: "-a": ` + valueMsg},
	{in: "x=" + strings.Repeat("v", 64), err: `unable to parse requirement: values[0][x]: Invalid value: "` + strings.Repeat("v", 64) + `": must be no more than 63 characters`},
	{in: "-x", err: `unable to parse requirement: <nil>: Invalid value: "-x": ` + namePart},
	{in: "x/=a", err: `unable to parse requirement: <nil>: Invalid value: "x/": name part must be non-empty; ` + namePart},
	{in: "a/b/c=d", err: `unable to parse requirement: <nil>: Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`},
	{in: "x=a||y=b", err: `unable to parse requirement: values[0][x]: Invalid value: "a||y": ` + valueMsg},
}

func TestParse(t *testing.T) {
	for _, tc := range parseCases {
		sel, err := Parse(tc.in)
		switch {
		case tc.err != "":
			if err == nil || err.Error() != tc.err {
				t.Errorf("Parse(%q) error\n got  %v\n want %s", tc.in, err, tc.err)
			}
		case err != nil:
			t.Errorf("Parse(%q): unexpected error %v", tc.in, err)
		case sel.String() != tc.want:
			t.Errorf("Parse(%q).String() = %q, want %q", tc.in, sel.String(), tc.want)
		default:
			again, err := Parse(sel.String())
			if err != nil || again.String() != tc.want {
				t.Errorf("re-parse of %q = %v, %v", tc.want, again, err)
			}
		}
	}
}

func TestParseErrorUnwraps(t *testing.T) {
	_, err := Parse("x=-a")
	var fe *field.Error
	if !errors.As(err, &fe) || fe.Type != field.ErrorTypeInvalid || fe.Field != "values[0][x]" {
		t.Fatalf("errors.As(%v) = %v", err, fe)
	}
}

func TestMatches(t *testing.T) {
	labels := Set{"app": "web", "tier": "front", "n": "7", "empty": ""}
	tests := []struct {
		sel  string
		want bool
	}{
		{"", true},
		{"app", true},
		{"missing", false},
		{"!missing", true},
		{"!app", false},
		{"app=web", true},
		{"app==web", true},
		{"app=db", false},
		{"app!=db", true},
		{"app!=web", false},
		{"missing!=x", true},
		{"empty=", true},
		{"missing=", false},
		{"app in (db,web)", true},
		{"app in (db)", false},
		{"missing in (a)", false},
		{"app notin (db)", true},
		{"app notin (web)", false},
		{"missing notin (a)", true},
		{"n>6", true},
		{"n>7", false},
		{"n<8", true},
		{"n<7", false},
		{"app>1", false},
		{"missing<1", false},
		{"app=web,tier=front", true},
		{"app=web,tier=back", false},
		{"app=web,!tier", false},
	}
	for _, tc := range tests {
		sel, err := Parse(tc.sel)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.sel, err)
		}
		if got := sel.Matches(labels); got != tc.want {
			t.Errorf("%q.Matches(%v) = %v, want %v", tc.sel, labels, got, tc.want)
		}
		if got := sel.Matches(plainLabels(labels)); got != tc.want {
			t.Errorf("%q.Matches(plain) = %v, want %v", tc.sel, got, tc.want)
		}
	}
	if Nothing().Matches(labels) || Nothing().Matches(Set{}) {
		t.Error("Nothing matched")
	}
	if !Everything().Matches(Set(nil)) {
		t.Error("Everything did not match nil labels")
	}
}

// plainLabels implements Labels without Set's fast path.
type plainLabels map[string]string

func (p plainLabels) Has(k string) bool   { _, ok := p[k]; return ok }
func (p plainLabels) Get(k string) string { return p[k] }

func TestNewRequirement(t *testing.T) {
	tests := []struct {
		key  string
		op   selection.Operator
		vals []string
		want string // String() or the error text
		err  bool
	}{
		{"a", selection.In, []string{"z", "b"}, "a in (b,z)", false},
		{"a", selection.NotIn, []string{"b"}, "a notin (b)", false},
		{"a", selection.Exists, nil, "a", false},
		{"a", selection.DoesNotExist, nil, "!a", false},
		{"a", selection.GreaterThan, []string{"5"}, "a>5", false},
		{"a", selection.LessThan, []string{"5"}, "a<5", false},
		{"a", selection.DoubleEquals, []string{"b"}, "a==b", false},
		{"a", selection.In, nil, "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty", true},
		{"a", selection.Equals, []string{"b", "c"}, `values: Invalid value: ["b","c"]: exact-match compatibility requires one single value`, true},
		{"a", selection.Exists, []string{"b"}, `values: Invalid value: ["b"]: values set must be empty for exists and does not exist`, true},
		{"a", selection.GreaterThan, []string{"1", "2"}, `values: Invalid value: ["1","2"]: for 'Gt', 'Lt' operators, exactly one value is required`, true},
		{"a", "like", []string{"b"}, `operator: Unsupported value: "like": supported values: "in", "notin", "=", "==", "!=", "gt", "lt", "exists", "!"`, true},
		{"-a", selection.Equals, []string{"-b"}, `[key: Invalid value: "-a": ` + namePart + `, values[0][-a]: Invalid value: "-b": ` + valueMsg + `]`, true},
	}
	for _, tc := range tests {
		r, err := NewRequirement(tc.key, tc.op, tc.vals)
		if tc.err {
			if err == nil || err.Error() != tc.want {
				t.Errorf("NewRequirement(%q, %q, %q) error\n got  %v\n want %s", tc.key, tc.op, tc.vals, err, tc.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("NewRequirement(%q, %q, %q): %v", tc.key, tc.op, tc.vals, err)
			continue
		}
		if got := r.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}

func TestRequirementAccessors(t *testing.T) {
	vals := []string{"c", "a", "c"}
	r, err := NewRequirement("k", selection.In, vals)
	if err != nil {
		t.Fatal(err)
	}
	vals[0] = "mutated"
	if r.Key() != "k" || r.Operator() != selection.In {
		t.Errorf("Key/Operator = %q/%q", r.Key(), r.Operator())
	}
	if got := r.Values(); !slices.Equal(got, []string{"a", "c"}) {
		t.Errorf("Values() = %q", got)
	}
	if got := r.ValuesUnsorted(); !slices.Equal(got, []string{"c", "a", "c"}) {
		t.Errorf("ValuesUnsorted() = %q", got)
	}
	other, _ := NewRequirement("k", selection.In, []string{"c", "a", "c"})
	if !r.Equal(*other) {
		t.Error("Equal = false for equal requirements")
	}
}

func TestSelectorMethods(t *testing.T) {
	sel, err := Parse("b in (x),a=1,c notin (y)")
	if err != nil {
		t.Fatal(err)
	}
	reqs, selectable := sel.Requirements()
	if !selectable || len(reqs) != 3 || reqs[0].Key() != "a" {
		t.Errorf("Requirements() = %v, %v", reqs, selectable)
	}
	if got := reqs.String(); got != "a=1, b in (x), c notin (y)" {
		t.Errorf("Requirements.String() = %q", got)
	}
	for label, want := range map[string]string{"a": "1", "b": "x"} {
		if v, ok := sel.RequiresExactMatch(label); !ok || v != want {
			t.Errorf("RequiresExactMatch(%q) = %q, %v", label, v, ok)
		}
	}
	for _, label := range []string{"c", "d"} {
		if _, ok := sel.RequiresExactMatch(label); ok {
			t.Errorf("RequiresExactMatch(%q) found", label)
		}
	}
	r, _ := NewRequirement("0first", selection.Exists, nil)
	added := sel.Add(*r)
	if added.String() != "0first,a=1,b in (x),c notin (y)" || sel.String() != "a=1,b in (x),c notin (y)" {
		t.Errorf("Add: %q, original %q", added, sel)
	}
	cp := added.DeepCopySelector()
	if cp.String() != added.String() {
		t.Errorf("DeepCopySelector = %q", cp)
	}
	if sel.Empty() || !Everything().Empty() || Nothing().Empty() || !NewSelector().Empty() {
		t.Error("Empty()")
	}
	if _, ok := Nothing().Requirements(); ok {
		t.Error("Nothing is selectable")
	}
	if !MatchesNothing(Nothing()) || MatchesNothing(Everything()) {
		t.Error("MatchesNothing")
	}
	if Nothing().Add(*r).String() != "" {
		t.Error("Nothing().Add changed Nothing")
	}
}

func TestSet(t *testing.T) {
	s := Set{"b": "2", "a": "1"}
	if s.String() != "a=1,b=2" || Set(nil).String() != "" {
		t.Errorf("String() = %q", s.String())
	}
	if FormatLabels(nil) != "<none>" || FormatLabels(s) != "a=1,b=2" {
		t.Error("FormatLabels")
	}
	if !s.Has("a") || s.Has("c") || s.Get("b") != "2" || s.Get("c") != "" {
		t.Error("Has/Get")
	}
	if got := s.AsSelector().String(); got != "a=1,b=2" {
		t.Errorf("AsSelector = %q", got)
	}
	if !SelectorFromSet(nil).Empty() || !SelectorFromSet(nil).Matches(Set{"x": "y"}) {
		t.Error("empty set must select everything")
	}
	if !s.AsSelector().Matches(Set{"a": "1", "b": "2", "c": "3"}) || s.AsSelector().Matches(Set{"a": "1"}) {
		t.Error("set selector matching")
	}
	if _, err := (Set{"a": "-bad"}).AsValidatedSelector(); err == nil {
		t.Error("AsValidatedSelector accepted an invalid value")
	}
	if sel, err := s.AsValidatedSelector(); err != nil || sel.String() != "a=1,b=2" {
		t.Errorf("AsValidatedSelector = %v, %v", sel, err)
	}
	if got := Merge(Set{"a": "1", "b": "1"}, Set{"b": "2"}); !Equals(got, Set{"a": "1", "b": "2"}) {
		t.Errorf("Merge = %v", got)
	}
	if !Conflicts(Set{"a": "1"}, Set{"a": "2", "b": "1"}) || Conflicts(Set{"a": "1"}, Set{"a": "1", "b": "2"}) {
		t.Error("Conflicts")
	}
}

func TestConvertSelectorToLabelsMap(t *testing.T) {
	tests := []struct {
		in   string
		want Set
		err  string
	}{
		{in: "", want: Set{}},
		{in: "a=1", want: Set{"a": "1"}},
		{in: " a = 1 ,b=2", want: Set{"a": "1", "b": "2"}},
		{in: "a", err: "invalid selector: [a]"},
		{in: "a==1", err: "invalid selector: [a  1]"},
		{in: "a=-1", err: `[a]: Invalid value: "-1": ` + valueMsg},
		{in: "-a=1", err: `<nil>: Invalid value: "-a": ` + namePart},
	}
	for _, tc := range tests {
		got, err := ConvertSelectorToLabelsMap(tc.in)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("ConvertSelectorToLabelsMap(%q) error = %v, want %s", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || !Equals(got, tc.want) {
			t.Errorf("ConvertSelectorToLabelsMap(%q) = %v, %v", tc.in, got, err)
		}
	}
}

func FuzzParseSelector(f *testing.F) {
	for _, tc := range parseCases {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		sel, err := Parse(in)
		if err != nil {
			return
		}
		s := sel.String()
		again, err := Parse(s)
		if err != nil {
			t.Fatalf("Parse(%q) ok, but its String %q does not parse: %v", in, s, err)
		}
		if again.String() != s {
			t.Fatalf("Parse(%q).String() = %q, re-parsed %q", in, s, again.String())
		}
		if sel.Matches(Set{}) != again.Matches(Set{}) {
			t.Fatalf("%q and %q disagree on empty labels", s, again.String())
		}
	})
}

func BenchmarkSelectorMatches(b *testing.B) {
	labels := Set{"app": "web", "tier": "front", "env": "prod", "pod-template-hash": "5d8f7c9b4", "version": "3"}
	for _, s := range []string{"app=web", "app=web,tier=front", "env in (prod,staging),!canary,version>2"} {
		sel, err := Parse(s)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(s, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if !sel.Matches(labels) {
					b.Fatal("no match")
				}
			}
		})
	}
}

func BenchmarkParseSelector(b *testing.B) {
	for _, s := range []string{"app=web", "app=web,tier in (front,back),!canary,example.com/team notin (a,b,c)"} {
		b.Run(s, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestMatchesDoesNotAllocate(t *testing.T) {
	sel, err := Parse("app=web,tier in (front,back),!canary")
	if err != nil {
		t.Fatal(err)
	}
	labels := Set{"app": "web", "tier": "front"}
	if n := testing.AllocsPerRun(100, func() { sel.Matches(labels) }); n != 0 {
		t.Errorf("Matches allocates %v times per call", n)
	}
}
