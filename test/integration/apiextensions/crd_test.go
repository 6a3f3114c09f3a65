package apiextensions

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/apimachinery/pkg/watch"
	"kubecore.io/client/dynamic"
)

// TestCustomResources drives the CronTab resource through every verb of
// the API, in both served versions, with the staging dynamic client and
// raw requests.
func TestCustomResources(t *testing.T) {
	s := startServer(t)
	const group = "stable.example.com"
	s.createCRD(crontabCRD(group))
	ns := s.CreateNamespace(t, "crd")
	base := "/apis/" + group + "/v1/namespaces/" + ns + "/crontabs"

	dyn, err := dynamic.NewForConfig(s.Config)
	if err != nil {
		t.Fatal(err)
	}
	gvr := schema.GroupVersionResource{Group: group, Version: "v1", Resource: "crontabs"}
	crontabs := dyn.Resource(gvr).Namespace(ns)

	// A watch from now on sees every change below.
	w, err := crontabs.Watch(background, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	t.Run("create with defaults and pruning", func(t *testing.T) {
		obj := crontab(group, "v1", "ct1", map[string]any{"cronSpec": "* * * * */5", "image": "my-cron", "unknown": "dropped"})
		obj["metadata"].(map[string]any)["labels"] = map[string]any{"app": "cron"}
		obj["topLevelUnknown"] = true
		r := s.expect(http.StatusCreated, http.MethodPost, base, obj)
		got := r.object(t)
		if n, _ := unstructured.Int64(unstructured.NestedField(got, "spec", "replicas")); n != 1 {
			t.Errorf("spec.replicas = %v, want the default 1", unstructured.NestedField(got, "spec", "replicas"))
		}
		if unstructured.NestedField(got, "spec", "unknown") != nil || got["topLevelUnknown"] != nil {
			t.Errorf("unknown fields were not pruned: %v", got)
		}
		warnings := strings.Join(r.header.Values("Warning"), "\n")
		if !strings.Contains(warnings, `unknown field \"spec.unknown\"`) || !strings.Contains(warnings, `unknown field \"topLevelUnknown\"`) {
			t.Errorf("warnings %q do not name the unknown fields", warnings)
		}
		if gen, _ := unstructured.Int64(unstructured.NestedField(got, "metadata", "generation")); gen != 1 {
			t.Errorf("generation = %d, want 1", gen)
		}
		if got["apiVersion"] != group+"/v1" || got["kind"] != "CronTab" || unstructured.NestedString(got, "metadata", "uid") == "" {
			t.Errorf("created object %v", got)
		}
	})

	t.Run("dynamic client", func(t *testing.T) {
		u := &unstructured.Unstructured{Object: crontab(group, "v1", "ct2", map[string]any{"cronSpec": "0 * * * *", "replicas": 3})}
		u.SetLabels(map[string]string{"app": "cron", "tier": "two"})
		created, err := crontabs.Create(background, u, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := crontabs.Get(background, "ct2", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.GetUID() != created.GetUID() || unstructured.NestedString(got.Object, "spec", "cronSpec") != "0 * * * *" {
			t.Errorf("got %v", got.Object)
		}
		unstructured.SetNestedField(got.Object, "new-image", "spec", "image")
		updated, err := crontabs.Update(background, got, metav1.UpdateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if updated.GetResourceVersion() == got.GetResourceVersion() {
			t.Error("update kept the resourceVersion")
		}
		if gen, _ := unstructured.Int64(unstructured.NestedField(updated.Object, "metadata", "generation")); gen != 2 {
			t.Errorf("generation after a spec change = %d, want 2", gen)
		}
		// A stale resourceVersion conflicts.
		if _, err := crontabs.Update(background, got, metav1.UpdateOptions{}); err == nil || !strings.Contains(err.Error(), "modified") {
			t.Errorf("stale update: %v", err)
		}
		patched, err := crontabs.Patch(background, "ct2", types.MergePatchType, []byte(`{"spec":{"image":"merged"}}`), metav1.PatchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if unstructured.NestedString(patched.Object, "spec", "image") != "merged" {
			t.Errorf("merge patch: %v", patched.Object)
		}
		patched, err = crontabs.Patch(background, "ct2", types.JSONPatchType, []byte(`[{"op":"replace","path":"/spec/replicas","value":4}]`), metav1.PatchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := unstructured.Int64(unstructured.NestedField(patched.Object, "spec", "replicas")); n != 4 {
			t.Errorf("json patch: %v", patched.Object)
		}
		list, err := crontabs.List(background, metav1.ListOptions{LabelSelector: "tier=two"})
		if err != nil {
			t.Fatal(err)
		}
		if items := list.Items(); len(items) != 1 || items[0].GetName() != "ct2" || list.GetKind() != "CronTabList" {
			t.Errorf("label-selected list: %v", list.Object)
		}
	})

	t.Run("strategic merge patch is unsupported", func(t *testing.T) {
		r := s.expect(http.StatusUnsupportedMediaType, http.MethodPatch, base+"/ct1", `{"spec":{"image":"x"}}`,
			"Content-Type", "application/strategic-merge-patch+json")
		if st := r.object(t); st["reason"] != "UnsupportedMediaType" {
			t.Errorf("status %v", st)
		}
	})

	t.Run("validation", func(t *testing.T) {
		cases := []struct {
			name   string
			spec   map[string]any
			fields []string
		}{
			{"pattern", map[string]any{"cronSpec": "every minute"}, []string{"spec.cronSpec"}},
			{"required", map[string]any{"image": "x"}, []string{"spec.cronSpec"}},
			{"maximum", map[string]any{"cronSpec": "* * * * *", "replicas": 11}, []string{"spec.replicas"}},
			{"type", map[string]any{"cronSpec": "* * * * *", "replicas": "three"}, []string{"spec.replicas"}},
			{"enum", map[string]any{"cronSpec": "* * * * *", "mode": "Medium"}, []string{"spec.mode"}},
			{"maxLength", map[string]any{"cronSpec": "* * * * *", "image": strings.Repeat("x", 65)}, []string{"spec.image"}},
			{"maxItems", map[string]any{"cronSpec": "* * * * *", "tags": []any{"a", "b", "c", "d"}}, []string{"spec.tags"}},
			{"item type", map[string]any{"cronSpec": "* * * * *", "tags": []any{"a", 2}}, []string{"spec.tags[1]"}},
			{"int-or-string", map[string]any{"cronSpec": "* * * * *", "port": true}, []string{"spec.port"}},
			{"not nullable", map[string]any{"cronSpec": "* * * * *", "image": nil, "mode": nil}, nil},
			{"embedded resource", map[string]any{"cronSpec": "* * * * *", "template": map[string]any{"spec": map[string]any{}}}, []string{"spec.template.apiVersion", "spec.template.kind"}},
			{"two errors", map[string]any{"cronSpec": "bad", "replicas": -1}, []string{"spec.cronSpec", "spec.replicas"}},
		}
		for i, c := range cases {
			name := fmt.Sprintf("invalid-%d", i)
			r := s.do(http.MethodPost, base, crontab(group, "v1", name, c.spec))
			if c.fields == nil {
				// A null that is not nullable is dropped, not refused.
				if r.code != http.StatusCreated {
					t.Errorf("%s: got %d: %s", c.name, r.code, r.body)
				}
				got := r.object(t)
				if _, ok := got["spec"].(map[string]any)["image"]; ok {
					t.Errorf("%s: null image kept: %v", c.name, got)
				}
				continue
			}
			if r.code != http.StatusUnprocessableEntity {
				t.Errorf("%s: got %d, want 422: %s", c.name, r.code, r.body)
				continue
			}
			var st metav1.Status
			if err := json.Unmarshal(r.body, &st); err != nil {
				t.Fatal(err)
			}
			var fields []string
			for _, cause := range st.Details.Causes {
				fields = append(fields, cause.Field)
			}
			for _, f := range c.fields {
				if !slices.Contains(fields, f) {
					t.Errorf("%s: causes %v lack %s (%s)", c.name, fields, f, st.Message)
				}
			}
			if st.Reason != metav1.StatusReasonInvalid || st.Details.Kind != "CronTab" || st.Details.Group != group {
				t.Errorf("%s: status %+v", c.name, st)
			}
			// Nothing reached storage.
			s.expect(http.StatusNotFound, http.MethodGet, base+"/"+name, nil)
		}
		// A nullable field keeps its null.
		r := s.expect(http.StatusCreated, http.MethodPost, base, crontab(group, "v1", "nullable", map[string]any{"cronSpec": "* * * * *", "note": nil}))
		if v, ok := r.object(t)["spec"].(map[string]any)["note"]; !ok || v != nil {
			t.Errorf("nullable note: %v", r.object(t))
		}
		// Malformed bodies are 400s.
		s.expect(http.StatusBadRequest, http.MethodPost, base, `{"apiVersion": "stable.example.com/v1", "kind": "CronTab",`)
		s.expect(http.StatusBadRequest, http.MethodPost, base, `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x","labels":{"a":1}},"spec":{"cronSpec":"* * * * *"}}`)
		s.expect(http.StatusBadRequest, http.MethodPost, base, `{"apiVersion":"other.example.com/v1","kind":"CronTab","metadata":{"name":"x"},"spec":{"cronSpec":"* * * * *"}}`)
		// Strict field validation refuses unknown and duplicate fields.
		r = s.expect(http.StatusBadRequest, http.MethodPost, base+"?fieldValidation=Strict",
			`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"strict"},"spec":{"cronSpec":"* * * * *","bogus":1,"image":"a","image":"b"}}`)
		if msg := string(r.body); !strings.Contains(msg, `unknown field \"spec.bogus\"`) || !strings.Contains(msg, `duplicate field \"spec.image\"`) {
			t.Errorf("strict error %s", msg)
		}
		s.expect(http.StatusNotFound, http.MethodGet, base+"/strict", nil)
		// Ignore drops them silently.
		r = s.expect(http.StatusCreated, http.MethodPost, base+"?fieldValidation=Ignore", crontab(group, "v1", "ignored", map[string]any{"cronSpec": "* * * * *", "bogus": 1}))
		if len(r.header.Values("Warning")) != 0 {
			t.Errorf("warnings under Ignore: %v", r.header.Values("Warning"))
		}
		// A patch that breaks the schema is refused too.
		s.expect(http.StatusUnprocessableEntity, http.MethodPatch, base+"/ct1", `{"spec":{"replicas":99}}`, "Content-Type", "application/merge-patch+json")
		// YAML bodies decode like JSON ones.
		yamlBody := "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: from-yaml\nspec:\n  cronSpec: '*/5 * * * *'\n  replicas: 2\n"
		s.expect(http.StatusCreated, http.MethodPost, base, yamlBody, "Content-Type", "application/yaml")
	})

	t.Run("preserved and embedded fields", func(t *testing.T) {
		r := s.expect(http.StatusCreated, http.MethodPost, base, crontab(group, "v1", "preserved", map[string]any{
			"cronSpec": "* * * * *",
			"extra":    map[string]any{"anything": map[string]any{"goes": []any{1, "two"}}},
			"template": map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p", "junk": 1}, "spec": map[string]any{"x": 1}},
		}))
		got := r.object(t)
		if unstructured.NestedField(got, "spec", "extra", "anything", "goes") == nil {
			t.Errorf("x-kubernetes-preserve-unknown-fields dropped data: %v", got)
		}
		if unstructured.NestedField(got, "spec", "template", "metadata", "junk") != nil || unstructured.NestedString(got, "spec", "template", "metadata", "name") != "p" {
			t.Errorf("embedded metadata not pruned to ObjectMeta: %v", got)
		}
	})

	t.Run("versions", func(t *testing.T) {
		beta := "/apis/" + group + "/v1beta1/namespaces/" + ns + "/crontabs"
		r := s.expect(http.StatusOK, http.MethodGet, beta+"/ct1", nil)
		if v := r.object(t)["apiVersion"]; v != group+"/v1beta1" {
			t.Errorf("apiVersion through v1beta1 = %v", v)
		}
		if w := r.header.Get("Warning"); !strings.Contains(w, "v1beta1 CronTabs are deprecated; use v1") {
			t.Errorf("deprecated version warning %q", w)
		}
		if w := s.expect(http.StatusOK, http.MethodGet, base+"/ct1", nil).header.Get("Warning"); w != "" {
			t.Errorf("v1 warns %q", w)
		}
		s.expect(http.StatusCreated, http.MethodPost, beta, crontab(group, "v1beta1", "from-beta", map[string]any{"cronSpec": "1 2 3 4 5"}))
		r = s.expect(http.StatusOK, http.MethodGet, base+"/from-beta", nil)
		if v := r.object(t)["apiVersion"]; v != group+"/v1" {
			t.Errorf("apiVersion through v1 = %v", v)
		}
		r = s.expect(http.StatusOK, http.MethodGet, beta, nil)
		for _, it := range r.object(t)["items"].([]any) {
			if v := it.(map[string]any)["apiVersion"]; v != group+"/v1beta1" {
				t.Errorf("list item through v1beta1 has apiVersion %v", v)
			}
		}
		// Writing through v1beta1 a body of v1 is refused.
		s.expect(http.StatusBadRequest, http.MethodPost, beta, crontab(group, "v1", "mixed", map[string]any{"cronSpec": "1 2 3 4 5"}))
	})

	t.Run("table", func(t *testing.T) {
		r := s.expect(http.StatusOK, http.MethodGet, base+"?labelSelector=app%3Dcron", nil, "Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
		var table metav1.Table
		if err := json.Unmarshal(r.body, &table); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, c := range table.ColumnDefinitions {
			names = append(names, c.Name)
		}
		if strings.Join(names, ",") != "Name,Spec,Replicas,Age" {
			t.Errorf("columns %v", names)
		}
		if len(table.Rows) != 2 {
			t.Fatalf("rows %v", table.Rows)
		}
		row := table.Rows[0].Cells
		if row[0] != "ct1" || row[1] != "* * * * */5" || row[2] != float64(1) || !strings.HasSuffix(fmt.Sprint(row[3]), "s") {
			t.Errorf("row %v", row)
		}
	})

	t.Run("status subresource", func(t *testing.T) {
		cur := s.expect(http.StatusOK, http.MethodGet, base+"/ct1", nil).object(t)
		// The main resource ignores status.
		cur["status"] = map[string]any{"replicas": 7}
		got := s.expect(http.StatusOK, http.MethodPut, base+"/ct1", cur).object(t)
		if got["status"] != nil {
			t.Errorf("status written through the main resource: %v", got["status"])
		}
		// /status ignores everything but status.
		got["status"] = map[string]any{"replicas": 2, "labelSelector": "app=cron"}
		got["spec"].(map[string]any)["image"] = "through-status"
		got["metadata"].(map[string]any)["labels"] = map[string]any{"changed": "yes"}
		st := s.expect(http.StatusOK, http.MethodPut, base+"/ct1/status", got).object(t)
		if n, _ := unstructured.Int64(unstructured.NestedField(st, "status", "replicas")); n != 2 {
			t.Errorf("status not written: %v", st)
		}
		if unstructured.NestedString(st, "spec", "image") != "my-cron" || unstructured.NestedString(st, "metadata", "labels", "app") != "cron" {
			t.Errorf("status update changed more than status: %v", st)
		}
		// Status is validated.
		s.expect(http.StatusUnprocessableEntity, http.MethodPatch, base+"/ct1/status", `{"status":{"replicas":"many"}}`, "Content-Type", "application/merge-patch+json")
	})

	t.Run("scale subresource", func(t *testing.T) {
		r := s.expect(http.StatusOK, http.MethodGet, base+"/ct1/scale", nil)
		var scale struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Spec       struct {
				Replicas int32 `json:"replicas"`
			} `json:"spec"`
			Status struct {
				Replicas int32  `json:"replicas"`
				Selector string `json:"selector"`
			} `json:"status"`
		}
		if err := json.Unmarshal(r.body, &scale); err != nil {
			t.Fatal(err)
		}
		if scale.Kind != "Scale" || scale.APIVersion != "autoscaling/v1" || scale.Spec.Replicas != 1 || scale.Status.Replicas != 2 || scale.Status.Selector != "app=cron" {
			t.Errorf("scale %s", r.body)
		}
		// What kubectl scale sends: a merge patch of the Scale.
		s.expect(http.StatusOK, http.MethodPatch, base+"/ct1/scale", `{"spec":{"replicas":5}}`, "Content-Type", "application/merge-patch+json")
		got := s.expect(http.StatusOK, http.MethodGet, base+"/ct1", nil).object(t)
		if n, _ := unstructured.Int64(unstructured.NestedField(got, "spec", "replicas")); n != 5 {
			t.Errorf("spec.replicas after scale = %v", unstructured.NestedField(got, "spec", "replicas"))
		}
		// A PUT of the Scale with a stale resourceVersion conflicts.
		stale := fmt.Sprintf(`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"ct1","namespace":%q,"resourceVersion":"1"},"spec":{"replicas":2}}`, ns)
		s.expect(http.StatusConflict, http.MethodPut, base+"/ct1/scale", stale)
		s.expect(http.StatusUnprocessableEntity, http.MethodPatch, base+"/ct1/scale", `{"spec":{"replicas":-1}}`, "Content-Type", "application/merge-patch+json")
	})

	t.Run("selectors and pages", func(t *testing.T) {
		r := s.expect(http.StatusOK, http.MethodGet, base+"?fieldSelector=metadata.name%3Dct2", nil)
		if items := r.object(t)["items"].([]any); len(items) != 1 {
			t.Errorf("field-selected items: %d", len(items))
		}
		s.expect(http.StatusBadRequest, http.MethodGet, base+"?fieldSelector=spec.image%3Dx", nil)
		var seen []string
		cont := ""
		for {
			r := s.expect(http.StatusOK, http.MethodGet, base+"?limit=2&continue="+cont, nil)
			obj := r.object(t)
			for _, it := range obj["items"].([]any) {
				seen = append(seen, unstructured.NestedString(it.(map[string]any), "metadata", "name"))
			}
			if cont = unstructured.NestedString(obj, "metadata", "continue"); cont == "" {
				break
			}
		}
		all := s.expect(http.StatusOK, http.MethodGet, base, nil).object(t)["items"].([]any)
		if len(seen) != len(all) || len(seen) < 5 {
			t.Errorf("pages gave %v, the list has %d", seen, len(all))
		}
		// Across namespaces too.
		s.expect(http.StatusOK, http.MethodGet, "/apis/"+group+"/v1/crontabs", nil)
	})

	t.Run("protobuf is not offered", func(t *testing.T) {
		r := s.expect(http.StatusOK, http.MethodGet, base+"/ct1", nil, "Accept", "application/vnd.kubernetes.protobuf, application/json")
		if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			t.Errorf("content type %s", ct)
		}
		s.expect(http.StatusNotAcceptable, http.MethodGet, base+"/ct1", nil, "Accept", "application/vnd.kubernetes.protobuf")
	})

	t.Run("delete and watch", func(t *testing.T) {
		if _, err := crontabs.Delete(background, "ct2", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		want := map[watch.EventType]bool{}
		timeout := time.After(10 * time.Second)
		for !(want[watch.Added] && want[watch.Modified] && want[watch.Deleted]) {
			select {
			case ev, ok := <-w.ResultChan():
				if !ok {
					t.Fatal("watch closed")
				}
				u, isU := ev.Object.(*unstructured.Unstructured)
				if !isU || u.GetKind() != "CronTab" {
					t.Fatalf("event object %#v", ev.Object)
				}
				if u.GetName() == "ct2" {
					want[ev.Type] = true
				}
			case <-timeout:
				t.Fatalf("events seen for ct2: %v", want)
			}
		}
		s.expect(http.StatusNotFound, http.MethodGet, base+"/ct2", nil)
	})
}
