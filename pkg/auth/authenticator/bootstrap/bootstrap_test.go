package bootstrap

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

type secrets map[string]*corev1.Secret

func (s secrets) Secret(_ context.Context, ns, name string) (*corev1.Secret, error) {
	return s[ns+"/"+name], nil
}

func tokenSecret(id, secret, expiration string, authn bool) *corev1.Secret {
	data := map[string][]byte{KeyTokenID: []byte(id), KeyTokenSecret: []byte(secret), KeyExtraGroups: []byte("system:bootstrappers:kubecore:nodes,evil")}
	if expiration != "" {
		data[KeyExpiration] = []byte(expiration)
	}
	if authn {
		data[KeyUsageAuthn] = []byte("true")
	}
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: SecretNamespace, Name: SecretPrefix + id}, Type: SecretType, Data: data}
}

func TestAuthenticateToken(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	a := &Authenticator{Now: func() time.Time { return now }, Secrets: secrets{
		"kube-system/bootstrap-token-abcdef": tokenSecret("abcdef", "0123456789abcdef", "2026-06-02T00:00:00Z", true),
		"kube-system/bootstrap-token-old000": tokenSecret("old000", "0123456789abcdef", "2026-05-01T00:00:00Z", true),
		"kube-system/bootstrap-token-nouse0": tokenSecret("nouse0", "0123456789abcdef", "", false),
	}}
	tests := []struct {
		token   string
		ok      bool
		wantErr string
	}{
		{"abcdef.0123456789abcdef", true, ""},
		{"abcdef.0123456789abcdeX", false, ""}, // not a bootstrap token's shape
		{"abcdef.fedcba9876543210", false, "wrong secret"},
		{"old000.0123456789abcdef", false, "expired"},
		{"nouse0.0123456789abcdef", false, "not usable for authentication"},
		{"zzzzzz.0123456789abcdef", false, "no such token"},
	}
	for _, tt := range tests {
		u, ok, err := a.AuthenticateToken(context.Background(), tt.token)
		if ok != tt.ok || (tt.wantErr == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%s: ok=%v err=%v, want ok=%v err~%q", tt.token, ok, err, tt.ok, tt.wantErr)
			continue
		}
		if ok && (u.Name != "system:bootstrap:abcdef" || strings.Join(u.Groups, ",") != "system:bootstrappers,system:bootstrappers:kubecore:nodes") {
			t.Errorf("user %+v", u)
		}
	}
}
