package serviceaccount

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"slices"
	"strings"
	"testing"

	authenticationv1 "kubecore.io/api/authentication/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
)

// TestIssuerDiscovery: any service account reads the issuer's OpenID
// discovery document and its keys (system:service-account-issuer-
// discovery), and a token the API server issued verifies with the key the
// document points at, as an outside system would check it.
func TestIssuerDiscovery(t *testing.T) {
	s := start(t)
	ctx := context.Background()
	ns := s.s.CreateNamespace(t, "discovery")
	s.createSA(ctx, ns, "robot")
	tr, err := requestToken(ctx, s.admin, ns, "robot", &authenticationv1.TokenRequest{})
	if err != nil {
		t.Fatal(err)
	}
	robot := s.clients(s.config(tr.Status.Token, "")).CoreV1().RESTClient()

	var doc struct {
		Issuer  string   `json:"issuer"`
		JWKSURI string   `json:"jwks_uri"`
		Algs    []string `json:"id_token_signing_alg_values_supported"`
	}
	var raw []byte
	eventually(t, "the robot reads the discovery document", func() error {
		raw, err = robot.Get().AbsPath("/.well-known/openid-configuration").DoRaw(ctx)
		return err
	})
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("discovery document %s: %v", raw, err)
	}
	if doc.Issuer != "https://kubernetes.default.svc.cluster.local" || !strings.HasSuffix(doc.JWKSURI, "/openid/v1/jwks") || len(doc.Algs) != 1 || doc.Algs[0] != "ES256" {
		t.Fatalf("discovery document %s", raw)
	}

	raw, err = robot.Get().AbsPath("/openid/v1/jwks").DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var set struct {
		Keys []struct{ Kid, X, Y string } `json:"keys"`
	}
	if err := json.Unmarshal(raw, &set); err != nil {
		t.Fatalf("JWKS %s: %v", raw, err)
	}

	// Check the token's ES256 signature with the published key its kid names.
	parts := strings.Split(tr.Status.Token, ".")
	if len(parts) != 3 {
		t.Fatalf("token %q is not a JWT", tr.Status.Token)
	}
	dec := func(s string) []byte {
		b, err := base64.RawURLEncoding.DecodeString(s)
		if err != nil {
			t.Fatalf("base64url %q: %v", s, err)
		}
		return b
	}
	var header struct{ Alg, Kid string }
	if err := json.Unmarshal(dec(parts[0]), &header); err != nil || header.Alg != "ES256" {
		t.Fatalf("token header %s: %v", dec(parts[0]), err)
	}
	var pub *ecdsa.PublicKey
	for _, k := range set.Keys {
		if k.Kid == header.Kid {
			if pub, err = ecdsa.ParseUncompressedPublicKey(elliptic.P256(), slices.Concat([]byte{4}, dec(k.X), dec(k.Y))); err != nil {
				t.Fatalf("published key %+v: %v", k, err)
			}
		}
	}
	if pub == nil {
		t.Fatalf("no published key has the token's kid %q: %s", header.Kid, raw)
	}
	sig := dec(parts[2])
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if len(sig) != 64 || !ecdsa.Verify(pub, digest[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		t.Fatal("the token does not verify with the published key")
	}

	// Anonymous clients are not let in.
	anon := s.clients(s.config("", "")).CoreV1().RESTClient()
	if _, err := anon.Get().AbsPath("/openid/v1/jwks").DoRaw(ctx); !apierrors.IsForbidden(err) && !apierrors.IsUnauthorized(err) {
		t.Errorf("anonymous JWKS read: %v, want 401 or 403", err)
	}
}
