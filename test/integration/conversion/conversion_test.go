package conversion

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	apiextensionsv1 "kubecore.io/api/apiextensions/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/intstr"

	"kubecore.io/kubecore/pkg/webhook/webhooktest"
	"kubecore.io/kubecore/test/integration/framework"
)

const group = "conv.example.com"

// converter converts Endpoint objects: v1 has spec.hostPort "h:p", v2 has
// spec.host and spec.port. broken makes it answer a Failure.
type converter struct {
	calls  atomic.Int32
	broken atomic.Bool
}

func (c *converter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.calls.Add(1)
	var review apiextensionsv1.ConversionReview
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
		http.Error(w, "bad review", http.StatusBadRequest)
		return
	}
	resp := &apiextensionsv1.ConversionResponse{UID: review.Request.UID, Result: metav1.Status{Status: metav1.StatusSuccess}}
	if c.broken.Load() {
		resp.Result = metav1.Status{Status: metav1.StatusFailure, Message: "the converter is broken"}
	} else {
		for _, raw := range review.Request.Objects {
			var obj map[string]any
			if err := json.Unmarshal(raw.Raw, &obj); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			spec, _ := obj["spec"].(map[string]any)
			if spec == nil {
				spec = map[string]any{}
			}
			switch _, version, _ := strings.Cut(review.Request.DesiredAPIVersion, "/"); version {
			case "v1":
				spec["hostPort"] = fmt.Sprintf("%v:%v", spec["host"], spec["port"])
				delete(spec, "host")
				delete(spec, "port")
			case "v2":
				host, port, _ := strings.Cut(fmt.Sprint(spec["hostPort"]), ":")
				spec["host"], spec["port"] = host, port
				delete(spec, "hostPort")
			}
			obj["spec"] = spec
			obj["apiVersion"] = review.Request.DesiredAPIVersion
			out, _ := json.Marshal(obj)
			resp.ConvertedObjects = append(resp.ConvertedObjects, runtime.RawExtension{Raw: out})
		}
	}
	review.Response, review.Request = resp, nil
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(review)
}

type client struct {
	t    *testing.T
	s    *framework.APIServer
	http *http.Client
}

type result struct {
	code int
	body []byte
}

func (r result) String() string { return fmt.Sprintf("%d %s", r.code, r.body) }

func (r result) object(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
	return m
}

func (c *client) do(method, path string, obj any) result {
	c.t.Helper()
	var body io.Reader
	if obj != nil {
		data, err := json.Marshal(obj)
		if err != nil {
			c.t.Fatal(err)
		}
		body = bytes.NewReader(data)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, c.s.URL+path, body)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return result{code: resp.StatusCode, body: data}
}

func (c *client) mustDo(method, path string, obj any, want int) result {
	c.t.Helper()
	r := c.do(method, path, obj)
	if r.code != want {
		c.t.Fatalf("%s %s: got %s, want %d", method, path, r, want)
	}
	return r
}

func spec(o map[string]any) map[string]any {
	s, _ := o["spec"].(map[string]any)
	return s
}

// definition is the definition of Endpoints in group g.
func definition(g string, cc map[string]any) map[string]any {
	version := func(name string, storage bool, props map[string]any) map[string]any {
		return map[string]any{"name": name, "served": true, "storage": storage, "schema": map[string]any{"openAPIV3Schema": map[string]any{
			"type": "object", "properties": map[string]any{"spec": map[string]any{"type": "object", "properties": props}},
		}}}
	}
	return map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "endpoints." + g},
		"spec": map[string]any{
			"group": g, "scope": "Namespaced",
			"names": map[string]any{"plural": "endpoints", "singular": "endpoint", "kind": "Endpoint", "listKind": "EndpointList"},
			"versions": []any{
				version("v1", true, map[string]any{"hostPort": map[string]any{"type": "string"}}),
				version("v2", false, map[string]any{"host": map[string]any{"type": "string"}, "port": map[string]any{"type": "string"}}),
			},
			"conversion": map[string]any{"strategy": "Webhook", "webhook": map[string]any{"clientConfig": cc, "conversionReviewVersions": []any{"v1"}}},
		},
	}
}

// startWithConverter starts an API server with a namespace and, behind a
// Service of it, a converter; it creates the definition def(g,
// clientConfig) makes and waits until it is Established and served in v2.
func startWithConverter(t *testing.T, g string, def func(g string, cc map[string]any) map[string]any) (*client, string, *converter) {
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	c := &client{t: t, s: s, http: s.HTTPClient(t)}
	ns := s.CreateNamespace(t, "conversion")

	// The webhook is reached through a Service of the namespace.
	conv := &converter{}
	backend := webhooktest.NewServer(t, conv, webhooktest.Options{}, "converter."+ns+".svc")
	c.mustDo(http.MethodPost, "/api/v1/namespaces/"+ns+"/services", &corev1.Service{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"}, ObjectMeta: metav1.ObjectMeta{Name: "converter"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 443, TargetPort: intstr.FromInt32(backend.Port)}}},
	}, http.StatusCreated)
	c.mustDo(http.MethodPost, "/api/v1/namespaces/"+ns+"/endpoints", &corev1.Endpoints{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Endpoints"}, ObjectMeta: metav1.ObjectMeta{Name: "converter"},
		Subsets: []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{{IP: backend.Host}}, Ports: []corev1.EndpointPort{{Port: backend.Port}}}},
	}, http.StatusCreated)
	cc := map[string]any{"service": map[string]any{"namespace": ns, "name": "converter", "path": "/convert"}, "caBundle": backend.CABundle}

	const crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
	c.mustDo(http.MethodPost, crdPath, def(g, cc), http.StatusCreated)
	t.Cleanup(func() { c.do(http.MethodDelete, crdPath+"/endpoints."+g, nil) })
	framework.WaitUntil(t, time.Minute, "the definition Established and served", func() bool {
		crd := c.do(http.MethodGet, crdPath+"/endpoints."+g, nil)
		var d apiextensionsv1.CustomResourceDefinition
		_ = json.Unmarshal(crd.body, &d)
		established := false
		for _, cond := range d.Status.Conditions {
			established = established || (cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue)
		}
		return established && c.do(http.MethodGet, "/apis/"+g+"/v2/namespaces/"+ns+"/endpoints", nil).code == http.StatusOK
	})
	return c, ns, conv
}

func TestConversionWebhook(t *testing.T) {
	c, ns, conv := startWithConverter(t, group, definition)
	s := c.s
	v1 := "/apis/" + group + "/v1/namespaces/" + ns + "/endpoints"
	v2 := "/apis/" + group + "/v2/namespaces/" + ns + "/endpoints"

	// A watch in v2 opened before the write sees the object converted.
	watchCtx, stopWatch := context.WithCancel(context.Background())
	defer stopWatch()
	req, err := http.NewRequestWithContext(watchCtx, http.MethodGet, s.URL+v2+"?watch=true", nil)
	if err != nil {
		t.Fatal(err)
	}
	watchResp, err := c.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer watchResp.Body.Close()

	// Written in v2: the webhook converts it to v1, the storage version.
	before := conv.calls.Load()
	created := c.mustDo(http.MethodPost, v2, map[string]any{"apiVersion": group + "/v2", "kind": "Endpoint",
		"metadata": map[string]any{"name": "db", "labels": map[string]any{"app": "db"}}, "spec": map[string]any{"host": "db.local", "port": "5432"}}, http.StatusCreated).object(t)
	if conv.calls.Load() == before {
		t.Error("the write was not converted by the webhook")
	}
	if created["apiVersion"] != group+"/v2" || spec(created)["host"] != "db.local" || spec(created)["port"] != "5432" {
		t.Errorf("create answered %v", created)
	}
	// Read in v1: as stored.
	got := c.mustDo(http.MethodGet, v1+"/db", nil, http.StatusOK).object(t)
	if got["apiVersion"] != group+"/v1" || spec(got)["hostPort"] != "db.local:5432" || spec(got)["host"] != nil {
		t.Errorf("v1 read %v", got)
	}
	// Read and listed in v2: converted back.
	got = c.mustDo(http.MethodGet, v2+"/db", nil, http.StatusOK).object(t)
	meta, _ := got["metadata"].(map[string]any)
	if got["apiVersion"] != group+"/v2" || spec(got)["host"] != "db.local" || spec(got)["port"] != "5432" || meta["uid"] == nil || meta["name"] != "db" {
		t.Errorf("v2 read %v", got)
	}
	list := c.mustDo(http.MethodGet, v2, nil, http.StatusOK).object(t)
	items, _ := list["items"].([]any)
	if len(items) != 1 || spec(items[0].(map[string]any))["host"] != "db.local" {
		t.Errorf("v2 list %v", list)
	}
	// Updated in v1: v2 readers see the change.
	got = c.mustDo(http.MethodGet, v1+"/db", nil, http.StatusOK).object(t)
	spec(got)["hostPort"] = "db2.local:6432"
	c.mustDo(http.MethodPut, v1+"/db", got, http.StatusOK)
	got = c.mustDo(http.MethodGet, v2+"/db", nil, http.StatusOK).object(t)
	if spec(got)["host"] != "db2.local" || spec(got)["port"] != "6432" {
		t.Errorf("v2 read after a v1 update %v", got)
	}

	// The watch saw the create in v2.
	sc := bufio.NewScanner(watchResp.Body)
	if !sc.Scan() {
		t.Fatalf("watch ended: %v", sc.Err())
	}
	var ev struct {
		Type   string
		Object map[string]any
	}
	if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
		t.Fatalf("watch event %s: %v", sc.Bytes(), err)
	}
	if ev.Type != "ADDED" || ev.Object["apiVersion"] != group+"/v2" || spec(ev.Object)["host"] != "db.local" {
		t.Errorf("watch event %s", sc.Bytes())
	}
	stopWatch()

	// A failing webhook: 500 worded as Kubernetes words it, in v2; v1
	// needs no conversion and still answers.
	conv.broken.Store(true)
	r := c.mustDo(http.MethodGet, v2+"/db", nil, http.StatusInternalServerError)
	var st metav1.Status
	_ = json.Unmarshal(r.body, &st)
	if want := "conversion webhook for " + group + "/v1, Kind=Endpoint failed: the converter is broken"; !strings.Contains(st.Message, want) || st.Reason != metav1.StatusReasonInternalError {
		t.Errorf("broken webhook: %s, want a message with %q", r, want)
	}
	c.mustDo(http.MethodGet, v1+"/db", nil, http.StatusOK)
	c.mustDo(http.MethodPost, v2, map[string]any{"apiVersion": group + "/v2", "kind": "Endpoint",
		"metadata": map[string]any{"name": "other"}, "spec": map[string]any{"host": "x", "port": "1"}}, http.StatusInternalServerError)
	c.mustDo(http.MethodGet, v1+"/other", nil, http.StatusNotFound)
}
