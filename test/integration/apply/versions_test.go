package apply

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/test/integration/framework"
)

// servedResource is one resource of discovery that takes PATCH.
type servedResource struct {
	gv         string // the group version the resource is served at
	apiVersion string // the apiVersion of its objects (a subresource's may differ)
	name       string // "deployments", "deployments/status"
	kind       string
	namespaced bool
}

// patchableResources walks discovery: every served version of every group
// (not only the preferred one), every resource and subresource with the
// patch verb.
func patchableResources(t *testing.T, c *client) []servedResource {
	t.Helper()
	gvs := []string{"v1"}
	var groups metav1.APIGroupList
	if err := json.Unmarshal(c.do(http.MethodGet, "/apis", "", "").expect(t, http.StatusOK).body, &groups); err != nil {
		t.Fatal(err)
	}
	for _, g := range groups.Groups {
		for _, v := range g.Versions {
			gvs = append(gvs, v.GroupVersion)
		}
	}
	var out []servedResource
	for _, gv := range gvs {
		path := "/apis/" + gv
		if gv == "v1" {
			path = "/api/v1"
		}
		var list metav1.APIResourceList
		if err := json.Unmarshal(c.do(http.MethodGet, path, "", "").expect(t, http.StatusOK).body, &list); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, r := range list.APIResources {
			if !containsString(r.Verbs, "patch") {
				continue
			}
			apiVersion := gv
			if r.Version != "" {
				apiVersion = r.Version
				if r.Group != "" {
					apiVersion = r.Group + "/" + r.Version
				}
			}
			out = append(out, servedResource{gv: gv, apiVersion: apiVersion, name: r.Name, kind: r.Kind, namespaced: r.Namespaced})
		}
	}
	return out
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestApplyEveryServedResource: every resource and subresource discovery
// lists with the patch verb, in every served version, takes an apply
// patch: none answers 415 (autoscaling/v1 autoscalers and events.k8s.io
// events, served by converting views of another version's storage, did).
// An apply of a bare object (a name only) to a main resource creates it
// (201) or is refused by the resource's validation (422), which proves
// the configuration reached the storage; at a subresource it finds the
// object missing (404) or, where the main resource's apply created it,
// applies (200).
func TestApplyEveryServedResource(t *testing.T) {
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	c := newClient(t, s)
	ns := s.CreateNamespace(t, "apply-walk")

	resources := patchableResources(t, c)
	gvs := map[string]bool{}
	for _, r := range resources {
		gvs[r.gv] = true
	}
	for _, want := range []string{"v1", "apps/v1", "autoscaling/v1", "autoscaling/v2", "events.k8s.io/v1", "batch/v1", "certificates.k8s.io/v1"} {
		if !gvs[want] {
			t.Errorf("discovery lists no patchable resource of %s", want)
		}
	}
	counts := map[int]int{}
	for i, r := range resources {
		main, sub, _ := strings.Cut(r.name, "/")
		if sub == "proxy" {
			// A proxy passes the request on to the node, pod or service.
			continue
		}
		name := fmt.Sprintf("walk-%d", i)
		if sub != "" {
			// The object the main resource's row created, if it did.
			name = ""
			for j, prev := range resources[:i] {
				if prev.gv == r.gv && prev.name == main {
					name = fmt.Sprintf("walk-%d", j)
				}
			}
		}
		base := "/apis/" + r.gv
		if r.gv == "v1" {
			base = "/api/v1"
		}
		if r.namespaced {
			base += "/namespaces/" + ns
		}
		path := base + "/" + main + "/" + name
		if sub != "" {
			path += "/" + sub
		}
		cfg := fmt.Sprintf("apiVersion: %s\nkind: %s\nmetadata:\n  name: %s\n", r.apiVersion, r.kind, name)
		resp := c.apply(path, "fieldManager=walk", cfg)
		counts[resp.code]++
		allowed := []int{http.StatusCreated, http.StatusUnprocessableEntity}
		if sub != "" {
			allowed = []int{http.StatusOK, http.StatusNotFound, http.StatusUnprocessableEntity}
		}
		ok := false
		for _, code := range allowed {
			ok = ok || resp.code == code
		}
		if !ok {
			t.Errorf("%s %s (%s): apply answered %d, want one of %v: %s", r.gv, r.name, r.kind, resp.code, allowed, resp.body)
			continue
		}
		if resp.code == http.StatusCreated || resp.code == http.StatusOK {
			if obj := resp.object(t); obj["apiVersion"] != r.apiVersion || obj["kind"] != r.kind {
				t.Errorf("%s %s: apply answered a %v %v, want a %s %s", r.gv, r.name, obj["apiVersion"], obj["kind"], r.apiVersion, r.kind)
			}
		}
	}
	codes := make([]int, 0, len(counts))
	for code := range counts {
		codes = append(codes, code)
	}
	sort.Ints(codes)
	for _, code := range codes {
		t.Logf("%d resources answered %d", counts[code], code)
	}
}

// TestApplyConvertedVersions: kinds served by converting another
// version's (or group's) stored objects take server-side apply by their
// own schema, with their apiVersion in managedFields: create on apply, a
// conflict between two managers, force, and the stored object read back
// through the storage version.
func TestApplyConvertedVersions(t *testing.T) {
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	c := newClient(t, s)
	ns := s.CreateNamespace(t, "apply-conv")

	for _, tc := range []struct {
		name       string
		path       string // the object at the converting view
		apiVersion string
		cfg        func(value string) string
		field      string   // the field cfg sets to value, as a conflict names it
		valuePath  []any    // where the value is in the view's object
		stored     string   // the object at the storage version
		storedPath []any    // where the value is in the stored object
		status     string   // an apply configuration of the status, "" if none
		statusPath []any    // where it lands in the view's object
		statusWant any      //
		owns       []string // fieldsV1 fragments a's entry holds
	}{{
		name:       "autoscaling/v1 HorizontalPodAutoscaler",
		path:       "/apis/autoscaling/v1/namespaces/" + ns + "/horizontalpodautoscalers/web",
		apiVersion: "autoscaling/v1",
		cfg: func(v string) string {
			return "apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\nspec:\n" +
				"  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  minReplicas: 1\n  maxReplicas: " + v +
				"\n  targetCPUUtilizationPercentage: 60\n"
		},
		field:      ".spec.maxReplicas",
		valuePath:  []any{"spec", "maxReplicas"},
		stored:     "/apis/autoscaling/v2/namespaces/" + ns + "/horizontalpodautoscalers/web",
		storedPath: []any{"spec", "maxReplicas"},
		status:     "apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\nstatus:\n  currentReplicas: 3\n  desiredReplicas: 4\n",
		statusPath: []any{"status", "desiredReplicas"},
		statusWant: float64(4),
		owns:       []string{`"f:targetCPUUtilizationPercentage"`, `"f:scaleTargetRef"`},
	}, {
		name:       "events.k8s.io/v1 Event",
		path:       "/apis/events.k8s.io/v1/namespaces/" + ns + "/events/web.1",
		apiVersion: "events.k8s.io/v1",
		cfg: func(v string) string {
			return "apiVersion: events.k8s.io/v1\nkind: Event\nmetadata:\n  name: web.1\n" +
				"eventTime: \"2026-11-28T04:00:00.000000Z\"\nreportingController: example.com/scaler\nreportingInstance: scaler-1\n" +
				"action: Scale\nreason: Scaled\ntype: Normal\nnote: scaled up\n" +
				"regarding: {apiVersion: apps/v1, kind: Deployment, name: web, namespace: " + ns + "}\n" +
				"series:\n  count: " + v + "\n  lastObservedTime: \"2026-11-28T04:01:00.000000Z\"\n"
		},
		field:      ".series.count",
		valuePath:  []any{"series", "count"},
		stored:     "/api/v1/namespaces/" + ns + "/events/web.1",
		storedPath: []any{"series", "count"},
		owns:       []string{`"f:reportingController"`, `"f:regarding"`},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			// Dry run stores nothing.
			c.apply(tc.path, "fieldManager=a&dryRun=All", tc.cfg("5")).expect(t, http.StatusCreated)
			c.do(http.MethodGet, tc.path, "", "").expect(t, http.StatusNotFound)

			obj := c.apply(tc.path, "fieldManager=a", tc.cfg("5")).expect(t, http.StatusCreated).object(t)
			if obj["apiVersion"] != tc.apiVersion {
				t.Errorf("answer's apiVersion = %v, want %s", obj["apiVersion"], tc.apiVersion)
			}
			a := managers(obj)["a/Apply"]
			if a == nil || a["apiVersion"] != tc.apiVersion || !owns(a, tc.owns...) {
				t.Fatalf("a's entry = %v (all: %v)", a, managers(obj))
			}
			if len(managers(obj)) != 1 {
				t.Errorf("an apply recorded more than its own entry: %v", managers(obj))
			}
			// The same configuration again changes nothing.
			again := c.apply(tc.path, "fieldManager=a", tc.cfg("5")).expect(t, http.StatusOK).object(t)
			if get(again, "metadata", "resourceVersion") != get(obj, "metadata", "resourceVersion") {
				t.Errorf("an unchanged apply wrote the object: resourceVersion %v, then %v", get(obj, "metadata", "resourceVersion"), get(again, "metadata", "resourceVersion"))
			}

			// b sets a's field to another value: a conflict naming both.
			st := c.apply(tc.path, "fieldManager=b", tc.cfg("7")).expect(t, http.StatusConflict).status(t)
			if !strings.Contains(st.Message, `conflict with "a"`) || !strings.Contains(st.Message, tc.field) {
				t.Errorf("conflict message = %q, want it to name a and %s", st.Message, tc.field)
			}
			obj = c.apply(tc.path, "fieldManager=b&force=true", tc.cfg("7")).expect(t, http.StatusOK).object(t)
			if v := fmt.Sprint(get(obj, tc.valuePath...)); v != "7" {
				t.Errorf("after force %v = %s, want 7", tc.valuePath, v)
			}
			b := managers(obj)["b/Apply"]
			if b == nil || b["apiVersion"] != tc.apiVersion || !owns(b, `"f:`+tc.valuePath[len(tc.valuePath)-1].(string)+`"`) {
				t.Errorf("b's entry after force = %v", b)
			}
			if a := managers(obj)["a/Apply"]; a == nil || owns(a, `"f:`+tc.valuePath[len(tc.valuePath)-1].(string)+`"`) {
				t.Errorf("a's entry after b forced its field = %v", a)
			}

			// The storage version holds the applied value and the entries.
			stored := c.do(http.MethodGet, tc.stored, "", "").expect(t, http.StatusOK).object(t)
			if v := fmt.Sprint(get(stored, tc.storedPath...)); v != "7" {
				t.Errorf("stored %v = %s, want 7", tc.storedPath, v)
			}
			if m := managers(stored); m["a/Apply"] == nil || m["b/Apply"] == nil {
				t.Errorf("stored managedFields = %v", m)
			}

			if tc.status == "" {
				return
			}
			obj = c.apply(tc.path+"/status", "fieldManager=ctl", tc.status).expect(t, http.StatusOK).object(t)
			if got := get(obj, tc.statusPath...); got != tc.statusWant {
				t.Errorf("after the status apply %v = %v, want %v", tc.statusPath, got, tc.statusWant)
			}
			e := managers(obj)["ctl/Apply/status"]
			if e == nil || e["apiVersion"] != tc.apiVersion || !owns(e, `"f:status"`) {
				t.Errorf("status entry = %v (all: %v)", e, managers(obj))
			}
			if v := fmt.Sprint(get(obj, tc.valuePath...)); v != "7" {
				t.Errorf("the status apply changed %v to %s", tc.valuePath, v)
			}
		})
	}
}
