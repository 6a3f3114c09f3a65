package pod

import (
	"net/url"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
)

func TestPortForwardRequest(t *testing.T) {
	running := &corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	if c, kq, err := portForwardRequest(running, url.Values{"ports": {"80", "8080"}}); err != nil || c != "" || kq.Encode() != "port=80&port=8080" {
		t.Errorf("ports 80, 8080: container %q, query %q, %v", c, kq.Encode(), err)
	}
	if _, kq, err := portForwardRequest(running, url.Values{}); err != nil || len(kq) != 0 {
		t.Errorf("no ports (SPDY names them per stream): %v, %v", kq, err)
	}
	for _, bad := range []string{"0", "65536", "http", "-1"} {
		if _, _, err := portForwardRequest(running, url.Values{"ports": {bad}}); !apierrors.IsBadRequest(err) {
			t.Errorf("port %q: %v, want 400", bad, err)
		}
	}
	done := &corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodSucceeded}}
	if _, _, err := portForwardRequest(done, url.Values{}); !apierrors.IsBadRequest(err) {
		t.Errorf("a completed pod: %v, want 400", err)
	}
}
