package proxy

import (
	"testing"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
)

func TestParseName(t *testing.T) {
	for id, want := range map[string]Target{
		"web":             {Name: "web"},
		"web:8080":        {Name: "web", Port: "8080"},
		"web:http":        {Name: "web", Port: "http"},
		"https:web:8443":  {Scheme: "https", Name: "web", Port: "8443"},
		"http:web:":       {Scheme: "http", Name: "web"},
		"https:web:named": {Scheme: "https", Name: "web", Port: "named"},
	} {
		if got, err := ParseName(id); err != nil || got != want {
			t.Errorf("ParseName(%q) = %+v, %v; want %+v", id, got, err, want)
		}
	}
	for _, bad := range []string{"a:b:c:d", "ftp:web:80", ":80", ""} {
		if _, err := ParseName(bad); !apierrors.IsBadRequest(err) {
			t.Errorf("ParseName(%q) = %v, want 400", bad, err)
		}
	}
}

func TestJoinPath(t *testing.T) {
	for _, tc := range []struct{ base, sub, want string }{
		{"", "", "/"},
		{"", "a/b", "/a/b"},
		{"", "a/b/", "/a/b/"},
		{"/base", "", "/base"},
		{"/base", "x", "/base/x"},
		{"", "../../etc", "/etc"},
	} {
		if got := joinPath(tc.base, tc.sub); got != tc.want {
			t.Errorf("joinPath(%q, %q) = %q, want %q", tc.base, tc.sub, got, tc.want)
		}
	}
}
