package auth

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	flowcontrolv1 "kubecore.io/api/flowcontrol/v1"
	"kubecore.io/client/rest"
)

// TestFlowSchemaHeaders: every authenticated request is classified by
// the stored FlowSchemas, and the response names the schema and priority
// level by UID, as Kubernetes' API priority and fairness does.
func TestFlowSchemaHeaders(t *testing.T) {
	c := startWithTokens(t, "t0ken,dave,uid-dave,team")
	ctx := context.Background()
	fc := groupClient(t, c.s.Config, flowcontrolv1.SchemeGroupVersion.String())
	uid := func(resource, name string) string {
		var obj struct {
			Metadata struct {
				UID string `json:"uid"`
			} `json:"metadata"`
		}
		raw, err := fc.Get().Resource(resource).Name(name).Do(ctx).Raw()
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &obj); err != nil {
			t.Fatal(err)
		}
		return obj.Metadata.UID
	}
	get := func(rc *rest.Config, path string) http.Header {
		hc, err := rest.HTTPClientFor(rc)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := hc.Get(rc.Host + path)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d", path, resp.StatusCode)
		}
		return resp.Header
	}
	for _, tc := range []struct {
		name       string
		rc         *rest.Config
		path       string
		schema, pl string
	}{
		{"admin", c.s.Config, "/api/v1/namespaces", "exempt", "exempt"},
		{"user", c.withTokenConfig("t0ken"), "/apis", "global-default", "global-default"},
	} {
		h := get(tc.rc, tc.path)
		if got, want := h.Get("X-Kubernetes-PF-FlowSchema-UID"), uid("flowschemas", tc.schema); got == "" || got != want {
			t.Errorf("%s: flow schema UID %q, want %s's %q", tc.name, got, tc.schema, want)
		}
		if got, want := h.Get("X-Kubernetes-PF-PriorityLevel-UID"), uid("prioritylevelconfigurations", tc.pl); got == "" || got != want {
			t.Errorf("%s: priority level UID %q, want %s's %q", tc.name, got, tc.pl, want)
		}
	}
}
