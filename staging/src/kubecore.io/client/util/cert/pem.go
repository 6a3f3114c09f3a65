package cert

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// PEM block types.
const (
	CertificateBlockType   = "CERTIFICATE"
	ECPrivateKeyBlockType  = "EC PRIVATE KEY"
	RSAPrivateKeyBlockType = "RSA PRIVATE KEY"
	PrivateKeyBlockType    = "PRIVATE KEY"
)

// EncodeCertPEM returns cert as a PEM CERTIFICATE block.
func EncodeCertPEM(cert *x509.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: CertificateBlockType, Bytes: cert.Raw})
}

// ParseCertsPEM returns every CERTIFICATE block of data, in order. Other
// blocks are skipped; data without any certificate is an error.
func ParseCertsPEM(data []byte) ([]*x509.Certificate, error) {
	var certs []*x509.Certificate
	for rest := data; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != CertificateBlockType {
			continue
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("certificate %d: %w", len(certs), err)
		}
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		return nil, errors.New("no PEM CERTIFICATE block found")
	}
	return certs, nil
}

// EncodePrivateKeyPEM returns key as PEM: SEC 1 "EC PRIVATE KEY" for ECDSA,
// PKCS #1 "RSA PRIVATE KEY" for RSA, PKCS #8 "PRIVATE KEY" otherwise.
func EncodePrivateKeyPEM(key crypto.Signer) ([]byte, error) {
	var block *pem.Block
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		der, err := x509.MarshalECPrivateKey(k)
		if err != nil {
			return nil, fmt.Errorf("marshal EC private key: %w", err)
		}
		block = &pem.Block{Type: ECPrivateKeyBlockType, Bytes: der}
	case *rsa.PrivateKey:
		block = &pem.Block{Type: RSAPrivateKeyBlockType, Bytes: x509.MarshalPKCS1PrivateKey(k)}
	default:
		der, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			return nil, fmt.Errorf("marshal %T private key: %w", key, err)
		}
		block = &pem.Block{Type: PrivateKeyBlockType, Bytes: der}
	}
	return pem.EncodeToMemory(block), nil
}

// ParsePrivateKeyPEM returns the first private key of data: EC (SEC 1),
// RSA (PKCS #1) or PKCS #8. EC PARAMETERS and certificate blocks are skipped;
// encrypted keys are refused.
func ParsePrivateKeyPEM(data []byte) (crypto.Signer, error) {
	for rest := data; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return nil, errors.New("no PEM private key block found")
		}
		if block.Type == "ENCRYPTED PRIVATE KEY" || block.Headers["Proc-Type"] != "" {
			return nil, errors.New("encrypted private keys are not supported")
		}
		switch block.Type {
		case ECPrivateKeyBlockType:
			k, err := x509.ParseECPrivateKey(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("EC private key: %w", err)
			}
			return k, nil
		case RSAPrivateKeyBlockType:
			k, err := x509.ParsePKCS1PrivateKey(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("RSA private key: %w", err)
			}
			return k, nil
		case PrivateKeyBlockType:
			k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("PKCS #8 private key: %w", err)
			}
			signer, ok := k.(crypto.Signer)
			if !ok {
				return nil, fmt.Errorf("PKCS #8 private key of type %T cannot sign", k)
			}
			return signer, nil
		}
	}
}

// ReadCertsFile returns the certificates of the PEM file at path.
func ReadCertsFile(path string) ([]*x509.Certificate, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fileError(path, err)
	}
	certs, err := ParseCertsPEM(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return certs, nil
}

// CertExpiry returns when the first certificate of the PEM file at path expires.
func CertExpiry(path string) (time.Time, error) {
	certs, err := ReadCertsFile(path)
	if err != nil {
		return time.Time{}, err
	}
	return certs[0].NotAfter, nil
}

// LoadCertAndKey reads a PEM certificate (the first of the file, when it holds
// a chain) and its private key, and checks that they belong together.
func LoadCertAndKey(certPath, keyPath string) (*x509.Certificate, crypto.Signer, error) {
	certs, err := ReadCertsFile(certPath)
	if err != nil {
		return nil, nil, err
	}
	data, err := os.ReadFile(keyPath)
	if err != nil {
		return nil, nil, fileError(keyPath, err)
	}
	key, err := ParsePrivateKeyPEM(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", keyPath, err)
	}
	if !PublicKeyMatches(certs[0], key) {
		return nil, nil, fmt.Errorf("%s: private key does not match the certificate in %s", keyPath, certPath)
	}
	return certs[0], key, nil
}

// WriteCertAndKey writes cert (mode 0644) and key (mode 0600) as PEM files,
// each atomically, creating their directories (mode 0700) as needed.
func WriteCertAndKey(certPath, keyPath string, cert *x509.Certificate, key crypto.Signer) error {
	keyPEM, err := EncodePrivateKeyPEM(key)
	if err != nil {
		return fmt.Errorf("%s: %w", keyPath, err)
	}
	// The two files are synced in parallel: one journal commit serves both.
	keyErr := make(chan error, 1)
	go func() { keyErr <- writeFileAtomic(keyPath, keyPEM, 0o600) }()
	certErr := writeFileAtomic(certPath, EncodeCertPEM(cert), 0o644)
	return errors.Join(<-keyErr, certErr)
}

// writeFileAtomic writes data to a temporary file beside path, syncs it and
// renames it over path, so that a crash never leaves a half-written file.
func writeFileAtomic(path string, data []byte, perm fs.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fileError(dir, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fileError(path, err)
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	if err := f.Chmod(perm); err != nil {
		return fileError(path, err)
	}
	if _, err := f.Write(data); err != nil {
		return fileError(path, err)
	}
	if err := f.Sync(); err != nil {
		return fileError(path, err)
	}
	if err := f.Close(); err != nil {
		return fileError(path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fileError(path, err)
	}
	ok = true
	return syncDir(dir)
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fileError(dir, err)
	}
	defer func() { _ = d.Close() }()
	if err := d.Sync(); err != nil {
		return fileError(dir, err)
	}
	return nil
}

// fileError names path once, however err (often an *fs.PathError) names it.
func fileError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %s: %w", path, pe.Op, pe.Err)
	}
	return fmt.Errorf("%s: %w", path, err)
}
