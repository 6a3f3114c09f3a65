package pod

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	corev1 "kubecore.io/api/core/v1"
)

func portsPod(ports ...[]corev1.ContainerPort) *corev1.Pod {
	p := runningPod("web")
	for i, ps := range ports {
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "c" + strconv.Itoa(i), Image: "busybox", Ports: ps})
	}
	return p
}

// TestPodPort checks the port a pods/proxy name resolves to, in
// particular that a name without a port takes the first port of the first
// container that declares one, as Kubernetes does.
func TestPodPort(t *testing.T) {
	http8080 := []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}, {Name: "metrics", ContainerPort: 9090}}
	for _, tc := range []struct {
		name, port, want string
		pod              *corev1.Pod
		wantErr          bool
	}{
		{name: "no port, no containers", pod: portsPod(), want: ""},
		{name: "no port, no container ports", pod: portsPod(nil, nil), want: ""},
		{name: "no port, first container's first port", pod: portsPod(http8080, []corev1.ContainerPort{{ContainerPort: 1}}), want: "8080"},
		{name: "no port, first container without ports skipped", pod: portsPod(nil, []corev1.ContainerPort{{ContainerPort: 9376}}), want: "9376"},
		{name: "number", port: "81", pod: portsPod(http8080), want: "81"},
		{name: "named", port: "metrics", pod: portsPod(http8080), want: "9090"},
		{name: "unknown name", port: "grpc", pod: portsPod(http8080), wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := podPort(tc.pod, tc.port)
			if (err != nil) != tc.wantErr {
				t.Fatalf("podPort(%q) error %v, want error %v", tc.port, err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("podPort(%q) = %q, want %q", tc.port, got, tc.want)
			}
		})
	}
}

// TestProxyDefaultsToFirstContainerPort proxies pods/NAME/proxy (no port
// in the name) and checks that the request reaches the server listening
// on the pod's first declared container port.
func TestProxyDefaultsToFirstContainerPort(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "served "+r.URL.Path)
	}))
	t.Cleanup(backend.Close)
	host, port, err := net.SplitHostPort(backend.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(port)
	if err != nil {
		t.Fatal(err)
	}
	env := newTestEnv(t, http.NotFoundHandler())
	pod := portsPod(nil, []corev1.ContainerPort{{Name: "serve", ContainerPort: int32(n)}})
	pod.Status.PodIP = host
	env.addPod(pod)
	ts := env.serve(t, NewProxyREST(env.pods))
	resp, err := http.Get(ts.URL + "/ns/web")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || string(body) != "served /" {
		t.Errorf("got %d %q, want 200 %q", resp.StatusCode, body, "served /")
	}
}
