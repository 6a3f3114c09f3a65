package cert

import (
	"crypto"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
)

// CertificateRequestBlockType is the PEM type of an x509 certificate request.
const CertificateRequestBlockType = "CERTIFICATE REQUEST"

// NewCertificateRequestPEM returns a certificate request for subject,
// signed with key, as one PEM block.
func NewCertificateRequestPEM(key crypto.Signer, subject pkix.Name) ([]byte, error) {
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: subject}, key)
	if err != nil {
		return nil, fmt.Errorf("create certificate request: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: CertificateRequestBlockType, Bytes: der}), nil
}

// ParseCertificateRequestPEM decodes the first PEM block of data, which
// must be a certificate request, and checks its signature: whoever made
// it holds the key.
func ParseCertificateRequestPEM(data []byte) (*x509.CertificateRequest, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, fmt.Errorf("PEM block type must be %s", CertificateRequestBlockType)
	}
	if block.Type != CertificateRequestBlockType {
		return nil, fmt.Errorf("PEM block type must be %s, not %s", CertificateRequestBlockType, block.Type)
	}
	req, err := x509.ParseCertificateRequest(block.Bytes)
	if err != nil {
		return nil, err
	}
	if err := req.CheckSignature(); err != nil {
		return nil, fmt.Errorf("signature: %w", err)
	}
	return req, nil
}
