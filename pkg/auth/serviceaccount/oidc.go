package serviceaccount

import (
	"crypto/ecdsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
)

// The paths of service account issuer discovery, as Kubernetes serves
// them: an OpenID Connect discovery document and the keys that verify
// the tokens, so that other systems can trust the cluster's tokens.
const (
	OpenIDConfigurationPath = "/.well-known/openid-configuration"
	JWKSPath                = "/openid/v1/jwks"
)

// openIDConfiguration is the part of an OpenID Provider Metadata document
// Kubernetes publishes.
type openIDConfiguration struct {
	Issuer        string   `json:"issuer"`
	JWKSURI       string   `json:"jwks_uri"`
	ResponseTypes []string `json:"response_types_supported"`
	SubjectTypes  []string `json:"subject_types_supported"`
	SigningAlgs   []string `json:"id_token_signing_alg_values_supported"`
}

// OpenIDConfiguration returns the discovery document of issuer, whose keys
// are served at jwksURI.
func OpenIDConfiguration(issuer, jwksURI string) ([]byte, error) {
	return json.Marshal(&openIDConfiguration{
		Issuer:        issuer,
		JWKSURI:       jwksURI,
		ResponseTypes: []string{"id_token"},
		SubjectTypes:  []string{"public"},
		SigningAlgs:   []string{"ES256"},
	})
}

// jwk is a public EC key in JSON Web Key form (RFC 7517, 7518).
type jwk struct {
	Use string `json:"use"`
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Crv string `json:"crv"`
	Alg string `json:"alg"`
	X   string `json:"x"`
	Y   string `json:"y"`
}

// JWKS returns the JSON Web Key Set of keys: P-256 keys, each with the kid
// the tokens it signed carry.
func JWKS(keys []*ecdsa.PublicKey) ([]byte, error) {
	set := struct {
		Keys []jwk `json:"keys"`
	}{Keys: []jwk{}}
	for _, k := range keys {
		if k.Curve.Params().Name != "P-256" {
			return nil, fmt.Errorf("service account key on curve %s: only P-256 (ES256) is published", k.Curve.Params().Name)
		}
		kid, err := KeyID(k)
		if err != nil {
			return nil, err
		}
		raw, err := k.Bytes() // 0x04 || X || Y, 32 bytes each
		if err != nil {
			return nil, fmt.Errorf("encode service account key: %w", err)
		}
		enc := base64.RawURLEncoding
		set.Keys = append(set.Keys, jwk{Use: "sig", Kty: "EC", Kid: kid, Crv: "P-256", Alg: "ES256",
			X: enc.EncodeToString(raw[1:33]), Y: enc.EncodeToString(raw[33:65])})
	}
	return json.Marshal(&set)
}

// JWKSURI is where an API server reachable at externalURL serves the keys.
func JWKSURI(externalURL string) string {
	return strings.TrimSuffix(externalURL, "/") + JWKSPath
}
