package apiserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/test/integration/framework"
)

// TestRuntimeClassAdmission: a pod naming a RuntimeClass gets the class's
// overhead and node selector at create; one naming a class that does not
// exist, or stating an overhead of its own, is Forbidden and not stored.
func TestRuntimeClassAdmission(t *testing.T) {
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	c := s.HTTPClient(t)
	ns := s.CreateNamespace(t, "runtimeclass")
	const class = `{"apiVersion":"node.k8s.io/v1","kind":"RuntimeClass","metadata":{"name":"heavy"},"handler":"kata",
		"overhead":{"podFixed":{"cpu":"10m","memory":"1Mi"}},"scheduling":{"nodeSelector":{"sandbox":"kata"}}}`
	if r := do(t, c, s, request{method: http.MethodPost, path: "/apis/node.k8s.io/v1/runtimeclasses", contentType: "application/json", body: strings.NewReader(class)}); r.code != http.StatusCreated {
		t.Fatalf("create RuntimeClass: %d %s", r.code, r.body)
	}
	pods := "/api/v1/namespaces/" + ns + "/pods"
	pod := func(name, extra string) request {
		return request{method: http.MethodPost, path: pods, contentType: "application/json", body: strings.NewReader(
			`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + name + `"},"spec":{` + extra + `"containers":[{"name":"c","image":"pause"}]}}`)}
	}

	r := do(t, c, s, pod("a", `"runtimeClassName":"heavy",`))
	if r.code != http.StatusCreated {
		t.Fatalf("create pod of heavy: %d %s", r.code, r.body)
	}
	var got corev1.Pod
	if err := json.Unmarshal(r.body, &got); err != nil {
		t.Fatal(err)
	}
	if cpu, mem := got.Spec.Overhead[corev1.ResourceCPU], got.Spec.Overhead[corev1.ResourceMemory]; cpu.String() != "10m" || mem.String() != "1Mi" || got.Spec.NodeSelector["sandbox"] != "kata" {
		t.Errorf("pod of heavy: overhead %v, node selector %v", got.Spec.Overhead, got.Spec.NodeSelector)
	}

	for _, tc := range []struct{ name, extra, msg string }{
		{"missing", `"runtimeClassName":"gone",`, `pod rejected: RuntimeClass "gone" not found`},
		{"own-overhead", `"overhead":{"cpu":"1"},`, "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead"},
	} {
		r := do(t, c, s, pod(tc.name, tc.extra))
		if st := r.status(t); r.code != http.StatusForbidden || st.Reason != metav1.StatusReasonForbidden || !strings.Contains(st.Message, tc.msg) {
			t.Errorf("%s: %d %s %q, want 403 Forbidden with %q", tc.name, r.code, st.Reason, st.Message, tc.msg)
		}
		if r := do(t, c, s, request{method: http.MethodGet, path: pods + "/" + tc.name}); r.code != http.StatusNotFound {
			t.Errorf("%s: refused pod is stored: %d", tc.name, r.code)
		}
	}
}
