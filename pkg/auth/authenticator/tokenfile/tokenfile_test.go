package tokenfile

import (
	"context"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	a, err := Parse(strings.NewReader("# tokens\nt0k3n,alice,uid-1,\"dev,ops\"\nother,bob,uid-2\n"))
	if err != nil {
		t.Fatal(err)
	}
	u, ok, err := a.AuthenticateToken(context.Background(), "t0k3n")
	if !ok || err != nil || u.Name != "alice" || u.UID != "uid-1" || strings.Join(u.Groups, ",") != "dev,ops" {
		t.Errorf("alice: %+v %v %v", u, ok, err)
	}
	if _, ok, _ := a.AuthenticateToken(context.Background(), "nope"); ok {
		t.Error("an unknown token was accepted")
	}
	for _, bad := range []string{"a,b\n", ",bob,1\n", "x,a,1\nx,b,2\n"} {
		if _, err := Parse(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "line") {
			t.Errorf("%q: err = %v, want one naming the line", bad, err)
		}
	}
}
