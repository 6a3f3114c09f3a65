package auth

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/cmd/kubecore/app/token"
	"kubecore.io/kubecore/pkg/auth/authenticator/bootstrap"
	"kubecore.io/kubecore/test/integration/framework"
)

// TestTokenCommand drives `kubecore token create|list|delete` against a
// server: the Secret it writes is one the bootstrap authenticator accepts.
func TestTokenCommand(t *testing.T) {
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	cs := s.Clientset(t)
	ctx := context.Background()
	now := time.Now()
	o := token.NewOptions()
	o.Kubeconfig = s.Kubeconfig
	o.Description = "for node n2"
	o.Now = func() time.Time { return now }

	var out bytes.Buffer
	if err := o.Create(ctx, &out); err != nil {
		t.Fatal(err)
	}
	tok := strings.TrimSpace(out.String())
	if !regexp.MustCompile(`^[a-z0-9]{6}\.[a-z0-9]{16}$`).MatchString(tok) {
		t.Fatalf("token %q has not the bootstrap token shape", tok)
	}
	id := tok[:6]
	secret, err := cs.CoreV1().Secrets("kube-system").Get(ctx, "bootstrap-token-"+id, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if secret.Type != bootstrap.SecretType || string(secret.Data["description"]) != "for node n2" {
		t.Errorf("secret %s: type %q data %v", secret.Name, secret.Type, secret.Data)
	}
	a := &bootstrap.Authenticator{Secrets: secretGetter{cs}, Now: func() time.Time { return now.Add(time.Hour) }}
	user, ok, err := a.AuthenticateToken(ctx, tok)
	if !ok || err != nil || user.Name != "system:bootstrap:"+id {
		t.Fatalf("the new token does not authenticate: %+v %v %v", user, ok, err)
	}
	if _, ok, _ := (&bootstrap.Authenticator{Secrets: secretGetter{cs}, Now: func() time.Time { return now.Add(25 * time.Hour) }}).AuthenticateToken(ctx, tok); ok {
		t.Error("the token still authenticates after its 24h TTL")
	}

	out.Reset()
	if err := o.List(ctx, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), id) || !strings.Contains(out.String(), "for node n2") || strings.Contains(out.String(), tok[7:]) {
		t.Errorf("list printed:\n%s", out.String())
	}
	out.Reset()
	if err := o.Delete(ctx, &out, []string{tok}); err != nil {
		t.Fatal(err)
	}
	if err := o.Delete(ctx, &out, []string{id}); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("second delete: %v", err)
	}
	o.Groups = []string{"admins"}
	if err := o.Create(ctx, &out); err == nil || !strings.Contains(err.Error(), "must start with") {
		t.Errorf("a group outside system:bootstrappers: was accepted: %v", err)
	}
}
