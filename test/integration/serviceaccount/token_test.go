package serviceaccount

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	authenticationv1 "kubecore.io/api/authentication/v1"
	authorizationv1 "kubecore.io/api/authorization/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// canListPods asks, as the holder of token, whether it may list pods in ns:
// the answer tells that the token authenticated (a 401 is an error).
func (s *server) canListPods(ctx context.Context, token, ns string) (bool, error) {
	review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: "list", Resource: "pods"}}}
	got, err := s.clients(s.config(token, "")).AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
	if err != nil {
		return false, err
	}
	return got.Status.Allowed, nil
}

// TestTokenRequest: serviceaccounts/token issues tokens that authenticate
// as the service account, bound to a pod or secret for as long as it
// exists, with Kubernetes' lifetime bounds and errors.
func TestTokenRequest(t *testing.T) {
	s := start(t)
	ctx := context.Background()
	ns := s.s.CreateNamespace(t, "token")
	s.createSA(ctx, ns, "robot")
	pod, err := s.admin.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: corev1.PodSpec{ServiceAccountName: "robot", Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	secret, err := s.admin.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "key"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	// An unbound token with the default lifetime.
	before := time.Now().Truncate(time.Second)
	tr, err := requestToken(ctx, s.admin, ns, "robot", &authenticationv1.TokenRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Name != "robot" || tr.Namespace != ns || tr.Status.Token == "" || tr.Spec.ExpirationSeconds == nil || *tr.Spec.ExpirationSeconds != 3600 ||
		len(tr.Spec.Audiences) != 1 || tr.Spec.Audiences[0] != "https://kubernetes.default.svc.cluster.local" {
		t.Fatalf("token request answered %+v", tr)
	}
	if exp := tr.Status.ExpirationTimestamp.Time; exp.Before(before.Add(time.Hour)) || exp.After(time.Now().Add(time.Hour+time.Second)) {
		t.Errorf("expires %v, want an hour from %v", exp, before)
	}
	allowed, err := s.canListPods(ctx, tr.Status.Token, ns)
	if err != nil || allowed {
		t.Fatalf("the robot's token: allowed %v, %v; want an authenticated denial", allowed, err)
	}
	// It is the robot that authenticated: a binding for it takes effect.
	s.bindView(ctx, ns, "robot")
	eventually(t, "the robot may list pods once bound to view", func() error {
		if ok, err := s.canListPods(ctx, tr.Status.Token, ns); err != nil || !ok {
			return errorf("allowed %v, %v", ok, err)
		}
		return nil
	})

	// Bound to the pod: valid while the pod lives, with the pod in it.
	podTok, err := requestToken(ctx, s.admin, ns, "robot", &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
		ExpirationSeconds: ptr(int64(600)),
		BoundObjectRef:    &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: "web", UID: pod.UID}}})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Until(podTok.Status.ExpirationTimestamp.Time); d < 9*time.Minute || d > 10*time.Minute+time.Second {
		t.Errorf("a 600 s token expires in %v", d)
	}
	if ok, err := s.canListPods(ctx, podTok.Status.Token, ns); err != nil || !ok {
		t.Fatalf("pod-bound token: %v, %v", ok, err)
	}
	// Bound to the secret likewise.
	secretTok, err := requestToken(ctx, s.admin, ns, "robot", &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
		BoundObjectRef: &authenticationv1.BoundObjectReference{Kind: "Secret", APIVersion: "v1", Name: "key"}}})
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := s.canListPods(ctx, secretTok.Status.Token, ns); err != nil || !ok {
		t.Fatalf("secret-bound token: %v, %v", ok, err)
	}
	if err := s.admin.CoreV1().Pods(ns).Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := s.admin.CoreV1().Secrets(ns).Delete(ctx, secret.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	for what, tok := range map[string]string{"pod": podTok.Status.Token, "secret": secretTok.Status.Token} {
		eventually(t, "the token of the deleted "+what+" is refused with 401", func() error {
			if _, err := s.canListPods(ctx, tok, ns); !apierrors.IsUnauthorized(err) {
				return errorf("got %v", err)
			}
			return nil
		})
	}

	// Bad requests, answered as Kubernetes does.
	for _, tc := range []struct {
		name string
		sa   string
		spec authenticationv1.TokenRequestSpec
		code int32
		msg  string
	}{
		{"too short", "robot", authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr(int64(599))}, 422,
			`TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes`},
		{"too long", "robot", authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr(int64(1<<32 + 1))}, 422, "may not specify a duration larger than 2^32 seconds"},
		{"no such service account", "nobody", authenticationv1.TokenRequestSpec{}, 404, `serviceaccounts "nobody" not found`},
		{"no such pod", "robot", authenticationv1.TokenRequestSpec{BoundObjectRef: &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: "web"}}, 404, `pods "web" not found`},
		{"a config map", "robot", authenticationv1.TokenRequestSpec{BoundObjectRef: &authenticationv1.BoundObjectReference{Kind: "ConfigMap", APIVersion: "v1", Name: "x"}}, 400, "cannot bind token to object of type /v1, Kind=ConfigMap"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := requestToken(ctx, s.admin, ns, tc.sa, &authenticationv1.TokenRequest{Spec: tc.spec})
			wantStatus(t, err, tc.code, tc.msg)
		})
	}
	other, err := s.admin.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "other"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = requestToken(ctx, s.admin, ns, "robot", &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
		BoundObjectRef: &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: "other"}}})
	wantStatus(t, err, 400, `cannot bind token for serviceaccount "robot" to pod running with different serviceaccount name.`)
	if _, err := s.admin.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web2"},
		Spec: corev1.PodSpec{ServiceAccountName: "robot", Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = requestToken(ctx, s.admin, ns, "robot", &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
		BoundObjectRef: &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: "web2", UID: other.UID}}})
	wantStatus(t, err, 409, "the UID in the bound object reference ("+string(other.UID)+") does not match the UID in record")
}

// TestKubectlCreateToken: the stock kubectl's `create token` works, bound
// or not, and its bad input gets the server's message.
func TestKubectlCreateToken(t *testing.T) {
	s := start(t)
	ctx := context.Background()
	ns := s.s.CreateNamespace(t, "kubectl")
	s.createSA(ctx, ns, "robot")
	if _, err := s.admin.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: corev1.PodSpec{ServiceAccountName: "robot", Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kubectl := func(args ...string) (string, error) {
		cmd := exec.Command("/usr/bin/kubectl", append([]string{"--kubeconfig", s.s.Kubeconfig, "-n", ns}, args...)...)
		out, err := cmd.CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	for _, args := range [][]string{
		{"create", "token", "robot"},
		{"create", "token", "robot", "--duration", "20m", "--audience", "https://kubernetes.default.svc.cluster.local"},
		{"create", "token", "robot", "--bound-object-kind", "Pod", "--bound-object-name", "web"},
	} {
		tok, err := kubectl(args...)
		if err != nil || strings.Count(tok, ".") != 2 {
			t.Fatalf("kubectl %v: %v\n%s", args, err, tok)
		}
		if _, err := s.canListPods(ctx, tok, ns); err != nil {
			t.Errorf("the token of kubectl %v: %v", args, err)
		}
	}
	out, err := kubectl("create", "token", "robot", "--duration", "5m")
	if err == nil || !strings.Contains(out, "may not specify a duration less than 10 minutes") {
		t.Errorf("a 5 minute token: %v\n%s", err, out)
	}
	out, err = kubectl("create", "token", "nobody")
	if err == nil || !strings.Contains(out, `serviceaccounts "nobody" not found`) {
		t.Errorf("token of a missing service account: %v\n%s", err, out)
	}
}
