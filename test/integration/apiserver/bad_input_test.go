package apiserver

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/test/integration/framework"
)

// chunked hides a reader's length so that the request goes out chunked,
// without a Content-Length.
type chunked struct{ io.Reader }

// TestBadInput: each malformed request gets the Status Kubernetes answers
// (code and reason, and the message where it is stable), and none of them
// changes anything stored: etcd's revision stays where it was.
func TestBadInput(t *testing.T) {
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	c := s.HTTPClient(t)
	ns := s.CreateNamespace(t, "bad")
	coll := "/api/v1/namespaces/" + ns + "/configmaps"
	item := coll + "/cm"
	createConfigMap(t, c, s, ns, "cm", map[string]string{"k": "v"})
	good := configMapJSON(ns, "new", map[string]string{"k": "v"})
	const limit = 3 * 1024 * 1024
	huge := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"huge"},"data":{"k":"` + strings.Repeat("x", limit) + `"}}`
	hugePatch := `{"data":{"k":"` + strings.Repeat("x", limit) + `"}}`
	yamlCT := "application/yaml"
	mergeCT := "application/merge-patch+json"
	tooLarge := "Request entity too large: limit is 3145728"

	cases := []struct {
		name   string
		req    request
		code   int
		reason metav1.StatusReason
		msg    string
	}{
		// Bodies that do not parse.
		{"truncated JSON on create", request{method: http.MethodPost, path: coll, contentType: contentJSON, body: strings.NewReader(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"`)}, 400, metav1.StatusReasonBadRequest, ""},
		{"truncated JSON on update", request{method: http.MethodPut, path: item, contentType: contentJSON, body: strings.NewReader(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"`)}, 400, metav1.StatusReasonBadRequest, ""},
		{"a JSON array for an object", request{method: http.MethodPost, path: coll, contentType: contentJSON, body: strings.NewReader(`[1,2]`)}, 400, metav1.StatusReasonBadRequest, ""},
		{"a field of the wrong type", request{method: http.MethodPost, path: coll, contentType: contentJSON, body: strings.NewReader(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":["a"]}`)}, 400, metav1.StatusReasonBadRequest, ""},
		{"malformed YAML", request{method: http.MethodPost, path: coll, contentType: yamlCT, body: strings.NewReader("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [x\n")}, 400, metav1.StatusReasonBadRequest, ""},
		{"YAML with a tab indent", request{method: http.MethodPost, path: coll, contentType: yamlCT, body: strings.NewReader("apiVersion: v1\nkind: ConfigMap\nmetadata:\n\tname: x\n")}, 400, metav1.StatusReasonBadRequest, ""},
		{"an empty body", request{method: http.MethodPost, path: coll, contentType: contentJSON, body: strings.NewReader(``)}, 400, metav1.StatusReasonBadRequest, ""},
		{"malformed merge patch", request{method: http.MethodPatch, path: item, contentType: mergeCT, body: strings.NewReader(`{"data":`)}, 400, metav1.StatusReasonBadRequest, ""},
		{"malformed JSON patch", request{method: http.MethodPatch, path: item, contentType: "application/json-patch+json", body: strings.NewReader(`{"op":"add"}`)}, 400, metav1.StatusReasonBadRequest, ""},
		{"patch with an unknown content type", request{method: http.MethodPatch, path: item, contentType: "text/plain", body: strings.NewReader(`{}`)}, 415, metav1.StatusReasonUnsupportedMediaType, ""},
		{"create with an unknown content type", request{method: http.MethodPost, path: coll, contentType: "text/plain", body: strings.NewReader(good)}, 415, metav1.StatusReasonUnsupportedMediaType, ""},

		// Objects that parse but do not belong here.
		{"a Secret posted to configmaps", request{method: http.MethodPost, path: coll, contentType: contentJSON, body: strings.NewReader(`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"}}`)}, 400, metav1.StatusReasonBadRequest, ""},
		{"an apps/v1 object posted to /api/v1", request{method: http.MethodPost, path: coll, contentType: contentJSON, body: strings.NewReader(`{"apiVersion":"apps/v1","kind":"ConfigMap","metadata":{"name":"s"}}`)}, 400, metav1.StatusReasonBadRequest, ""},
		{"a Secret put over a configmap", request{method: http.MethodPut, path: item, contentType: contentJSON, body: strings.NewReader(`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"cm"}}`)}, 400, metav1.StatusReasonBadRequest, ""},
		{"another namespace in the body of a create", request{method: http.MethodPost, path: coll, contentType: contentJSON, body: strings.NewReader(configMapJSON("elsewhere", "x", nil))}, 400, metav1.StatusReasonBadRequest,
			"the namespace of the provided object does not match the namespace sent on the request"},
		{"another namespace in the body of an update", request{method: http.MethodPut, path: item, contentType: contentJSON, body: strings.NewReader(configMapJSON("elsewhere", "cm", nil))}, 400, metav1.StatusReasonBadRequest,
			"the namespace of the provided object does not match the namespace sent on the request"},
		{"another name in the body of an update", request{method: http.MethodPut, path: item, contentType: contentJSON, body: strings.NewReader(configMapJSON(ns, "other", nil))}, 400, metav1.StatusReasonBadRequest,
			"the name of the object (other) does not match the name on the URL (cm)"},
		{"an unknown field under fieldValidation=Strict", request{method: http.MethodPost, path: coll + "?fieldValidation=Strict", contentType: contentJSON, body: strings.NewReader(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"bogus":1}`)}, 400, metav1.StatusReasonBadRequest, `unknown field "bogus"`},
		{"a duplicate field under fieldValidation=Strict", request{method: http.MethodPost, path: coll + "?fieldValidation=Strict", contentType: contentJSON, body: strings.NewReader(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{},"data":{}}`)}, 400, metav1.StatusReasonBadRequest, `duplicate field "data"`},
		{"an invalid name", request{method: http.MethodPost, path: coll, contentType: contentJSON, body: strings.NewReader(configMapJSON(ns, "Not_Valid", nil))}, 422, metav1.StatusReasonInvalid, `ConfigMap "Not_Valid" is invalid: metadata.name: Invalid value: "Not_Valid"`},

		// Bodies over the 3 MiB limit.
		{"an oversize create", request{method: http.MethodPost, path: coll, contentType: contentJSON, body: strings.NewReader(huge)}, 413, metav1.StatusReasonRequestEntityTooLarge, tooLarge},
		{"an oversize chunked create", request{method: http.MethodPost, path: coll, contentType: contentJSON, body: chunked{strings.NewReader(huge)}}, 413, metav1.StatusReasonRequestEntityTooLarge, tooLarge},
		{"an oversize update", request{method: http.MethodPut, path: item, contentType: contentJSON, body: strings.NewReader(strings.Replace(huge, `"huge"`, `"cm"`, 1))}, 413, metav1.StatusReasonRequestEntityTooLarge, tooLarge},
		{"an oversize patch", request{method: http.MethodPatch, path: item, contentType: mergeCT, body: bytes.NewReader([]byte(hugePatch))}, 413, metav1.StatusReasonRequestEntityTooLarge, tooLarge},

		// Query parameters that do not parse.
		{"a label selector that does not parse", request{method: http.MethodGet, path: coll + "?labelSelector=a%20in%20(b"}, 400, metav1.StatusReasonBadRequest, ""},
		{"a label selector with a bad key", request{method: http.MethodGet, path: coll + "?labelSelector=-a=b"}, 400, metav1.StatusReasonBadRequest, ""},
		{"a field selector that does not parse", request{method: http.MethodGet, path: coll + "?fieldSelector=metadata.name"}, 400, metav1.StatusReasonBadRequest, ""},
		{"a field selector on an unsupported field", request{method: http.MethodGet, path: coll + "?fieldSelector=spec.nodeName%3Dx"}, 400, metav1.StatusReasonBadRequest, "field label not supported: spec.nodeName"},
		{"a watch with a bad label selector", request{method: http.MethodGet, path: coll + "?watch=true&labelSelector=a%20in%20(b"}, 400, metav1.StatusReasonBadRequest, ""},
		{"a resourceVersion that is not a number on get", request{method: http.MethodGet, path: item + "?resourceVersion=abc"}, 400, metav1.StatusReasonBadRequest, ""},
		{"a resourceVersion that is not a number on list", request{method: http.MethodGet, path: coll + "?resourceVersion=abc"}, 400, metav1.StatusReasonBadRequest, ""},
		{"a resourceVersion that is not a number on watch", request{method: http.MethodGet, path: coll + "?watch=true&resourceVersion=-1"}, 400, metav1.StatusReasonBadRequest, ""},
		{"an unknown resourceVersionMatch", request{method: http.MethodGet, path: coll + "?resourceVersion=1&resourceVersionMatch=Newest"}, 422, metav1.StatusReasonInvalid,
			`ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Unsupported value: "Newest"`},
		{"resourceVersionMatch without resourceVersion", request{method: http.MethodGet, path: coll + "?resourceVersionMatch=NotOlderThan"}, 422, metav1.StatusReasonInvalid,
			"resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided"},
		{"a limit that is not a number", request{method: http.MethodGet, path: coll + "?limit=ten"}, 400, metav1.StatusReasonBadRequest, ""},
		{"a timeoutSeconds that is not a number", request{method: http.MethodGet, path: coll + "?watch=true&timeoutSeconds=soon"}, 400, metav1.StatusReasonBadRequest, ""},
		{"a continue token that does not parse", request{method: http.MethodGet, path: coll + "?limit=1&continue=not-a-token"}, 400, metav1.StatusReasonBadRequest, ""},
		{"an unknown dryRun", request{method: http.MethodPost, path: coll + "?dryRun=Some", contentType: contentJSON, body: strings.NewReader(good)}, 422, metav1.StatusReasonInvalid,
			`CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value:`},
		{"an unknown fieldValidation", request{method: http.MethodPost, path: coll + "?fieldValidation=Loose", contentType: contentJSON, body: strings.NewReader(good)}, 422, metav1.StatusReasonInvalid,
			`CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loose"`},
		{"an unknown dryRun on update", request{method: http.MethodPut, path: item + "?dryRun=Some", contentType: contentJSON, body: strings.NewReader(configMapJSON(ns, "cm", nil))}, 422, metav1.StatusReasonInvalid,
			`UpdateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value:`},
		{"an unknown dryRun on patch", request{method: http.MethodPatch, path: item + "?dryRun=Some", contentType: mergeCT, body: strings.NewReader(`{"data":{"a":"b"}}`)}, 422, metav1.StatusReasonInvalid,
			`PatchOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value:`},
		{"an unknown propagationPolicy", request{method: http.MethodDelete, path: item + "?propagationPolicy=Sideways"}, 422, metav1.StatusReasonInvalid,
			`DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways"`},
		{"an unknown dryRun on delete", request{method: http.MethodDelete, path: item + "?dryRun=Some"}, 422, metav1.StatusReasonInvalid,
			`DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value:`},
		{"malformed DeleteOptions", request{method: http.MethodDelete, path: item, contentType: contentJSON, body: strings.NewReader(`{"gracePeriodSeconds":"x"`)}, 400, metav1.StatusReasonBadRequest, ""},

		// Paths and methods nothing serves.
		{"an unknown resource", request{method: http.MethodGet, path: "/api/v1/namespaces/" + ns + "/widgets"}, 404, metav1.StatusReasonNotFound, "the server could not find the requested resource"},
		{"an unknown group", request{method: http.MethodGet, path: "/apis/example.com/v1/widgets"}, 404, metav1.StatusReasonNotFound, "the server could not find the requested resource"},
		{"a missing object", request{method: http.MethodGet, path: coll + "/absent"}, 404, metav1.StatusReasonNotFound, `configmaps "absent" not found`},
		{"a create in a missing namespace", request{method: http.MethodPost, path: "/api/v1/namespaces/absent-ns/configmaps", contentType: contentJSON, body: strings.NewReader(configMapJSON("absent-ns", "x", nil))}, 404, metav1.StatusReasonNotFound, `namespaces "absent-ns" not found`},
		{"a PUT on a collection", request{method: http.MethodPut, path: coll, contentType: contentJSON, body: strings.NewReader(good)}, 405, metav1.StatusReasonMethodNotAllowed, ""},
	}

	rev := currentRevision(t, testEtcd.Client())
	stored := do(t, c, s, request{method: http.MethodGet, path: coll}).body
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantStatus(t, tc.name, do(t, c, s, tc.req), tc.code, tc.reason, tc.msg)
		})
	}
	if got := currentRevision(t, testEtcd.Client()); got != rev {
		t.Errorf("etcd's revision moved from %d to %d: a refused request wrote", rev, got)
	}
	after := do(t, c, s, request{method: http.MethodGet, path: coll}).body
	if !bytes.Equal(stored, after) {
		t.Errorf("the stored configmaps changed:\nbefore %s\nafter  %s", stored, after)
	}

	// Unknown query parameters are ignored, as Kubernetes does.
	for _, req := range []request{
		{method: http.MethodGet, path: coll + "?bogus=1&alsoBogus"},
		{method: http.MethodGet, path: item + "?bogus=1"},
		{method: http.MethodPost, path: coll + "?bogus=1&dryRun=All", contentType: contentJSON, body: strings.NewReader(good)},
	} {
		r := do(t, c, s, req)
		if r.code >= 300 {
			t.Errorf("%s %s: %d %s; unknown query parameters must be ignored", req.method, req.path, r.code, r.body)
		}
	}
	if got := currentRevision(t, testEtcd.Client()); got != rev {
		t.Errorf("etcd's revision moved from %d to %d after a dry run", rev, got)
	}
}
