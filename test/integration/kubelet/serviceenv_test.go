package kubelet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/util/intstr"
)

// TestPodGetsServiceEnv: a container sees the variables of the Services
// of its namespace and of the API server's Service (in-cluster clients
// such as agnhost's crd-conversion-webhook read KUBERNETES_SERVICE_HOST
// and KUBERNETES_SERVICE_PORT), as Kubernetes' kubelet gives them.
func TestPodGetsServiceEnv(t *testing.T) {
	e := newEnv(t, "process")
	svc, err := e.cs.CoreV1().Services(e.ns).Create(e.ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web-front"},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 8080, TargetPort: intstr.FromInt32(80), Protocol: corev1.ProtocolTCP}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	master, err := e.cs.CoreV1().Services("default").Get(e.ctx, "kubernetes", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the API server's Service: %v", err)
	}
	out := filepath.Join(t.TempDir(), "env.txt")
	p := e.pod("svcenv", `echo "$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT|$WEB_FRONT_SERVICE_HOST|$WEB_FRONT_SERVICE_PORT_HTTP|$WEB_FRONT_PORT_8080_TCP|$OWN" > "$OUT.tmp" && mv "$OUT.tmp" "$OUT"; exec sleep 1000`, func(p *corev1.Pod) {
		p.Spec.Containers[0].Env = []corev1.EnvVar{
			{Name: "OUT", Value: out},
			{Name: "OWN", Value: "$(WEB_FRONT_SERVICE_HOST)"},
		}
	})
	e.waitFor(p.Name, 20*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	var b []byte
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if b, err = os.ReadFile(out); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	ip := svc.Spec.ClusterIP
	want := master.Spec.ClusterIP + ":443|" + ip + "|8080|tcp://" + ip + ":8080|" + ip
	if got := strings.TrimSpace(string(b)); got != want {
		t.Errorf("the process saw %q, want %q", got, want)
	}
}
