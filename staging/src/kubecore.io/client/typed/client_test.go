package typed

import (
	"context"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	autoscalingv1 "kubecore.io/api/autoscaling/v1"
	corev1 "kubecore.io/api/core/v1"
	policyv1 "kubecore.io/api/policy/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/apimachinery/pkg/watch"
	"kubecore.io/client/rest"
)

// recorded is what the fake server saw.
type recorded struct {
	method, path, query, contentType, body string
}

// fakeServer answers every request with the next canned response and
// records the request.
type fakeServer struct {
	mu       sync.Mutex
	last     recorded
	code     int
	response string
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.last = recorded{method: r.Method, path: r.URL.Path, query: r.URL.RawQuery, contentType: r.Header.Get("Content-Type"), body: string(body)}
	code, resp := f.code, f.response
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = io.WriteString(w, resp)
}

func (f *fakeServer) answer(code int, body string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.code, f.response = code, body
}

func (f *fakeServer) seen() recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last
}

func newClientset(t *testing.T, h http.Handler) *Clientset {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	cs, err := NewForConfig(&rest.Config{Host: srv.URL, TLSClientConfig: rest.TLSClientConfig{CAData: ca}})
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

const podJSON = `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"ns","resourceVersion":"5"}}`

func TestVerbs(t *testing.T) {
	f := &fakeServer{}
	cs := newClientset(t, f)
	ctx := context.Background()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}}
	tests := []struct {
		name     string
		response string
		call     func() (string, error) // returns a summary of the result
		want     recorded
		wantOut  string
	}{
		{
			name: "get", response: podJSON,
			call: func() (string, error) {
				p, err := cs.CoreV1().Pods("ns").Get(ctx, "p", metav1.GetOptions{ResourceVersion: "0"})
				return p.Name + "@" + p.ResourceVersion, err
			},
			want: recorded{method: "GET", path: "/api/v1/namespaces/ns/pods/p", query: "resourceVersion=0"}, wantOut: "p@5",
		},
		{
			name: "list all namespaces", response: `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9","continue":"c"},"items":[` + podJSON + `]}`,
			call: func() (string, error) {
				l, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{LabelSelector: "app=web", Limit: 10})
				return l.ResourceVersion + " " + l.Continue + " " + l.Items[0].Name, err
			},
			want: recorded{method: "GET", path: "/api/v1/pods", query: "labelSelector=app%3Dweb&limit=10"}, wantOut: "9 c p",
		},
		{
			name: "create", response: podJSON,
			call: func() (string, error) {
				p, err := cs.CoreV1().Pods("ns").Create(ctx, pod, metav1.CreateOptions{DryRun: []string{"All"}})
				return p.ResourceVersion, err
			},
			want: recorded{method: "POST", path: "/api/v1/namespaces/ns/pods", query: "dryRun=All", contentType: "application/json", body: `"name":"p"`}, wantOut: "5",
		},
		{
			name: "update", response: podJSON,
			call: func() (string, error) {
				_, err := cs.CoreV1().Pods("ns").Update(ctx, pod, metav1.UpdateOptions{FieldManager: "me"})
				return "", err
			},
			want: recorded{method: "PUT", path: "/api/v1/namespaces/ns/pods/p", query: "fieldManager=me", contentType: "application/json", body: `"namespace":"ns"`},
		},
		{
			name: "update status", response: podJSON,
			call: func() (string, error) {
				_, err := cs.CoreV1().Pods("ns").UpdateStatus(ctx, pod, metav1.UpdateOptions{})
				return "", err
			},
			want: recorded{method: "PUT", path: "/api/v1/namespaces/ns/pods/p/status", contentType: "application/json", body: `"name":"p"`},
		},
		{
			name: "patch status", response: podJSON,
			call: func() (string, error) {
				_, err := cs.CoreV1().Pods("ns").Patch(ctx, "p", types.MergePatchType, []byte(`{"status":{"phase":"Running"}}`), metav1.PatchOptions{}, "status")
				return "", err
			},
			want: recorded{method: "PATCH", path: "/api/v1/namespaces/ns/pods/p/status", contentType: "application/merge-patch+json", body: `{"status":{"phase":"Running"}}`},
		},
		{
			name: "delete with preconditions", response: `{"kind":"Status","apiVersion":"v1","status":"Success"}`,
			call: func() (string, error) {
				return "", cs.CoreV1().Pods("ns").Delete(ctx, "p", *metav1.NewRVDeletionPrecondition("5"))
			},
			want: recorded{method: "DELETE", path: "/api/v1/namespaces/ns/pods/p", contentType: "application/json", body: `"preconditions":{"resourceVersion":"5"}`},
		},
		{
			name: "delete collection", response: `{"kind":"Status","apiVersion":"v1","status":"Success"}`,
			call: func() (string, error) {
				return "", cs.CoreV1().ConfigMaps("ns").DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "x"})
			},
			want: recorded{method: "DELETE", path: "/api/v1/namespaces/ns/configmaps", query: "labelSelector=x", contentType: "application/json", body: `{}`},
		},
		{
			name: "cluster-scoped get", response: `{"kind":"Node","apiVersion":"v1","metadata":{"name":"n1"}}`,
			call: func() (string, error) {
				n, err := cs.CoreV1().Nodes().Get(ctx, "n1", metav1.GetOptions{})
				return n.Name, err
			},
			want: recorded{method: "GET", path: "/api/v1/nodes/n1"}, wantOut: "n1",
		},
		{
			name: "named group", response: `{"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"name":"l"}}`,
			call: func() (string, error) {
				l, err := cs.CoordinationV1().Leases("kube-system").Get(ctx, "l", metav1.GetOptions{})
				return l.Name, err
			},
			want: recorded{method: "GET", path: "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/l"}, wantOut: "l",
		},
		{
			name: "get scale", response: `{"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{"name":"d"},"spec":{"replicas":3},"status":{"replicas":2,"selector":"app=web"}}`,
			call: func() (string, error) {
				s, err := cs.AppsV1().Deployments("ns").GetScale(ctx, "d", metav1.GetOptions{})
				return s.Status.Selector, err
			},
			want: recorded{method: "GET", path: "/apis/apps/v1/namespaces/ns/deployments/d/scale"}, wantOut: "app=web",
		},
		{
			name: "update scale", response: `{"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{"name":"s"},"spec":{"replicas":4}}`,
			call: func() (string, error) {
				_, err := cs.AppsV1().StatefulSets("ns").UpdateScale(ctx, "s", &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: "s"}, Spec: autoscalingv1.ScaleSpec{Replicas: 4}}, metav1.UpdateOptions{})
				return "", err
			},
			want: recorded{method: "PUT", path: "/apis/apps/v1/namespaces/ns/statefulsets/s/scale", contentType: "application/json", body: `"replicas":4`},
		},
		{
			name: "bind", response: `{"kind":"Status","apiVersion":"v1","status":"Success","code":201}`,
			call: func() (string, error) {
				return "", cs.CoreV1().Pods("ns").Bind(ctx, &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Target: corev1.ObjectReference{Kind: "Node", Name: "n1"}}, metav1.CreateOptions{})
			},
			want: recorded{method: "POST", path: "/api/v1/namespaces/ns/pods/p/binding", contentType: "application/json", body: `"target":{"kind":"Node","name":"n1"}`},
		},
		{
			name: "evict", response: `{"kind":"Status","apiVersion":"v1","status":"Success","code":201}`,
			call: func() (string, error) {
				return "", cs.CoreV1().Pods("ns").Evict(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}})
			},
			want: recorded{method: "POST", path: "/api/v1/namespaces/ns/pods/p/eviction", contentType: "application/json", body: `"name":"p"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f.answer(200, tt.response)
			out, err := tt.call()
			if err != nil {
				t.Fatal(err)
			}
			got := f.seen()
			if got.method != tt.want.method || got.path != tt.want.path || got.query != tt.want.query || got.contentType != tt.want.contentType {
				t.Errorf("request = %s %s?%s (%s), want %s %s?%s (%s)", got.method, got.path, got.query, got.contentType,
					tt.want.method, tt.want.path, tt.want.query, tt.want.contentType)
			}
			if !strings.Contains(got.body, tt.want.body) {
				t.Errorf("body = %s, want it to contain %s", got.body, tt.want.body)
			}
			if out != tt.wantOut {
				t.Errorf("result = %q, want %q", out, tt.wantOut)
			}
		})
	}
}

func TestInvalidCalls(t *testing.T) {
	f := &fakeServer{}
	f.answer(200, podJSON)
	cs := newClientset(t, f)
	ctx := context.Background()
	tests := []struct {
		name string
		call func() error
		want string
	}{
		{name: "get without namespace", call: func() error { _, err := cs.CoreV1().Pods("").Get(ctx, "p", metav1.GetOptions{}); return err }, want: "a namespace is required"},
		{name: "create without namespace", call: func() error {
			_, err := cs.CoreV1().Pods("").Create(ctx, &corev1.Pod{}, metav1.CreateOptions{})
			return err
		}, want: "create pods: a namespace is required"},
		{name: "create nil", call: func() error { _, err := cs.CoreV1().Pods("ns").Create(ctx, nil, metav1.CreateOptions{}); return err }, want: "object is nil"},
		{name: "update nil", call: func() error {
			_, err := cs.AppsV1().Deployments("ns").Update(ctx, nil, metav1.UpdateOptions{})
			return err
		}, want: "update deployments.apps: object is nil"},
		{name: "update without name", call: func() error {
			_, err := cs.CoreV1().ConfigMaps("ns").Update(ctx, &corev1.ConfigMap{}, metav1.UpdateOptions{})
			return err
		}, want: "resource name may not be empty"},
		{name: "bind nil", call: func() error { return cs.CoreV1().Pods("ns").Bind(ctx, nil, metav1.CreateOptions{}) }, want: "binding is nil"},
		{name: "scale nil", call: func() error {
			_, err := cs.AppsV1().ReplicaSets("ns").UpdateScale(ctx, "r", nil, metav1.UpdateOptions{})
			return err
		}, want: "scale is nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.call(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestNotFound(t *testing.T) {
	f := &fakeServer{}
	f.answer(404, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"deployments.apps \"d\" not found","reason":"NotFound","details":{"name":"d","group":"apps","kind":"deployments"},"code":404}`)
	cs := newClientset(t, f)
	d, err := cs.AppsV1().Deployments("ns").Get(context.Background(), "d", metav1.GetOptions{})
	if !apierrors.IsNotFound(err) || d != nil {
		t.Fatalf("got %v, err %v", d, err)
	}
}

func TestWatchTyped(t *testing.T) {
	cs := newClientset(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/apis/apps/v1/namespaces/ns/replicasets" || r.URL.Query().Get("watch") != "true" || r.URL.Query().Get("resourceVersion") != "3" {
			t.Errorf("watch request %s", r.URL)
		}
		_, _ = io.WriteString(w, `{"type":"ADDED","object":{"kind":"ReplicaSet","apiVersion":"apps/v1","metadata":{"name":"r","resourceVersion":"4"}}}`+"\n")
	}))
	w, err := cs.AppsV1().ReplicaSets("ns").Watch(context.Background(), metav1.ListOptions{ResourceVersion: "3"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	select {
	case ev := <-w.ResultChan():
		rs, ok := ev.Object.(*appsv1.ReplicaSet)
		if ev.Type != watch.Added || !ok || rs.Name != "r" {
			t.Errorf("event %v %T", ev.Type, ev.Object)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no event")
	}
}

func TestGetLogs(t *testing.T) {
	var query string
	cs := newClientset(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		query = r.URL.Path + "?" + r.URL.RawQuery
		w.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, "hello\n")
	}))
	tail, since := int64(10), int64(60)
	rc, err := cs.CoreV1().Pods("ns").GetLogs(context.Background(), "p", &PodLogOptions{
		Container: "c", Follow: true, Previous: true, Timestamps: true, TailLines: &tail, SinceSeconds: &since,
	})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(rc)
	rc.Close()
	if string(b) != "hello\n" {
		t.Errorf("log = %q", b)
	}
	want := "/api/v1/namespaces/ns/pods/p/log?container=c&follow=true&previous=true&sinceSeconds=60&tailLines=10&timestamps=true"
	if query != want {
		t.Errorf("request = %s, want %s", query, want)
	}
}

func TestBuiltinTableAndScheme(t *testing.T) {
	s, err := NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range BuiltinResources() {
		gvk := r.GroupVersionResource.GroupVersion().WithKind(r.Kind)
		if !s.Recognizes(gvk) {
			t.Errorf("%v: kind not in the scheme", gvk)
		}
		if !s.Recognizes(r.GroupVersionResource.GroupVersion().WithKind(r.Kind + "List")) {
			t.Errorf("%v: no list kind", gvk)
		}
		if seen[r.GroupVersionResource.String()] {
			t.Errorf("%v listed twice", r.GroupVersionResource)
		}
		seen[r.GroupVersionResource.String()] = true
	}
}
