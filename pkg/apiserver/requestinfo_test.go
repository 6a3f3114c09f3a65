package apiserver

import (
	"net/http/httptest"
	"testing"
)

// TestRequestInfoNameOfFieldSelector: a list or watch selecting one name
// is authorized as a request for that object; other selectors are not.
func TestRequestInfoNameOfFieldSelector(t *testing.T) {
	for _, tc := range []struct{ url, verb, name string }{
		{"/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name%3Dconf", "list", "conf"},
		{"/api/v1/namespaces/ns/secrets?watch=true&fieldSelector=metadata.name%3D%3Ds", "watch", "s"},
		{"/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name%21%3Dconf", "list", ""},
		{"/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.namespace%3Dns", "list", ""},
		{"/api/v1/namespaces/ns/configmaps", "list", ""},
		{"/api/v1/namespaces/ns/configmaps/conf?fieldSelector=metadata.name%3Dother", "get", "conf"},
	} {
		info := parseRequestInfo(httptest.NewRequest("GET", tc.url, nil))
		if info.Verb != tc.verb || info.Name != tc.name {
			t.Errorf("%s: verb %q name %q, want %q %q", tc.url, info.Verb, info.Name, tc.verb, tc.name)
		}
	}
}
