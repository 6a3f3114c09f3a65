package protobuf

import (
	"context"
	"mime"
	"net/http"
	"sync"
	"testing"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	autoscalingv1 "kubecore.io/api/autoscaling/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/protobuf"
	"kubecore.io/apimachinery/pkg/watch"
	"kubecore.io/client/rest"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/test/integration/framework"
)

// exchange is one request's media types as they crossed the wire.
type exchange struct {
	method, path      string
	sent, accept, got string
	status            int
}

// recorder keeps the media types of every request a client makes.
type recorder struct {
	mu  sync.Mutex
	all []exchange
}

func (r *recorder) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(req)
		if err != nil {
			return resp, err
		}
		r.mu.Lock()
		r.all = append(r.all, exchange{
			method: req.Method, path: req.URL.Path,
			sent: mediaType(req.Header.Get("Content-Type")), accept: req.Header.Get("Accept"),
			got: resp.Header.Get("Content-Type"), status: resp.StatusCode,
		})
		r.mu.Unlock()
		return resp, nil
	})
}

// last returns the latest exchange with path and method.
func (r *recorder) last(t *testing.T, method, path string) exchange {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.all) - 1; i >= 0; i-- {
		if e := r.all[i]; e.method == method && e.path == path {
			return e
		}
	}
	t.Fatalf("no %s %s was sent", method, path)
	return exchange{}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

func mediaType(ct string) string {
	mt, _, _ := mime.ParseMediaType(ct)
	return mt
}

// The typed client with ContentType protobuf, as the components run it:
// objects go out, come back and are watched in protobuf; options, errors
// and patches keep working.
func TestTypedClientSpeaksProtobuf(t *testing.T) {
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	ns := s.CreateNamespace(t, "pb")
	rec := &recorder{}
	cfg := rest.CopyConfig(s.Config)
	cfg.ContentType = protobuf.ContentType
	cfg.WrapTransport = rec.wrap
	cs, err := typed.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pods := cs.CoreV1().Pods(ns)
	podsPath := "/api/v1/namespaces/" + ns + "/pods"

	w, err := pods.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if e := rec.last(t, "GET", podsPath); e.got != protobuf.WatchContentType {
		t.Errorf("watch answered in %q, want %q", e.got, protobuf.WatchContentType)
	}

	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: map[string]string{"app": "pb"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox:1.36"}}},
	}
	created, err := pods.Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if e := rec.last(t, "POST", podsPath); e.sent != protobuf.ContentType || e.got != protobuf.ContentType {
		t.Errorf("create sent %q and got %q, want protobuf both ways", e.sent, e.got)
	}
	if created.UID == "" || created.Spec.RestartPolicy != corev1.RestartPolicyAlways || created.Labels["app"] != "pb" {
		t.Errorf("created pod decoded wrong: uid %q, restartPolicy %q, labels %v", created.UID, created.Spec.RestartPolicy, created.Labels)
	}

	got, err := pods.Get(ctx, "p", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.ResourceVersion != created.ResourceVersion || got.Spec.Containers[0].Image != "busybox:1.36" {
		t.Errorf("get: %s %v, want the created pod", got.ResourceVersion, got.Spec.Containers)
	}
	list, err := pods.List(ctx, metav1.ListOptions{LabelSelector: "app=pb"})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.ResourceVersion == "" {
		t.Errorf("list: %d items at %q, want 1 at a revision", len(list.Items), list.ResourceVersion)
	}
	if e := rec.last(t, "GET", podsPath); e.got != protobuf.ContentType {
		t.Errorf("list answered in %q", e.got)
	}

	got.Status.Phase = corev1.PodRunning
	if _, err := pods.UpdateStatus(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if e := rec.last(t, "PUT", podsPath+"/p/status"); e.sent != protobuf.ContentType {
		t.Errorf("status update sent %q", e.sent)
	}
	// A stale update: the 409 Status still comes through as an error.
	if _, err := pods.Update(ctx, got, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("stale update: %v, want a Conflict", err)
	}
	if _, err := pods.Get(ctx, "missing", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get of a missing pod: %v, want NotFound", err)
	}
	// A patch stays in its own media type.
	patched, err := pods.Patch(ctx, "p", "application/merge-patch+json", []byte(`{"metadata":{"labels":{"patched":"yes"}}}`), metav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if patched.Labels["patched"] != "yes" {
		t.Errorf("patched labels %v", patched.Labels)
	}

	// Subresources with kinds of their own.
	deploy := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "d"},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "d"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "d"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox:1.36"}}},
			},
		},
	}
	if _, err := cs.AppsV1().Deployments(ns).Create(ctx, deploy, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	scale, err := cs.AppsV1().Deployments(ns).UpdateScale(ctx, "d", &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: "d"}, Spec: autoscalingv1.ScaleSpec{Replicas: 3}}, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if scale.Spec.Replicas != 3 {
		t.Errorf("scale: %d replicas, want 3", scale.Spec.Replicas)
	}
	if e := rec.last(t, "PUT", "/apis/apps/v1/namespaces/"+ns+"/deployments/d/scale"); e.sent != protobuf.ContentType || e.got != protobuf.ContentType {
		t.Errorf("scale sent %q and got %q", e.sent, e.got)
	}

	// DeleteOptions travel in protobuf too; a deleted pod on no node goes at once.
	if err := pods.Delete(ctx, "p", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if e := rec.last(t, "DELETE", podsPath+"/p"); e.sent != protobuf.ContentType || e.status != http.StatusOK {
		t.Errorf("delete sent %q, answered %d", e.sent, e.status)
	}

	// The watch saw it all, typed: ADDED, changes, DELETED.
	var seen []string
	for len(seen) == 0 || seen[len(seen)-1] != "DELETED" {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("watch closed after %v", seen)
			}
			if _, isPod := ev.Object.(*corev1.Pod); !isPod {
				t.Fatalf("%s event with a %T", ev.Type, ev.Object)
			}
			seen = append(seen, string(ev.Type))
		case <-ctx.Done():
			t.Fatalf("watch events: got %v", seen)
		}
	}
	if len(seen) < 3 || seen[0] != "ADDED" || seen[1] != "MODIFIED" {
		t.Errorf("watch events %v, want ADDED, MODIFIED..., DELETED", seen)
	}
	if e := nextEvent(w); e.Type != "" {
		t.Errorf("unexpected %s event after the delete", e.Type)
	}

}

// nextEvent returns the next event of w if one comes within 100 ms.
func nextEvent(w watch.Interface) watch.Event {
	select {
	case e := <-w.ResultChan():
		return e
	case <-time.After(100 * time.Millisecond):
		return watch.Event{}
	}
}
