package cert

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func mustCA(t *testing.T) (*x509.Certificate, crypto.Signer) {
	t.Helper()
	key, err := NewPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	ca, err := NewSelfSignedCACert(Config{CommonName: "test-ca"}, key)
	if err != nil {
		t.Fatal(err)
	}
	return ca, key
}

func TestNewSelfSignedCACert(t *testing.T) {
	ca, key := mustCA(t)
	if !ca.IsCA || ca.KeyUsage&x509.KeyUsageCertSign == 0 {
		t.Errorf("IsCA=%v KeyUsage=%v, want a CA that signs certificates", ca.IsCA, ca.KeyUsage)
	}
	if got := ca.NotAfter.Sub(ca.NotBefore); got != DefaultCADuration {
		t.Errorf("validity %s, want %s", got, DefaultCADuration)
	}
	if err := ca.CheckSignatureFrom(ca); err != nil {
		t.Errorf("not self-signed: %v", err)
	}
	if !PublicKeyMatches(ca, key) {
		t.Error("key does not match")
	}
	if _, err := NewSelfSignedCACert(Config{}, key); err == nil || !strings.Contains(err.Error(), "commonName") {
		t.Errorf("empty common name: err = %v", err)
	}
}

func TestNewSignedCert(t *testing.T) {
	ca, caKey := mustCA(t)
	key, err := NewPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	notCA, err := NewSignedCert(Config{CommonName: "leaf", Usages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}, key, ca, caKey)
	if err != nil {
		t.Fatal(err)
	}
	serving := Config{
		CommonName: "server",
		AltNames:   AltNames{DNSNames: []string{"localhost"}, IPs: []net.IP{net.ParseIP("127.0.0.1")}},
		Usages:     []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	tests := []struct {
		name    string
		cfg     Config
		caCert  *x509.Certificate
		caKey   crypto.Signer
		wantErr string
	}{
		{name: "serving", cfg: serving, caCert: ca, caKey: caKey},
		{name: "no common name", cfg: Config{Usages: serving.Usages}, caCert: ca, caKey: caKey, wantErr: "commonName: required"},
		{name: "no usages", cfg: Config{CommonName: "x"}, caCert: ca, caKey: caKey, wantErr: "usages: required"},
		{name: "no CA", cfg: serving, wantErr: "CA certificate and key: required"},
		{name: "parent not a CA", cfg: serving, caCert: notCA, caKey: key, wantErr: "is not a CA"},
		{name: "wrong CA key", cfg: serving, caCert: ca, caKey: key, wantErr: "sign certificate"},
		{name: "bad IP", cfg: Config{CommonName: "x", Usages: serving.Usages, AltNames: AltNames{IPs: []net.IP{{1, 2}}}}, caCert: ca, caKey: caKey, wantErr: "altNames.ips[0]"},
		{name: "empty DNS name", cfg: Config{CommonName: "x", Usages: serving.Usages, AltNames: AltNames{DNSNames: []string{""}}}, caCert: ca, caKey: caKey, wantErr: "altNames.dnsNames[0]"},
		{name: "negative duration", cfg: Config{CommonName: "x", Usages: serving.Usages, Duration: -time.Hour}, caCert: ca, caKey: caKey, wantErr: "duration"},
		{name: "after the CA expired", cfg: Config{CommonName: "x", Usages: serving.Usages, NotBefore: ca.NotAfter.Add(time.Hour)}, caCert: ca, caKey: caKey, wantErr: "expired"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewSignedCert(tt.cfg, key, tt.caCert, tt.caKey)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			pool := x509.NewCertPool()
			pool.AddCert(ca)
			for _, host := range []string{"localhost", "127.0.0.1"} {
				if _, err := c.Verify(x509.VerifyOptions{DNSName: host, Roots: pool, KeyUsages: serving.Usages}); err != nil {
					t.Errorf("verify for %s: %v", host, err)
				}
			}
			if _, err := c.Verify(x509.VerifyOptions{DNSName: "example.com", Roots: pool}); err == nil {
				t.Error("valid for example.com, want not")
			}
			if got := c.NotAfter.Sub(c.NotBefore); got != DefaultCertDuration {
				t.Errorf("validity %s, want %s", got, DefaultCertDuration)
			}
			if c.KeyUsage&x509.KeyUsageKeyEncipherment != 0 {
				t.Error("ECDSA certificate has KeyEncipherment")
			}
		})
	}
}

func TestNewSignedCertClampedToCA(t *testing.T) {
	ca, caKey := mustCA(t)
	key, _ := NewPrivateKey()
	c, err := NewSignedCert(Config{CommonName: "x", Usages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, Duration: 20 * DefaultCADuration}, key, ca, caKey)
	if err != nil {
		t.Fatal(err)
	}
	if !c.NotAfter.Equal(ca.NotAfter) {
		t.Errorf("NotAfter %s, want the CA's %s", c.NotAfter, ca.NotAfter)
	}
}

func TestPrivateKeyPEM(t *testing.T) {
	ecKey, _ := NewPrivateKey()
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	_, edKey, _ := ed25519.GenerateKey(rand.Reader)
	p256, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	pkcs8EC, _ := x509.MarshalPKCS8PrivateKey(p256)
	ecParams := pem.EncodeToMemory(&pem.Block{Type: "EC PARAMETERS", Bytes: []byte{6, 8, 42, 134, 72, 206, 61, 3, 1, 7}})

	tests := []struct {
		name      string
		key       crypto.Signer
		pem       []byte
		wantBlock string
		wantErr   string
	}{
		{name: "ecdsa", key: ecKey, wantBlock: ECPrivateKeyBlockType},
		{name: "rsa", key: rsaKey, wantBlock: RSAPrivateKeyBlockType},
		{name: "ed25519", key: edKey, wantBlock: PrivateKeyBlockType},
		{name: "pkcs8 ecdsa", key: p256, pem: pem.EncodeToMemory(&pem.Block{Type: PrivateKeyBlockType, Bytes: pkcs8EC})},
		{name: "openssl ecparam output", key: ecKey, pem: append(ecParams, mustKeyPEM(t, ecKey)...)},
		{name: "empty", pem: []byte{}, wantErr: "no PEM private key block found"},
		{name: "certificate only", pem: pem.EncodeToMemory(&pem.Block{Type: CertificateBlockType, Bytes: []byte{1}}), wantErr: "no PEM private key block found"},
		{name: "encrypted", pem: pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: []byte{1}}), wantErr: "encrypted"},
		{name: "legacy encrypted", pem: pem.EncodeToMemory(&pem.Block{Type: RSAPrivateKeyBlockType, Headers: map[string]string{"Proc-Type": "4,ENCRYPTED"}, Bytes: []byte{1}}), wantErr: "encrypted"},
		{name: "corrupt EC", pem: pem.EncodeToMemory(&pem.Block{Type: ECPrivateKeyBlockType, Bytes: []byte{1, 2, 3}}), wantErr: "EC private key"},
		{name: "corrupt PKCS8", pem: pem.EncodeToMemory(&pem.Block{Type: PrivateKeyBlockType, Bytes: []byte{1, 2, 3}}), wantErr: "PKCS #8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := tt.pem
			if data == nil {
				data = mustKeyPEM(t, tt.key)
				if block, _ := pem.Decode(data); block.Type != tt.wantBlock {
					t.Errorf("block type %q, want %q", block.Type, tt.wantBlock)
				}
			}
			got, err := ParsePrivateKeyPEM(data)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !got.Public().(interface{ Equal(crypto.PublicKey) bool }).Equal(tt.key.Public()) {
				t.Error("parsed key differs")
			}
		})
	}
}

func mustKeyPEM(t *testing.T, key crypto.Signer) []byte {
	t.Helper()
	data, err := EncodePrivateKeyPEM(key)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestParseCertsPEM(t *testing.T) {
	ca, _ := mustCA(t)
	ca2, _ := mustCA(t)
	two := append(EncodeCertPEM(ca), EncodeCertPEM(ca2)...)
	withKey := append(mustKeyPEM(t, mustKey(t)), EncodeCertPEM(ca)...)
	tests := []struct {
		name    string
		data    []byte
		want    int
		wantErr string
	}{
		{name: "one", data: EncodeCertPEM(ca), want: 1},
		{name: "chain", data: two, want: 2},
		{name: "other blocks skipped", data: withKey, want: 1},
		{name: "empty", data: nil, wantErr: "no PEM CERTIFICATE block found"},
		{name: "not PEM", data: []byte("hello"), wantErr: "no PEM CERTIFICATE block found"},
		{name: "bad DER", data: pem.EncodeToMemory(&pem.Block{Type: CertificateBlockType, Bytes: []byte{1, 2}}), wantErr: "certificate 0:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			certs, err := ParseCertsPEM(tt.data)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || len(certs) != tt.want {
				t.Fatalf("got %d certs, err %v; want %d", len(certs), err, tt.want)
			}
		})
	}
}

func mustKey(t *testing.T) crypto.Signer {
	t.Helper()
	k, err := NewPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestWriteAndLoadCertAndKey(t *testing.T) {
	ca, caKey := mustCA(t)
	dir := filepath.Join(t.TempDir(), "pki")
	certPath, keyPath := filepath.Join(dir, "a.crt"), filepath.Join(dir, "a.key")
	if err := WriteCertAndKey(certPath, keyPath, ca, caKey); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]os.FileMode{dir: 0o700 | os.ModeDir, certPath: 0o644, keyPath: 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != want {
			t.Errorf("%s: mode %v, want %v", path, fi.Mode(), want)
		}
	}
	gotCert, gotKey, err := LoadCertAndKey(certPath, keyPath)
	if err != nil {
		t.Fatal(err)
	}
	if !gotCert.Equal(ca) || !PublicKeyMatches(gotCert, gotKey) {
		t.Error("loaded pair differs from the written one")
	}
	expiry, err := CertExpiry(certPath)
	if err != nil || !expiry.Equal(ca.NotAfter) {
		t.Errorf("CertExpiry = %v, %v; want %v", expiry, err, ca.NotAfter)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("dir holds %d entries, want 2 (no temporary files left)", len(entries))
	}

	otherKey := filepath.Join(dir, "other.key")
	if err := os.WriteFile(otherKey, mustKeyPEM(t, mustKey(t)), 0o600); err != nil {
		t.Fatal(err)
	}
	garbage := filepath.Join(dir, "garbage")
	if err := os.WriteFile(garbage, []byte("not pem"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, cert, key, wantErr string
	}{
		{name: "missing cert", cert: filepath.Join(dir, "nope.crt"), key: keyPath, wantErr: filepath.Join(dir, "nope.crt") + ": open: no such file or directory"},
		{name: "missing key", cert: certPath, key: filepath.Join(dir, "nope.key"), wantErr: filepath.Join(dir, "nope.key") + ": open: no such file or directory"},
		{name: "corrupt cert", cert: garbage, key: keyPath, wantErr: garbage + ": no PEM CERTIFICATE block found"},
		{name: "corrupt key", cert: certPath, key: garbage, wantErr: garbage + ": no PEM private key block found"},
		{name: "mismatch", cert: certPath, key: otherKey, wantErr: otherKey + ": private key does not match the certificate in " + certPath},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := LoadCertAndKey(tt.cert, tt.key)
			if err == nil || err.Error() != tt.wantErr {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestNeedsRenewal(t *testing.T) {
	start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	c := &x509.Certificate{NotBefore: start, NotAfter: start.Add(365 * 24 * time.Hour)}
	day := 24 * time.Hour
	tests := []struct {
		name   string
		now    time.Time
		within time.Duration
		want   bool
	}{
		{name: "fresh", now: start.Add(day), within: 30 * day, want: false},
		{name: "31 days left", now: c.NotAfter.Add(-31 * day), within: 30 * day, want: false},
		{name: "29 days left", now: c.NotAfter.Add(-29 * day), within: 30 * day, want: true},
		{name: "expired", now: c.NotAfter.Add(time.Second), within: 0, want: true},
		{name: "exactly at expiry", now: c.NotAfter, within: 0, want: true},
		{name: "not yet valid", now: start.Add(-time.Hour), within: 30 * day, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NeedsRenewal(c, tt.now, tt.within); got != tt.want {
				t.Errorf("NeedsRenewal = %v, want %v", got, tt.want)
			}
		})
	}
}

func BenchmarkKeyAndCert(b *testing.B) {
	caKey, _ := NewPrivateKey()
	ca, _ := NewSelfSignedCACert(Config{CommonName: "ca"}, caKey)
	for b.Loop() {
		key, err := NewPrivateKey()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := NewSignedCert(Config{CommonName: "x", Usages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}, key, ca, caKey); err != nil {
			b.Fatal(err)
		}
	}
}
