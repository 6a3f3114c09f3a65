package apiextensions

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"kubecore.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"kubecore.io/kubecore/test/integration/framework"
)

// server is an API server with a raw admin HTTP client.
type server struct {
	*framework.APIServer
	t    *testing.T
	http *http.Client
}

func startServer(t *testing.T) *server {
	t.Helper()
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	return &server{APIServer: s, t: t, http: s.HTTPClient(t)}
}

// response is an answer of the server.
type response struct {
	code   int
	body   []byte
	header http.Header
}

// object decodes the body as a JSON object.
func (r response) object(t *testing.T) map[string]any {
	t.Helper()
	m, err := unstructured.DecodeJSONObject(r.body)
	if err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
	return m
}

// do sends a request; header holds "Content-Type" and "Accept" if any.
func (s *server) do(method, path string, body any, header ...string) response {
	s.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			s.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, s.URL+path, rd)
	if err != nil {
		s.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := s.http.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	return response{code: resp.StatusCode, body: data, header: resp.Header}
}

// expect sends a request and fails unless the answer has the code.
func (s *server) expect(code int, method, path string, body any, header ...string) response {
	s.t.Helper()
	r := s.do(method, path, body, header...)
	if r.code != code {
		s.t.Fatalf("%s %s: got %d, want %d: %s", method, path, r.code, code, r.body)
	}
	return r
}

// eventually polls cond every 50 ms until it holds or 30 s pass.
func eventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ok, state := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not the case after 30s: %s", what, state)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

const crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

// createCRD creates a definition and waits until it is Established and
// its resource answers.
func (s *server) createCRD(crd map[string]any) {
	s.t.Helper()
	s.expect(http.StatusCreated, http.MethodPost, crdPath, crd)
	name := unstructured.NestedString(crd, "metadata", "name")
	s.waitCondition(name, "Established", "True")
	group := unstructured.NestedString(crd, "spec", "group")
	plural := unstructured.NestedString(crd, "spec", "names", "plural")
	version := unstructured.NestedString(crd["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any), "name")
	eventually(s.t, "resource "+plural+" served", func() (bool, string) {
		r := s.do(http.MethodGet, "/apis/"+group+"/"+version+"/"+plural, nil)
		return r.code == http.StatusOK, fmt.Sprintf("%d %s", r.code, r.body)
	})
}

// waitCondition waits until the definition's condition has the status.
func (s *server) waitCondition(name, condition, status string) map[string]any {
	s.t.Helper()
	var last map[string]any
	eventually(s.t, name+" "+condition+"="+status, func() (bool, string) {
		r := s.do(http.MethodGet, crdPath+"/"+name, nil)
		if r.code != http.StatusOK {
			return false, string(r.body)
		}
		last = r.object(s.t)
		conds, _ := unstructured.NestedField(last, "status", "conditions").([]any)
		for _, c := range conds {
			cm, _ := c.(map[string]any)
			if cm["type"] == condition && cm["status"] == status {
				return true, ""
			}
		}
		return false, fmt.Sprint(conds)
	})
	return last
}

// deleteCRD deletes a definition and waits until it is gone.
func (s *server) deleteCRD(name string) {
	s.t.Helper()
	s.expect(http.StatusOK, http.MethodDelete, crdPath+"/"+name, nil)
	eventually(s.t, name+" deleted", func() (bool, string) {
		r := s.do(http.MethodGet, crdPath+"/"+name, nil)
		return r.code == http.StatusNotFound, fmt.Sprintf("%d %s", r.code, r.body)
	})
}

// crontabCRD is the CronTab definition of the Kubernetes documentation's
// example, in group, with a second served version v1beta1, status and
// scale subresources and printer columns.
func crontabCRD(group string) map[string]any {
	schema := func() map[string]any {
		return map[string]any{
			"type": "object",
			"properties": map[string]any{
				"spec": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"cronSpec": map[string]any{"type": "string", "pattern": `^(\d+|\*)(/\d+)?(\s+(\d+|\*)(/\d+)?){4}$`},
						"image":    map[string]any{"type": "string", "maxLength": 64},
						"replicas": map[string]any{"type": "integer", "minimum": 0, "maximum": 10, "default": 1},
						"mode":     map[string]any{"type": "string", "enum": []any{"Fast", "Slow"}},
						"port":     map[string]any{"x-kubernetes-int-or-string": true},
						"tags":     map[string]any{"type": "array", "maxItems": 3, "items": map[string]any{"type": "string"}},
						"extra":    map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true},
						"note":     map[string]any{"type": "string", "nullable": true},
						"template": map[string]any{"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true},
					},
					"required": []any{"cronSpec"},
				},
				"status": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"replicas":      map[string]any{"type": "integer"},
						"labelSelector": map[string]any{"type": "string"},
					},
				},
			},
		}
	}
	version := func(name string, storage bool) map[string]any {
		return map[string]any{
			"name": name, "served": true, "storage": storage,
			"schema": map[string]any{"openAPIV3Schema": schema()},
			"subresources": map[string]any{
				"status": map[string]any{},
				"scale": map[string]any{
					"specReplicasPath":   ".spec.replicas",
					"statusReplicasPath": ".status.replicas",
					"labelSelectorPath":  ".status.labelSelector",
				},
			},
			"additionalPrinterColumns": []any{
				map[string]any{"name": "Spec", "type": "string", "jsonPath": ".spec.cronSpec"},
				map[string]any{"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
				map[string]any{"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
			},
		}
	}
	return map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": "crontabs." + group},
		"spec": map[string]any{
			"group":    group,
			"scope":    "Namespaced",
			"names":    map[string]any{"plural": "crontabs", "singular": "crontab", "kind": "CronTab", "shortNames": []any{"ct"}},
			"versions": []any{version("v1", true), deprecated(version("v1beta1", false))},
		},
	}
}

// deprecated marks a version deprecated, with its own warning.
func deprecated(v map[string]any) map[string]any {
	v["deprecated"] = true
	v["deprecationWarning"] = "v1beta1 CronTabs are deprecated; use v1"
	return v
}

// crontab is a CronTab object.
func crontab(group, version, name string, spec map[string]any) map[string]any {
	return map[string]any{
		"apiVersion": group + "/" + version,
		"kind":       "CronTab",
		"metadata":   map[string]any{"name": name},
		"spec":       spec,
	}
}

var background = context.Background()
