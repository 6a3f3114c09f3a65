package dynamic

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/rest"
)

// request is what the fake server saw.
type request struct {
	method, path, query, contentType, body string
}

func newTestClient(t *testing.T, seen *[]request, respond func(r *http.Request) (int, string)) *Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		*seen = append(*seen, request{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Content-Type"), string(b)})
		code, body := respond(r)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	c, err := NewForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestResourceClient(t *testing.T) {
	var seen []request
	c := newTestClient(t, &seen, func(r *http.Request) (int, string) {
		switch {
		case r.Method == http.MethodDelete:
			return 200, `{"kind":"Status","apiVersion":"v1","status":"Success"}`
		case r.URL.Path == "/api/v1/namespaces/ns/configmaps" && r.Method == http.MethodGet:
			return 200, `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[{"metadata":{"name":"a"},"data":{"n":"1"}}]}`
		case r.URL.Path == "/apis/apps/v1/namespaces/ns/deployments/missing":
			return 404, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,"message":"deployments.apps \"missing\" not found"}`
		}
		return 200, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"ns","resourceVersion":"12"},"spec":{"replicas":3}}`
	})
	ctx := context.Background()
	cms := c.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("ns")
	deps := c.Resource(schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}).Namespace("ns")

	list, err := cms.List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		t.Fatal(err)
	}
	items := list.Items()
	if len(items) != 1 || items[0].GetName() != "a" || items[0].GetKind() != "ConfigMap" || items[0].GetAPIVersion() != "v1" {
		t.Errorf("items %+v", items)
	}
	got, err := deps.Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := NestedField(got.Object, "spec", "replicas").(json.Number); n != "3" || got.GetResourceVersion() != "12" {
		t.Errorf("got %v", got.Object)
	}
	if _, err := deps.Get(ctx, "missing", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("err = %v, want NotFound", err)
	}
	if _, err := deps.Patch(ctx, "web", types.MergePatchType, []byte(`{"spec":{"replicas":1}}`), metav1.PatchOptions{DryRun: []string{"All"}}, "scale"); err != nil {
		t.Fatal(err)
	}
	obj := &Unstructured{}
	obj.SetGroupVersionKind(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	obj.SetName("web")
	if _, err := deps.Create(ctx, obj, metav1.CreateOptions{FieldValidation: "Strict"}); err != nil {
		t.Fatal(err)
	}
	if _, err := deps.Update(ctx, obj, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	gone, err := cms.Delete(ctx, "a", metav1.DeleteOptions{})
	if err != nil || gone != nil {
		t.Errorf("Delete = %v, %v; want nil, nil for a Success Status", gone, err)
	}
	if _, err := deps.Get(ctx, "../x", metav1.GetOptions{}); err == nil {
		t.Error("a name with a slash must be refused")
	}

	want := []request{
		{method: "GET", path: "/api/v1/namespaces/ns/configmaps", query: "labelSelector=app%3Dweb"},
		{method: "GET", path: "/apis/apps/v1/namespaces/ns/deployments/web"},
		{method: "GET", path: "/apis/apps/v1/namespaces/ns/deployments/missing"},
		{method: "PATCH", path: "/apis/apps/v1/namespaces/ns/deployments/web/scale", query: "dryRun=All", contentType: "application/merge-patch+json", body: `{"spec":{"replicas":1}}`},
		{method: "POST", path: "/apis/apps/v1/namespaces/ns/deployments", query: "fieldValidation=Strict", contentType: "application/json", body: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"}}`},
		{method: "PUT", path: "/apis/apps/v1/namespaces/ns/deployments/web", contentType: "application/json", body: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"}}`},
		{method: "DELETE", path: "/api/v1/namespaces/ns/configmaps/a", contentType: "application/json", body: `{}`},
	}
	if len(seen) != len(want) {
		t.Fatalf("requests %+v", seen)
	}
	for i := range want {
		g := seen[i]
		if want[i].method == "GET" {
			g.contentType, g.body = "", ""
		}
		if g != want[i] {
			t.Errorf("request %d:\n got %+v\nwant %+v", i, g, want[i])
		}
	}
}

func TestUnstructured(t *testing.T) {
	u := &Unstructured{}
	if err := json.Unmarshal([]byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"1"}},"spec":{"n":12345678901234}}`), u); err != nil {
		t.Fatal(err)
	}
	if u.GroupVersionKind() != (schema.GroupVersionKind{Version: "v1", Kind: "Pod"}) || u.GetLabels()["a"] != "1" {
		t.Errorf("decoded %v", u.Object)
	}
	c := u.DeepCopy()
	c.SetLabels(nil)
	c.SetAnnotations(map[string]string{"x": "y"})
	c.SetNamespace("ns")
	if u.GetLabels()["a"] != "1" || u.GetNamespace() != "" {
		t.Error("DeepCopy shares state with the original")
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"apiVersion":"v1","kind":"Pod","metadata":{"annotations":{"x":"y"},"name":"p","namespace":"ns"},"spec":{"n":12345678901234}}` {
		t.Errorf("encoded %s", b)
	}
	if err := json.Unmarshal([]byte(`[1]`), u); err == nil {
		t.Error("an array is not an object")
	}
}
