package fields

import (
	"errors"
	"strings"
	"testing"

	"kubecore.io/apimachinery/pkg/selection"
)

func TestParseSelector(t *testing.T) {
	tests := []struct {
		in   string
		want string
		err  string
	}{
		{in: "", want: ""},
		{in: "metadata.name=web", want: "metadata.name=web"},
		{in: "metadata.name==web", want: "metadata.name=web"},
		{in: "spec.nodeName!=", want: "spec.nodeName!="},
		{in: "b=2,a=1", want: "a=1,b=2"},
		{in: "a=1,,b=2,", want: "a=1,b=2"},
		{in: `a=x\,y`, want: `a=x\,y`},
		{in: `a=x\=y\\z`, want: `a=x\=y\\z`},
		{in: `a!=\,`, want: `a!=\,`},
		{in: "a=!b", want: "a=!b"},
		{in: "a!==b", err: "invalid field selector: unescaped character in value: 61"},
		{in: "a=b=c", err: "invalid field selector: unescaped character in value: 61"},
		{in: `a=b\`, err: `invalid field selector: invalid escape sequence: \`},
		{in: `a=b\n`, err: `invalid field selector: invalid escape sequence: \n`},
		{in: "a", err: "invalid selector: 'a'; can't understand 'a'"},
		{in: "x=1,a", err: "invalid selector: 'x=1,a'; can't understand 'a'"},
	}
	for _, tc := range tests {
		sel, err := ParseSelector(tc.in)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("ParseSelector(%q) error = %v, want %s", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseSelector(%q): %v", tc.in, err)
			continue
		}
		if got := sel.String(); got != tc.want {
			t.Errorf("ParseSelector(%q).String() = %q, want %q", tc.in, got, tc.want)
		}
		again, err := ParseSelector(sel.String())
		if err != nil || again.String() != tc.want {
			t.Errorf("re-parse %q: %v, %v", tc.want, again, err)
		}
	}
}

func TestErrorTypes(t *testing.T) {
	_, err := ParseSelector(`a=\x`)
	var esc InvalidEscapeSequence
	if !errors.As(err, &esc) || esc.Sequence != `\x` {
		t.Errorf("error %v is not InvalidEscapeSequence", err)
	}
	_, err = ParseSelector("a=b,c=d=e")
	var ur UnescapedRune
	if !errors.As(err, &ur) || ur.Rune != '=' {
		t.Errorf("error %v is not UnescapedRune", err)
	}
}

func TestEscaping(t *testing.T) {
	for _, v := range []string{"", "plain", `a,b`, `a=b`, `a\b`, `\,=\\`, "ünï,cødé"} {
		esc := EscapeValue(v)
		back, err := UnescapeValue(esc)
		if err != nil || back != v {
			t.Errorf("UnescapeValue(EscapeValue(%q)) = %q, %v", v, back, err)
		}
		sel, err := ParseSelector("f=" + esc)
		if err != nil || !sel.Matches(Set{"f": v}) {
			t.Errorf("selector for value %q: %v", v, err)
		}
	}
	if got := EscapeValue(`a\,=`); got != `a\\\,\=` {
		t.Errorf("EscapeValue = %q", got)
	}
}

func TestMatches(t *testing.T) {
	fs := Set{"metadata.name": "web", "spec.nodeName": "", "status.phase": "Running"}
	tests := []struct {
		sel  string
		want bool
	}{
		{"", true},
		{"metadata.name=web", true},
		{"metadata.name=db", false},
		{"metadata.name!=db", true},
		{"spec.nodeName=", true},
		{"spec.nodeName!=", false},
		{"missing=", true},
		{"missing!=x", true},
		{"metadata.name=web,status.phase=Running", true},
		{"metadata.name=web,status.phase!=Running", false},
	}
	for _, tc := range tests {
		sel, err := ParseSelector(tc.sel)
		if err != nil {
			t.Fatal(err)
		}
		if got := sel.Matches(fs); got != tc.want {
			t.Errorf("%q.Matches = %v, want %v", tc.sel, got, tc.want)
		}
	}
}

func TestSelectorMethods(t *testing.T) {
	sel, err := ParseSelector("spec.nodeName=n1,metadata.name!=x")
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := sel.RequiresExactMatch("spec.nodeName"); !ok || v != "n1" {
		t.Errorf("RequiresExactMatch = %q, %v", v, ok)
	}
	if _, ok := sel.RequiresExactMatch("metadata.name"); ok {
		t.Error("!= term reported as exact match")
	}
	want := Requirements{
		{Operator: selection.NotEquals, Field: "metadata.name", Value: "x"},
		{Operator: selection.Equals, Field: "spec.nodeName", Value: "n1"},
	}
	got := sel.Requirements()
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("Requirements = %v", got)
	}
	if sel.Empty() || !Everything().Empty() || OneTermEqualSelector("a", "b").Empty() {
		t.Error("Empty")
	}
	if got := OneTermEqualSelector("a", "b,c").String(); got != `a=b\,c` {
		t.Errorf("OneTermEqualSelector.String = %q", got)
	}
	if got := OneTermNotEqualSelector("a", "b").String(); got != "a!=b" {
		t.Errorf("OneTermNotEqualSelector.String = %q", got)
	}
	if got := AndSelectors(OneTermEqualSelector("a", "1"), OneTermEqualSelector("b", "2")).String(); got != "a=1,b=2" {
		t.Errorf("AndSelectors = %q", got)
	}
	if got := SelectorFromSet(Set{"b": "2", "a": "1"}).String(); got != "a=1,b=2" {
		t.Errorf("SelectorFromSet = %q", got)
	}
	if got := (Set{"b": "2", "a": "1"}).String(); got != "a=1,b=2" {
		t.Errorf("Set.String = %q", got)
	}
	if got := sel.DeepCopySelector().String(); got != sel.String() {
		t.Errorf("DeepCopySelector = %q", got)
	}
}

func TestTransform(t *testing.T) {
	renamed, err := ParseAndTransformSelector("name=a,drop=x", func(f, v string) (string, string, error) {
		switch f {
		case "name":
			return "metadata.name", strings.ToUpper(v), nil
		case "drop":
			return "", "", nil
		}
		return f, v, nil
	})
	if err != nil || renamed.String() != "metadata.name=A" {
		t.Errorf("transform = %v, %v", renamed, err)
	}
	_, err = ParseAndTransformSelector("bad=1", func(f, v string) (string, string, error) {
		return "", "", errors.New("field label not supported: " + f)
	})
	if err == nil || err.Error() != "field label not supported: bad" {
		t.Errorf("transform error = %v", err)
	}
	if sel, err := OneTermEqualSelector("a", "b").Transform(func(string, string) (string, string, error) { return "", "", nil }); err != nil || !sel.Empty() {
		t.Errorf("term transformed to nothing = %v, %v", sel, err)
	}
}
