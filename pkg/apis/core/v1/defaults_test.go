package v1

import (
	"encoding/json"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/runtime"
)

func TestPodDefaults(t *testing.T) {
	s := runtime.NewScheme()
	if err := AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		image, policy string
	}{
		{"nginx", "Always"}, {"nginx:latest", "Always"}, {"nginx:1.27", "IfNotPresent"},
		{"reg:5000/nginx", "Always"}, {"nginx@sha256:abc", "IfNotPresent"},
	}
	for _, tc := range tests {
		p := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: tc.image, Ports: []corev1.ContainerPort{{ContainerPort: 80}}, LivenessProbe: &corev1.Probe{}}}}}
		s.Default(p)
		c := p.Spec.Containers[0]
		if string(c.ImagePullPolicy) != tc.policy {
			t.Errorf("%s: imagePullPolicy %q, want %q", tc.image, c.ImagePullPolicy, tc.policy)
		}
		got, _ := json.Marshal(p.Spec)
		want := `{"containers":[{"name":"c","image":"` + tc.image + `","ports":[{"containerPort":80,"protocol":"TCP"}],"resources":{},"livenessProbe":{"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"` + tc.policy + `"}],"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","securityContext":{},"schedulerName":"default-scheduler","enableServiceLinks":true}`
		if string(got) != want {
			t.Errorf("%s:\n got %s\nwant %s", tc.image, got, want)
		}
	}
}

func TestServiceAndSecretDefaults(t *testing.T) {
	s := runtime.NewScheme()
	if err := AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	svc := &corev1.Service{Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}
	s.Default(svc)
	got, _ := json.Marshal(svc.Spec)
	want := `{"ports":[{"protocol":"TCP","port":80,"targetPort":80}],"type":"ClusterIP","sessionAffinity":"None","internalTrafficPolicy":"Cluster"}`
	if string(got) != want {
		t.Errorf("service:\n got %s\nwant %s", got, want)
	}
	sec := &corev1.Secret{}
	s.Default(sec)
	if sec.Type != corev1.SecretTypeOpaque {
		t.Errorf("secret type %q", sec.Type)
	}
}
