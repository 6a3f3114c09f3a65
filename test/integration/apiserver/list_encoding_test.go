package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/test/integration/framework"
)

// TestCachedListBytesMatchEncodedList checks the fast path of LIST: a
// JSON list the watch cache serves is written from its items' shared
// encodings; it must be byte for byte what encoding the list gives, which
// is how a list read from etcd is written.
func TestCachedListBytesMatchEncodedList(t *testing.T) {
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	cs := s.Clientset(t)
	c := s.HTTPClient(t)
	ctx := context.Background()
	ns := s.CreateNamespace(t, "listbytes")
	other := s.CreateNamespace(t, "listbytes-other")
	for i := range 25 {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p-%02d", i), Labels: map[string]string{"n": fmt.Sprint(i % 3)}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox", Command: []string{"sh", "-c", "sleep 1"}}}}}
		if _, err := cs.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, query := range []string{"", "&labelSelector=n%3D1", "&fieldSelector=metadata.name%3Dp-07", "&labelSelector=n%3Dnone"} {
		path := "/api/v1/namespaces/" + ns + "/pods?resourceVersion=0" + query
		var cached response
		var list struct {
			Metadata metav1.ListMeta `json:"metadata"`
		}
		// Wait until the cache has every pod (the first query lists 25).
		deadline := time.Now().Add(10 * time.Second)
		for {
			cached = do(t, c, s, request{method: "GET", path: path})
			if cached.code != 200 {
				t.Fatalf("GET %s: %d %s", path, cached.code, cached.body)
			}
			if err := json.Unmarshal(cached.body, &list); err != nil {
				t.Fatal(err)
			}
			if query != "" || bytes.Count(cached.body, []byte(`"name":"p-`)) == 25 || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		// A write elsewhere moves the cache on; an exact read at the
		// cached list's revision then comes from etcd and is encoded.
		if _, err := cs.CoreV1().ConfigMaps(other).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "bump-"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		exact := "/api/v1/namespaces/" + ns + "/pods?resourceVersionMatch=Exact&resourceVersion=" + list.Metadata.ResourceVersion + query
		encoded := do(t, c, s, request{method: "GET", path: exact})
		if encoded.code != 200 {
			t.Fatalf("GET %s: %d %s", exact, encoded.code, encoded.body)
		}
		if !bytes.Equal(cached.body, encoded.body) {
			t.Errorf("query %q: the cached list's bytes differ from the encoded list's\ncached:  %s\nencoded: %s", query, cached.body, encoded.body)
		}
	}
}
