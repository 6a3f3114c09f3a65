// Package serviceaccount issues and checks service account tokens: JWTs
// signed with the cluster's service-account key (ES256), naming the
// service account and, for a pod's projected token, the pod. A token is
// valid only while its service account (and pod) still exist with the
// UIDs it names.
package serviceaccount

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// Claims are the JWT claims of a service account token.
type Claims struct {
	Issuer    string         `json:"iss"`
	Subject   string         `json:"sub"`
	Audience  []string       `json:"aud"`
	Expiry    int64          `json:"exp"`
	IssuedAt  int64          `json:"iat"`
	NotBefore int64          `json:"nbf"`
	ID        string         `json:"jti,omitempty"`
	K8s       *PrivateClaims `json:"kubernetes.io,omitempty"`
}

// PrivateClaims name what the token is bound to: its service account and
// at most one of a pod (with the pod's node, for information) or a secret.
type PrivateClaims struct {
	Namespace      string `json:"namespace"`
	ServiceAccount Ref    `json:"serviceaccount"`
	Pod            *Ref   `json:"pod,omitempty"`
	Secret         *Ref   `json:"secret,omitempty"`
	Node           *Ref   `json:"node,omitempty"`
}

// Ref names an object and its UID.
type Ref struct {
	Name string `json:"name"`
	UID  string `json:"uid"`
}

type header struct {
	Alg string `json:"alg"`
	Kid string `json:"kid,omitempty"`
}

var b64 = base64.RawURLEncoding

// KeyID is the "kid" of a public key: the SHA-256 of its DER encoding.
func KeyID(pub *ecdsa.PublicKey) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", fmt.Errorf("service account key id: %w", err)
	}
	sum := sha256.Sum256(der)
	return b64.EncodeToString(sum[:]), nil
}

// Sign returns the compact JWT of claims signed with key (ES256, P-256).
func Sign(key *ecdsa.PrivateKey, claims *Claims) (string, error) {
	kid, err := KeyID(&key.PublicKey)
	if err != nil {
		return "", err
	}
	h, err := json.Marshal(header{Alg: "ES256", Kid: kid})
	if err != nil {
		return "", err
	}
	c, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	signing := b64.EncodeToString(h) + "." + b64.EncodeToString(c)
	digest := sha256.Sum256([]byte(signing))
	r, s, err := ecdsa.Sign(rand.Reader, key, digest[:])
	if err != nil {
		return "", fmt.Errorf("sign service account token: %w", err)
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return signing + "." + b64.EncodeToString(sig), nil
}

// errNotOurs means the token is not a JWT this package could have made.
var errNotOurs = errors.New("not a service account token")

// verify checks the signature of token against keys and returns its
// claims; errNotOurs when it is no ES256 JWT.
func verify(token string, keys []*ecdsa.PublicKey) (*Claims, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, errNotOurs
	}
	hb, err := b64.DecodeString(parts[0])
	if err != nil {
		return nil, errNotOurs
	}
	var h header
	if err := json.Unmarshal(hb, &h); err != nil || h.Alg != "ES256" {
		return nil, errNotOurs
	}
	sig, err := b64.DecodeString(parts[2])
	if err != nil || len(sig) != 64 {
		return nil, errors.New("service account token: malformed signature")
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
	valid := false
	for _, k := range keys {
		if ecdsa.Verify(k, digest[:], r, s) {
			valid = true
			break
		}
	}
	if !valid {
		return nil, errors.New("service account token: invalid signature")
	}
	cb, err := b64.DecodeString(parts[1])
	if err != nil {
		return nil, errors.New("service account token: malformed claims")
	}
	var c Claims
	if err := json.Unmarshal(cb, &c); err != nil {
		return nil, fmt.Errorf("service account token: claims: %w", err)
	}
	return &c, nil
}

// PublicKey returns the public half of a signing key, for verifiers.
func PublicKey(key crypto.Signer) (*ecdsa.PublicKey, error) {
	pub, ok := key.Public().(*ecdsa.PublicKey)
	if !ok {
		return nil, fmt.Errorf("service account key: %T is not an ECDSA key", key.Public())
	}
	return pub, nil
}
