package apiextensions

import (
	"testing"
	"time"

	k8smetav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sunstructured "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	k8swatch "k8s.io/apimachinery/pkg/watch"
	k8sdynamic "k8s.io/client-go/dynamic"
	k8sclientcmd "k8s.io/client-go/tools/clientcmd"
)

// TestClientGoDynamicClient: the stock client-go dynamic client creates,
// lists, watches, patches and deletes custom objects.
func TestClientGoDynamicClient(t *testing.T) {
	s := startServer(t)
	const group = "clientgo.example.com"
	s.createCRD(crontabCRD(group))
	ns := s.CreateNamespace(t, "clientgo")
	rc, err := k8sclientcmd.BuildConfigFromFlags("", s.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := k8sdynamic.NewForConfig(rc)
	if err != nil {
		t.Fatal(err)
	}
	crontabs := dyn.Resource(k8sschema.GroupVersionResource{Group: group, Version: "v1", Resource: "crontabs"}).Namespace(ns)
	w, err := crontabs.Watch(background, k8smetav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	obj := &k8sunstructured.Unstructured{Object: crontab(group, "v1", "ct", map[string]any{"cronSpec": "* * * * */5", "image": "my-cron"})}
	created, err := crontabs.Create(background, obj, k8smetav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if replicas, _, _ := k8sunstructured.NestedInt64(created.Object, "spec", "replicas"); replicas != 1 || created.GetUID() == "" {
		t.Errorf("created %v: want the defaulted replicas and a uid", created.Object)
	}
	patched, err := crontabs.Patch(background, "ct", "application/merge-patch+json", []byte(`{"spec":{"image":"other"}}`), k8smetav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if image, _, _ := k8sunstructured.NestedString(patched.Object, "spec", "image"); image != "other" {
		t.Errorf("patched image %q", image)
	}
	list, err := crontabs.List(background, k8smetav1.ListOptions{})
	if err != nil || len(list.Items) != 1 || list.Items[0].GetResourceVersion() != patched.GetResourceVersion() {
		t.Fatalf("list: %v %+v", err, list)
	}
	if err := crontabs.Delete(background, "ct", k8smetav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	var seen []k8swatch.EventType
	timeout := time.After(10 * time.Second)
	for len(seen) < 3 {
		select {
		case ev := <-w.ResultChan():
			seen = append(seen, ev.Type)
		case <-timeout:
			t.Fatalf("watch saw %v, want ADDED MODIFIED DELETED", seen)
		}
	}
	if seen[0] != k8swatch.Added || seen[1] != k8swatch.Modified || seen[2] != k8swatch.Deleted {
		t.Errorf("watch saw %v, want ADDED MODIFIED DELETED", seen)
	}
}
