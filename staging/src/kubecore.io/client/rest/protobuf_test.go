package rest

import (
	"context"
	"io"
	"mime"
	"net/http"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/protobuf"
)

func newProtobufSerializer(t *testing.T) *protobuf.Serializer {
	t.Helper()
	s := runtime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	s.AddUnversionedTypes(metav1.Unversioned, &metav1.Status{}, &metav1.DeleteOptions{})
	return protobuf.NewSerializer(s)
}

func newProtobufClient(t *testing.T, h http.HandlerFunc, pb *protobuf.Serializer) *Client {
	t.Helper()
	_, config := newTestServer(t, h)
	config.ContentType = protobuf.ContentType
	c, err := NewClient(config, ClientOptions{GroupVersion: "v1", Protobuf: pb})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// Objects go in protobuf, other bodies in JSON; answers are read in the
// media type they come in, a Failure Status in protobuf included.
func TestProtobufRequests(t *testing.T) {
	pb := newProtobufSerializer(t)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}}
	type seen struct{ contentType, accept string }
	var last seen
	answer := func(w http.ResponseWriter, contentType string, code int, body []byte) {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(code)
		_, _ = w.Write(body)
	}
	c := newProtobufClient(t, func(w http.ResponseWriter, r *http.Request) {
		last = seen{r.Header.Get("Content-Type"), r.Header.Get("Accept")}
		body, _ := io.ReadAll(r.Body)
		switch r.URL.Path {
		case "/api/v1/namespaces/ns/pods": // echoes a protobuf pod
			if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != protobuf.ContentType {
				answer(w, "application/json", 415, []byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"UnsupportedMediaType","code":415}`))
				return
			}
			answer(w, protobuf.ContentType, 201, body)
		case "/api/v1/namespaces/ns/pods/gone":
			st, _ := runtime.Encode(pb, &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure, Reason: metav1.StatusReasonNotFound, Code: 404})
			answer(w, protobuf.ContentType, 200, st) // a Failure Status in a 2xx is still a failure
		case "/api/v1/namespaces/ns/pods/json":
			answer(w, "application/json", 200, []byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"json"}}`))
		case "/api/v1/namespaces/ns/pods/p":
			answer(w, "application/json", 200, []byte(`{"kind":"Status","apiVersion":"v1","status":"Success","code":200}`))
		}
	}, pb)
	ctx := context.Background()

	out := &corev1.Pod{}
	if err := c.Post().Namespace("ns").Resource("pods").Body(pod).Do(ctx).Into(out); err != nil {
		t.Fatal(err)
	}
	if out.Name != "p" || last.contentType != protobuf.ContentType || last.accept != protobuf.ContentType+", application/json" {
		t.Errorf("create: got %q, sent %q accepting %q", out.Name, last.contentType, last.accept)
	}
	if err := c.Get().Namespace("ns").Resource("pods").Name("gone").Do(ctx).Into(&corev1.Pod{}); !apierrors.IsNotFound(err) {
		t.Errorf("a protobuf Failure Status gave %v, want NotFound", err)
	}
	out = &corev1.Pod{}
	if err := c.Get().Namespace("ns").Resource("pods").Name("json").Do(ctx).Into(out); err != nil || out.Name != "json" {
		t.Errorf("a JSON answer: %v, %q", err, out.Name)
	}
	// DeleteOptions are an object of a protobuf kind too.
	if err := c.Delete().Namespace("ns").Resource("pods").Name("p").Body(&metav1.DeleteOptions{}).Do(ctx).Error(); err != nil {
		t.Fatal(err)
	}
	if last.contentType != protobuf.ContentType {
		t.Errorf("DeleteOptions sent as %q", last.contentType)
	}
	// What is not an object stays JSON.
	if err := c.Post().Namespace("ns").Resource("pods").Body([]byte(`{"kind":"Pod"}`)).Do(ctx).Error(); !apierrors.IsUnsupportedMediaType(err) {
		t.Errorf("raw bytes: %v, want them sent as JSON (and refused here)", err)
	}
	if last.contentType != "application/json" {
		t.Errorf("raw bytes sent as %q", last.contentType)
	}
}

// A protobuf watch stream: typed events, an ERROR Status, and a stream cut
// in the middle of a frame.
func TestProtobufWatch(t *testing.T) {
	pb := newProtobufSerializer(t)
	frames := func(t *testing.T, cut bool) []byte {
		var b []byte
		var err error
		for _, ev := range []struct {
			typ string
			obj runtime.Object
		}{
			{"ADDED", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns", ResourceVersion: "1"}}},
			{"MODIFIED", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns", ResourceVersion: "2"}}},
			{"ERROR", &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure, Reason: metav1.StatusReasonExpired, Code: 410}},
		} {
			if b, err = pb.AppendWatchEvent(b, ev.typ, ev.obj); err != nil {
				t.Fatal(err)
			}
		}
		if cut {
			b = b[:len(b)-3]
		}
		return b
	}
	for _, tt := range []struct {
		name    string
		cut     bool
		want    string
		wantErr bool
	}{
		{name: "clean", want: "ADDED a@1, MODIFIED a@2, ERROR 410 Expired"},
		{name: "cut mid-frame", cut: true, want: "ADDED a@1, MODIFIED a@2, ERROR 500 InternalError", wantErr: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := newProtobufClient(t, func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Accept") != protobuf.ContentType+", application/json" {
					t.Errorf("Accept %q", r.Header.Get("Accept"))
				}
				w.Header().Set("Content-Type", protobuf.WatchContentType)
				w.WriteHeader(200)
				_, _ = w.Write(frames(t, tt.cut))
				w.(http.Flusher).Flush()
				if tt.cut {
					panic(http.ErrAbortHandler)
				}
			}, pb)
			w, err := c.Get().Namespace("ns").Resource("pods").WatchObject(func() runtime.Object { return &corev1.Pod{} }).Watch(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			events := drain(t, w)
			if got := describe(events); got != tt.want {
				t.Errorf("events %s, want %s", got, tt.want)
			}
			if (w.Err() != nil) != tt.wantErr {
				t.Errorf("Err() = %v", w.Err())
			}
		})
	}
}

// A client asked for protobuf without a serializer (a dynamic or metadata
// client of a component's config) speaks JSON.
func TestProtobufWithoutSerializerIsJSON(t *testing.T) {
	var contentType, accept string
	_, config := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		contentType, accept = r.Header.Get("Content-Type"), r.Header.Get("Accept")
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Success","code":200}`)
	})
	config.ContentType = protobuf.ContentType
	c := newTestClient(t, config, "v1")
	if err := c.Delete().Namespace("ns").Resource("pods").Name("p").Body(&metav1.DeleteOptions{}).Do(context.Background()).Error(); err != nil {
		t.Fatal(err)
	}
	if contentType != "application/json" || accept != "application/json" {
		t.Errorf("sent %q accepting %q, want JSON both", contentType, accept)
	}
}
