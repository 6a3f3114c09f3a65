package metadata

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/informers"
	"kubecore.io/client/rest"
)

var _ informers.ListWatchSource = (*Client)(nil)

type seen struct {
	method, path, query, accept, contentType, body string
}

func newServer(t *testing.T, reply string) (*Client, *[]seen) {
	t.Helper()
	var got []seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = append(got, seen{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Accept"), r.Header.Get("Content-Type"), string(b)})
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, reply)
	}))
	t.Cleanup(srv.Close)
	c, err := NewForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return c, &got
}

func TestRequests(t *testing.T) {
	deploys := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	pods := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	tests := []struct {
		name string
		call func(c *Client) error
		want seen
	}{
		{"get named group", func(c *Client) error {
			m, err := c.Resource(deploys).Namespace("ns").Get(context.Background(), "web", metav1.GetOptions{})
			if err == nil && m.Name != "x" {
				t.Errorf("decoded name %q", m.Name)
			}
			return err
		}, seen{method: "GET", path: "/apis/apps/v1/namespaces/ns/deployments/web", accept: acceptObject}},
		{"list core all namespaces", func(c *Client) error {
			_, err := c.Resource(pods).List(context.Background(), metav1.ListOptions{LabelSelector: "a=b"})
			return err
		}, seen{method: "GET", path: "/api/v1/pods", query: "labelSelector=a%3Db", accept: acceptList}},
		{"delete with propagation", func(c *Client) error {
			p := metav1.DeletePropagationForeground
			return c.Resource(pods).Namespace("ns").Delete(context.Background(), "p", metav1.DeleteOptions{PropagationPolicy: &p})
		}, seen{method: "DELETE", path: "/api/v1/namespaces/ns/pods/p", body: `"propagationPolicy":"Foreground"`}},
		{"delete collection", func(c *Client) error {
			return c.Resource(pods).Namespace("ns").DeleteCollection(context.Background(), metav1.DeleteOptions{}, metav1.ListOptions{})
		}, seen{method: "DELETE", path: "/api/v1/namespaces/ns/pods"}},
		{"patch subresource", func(c *Client) error {
			_, err := c.Resource(pods).Namespace("ns").Patch(context.Background(), "p", types.MergePatchType, []byte(`{}`), metav1.PatchOptions{}, "status")
			return err
		}, seen{method: "PATCH", path: "/api/v1/namespaces/ns/pods/p/status", accept: acceptObject, contentType: string(types.MergePatchType), body: "{}"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, got := newServer(t, `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"x"}}`)
			if err := tt.call(c); err != nil {
				t.Fatal(err)
			}
			if len(*got) != 1 {
				t.Fatalf("%d requests, want 1", len(*got))
			}
			g := (*got)[0]
			if g.method != tt.want.method || g.path != tt.want.path || g.query != tt.want.query ||
				(tt.want.accept != "" && g.accept != tt.want.accept) ||
				(tt.want.contentType != "" && g.contentType != tt.want.contentType) ||
				!strings.Contains(g.body, tt.want.body) {
				t.Errorf("request %+v, want %+v", g, tt.want)
			}
		})
	}
}

func TestInvalidNames(t *testing.T) {
	c, got := newServer(t, `{}`)
	r := c.Resource(schema.GroupVersionResource{Version: "v1", Resource: "pods"}).Namespace("ns")
	for _, name := range []string{"", "a/b", "..", "."} {
		if _, err := r.Get(context.Background(), name, metav1.GetOptions{}); err == nil {
			t.Errorf("Get(%q) gave no error", name)
		}
	}
	if _, err := c.ListWatch(schema.GroupVersionResource{Resource: "pods"}, ""); err == nil {
		t.Error("ListWatch without a version gave no error")
	}
	if len(*got) != 0 {
		t.Errorf("invalid names reached the server: %+v", *got)
	}
}
