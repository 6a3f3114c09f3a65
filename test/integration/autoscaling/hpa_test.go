package autoscaling

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	autoscalingv1 "kubecore.io/api/autoscaling/v1"
	autoscalingv2 "kubecore.io/api/autoscaling/v2"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/test/integration/framework"
)

// TestHorizontalPodAutoscalerV1V2RoundTrip: an autoscaler created as v1
// reads as v2 with a CPU utilization metric and back; a v2 memory metric
// and behavior survive a v1 update of the CPU target; a v1 autoscaler
// without a target gets v2's default of 80%; bad input in either version
// is refused with v2's field paths and nothing is stored.
func TestHorizontalPodAutoscalerV1V2RoundTrip(t *testing.T) {
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	ns := s.CreateNamespace(t, "hpa")
	c := s.HTTPClient(t)
	v1Path := s.URL + "/apis/autoscaling/v1/namespaces/" + ns + "/horizontalpodautoscalers"
	v2Path := s.URL + "/apis/autoscaling/v2/namespaces/" + ns + "/horizontalpodautoscalers"

	do := func(method, url, contentType string, body any, want int, out any) {
		t.Helper()
		call(t, c, method, url, contentType, body, want, out)
	}
	ref := map[string]any{"kind": "Deployment", "name": "web", "apiVersion": "apps/v1"}

	var created autoscalingv1.HorizontalPodAutoscaler
	do("POST", v1Path, "application/json", map[string]any{
		"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": map[string]any{"name": "web"},
		"spec": map[string]any{"scaleTargetRef": ref, "maxReplicas": 3, "targetCPUUtilizationPercentage": 50},
	}, http.StatusCreated, &created)
	if created.APIVersion != "autoscaling/v1" || *created.Spec.MinReplicas != 1 || *created.Spec.TargetCPUUtilizationPercentage != 50 {
		t.Fatalf("created v1: %+v", created)
	}
	var v2 autoscalingv2.HorizontalPodAutoscaler
	do("GET", v2Path+"/web", "", nil, http.StatusOK, &v2)
	if len(v2.Spec.Metrics) != 1 || v2.Spec.Metrics[0].Resource == nil || v2.Spec.Metrics[0].Resource.Name != "cpu" ||
		*v2.Spec.Metrics[0].Resource.Target.AverageUtilization != 50 || v2.Spec.MaxReplicas != 3 {
		t.Fatalf("v1 object read as v2: %+v", v2.Spec)
	}

	// A v2 client adds a memory metric and a behavior.
	do("PATCH", v2Path+"/web", "application/merge-patch+json", map[string]any{"spec": map[string]any{
		"metrics": []any{
			map[string]any{"type": "Resource", "resource": map[string]any{"name": "cpu", "target": map[string]any{"type": "Utilization", "averageUtilization": 50}}},
			map[string]any{"type": "Resource", "resource": map[string]any{"name": "memory", "target": map[string]any{"type": "AverageValue", "averageValue": "500Mi"}}},
		},
		"behavior": map[string]any{"scaleDown": map[string]any{"stabilizationWindowSeconds": 60}},
	}}, http.StatusOK, nil)
	// A v1 client changes the CPU target.
	var patched autoscalingv1.HorizontalPodAutoscaler
	do("PATCH", v1Path+"/web", "application/merge-patch+json", map[string]any{"spec": map[string]any{"targetCPUUtilizationPercentage": 70}}, http.StatusOK, &patched)
	if *patched.Spec.TargetCPUUtilizationPercentage != 70 {
		t.Fatalf("v1 patch answered %+v", patched.Spec)
	}
	do("GET", v2Path+"/web", "", nil, http.StatusOK, &v2)
	if len(v2.Spec.Metrics) != 2 || *v2.Spec.Metrics[0].Resource.Target.AverageUtilization != 70 || v2.Spec.Metrics[1].Resource.Name != "memory" ||
		v2.Spec.Behavior == nil || *v2.Spec.Behavior.ScaleDown.StabilizationWindowSeconds != 60 || len(v2.Spec.Behavior.ScaleUp.Policies) != 2 {
		t.Fatalf("after a v1 update, v2 reads %+v", v2.Spec)
	}
	if v2.Generation != 3 {
		t.Errorf("generation %d after two spec changes, want 3", v2.Generation)
	}
	// A v1 list (served from the v2 watch cache) converts every item, and
	// never carries v2's shared encodings.
	var v1List autoscalingv1.HorizontalPodAutoscalerList
	do("GET", v1Path, "", nil, http.StatusOK, &v1List)
	if v1List.Kind != "HorizontalPodAutoscalerList" || v1List.APIVersion != "autoscaling/v1" || len(v1List.Items) != 1 ||
		v1List.Items[0].Spec.TargetCPUUtilizationPercentage == nil || *v1List.Items[0].Spec.TargetCPUUtilizationPercentage != 70 {
		t.Fatalf("v1 list: %+v", v1List)
	}

	// Lists and status in v1.
	var list autoscalingv1.HorizontalPodAutoscalerList
	do("GET", v1Path, "", nil, http.StatusOK, &list)
	if list.APIVersion != "autoscaling/v1" || len(list.Items) != 1 || *list.Items[0].Spec.TargetCPUUtilizationPercentage != 70 {
		t.Fatalf("v1 list: %+v", list)
	}
	do("PATCH", v1Path+"/web/status", "application/merge-patch+json", map[string]any{"status": map[string]any{"currentReplicas": 2, "desiredReplicas": 3, "currentCPUUtilizationPercentage": 90}}, http.StatusOK, nil)
	do("GET", v2Path+"/web", "", nil, http.StatusOK, &v2)
	if v2.Status.DesiredReplicas != 3 || len(v2.Status.CurrentMetrics) != 1 || *v2.Status.CurrentMetrics[0].Resource.Current.AverageUtilization != 90 {
		t.Fatalf("v1 status write read as v2: %+v", v2.Status)
	}

	// No target in v1: v2's default metric.
	var def autoscalingv1.HorizontalPodAutoscaler
	do("POST", v1Path, "application/json", map[string]any{
		"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": map[string]any{"name": "default"},
		"spec": map[string]any{"scaleTargetRef": ref, "maxReplicas": 2},
	}, http.StatusCreated, &def)
	if def.Spec.TargetCPUUtilizationPercentage == nil || *def.Spec.TargetCPUUtilizationPercentage != 80 {
		t.Fatalf("v1 without a target: %+v", def.Spec)
	}

	// Bad input, in both versions.
	for _, tc := range []struct {
		url  string
		body map[string]any
		want string
	}{
		{v1Path, map[string]any{"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": map[string]any{"name": "bad1"},
			"spec": map[string]any{"scaleTargetRef": ref, "minReplicas": 5, "maxReplicas": 2, "targetCPUUtilizationPercentage": 0}},
			`HorizontalPodAutoscaler.autoscaling "bad1" is invalid: [spec.maxReplicas: Invalid value: 2: must be greater than or equal to ` + "`minReplicas`" + `, spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0]`},
		{v2Path, map[string]any{"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": map[string]any{"name": "bad2"},
			"spec": map[string]any{"scaleTargetRef": map[string]any{"name": "web"}, "maxReplicas": 2, "metrics": []any{map[string]any{"type": "Pods"}}}},
			`HorizontalPodAutoscaler.autoscaling "bad2" is invalid: [spec.scaleTargetRef.kind: Required value, spec.metrics[0].pods: Required value: must populate information for the given metric source]`},
	} {
		var st metav1.Status
		do("POST", tc.url, "application/json", tc.body, http.StatusUnprocessableEntity, &st)
		if st.Reason != metav1.StatusReasonInvalid || st.Message != tc.want {
			t.Errorf("POST %s: %s %q\nwant %q", tc.url, st.Reason, st.Message, tc.want)
		}
		do("GET", v2Path+"/"+tc.body["metadata"].(map[string]any)["name"].(string), "", nil, http.StatusNotFound, nil)
	}
}

// call sends body (JSON) to url and fails unless the answer has the code
// want; the answer is decoded into out when set, and returned.
func call(t *testing.T, c *http.Client, method, url, contentType string, body any, want int, out any) []byte {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("%s %s: %d %s, want %d", method, url, resp.StatusCode, data, want)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s %s: %v: %s", method, url, err, data)
		}
	}
	return data
}
