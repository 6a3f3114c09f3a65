package serviceaccount

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"slices"
	"testing"
)

// The published keys verify the tokens the issuer signs: the kid of a
// token names a key of the set, whose coordinates are the signer's.
func TestJWKSPublishesTheVerifyingKey(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	data, err := JWKS([]*ecdsa.PublicKey{&key.PublicKey})
	if err != nil {
		t.Fatal(err)
	}
	var set struct {
		Keys []map[string]string `json:"keys"`
	}
	if err := json.Unmarshal(data, &set); err != nil || len(set.Keys) != 1 {
		t.Fatalf("JWKS %s: %v", data, err)
	}
	k := set.Keys[0]
	kid, _ := KeyID(&key.PublicKey)
	if k["kty"] != "EC" || k["crv"] != "P-256" || k["alg"] != "ES256" || k["use"] != "sig" || k["kid"] != kid {
		t.Errorf("key %v (kid want %s)", k, kid)
	}
	coord := func(s string) []byte {
		b, err := base64.RawURLEncoding.DecodeString(s)
		if err != nil || len(b) != 32 {
			t.Fatalf("coordinate %q: %v", s, err)
		}
		return b
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), slices.Concat([]byte{4}, coord(k["x"]), coord(k["y"])))
	if err != nil {
		t.Fatal(err)
	}
	if !pub.Equal(&key.PublicKey) {
		t.Fatal("the published key is not the signer's")
	}
	token, err := Sign(key, &Claims{Issuer: DefaultIssuer, Subject: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := verify(token, []*ecdsa.PublicKey{pub}); err != nil {
		t.Fatalf("a token does not verify with the published key: %v", err)
	}

	other, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if _, err := JWKS([]*ecdsa.PublicKey{&other.PublicKey}); err == nil {
		t.Error("a P-384 key was published as ES256")
	}
}

func TestOpenIDConfiguration(t *testing.T) {
	data, err := OpenIDConfiguration(DefaultIssuer, JWKSURI("https://10.0.0.1:6443/"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc["issuer"] != DefaultIssuer || doc["jwks_uri"] != "https://10.0.0.1:6443/openid/v1/jwks" {
		t.Errorf("document %s", data)
	}
}
