package discovery

import (
	"context"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"kubecore.io/client/rest"
)

var documents = map[string]string{
	"/version": `{"major":"1","minor":"32","gitVersion":"v1.32.0-kubecore","platform":"linux/amd64"}`,
	"/api":     `{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":null}`,
	"/apis": `{"kind":"APIGroupList","apiVersion":"v1","groups":[
		{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}},
		{"name":"example.io","versions":[{"groupVersion":"example.io/v2","version":"v2"},{"groupVersion":"example.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"example.io/v2","version":"v2"}},
		{"name":"broken.io","versions":[{"groupVersion":"broken.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"broken.io/v1","version":"v1"}}]}`,
	"/api/v1": `{"kind":"APIResourceList","groupVersion":"v1","resources":[
		{"name":"pods","singularName":"pod","namespaced":true,"kind":"Pod","verbs":["get","list"],"shortNames":["po"],"categories":["all"]},
		{"name":"pods/log","singularName":"","namespaced":true,"kind":"Pod","verbs":["get"]},
		{"name":"nodes","singularName":"node","namespaced":false,"kind":"Node","verbs":["get"],"shortNames":["no"]}]}`,
	"/apis/apps/v1": `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"apps/v1","resources":[
		{"name":"deployments","singularName":"deployment","namespaced":true,"kind":"Deployment","verbs":["get"],"shortNames":["deploy"]},
		{"name":"deployments/scale","singularName":"","namespaced":true,"group":"autoscaling","version":"v1","kind":"Scale","verbs":["get","update"]}]}`,
	"/apis/example.io/v2": `{"kind":"APIResourceList","groupVersion":"example.io/v2","resources":[
		{"name":"widgets","singularName":"widget","namespaced":true,"kind":"Widget","verbs":["get"]}]}`,
	"/apis/example.io/v1": `{"kind":"APIResourceList","groupVersion":"example.io/v1","resources":[
		{"name":"widgets","singularName":"widget","namespaced":true,"kind":"Widget","verbs":["get"]},
		{"name":"pods","singularName":"pod","namespaced":true,"kind":"Pod","verbs":["get"]}]}`,
}

func newDiscovery(t *testing.T) *Client {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		doc, ok := documents[r.URL.Path]
		if !ok {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"ServiceUnavailable","message":"backend down","code":503}`)
			return
		}
		_, _ = io.WriteString(w, doc)
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	d, err := NewForConfig(&rest.Config{Host: srv.URL, TLSClientConfig: rest.TLSClientConfig{CAData: ca}})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestServerVersionAndGroups(t *testing.T) {
	d := newDiscovery(t)
	ctx := context.Background()
	v, err := d.ServerVersion(ctx)
	if err != nil || v.GitVersion != "v1.32.0-kubecore" {
		t.Fatalf("version %+v, err %v", v, err)
	}
	groups, err := d.ServerGroups(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, g := range groups.Groups {
		names = append(names, fmt.Sprintf("%q@%s", g.Name, g.PreferredVersion.GroupVersion))
	}
	if got := strings.Join(names, " "); got != `""@v1 "apps"@apps/v1 "example.io"@example.io/v2 "broken.io"@broken.io/v1` {
		t.Errorf("groups = %s", got)
	}
	if _, err := d.ServerResourcesForGroupVersion(ctx, "a/b/c"); err == nil {
		t.Error("bad group version accepted")
	}
}

func TestServerPreferredResources(t *testing.T) {
	d := newDiscovery(t)
	lists, err := d.ServerPreferredResources(context.Background())
	var failed *GroupDiscoveryFailedError
	if !errors.As(err, &failed) || len(failed.Groups) != 1 || !strings.Contains(err.Error(), "broken.io/v1: discover resources of broken.io/v1: backend down") {
		t.Fatalf("err = %v, want broken.io/v1 to fail alone", err)
	}
	var got []string
	for _, l := range lists {
		for _, r := range l.APIResources {
			got = append(got, l.GroupVersion+" "+r.Name)
		}
	}
	want := "v1 pods, v1 pods/log, v1 nodes, apps/v1 deployments, apps/v1 deployments/scale, example.io/v2 widgets, example.io/v1 pods"
	if strings.Join(got, ", ") != want {
		t.Errorf("preferred = %s\nwant        %s", strings.Join(got, ", "), want)
	}

	tests := []struct {
		arg     string
		want    string
		wantErr string
	}{
		{arg: "po", want: "/v1, Resource=pods"},
		{arg: "Pod", want: "/v1, Resource=pods"},
		{arg: "pods", want: "/v1, Resource=pods"},
		{arg: "pods.example.io", want: "example.io/v1, Resource=pods"},
		{arg: "deploy", want: "apps/v1, Resource=deployments"},
		{arg: "deployment.apps", want: "apps/v1, Resource=deployments"},
		{arg: "no", want: "/v1, Resource=nodes"},
		{arg: "widget", want: "example.io/v2, Resource=widgets"},
		{arg: "scale", wantErr: `the server doesn't have a resource type "scale"`},
		{arg: "deploy.example.io", wantErr: `doesn't have a resource type "deploy.example.io"`},
	}
	for _, tt := range tests {
		gvr, _, err := ResolveResource(lists, tt.arg)
		switch {
		case tt.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: err = %v, want %q", tt.arg, err, tt.wantErr)
			}
		case err != nil:
			t.Errorf("%s: %v", tt.arg, err)
		case gvr.String() != tt.want:
			t.Errorf("%s: got %s, want %s", tt.arg, gvr, tt.want)
		}
	}
}

func TestUnreachable(t *testing.T) {
	d, err := NewForConfig(&rest.Config{Host: "https://127.0.0.1:1", TLSClientConfig: rest.TLSClientConfig{Insecure: true}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.ServerGroups(context.Background())
	if err == nil || !strings.Contains(err.Error(), "on server https://127.0.0.1:1") {
		t.Errorf("err = %v", err)
	}
}
