package serviceaccount

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"strings"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

type fakeGetter struct {
	sa     *corev1.ServiceAccount
	pod    *corev1.Pod
	secret *corev1.Secret
}

func (g *fakeGetter) ServiceAccount(_ context.Context, ns, name string) (*corev1.ServiceAccount, error) {
	if g.sa != nil && g.sa.Namespace == ns && g.sa.Name == name {
		return g.sa, nil
	}
	return nil, nil
}

func (g *fakeGetter) Pod(_ context.Context, ns, name string) (*corev1.Pod, error) {
	if g.pod != nil && g.pod.Namespace == ns && g.pod.Name == name {
		return g.pod, nil
	}
	return nil, nil
}

func (g *fakeGetter) Secret(_ context.Context, ns, name string) (*corev1.Secret, error) {
	if g.secret != nil && g.secret.Namespace == ns && g.secret.Name == name {
		return g.secret, nil
	}
	return nil, nil
}

func newKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestTokens(t *testing.T) {
	key, other := newKey(t), newKey(t)
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "dev", Name: "robot", UID: "sa-uid"}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "dev", Name: "web", UID: "pod-uid"}, Spec: corev1.PodSpec{NodeName: "n1"}}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", UID: "node-uid"}}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "dev", Name: "s", UID: "secret-uid"}}
	iss := &Issuer{Key: key, Issuer: DefaultIssuer, Now: clock}
	plain, _, err := iss.Token(sa, Bound{}, nil, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	bound, exp, err := iss.Token(sa, Bound{Pod: pod, Node: node}, nil, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if !exp.Equal(now.Add(time.Hour)) {
		t.Errorf("expiry %v", exp)
	}
	foreign, _, _ := (&Issuer{Key: other, Issuer: DefaultIssuer, Now: clock}).Token(sa, Bound{}, nil, time.Hour)
	otherIssuer, _, _ := (&Issuer{Key: key, Issuer: "https://elsewhere", Now: clock}).Token(sa, Bound{}, nil, time.Hour)
	audienced, _, _ := iss.Token(sa, Bound{}, []string{"vault"}, time.Hour)
	secretBound, _, _ := iss.Token(sa, Bound{Secret: secret}, nil, time.Hour)
	recreatedSecret := secret.DeepCopy()
	recreatedSecret.UID = "other"

	newAuth := func(g *fakeGetter, at time.Time) *Authenticator {
		return &Authenticator{Keys: []*ecdsa.PublicKey{&key.PublicKey}, Issuer: DefaultIssuer, Audiences: []string{DefaultAudience},
			Getter: g, Now: func() time.Time { return at }}
	}
	recreated := sa.DeepCopy()
	recreated.UID = "new-uid"
	tests := []struct {
		name    string
		token   string
		getter  *fakeGetter
		at      time.Time
		ok      bool
		wantErr string
	}{
		{"service account token", plain, &fakeGetter{sa: sa}, now, true, ""},
		{"pod-bound token", bound, &fakeGetter{sa: sa, pod: pod}, now, true, ""},
		{"pod gone", bound, &fakeGetter{sa: sa}, now, false, "has been deleted"},
		{"secret-bound token", secretBound, &fakeGetter{sa: sa, secret: secret}, now, true, ""},
		{"secret recreated", secretBound, &fakeGetter{sa: sa, secret: recreatedSecret}, now, false, "has been deleted"},
		{"service account recreated", plain, &fakeGetter{sa: recreated}, now, false, "has been deleted"},
		{"expired", plain, &fakeGetter{sa: sa}, now.Add(2 * time.Hour), false, "expired"},
		{"signed by another key", foreign, &fakeGetter{sa: sa}, now, false, "invalid signature"},
		{"another issuer is not ours", otherIssuer, &fakeGetter{sa: sa}, now, false, ""},
		{"another audience", audienced, &fakeGetter{sa: sa}, now, false, "audience"},
		{"not a JWT", "abcdef.0123456789abcdef", &fakeGetter{sa: sa}, now, false, ""},
		{"tampered claims", strings.Replace(plain, ".", ".e30", 1), &fakeGetter{sa: sa}, now, false, "invalid signature"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, ok, err := newAuth(tt.getter, tt.at).AuthenticateToken(context.Background(), tt.token)
			if ok != tt.ok || (tt.wantErr == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("ok=%v err=%v, want ok=%v err~%q", ok, err, tt.ok, tt.wantErr)
			}
			if !ok {
				return
			}
			if u.Name != "system:serviceaccount:dev:robot" || u.UID != "sa-uid" || len(u.Groups) != 2 || u.Groups[1] != "system:serviceaccounts:dev" {
				t.Errorf("user %+v", u)
			}
			if tt.token == bound && (u.Extra[ExtraPodName][0] != "web" || u.Extra[ExtraNodeName][0] != "n1" || u.Extra[ExtraNodeUID][0] != "node-uid") {
				t.Errorf("extra %v", u.Extra)
			}
			if id := u.Extra[ExtraCredentialID]; len(id) != 1 || !strings.HasPrefix(id[0], "JTI=") {
				t.Errorf("credential id %v", id)
			}
		})
	}
}

func TestSplitUserName(t *testing.T) {
	if ns, name, ok := SplitUserName("system:serviceaccount:dev:robot"); !ok || ns != "dev" || name != "robot" {
		t.Errorf("got %q %q %v", ns, name, ok)
	}
	for _, bad := range []string{"alice", "system:serviceaccount:dev", "system:serviceaccount::x"} {
		if _, _, ok := SplitUserName(bad); ok {
			t.Errorf("%q accepted", bad)
		}
	}
}
