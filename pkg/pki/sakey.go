package pki

import (
	"crypto/ecdsa"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"kubecore.io/client/util/cert"
)

// ServiceAccountKeyFile is the key service account tokens are signed
// with, in the pki directory (mode 0600). It never expires; tokens carry
// their own expiry.
const ServiceAccountKeyFile = "sa.key"

// EnsureServiceAccountKey loads dir/sa.key, making it on first use.
func EnsureServiceAccountKey(dir string) (*ecdsa.PrivateKey, error) {
	path := filepath.Join(dir, ServiceAccountKeyFile)
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		k, err := cert.ParsePrivateKeyPEM(data)
		if err != nil {
			return nil, fmt.Errorf("pki: %s: %w", path, err)
		}
		ec, ok := k.(*ecdsa.PrivateKey)
		if !ok {
			return nil, fmt.Errorf("pki: %s: want an ECDSA key, found %T", path, k)
		}
		return ec, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("pki: %w", err)
	}
	key, err := cert.NewPrivateKey()
	if err != nil {
		return nil, fmt.Errorf("pki: %w", err)
	}
	pemData, err := cert.EncodePrivateKeyPEM(key)
	if err != nil {
		return nil, fmt.Errorf("pki: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("pki: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "."+ServiceAccountKeyFile+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("pki: %w", err)
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	if _, err := tmp.Write(pemData); err != nil {
		_ = tmp.Close()
		return nil, fmt.Errorf("pki: write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return nil, fmt.Errorf("pki: write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return nil, fmt.Errorf("pki: write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return nil, fmt.Errorf("pki: write %s: %w", path, err)
	}
	return key, nil
}
