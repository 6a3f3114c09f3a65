package apiserver

import (
	"slices"
	"testing"
)

func TestCompareVersions(t *testing.T) {
	versions := []string{"v1alpha1", "foo", "v2", "v1beta2", "v10beta1", "v1", "v11alpha2", "bar", "v1beta1", "v12"}
	slices.SortFunc(versions, func(a, b string) int { return -CompareVersions(a, b) })
	want := []string{"v12", "v2", "v1", "v10beta1", "v1beta2", "v1beta1", "v11alpha2", "v1alpha1", "bar", "foo"}
	if !slices.Equal(versions, want) {
		t.Errorf("sorted %v, want %v", versions, want)
	}
}

func TestMatchRoute(t *testing.T) {
	cases := []struct {
		pattern, path string
		ns, name      string
		ok            bool
	}{
		{"/namespaces/{namespace}/crontabs/{name}", "/namespaces/a/crontabs/b", "a", "b", true},
		{"/namespaces/{namespace}/crontabs/{name}/status", "/namespaces/a/crontabs/b/status", "a", "b", true},
		{"/namespaces/{namespace}/crontabs", "/namespaces/a/crontabs", "a", "", true},
		{"/crontabs", "/crontabs", "", "", true},
		{"/crontabs/{name}", "/crontabs//", "", "", false},
		{"/namespaces/{namespace}/crontabs/{name}", "/namespaces/a/other/b", "", "", false},
		{"/crontabs/{name}", "/crontabs/b/scale", "", "", false},
	}
	for _, c := range cases {
		ns, name, ok := matchRoute(c.pattern, c.path)
		if ok != c.ok || ok && (ns != c.ns || name != c.name) {
			t.Errorf("matchRoute(%q, %q) = %q, %q, %v", c.pattern, c.path, ns, name, ok)
		}
	}
}
