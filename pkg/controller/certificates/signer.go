package certificates

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/x509"
	"fmt"
	"math/big"
	"slices"
	"time"

	certificatesv1 "kubecore.io/api/certificates/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/controller"
	"kubecore.io/client/informers"
	"kubecore.io/client/typed"
	"kubecore.io/client/util/cert"

	"k8s.io/klog/v2"
)

// SignerName is the signer's name in the controller-manager.
const SignerName = "csrsigning"

// DefaultSigningDuration is the longest validity the signer gives, as
// Kubernetes' --cluster-signing-duration defaults to.
const DefaultSigningDuration = 365 * 24 * time.Hour

// backdate is how far before now certificates start, for clocks behind.
const backdate = 5 * time.Minute

// SignerConfig is the CA the signer issues with.
type SignerConfig struct {
	CACert *x509.Certificate
	CAKey  crypto.Signer
	// Duration is the longest validity of a certificate; a request's
	// expirationSeconds shortens it. DefaultSigningDuration when zero.
	Duration time.Duration
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// Signer issues the approved requests of signer
// kubernetes.io/kube-apiserver-client-kubelet with the cluster CA; an
// approved request that is not exactly a kubelet client certificate gets
// a Failed condition instead.
type Signer struct {
	queued
	client SignerClient
	cfg    SignerConfig
}

// SignerClient is what the signer asks of the API server;
// *typed.Clientset satisfies it.
type SignerClient interface {
	CertificatesV1() typed.CertificatesV1
}

// NewSigner returns a signer fed by the factory's informers.
func NewSigner(client SignerClient, factory *informers.SharedInformerFactory, cfg SignerConfig) (*Signer, error) {
	if cfg.CACert == nil || cfg.CAKey == nil {
		return nil, fmt.Errorf("%s controller: the CA certificate and key are required", SignerName)
	}
	if !cfg.CACert.IsCA {
		return nil, fmt.Errorf("%s controller: %q is not a CA certificate", SignerName, cfg.CACert.Subject.CommonName)
	}
	if !cert.PublicKeyMatches(cfg.CACert, cfg.CAKey) {
		return nil, fmt.Errorf("%s controller: the CA key does not match the CA certificate", SignerName)
	}
	cfg.Duration = controller.OrDefault(cfg.Duration, DefaultSigningDuration)
	cfg.Now = controller.OrNow(cfg.Now)
	s := &Signer{client: client, cfg: cfg}
	return s, s.init(factory, SignerName, s.sync)
}

// sync issues the certificate of the request name once it is approved.
func (s *Signer) sync(ctx context.Context, name string) error {
	c, ok, err := controller.Get(ctx, s.lister, name)
	if !ok {
		return err
	}
	if c.Spec.SignerName != certificatesv1.KubeAPIServerClientKubeletSignerName || len(c.Status.Certificate) > 0 ||
		!hasCondition(c, certificatesv1.CertificateApproved) || hasCondition(c, certificatesv1.CertificateDenied) || hasCondition(c, certificatesv1.CertificateFailed) {
		return nil
	}
	out := c.DeepCopy()
	logger := klog.FromContext(ctx).WithValues("csr", name)
	if req, _, invalid := KubeletClientRequest(c); invalid != nil {
		out.Status.Conditions = append(out.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{
			Type: certificatesv1.CertificateFailed, Status: corev1.ConditionTrue, Reason: "SignerValidationFailure", Message: invalid.Error(),
		})
		logger = logger.WithValues("failed", invalid.Error())
	} else {
		issued, err := s.sign(req, c)
		if err != nil {
			return fmt.Errorf("sign %s: %w", name, err)
		}
		out.Status.Certificate = cert.EncodeCertPEM(issued)
		logger = logger.WithValues("subject", req.Subject.CommonName, "notAfter", issued.NotAfter)
	}
	if _, err := s.client.CertificatesV1().CertificateSigningRequests().UpdateStatus(ctx, out, metav1.UpdateOptions{}); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("update status of %s: %w", name, err)
	}
	logger.V(2).Info("Handled an approved kubelet client certificate request")
	return nil
}

// sign issues the certificate of req: its subject and key, client auth,
// valid from a little before now for the signer's duration (or the
// request's shorter one), never past the CA.
func (s *Signer) sign(req *x509.CertificateRequest, c *csr) (*x509.Certificate, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return nil, err
	}
	now := s.cfg.Now()
	d := s.cfg.Duration
	if e := c.Spec.ExpirationSeconds; e != nil && time.Duration(*e)*time.Second < d {
		d = time.Duration(*e) * time.Second
	}
	notAfter := now.Add(d)
	if notAfter.After(s.cfg.CACert.NotAfter) {
		notAfter = s.cfg.CACert.NotAfter
	}
	usage := x509.KeyUsageDigitalSignature
	if slices.Contains(c.Spec.Usages, certificatesv1.UsageKeyEncipherment) {
		usage |= x509.KeyUsageKeyEncipherment
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               req.Subject,
		NotBefore:             now.Add(-backdate),
		NotAfter:              notAfter,
		KeyUsage:              usage,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, s.cfg.CACert, req.PublicKey, s.cfg.CAKey)
	if err != nil {
		return nil, err
	}
	return x509.ParseCertificate(der)
}
