package pki

import (
	"crypto/x509"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"kubecore.io/client/util/cert"
)

// Status describes one certificate of a pki directory.
type Status struct {
	Name         string
	CommonName   string
	Organization []string
	NotAfter     time.Time
	IsCA         bool
	// Problem says what is wrong with it ("" when nothing): expired,
	// expiring within RenewBefore, or not signed by the CA.
	Problem string
}

// Inspect reads every certificate of dir (<name>.crt), the CA first, and
// says how long each is valid and whether it needs renewal at now.
func Inspect(dir string, now time.Time) ([]Status, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*"+certFileSuffix))
	if err != nil {
		return nil, fmt.Errorf("pki: %w", err)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("pki: no certificates in %s", dir)
	}
	ca, err := loadCert(filepath.Join(dir, CAName+certFileSuffix))
	if err != nil {
		return nil, fmt.Errorf("pki: %w", err)
	}
	var out []Status
	for _, p := range paths {
		c, err := loadCert(p)
		if err != nil {
			return nil, fmt.Errorf("pki: %w", err)
		}
		st := Status{
			Name:         strings.TrimSuffix(filepath.Base(p), certFileSuffix),
			CommonName:   c.Subject.CommonName,
			Organization: c.Subject.Organization,
			NotAfter:     c.NotAfter,
			IsCA:         c.IsCA,
		}
		switch {
		case !now.Before(c.NotAfter):
			st.Problem = "expired"
		case now.Before(c.NotBefore):
			st.Problem = "not valid before " + c.NotBefore.UTC().Format(time.RFC3339)
		case c.CheckSignatureFrom(ca) != nil:
			st.Problem = "not signed by the CA"
		case cert.NeedsRenewal(c, now, RenewBefore):
			st.Problem = fmt.Sprintf("expires within %d days", int(RenewBefore.Hours()/24))
		}
		out = append(out, st)
	}
	slices.SortStableFunc(out, func(a, b Status) int {
		switch {
		case a.Name == CAName:
			return -1
		case b.Name == CAName:
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out, nil
}

// RenewClientCerts re-issues, with their subjects, the client certificates
// of b's directory other than admin (the components' and kubelets') that
// need it: expiring within RenewBefore, not signed by the CA, or all of
// them when the Bundle was made with Rotate.
func (b *Bundle) RenewClientCerts() error {
	paths, err := filepath.Glob(filepath.Join(b.Dir, "*"+certFileSuffix))
	if err != nil {
		return fmt.Errorf("pki: %w", err)
	}
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), certFileSuffix)
		if name == CAName || name == ServingName || name == AdminName {
			continue
		}
		c, err := loadCert(p)
		if err != nil {
			return fmt.Errorf("pki: %w", err)
		}
		if _, err := b.ensureClientCert(name, c.Subject.CommonName, c.Subject.Organization); err != nil {
			return err
		}
	}
	return b.flush()
}

// FormatStatus writes statuses as a table, as `kubecore certs check`
// prints them.
func FormatStatus(statuses []Status, now time.Time) string {
	var b strings.Builder
	w := func(cols ...string) {
		fmt.Fprintf(&b, "%-28s %-44s %-22s %-10s %s\n", cols[0], cols[1], cols[2], cols[3], cols[4])
	}
	w("CERTIFICATE", "SUBJECT", "EXPIRES", "RESIDUAL", "STATUS")
	for _, st := range statuses {
		subject := "CN=" + st.CommonName
		for _, o := range st.Organization {
			subject += ",O=" + o
		}
		status := "ok"
		if st.Problem != "" {
			status = st.Problem
		}
		w(st.Name, subject, st.NotAfter.UTC().Format(time.RFC3339), residual(st.NotAfter.Sub(now)), status)
	}
	return b.String()
}

// residual prints a validity left the way kubeadm users read it: 364d, 9y.
func residual(d time.Duration) string {
	switch days := int(d.Hours() / 24); {
	case d <= 0:
		return "<invalid>"
	case days >= 730:
		return fmt.Sprintf("%dy", days/365)
	case days >= 1:
		return fmt.Sprintf("%dd", days)
	default:
		return d.Round(time.Minute).String()
	}
}

// Exists reports whether dir holds a pki (its CA certificate).
func Exists(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, CAName+certFileSuffix))
	return err == nil
}

// loadCert reads the first certificate of the PEM file at path.
func loadCert(path string) (*x509.Certificate, error) {
	certs, err := cert.ReadCertsFile(path)
	if err != nil {
		return nil, err
	}
	return certs[0], nil
}
