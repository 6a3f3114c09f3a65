package autoscaling

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	autoscalingv1 "kubecore.io/api/autoscaling/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/test/integration/framework"
)

// TestHorizontalPodAutoscalerV1Verbs: the autoscaling/v1 view answers every
// verb in v1: a watch's events, a Table's rows (with their objects in v1,
// not the stored v2), a dry-run create that stores nothing, field
// selectors, a delete and a delete of the collection, and a 404 that names
// the resource.
func TestHorizontalPodAutoscalerV1Verbs(t *testing.T) {
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	ns := s.CreateNamespace(t, "hpaview")
	c := s.HTTPClient(t)
	v1Path := s.URL + "/apis/autoscaling/v1/namespaces/" + ns + "/horizontalpodautoscalers"
	hpa := func(name string) map[string]any {
		return map[string]any{"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": map[string]any{"name": name},
			"spec": map[string]any{"scaleTargetRef": map[string]any{"kind": "Deployment", "name": "web", "apiVersion": "apps/v1"}, "maxReplicas": 3, "targetCPUUtilizationPercentage": 60}}
	}

	var first autoscalingv1.HorizontalPodAutoscaler
	call(t, c, "POST", v1Path, "application/json", hpa("a"), http.StatusCreated, &first)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", v1Path+"?watch=1&resourceVersion="+first.ResourceVersion, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()

	call(t, c, "POST", v1Path+"?dryRun=All", "application/json", hpa("dry"), http.StatusCreated, nil)
	call(t, c, "GET", v1Path+"/dry", "", nil, http.StatusNotFound, nil)
	call(t, c, "POST", v1Path, "application/json", hpa("b"), http.StatusCreated, nil)

	var ev struct {
		Type   string                                `json:"type"`
		Object autoscalingv1.HorizontalPodAutoscaler `json:"object"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&ev); err != nil {
		t.Fatal(err)
	}
	if ev.Type != "ADDED" || ev.Object.Name != "b" || ev.Object.APIVersion != "autoscaling/v1" ||
		ev.Object.Spec.TargetCPUUtilizationPercentage == nil || *ev.Object.Spec.TargetCPUUtilizationPercentage != 60 {
		t.Errorf("v1 watch event %s %+v", ev.Type, ev.Object)
	}

	treq, err := http.NewRequest("GET", v1Path+"?includeObject=Object", nil)
	if err != nil {
		t.Fatal(err)
	}
	treq.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	tresp, err := c.Do(treq)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(tresp.Body)
	tresp.Body.Close()
	var table metav1.Table
	if err := json.Unmarshal(data, &table); err != nil || tresp.StatusCode != http.StatusOK {
		t.Fatalf("v1 table: %d %v %s", tresp.StatusCode, err, data)
	}
	if len(table.Rows) != 2 || len(table.ColumnDefinitions) == 0 || table.ColumnDefinitions[0].Name != "Name" {
		t.Fatalf("v1 table %s", data)
	}
	for _, row := range table.Rows {
		var obj autoscalingv1.HorizontalPodAutoscaler
		if err := json.Unmarshal(row.Object, &obj); err != nil || obj.APIVersion != "autoscaling/v1" || obj.Spec.TargetCPUUtilizationPercentage == nil {
			t.Errorf("v1 table row object %s: want the v1 object", row.Object)
		}
		if !strings.Contains(string(mustJSON(t, row.Cells)), "60%") {
			t.Errorf("v1 table row %v: want the CPU target", row.Cells)
		}
	}

	var list autoscalingv1.HorizontalPodAutoscalerList
	call(t, c, "GET", v1Path+"?fieldSelector=metadata.name%3Db", "", nil, http.StatusOK, &list)
	if len(list.Items) != 1 || list.Items[0].Name != "b" {
		t.Errorf("v1 list by name: %+v", list.Items)
	}
	var deleted metav1.Status
	call(t, c, "DELETE", v1Path+"/b", "", nil, http.StatusOK, &deleted)
	if deleted.Status != metav1.StatusSuccess || deleted.Details == nil || deleted.Details.Name != "b" || deleted.Details.Group != "autoscaling" {
		t.Errorf("v1 delete answered %+v", deleted)
	}
	call(t, c, "DELETE", v1Path, "", nil, http.StatusOK, &list)
	if list.APIVersion != "autoscaling/v1" || len(list.Items) != 1 || list.Items[0].Name != "a" {
		t.Errorf("v1 delete of the collection answered %+v", list)
	}
	var st metav1.Status
	call(t, c, "GET", v1Path+"/a", "", nil, http.StatusNotFound, &st)
	if st.Message != `horizontalpodautoscalers.autoscaling "a" not found` || st.Details == nil || st.Details.Group != "autoscaling" {
		t.Errorf("v1 404: %+v", st)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
