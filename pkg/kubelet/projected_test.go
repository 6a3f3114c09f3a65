package kubelet

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	authenticationv1 "kubecore.io/api/authentication/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// TestTokenManager: a token is reused until 80% of its life has passed,
// then renewed; a renewal that fails keeps the still valid token, and an
// expired one is an error.
func TestTokenManager(t *testing.T) {
	clock := newFakeClock()
	var (
		requests []*authenticationv1.TokenRequest
		fail     bool
	)
	m := &tokenManager{clock: clock, tokens: map[tokenKey]*authenticationv1.TokenRequest{}}
	m.request = func(_ context.Context, ns, sa string, tr *authenticationv1.TokenRequest) (*authenticationv1.TokenRequest, error) {
		if fail {
			return nil, errors.New("apiserver down")
		}
		requests = append(requests, tr)
		now := clock.Now()
		out := tr.DeepCopy()
		out.CreationTimestamp = metav1.NewTime(now)
		out.Status = authenticationv1.TokenRequestStatus{Token: fmt.Sprintf("%s/%s#%d", ns, sa, len(requests)),
			ExpirationTimestamp: metav1.NewTime(now.Add(time.Duration(*tr.Spec.ExpirationSeconds) * time.Second))}
		return out, nil
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: "uid-1"}, Spec: corev1.PodSpec{ServiceAccountName: "robot"}}
	secs := int64(1000)
	proj := &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: &secs, Audience: "vault"}
	get := func(want string) {
		t.Helper()
		got, err := m.token(context.Background(), pod, proj)
		if err != nil || got != want {
			t.Fatalf("token = %q, %v; want %q", got, err, want)
		}
	}
	get("ns/robot#1")
	r := requests[0]
	if ref := r.Spec.BoundObjectRef; ref == nil || ref.Kind != "Pod" || ref.APIVersion != "v1" || ref.Name != "web" || ref.UID != "uid-1" ||
		*r.Spec.ExpirationSeconds != 1000 || len(r.Spec.Audiences) != 1 || r.Spec.Audiences[0] != "vault" {
		t.Fatalf("request %+v", r.Spec)
	}
	clock.Step(799 * time.Second)
	get("ns/robot#1")
	clock.Step(time.Second)
	get("ns/robot#2")
	clock.Step(800 * time.Second)
	fail = true
	get("ns/robot#2")
	clock.Step(200 * time.Second)
	if _, err := m.token(context.Background(), pod, proj); err == nil {
		t.Fatal("an expired token that cannot be renewed was handed out")
	}
	fail = false
	get("ns/robot#3")
	if len(m.tokens) != 1 {
		t.Errorf("%d tokens kept, want 1", len(m.tokens))
	}
}
