package apiserver

import (
	"strings"
	"testing"
)

// The three writes share one prologue: each refuses an unacceptable
// answer, invalid options (named by its own options kind) and, for patch,
// an unsupported Content-Type first, with the same Status.
func TestWritePrologue(t *testing.T) {
	ts, _ := newTestServer(t, nil)
	const body = `{"metadata":{"name":"p"}}`
	const merge = "application/merge-patch+json"
	if resp, out := do(t, ts, call{method: "POST", path: widgetsPath, body: body}); resp.StatusCode != 201 {
		t.Fatalf("create: %d %s", resp.StatusCode, trim(out))
	}
	for _, tc := range []struct {
		name     string
		call     call
		code     int
		contains string
	}{
		{"create bad validation", call{method: "POST", path: widgetsPath + "?fieldValidation=Loud", body: body}, 422, `CreateOptions.meta.k8s.io \"\" is invalid: fieldValidation`},
		{"update bad validation", call{method: "PUT", path: widgetsPath + "/p?fieldValidation=Loud", body: body}, 422, `UpdateOptions.meta.k8s.io \"\" is invalid: fieldValidation`},
		{"patch bad validation", call{method: "PATCH", path: widgetsPath + "/p?fieldValidation=Loud", contentType: merge, body: `{}`}, 422, `PatchOptions.meta.k8s.io \"\" is invalid: fieldValidation`},
		{"create bad field manager", call{method: "POST", path: widgetsPath + "?fieldManager=" + strings.Repeat("m", 129), body: body}, 422, "fieldManager"},
		{"update not acceptable", call{method: "PUT", path: widgetsPath + "/p", accept: "application/vnd.kubernetes.protobuf", body: body}, 406, `"reason":"NotAcceptable"`},
		{"patch not acceptable", call{method: "PATCH", path: widgetsPath + "/p", accept: "application/vnd.kubernetes.protobuf", contentType: merge, body: `{}`}, 406, `"reason":"NotAcceptable"`},
		{"patch type before options", call{method: "PATCH", path: widgetsPath + "/p?dryRun=Some", contentType: "text/plain", body: `{}`}, 415, `"reason":"UnsupportedMediaType"`},
		{"patch empty", call{method: "PATCH", path: widgetsPath + "/p", contentType: merge}, 400, "the patch is empty"},
	} {
		resp, out := do(t, ts, tc.call)
		if resp.StatusCode != tc.code || !strings.Contains(out, tc.contains) {
			t.Errorf("%s: %d %s, want %d with %s", tc.name, resp.StatusCode, trim(out), tc.code, tc.contains)
		}
	}
}
