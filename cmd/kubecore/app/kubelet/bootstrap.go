package kubelet

import (
	"context"
	"crypto"
	"crypto/sha512"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"k8s.io/klog/v2"

	certificatesv1 "kubecore.io/api/certificates/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/watch"
	"kubecore.io/client/rest"
	"kubecore.io/client/tools/clientcmd"
	clientcmdapi "kubecore.io/client/tools/clientcmd/api"
	"kubecore.io/client/typed"
	"kubecore.io/client/util/cert"

	"kubecore.io/kubecore/pkg/auth/authenticator/bootstrap"
	"kubecore.io/kubecore/pkg/auth/bootstrappolicy"
	"kubecore.io/kubecore/pkg/pki"
)

// Files of a kubelet that joined with a bootstrap token, under its root
// dir: its kubeconfig, its client certificate and key, and the key of a
// request still waiting to be issued (so that a restart waits for the
// same request instead of making another).
const (
	bootstrapKubeconfigName = "kubelet.kubeconfig"
	clientCertName          = "pki/kubelet-client.crt"
	clientKeyName           = "pki/kubelet-client.key"
	pendingKeyName          = "pki/kubelet-client.key.pending"
)

// csrTimeout bounds the wait for a request to be approved and issued.
const csrTimeout = 5 * time.Minute

// renewAfter is the part of its lifetime after which a client
// certificate is renewed when the kubelet starts.
const renewAfter = 0.8

// joining reports whether the options ask to join with a bootstrap token.
func (o *Options) joining() bool { return o.Server != "" || o.Token != "" || o.CACertHash != "" }

// validateJoin returns the problems of --server, --token and
// --ca-cert-hash, which go together.
func (o *Options) validateJoin() []error {
	if !o.joining() {
		return nil
	}
	var errs []error
	if o.Server == "" || o.Token == "" || o.CACertHash == "" {
		errs = append(errs, errors.New("--server, --token and --ca-cert-hash go together"))
	}
	if o.RESTConfig != nil {
		errs = append(errs, errors.New("--token cannot be used with an in-process client"))
	}
	if _, _, ok := bootstrap.Parse(o.Token); o.Token != "" && !ok {
		errs = append(errs, errors.New("--token: want a bootstrap token of the form [a-z0-9]{6}.[a-z0-9]{16}"))
	}
	if _, err := pki.ParseCACertHash(o.CACertHash); o.CACertHash != "" && err != nil {
		errs = append(errs, fmt.Errorf("--ca-cert-hash: %w", err))
	}
	return errs
}

// Bootstrap gets the kubelet a client certificate when it joins with a
// bootstrap token: unless the kubeconfig (--kubeconfig, by default
// ROOT_DIR/kubelet.kubeconfig) already holds a valid certificate of this
// node, it reads the cluster CA from kube-public/cluster-info, checks it
// against --ca-cert-hash, asks for a certificate with a
// CertificateSigningRequest made with the token, waits for it to be
// issued and writes the kubeconfig. A certificate past most of its
// lifetime is renewed with itself. Afterwards --kubeconfig names the
// kubeconfig. Without --token it does nothing.
func (o *Options) Bootstrap(ctx context.Context) error {
	if !o.joining() {
		return nil
	}
	if err := errors.Join(o.Validate()...); err != nil {
		return err
	}
	node, err := NodeName(o.NodeName)
	if err != nil {
		return err
	}
	root, err := filepath.Abs(o.RootDir)
	if err != nil {
		return fmt.Errorf("--root-dir: %w", err)
	}
	if o.Kubeconfig == "" {
		o.Kubeconfig = filepath.Join(root, bootstrapKubeconfigName)
	}
	j := &join{root: root, node: node, kubeconfig: o.Kubeconfig, userAgent: rest.DefaultUserAgent() + "/kubelet"}
	current, err := j.current(time.Now())
	switch {
	case err != nil:
		klog.InfoS("Joining the cluster with a bootstrap token", "server", o.Server, "node", node, "reason", err.Error())
	case current.renew:
		if err := j.obtain(ctx, current.config, current.config.Host); err == nil {
			return nil
		} else if time.Now().Before(current.notAfter) {
			klog.ErrorS(err, "Cannot renew the client certificate; using the current one", "notAfter", current.notAfter)
			return nil
		}
		klog.InfoS("Joining the cluster again with a bootstrap token: the client certificate expired", "server", o.Server)
	default:
		return nil
	}
	caPEM, err := discoverCA(ctx, o.Server, o.CACertHash, j.userAgent)
	if err != nil {
		return err
	}
	rc := &rest.Config{Host: o.Server, BearerToken: o.Token, TLSClientConfig: rest.TLSClientConfig{CAData: caPEM}, UserAgent: j.userAgent}
	return j.obtain(ctx, rc, o.Server)
}

// join is one kubelet's certificate files.
type join struct {
	root, node, kubeconfig, userAgent string
}

func (j *join) path(name string) string { return filepath.Join(j.root, filepath.FromSlash(name)) }

// credentials is the usable kubeconfig of a kubelet that joined.
type credentials struct {
	config   *rest.Config
	notAfter time.Time
	renew    bool
}

// current returns the kubeconfig when it holds a certificate of this
// node that its CA signed and that has not expired; an error says why not.
func (j *join) current(now time.Time) (*credentials, error) {
	if _, err := os.Stat(j.kubeconfig); err != nil {
		return nil, fmt.Errorf("no kubeconfig at %s", j.kubeconfig)
	}
	rc, err := clientcmd.BuildConfigFromFlags("", j.kubeconfig)
	if err != nil {
		return nil, err
	}
	tc := rc.TLSClientConfig
	c, _, err := cert.LoadCertAndKey(tc.CertFile, tc.KeyFile)
	if err != nil {
		return nil, err
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(tc.CAData) {
		return nil, fmt.Errorf("kubeconfig %s holds no CA", j.kubeconfig)
	}
	if _, err := c.Verify(x509.VerifyOptions{Roots: roots, CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		return nil, fmt.Errorf("client certificate %s: %w", tc.CertFile, err)
	}
	if want := nodeUser(j.node); c.Subject.CommonName != want {
		return nil, fmt.Errorf("client certificate %s is for %s, not %s", tc.CertFile, c.Subject.CommonName, want)
	}
	life := c.NotAfter.Sub(c.NotBefore)
	renewAt := c.NotBefore.Add(time.Duration(float64(life) * renewAfter))
	return &credentials{config: rc, notAfter: c.NotAfter, renew: !now.Before(renewAt)}, nil
}

func nodeUser(node string) string { return "system:node:" + node }

// obtain asks for a client certificate through rc, waits for it, and
// writes it with its key and a kubeconfig for server.
func (j *join) obtain(ctx context.Context, rc *rest.Config, server string) error {
	key, err := j.pendingKey()
	if err != nil {
		return err
	}
	cs, err := typed.NewForConfig(rc)
	if err != nil {
		return fmt.Errorf("join: client of %s: %w", server, err)
	}
	certPEM, err := requestCertificate(ctx, cs, key, j.node)
	if err != nil {
		return err
	}
	issued, err := cert.ParseCertsPEM(certPEM)
	if err != nil {
		return fmt.Errorf("join: the issued certificate: %w", err)
	}
	if !cert.PublicKeyMatches(issued[0], key) {
		return errors.New("join: the issued certificate is not for the requested key")
	}
	certPath, keyPath := j.path(clientCertName), j.path(clientKeyName)
	if err := cert.WriteCertAndKey(certPath, keyPath, issued[0], key); err != nil {
		return fmt.Errorf("join: %w", err)
	}
	caData := rc.TLSClientConfig.CAData
	if len(caData) == 0 && rc.TLSClientConfig.CAFile != "" {
		if caData, err = os.ReadFile(rc.TLSClientConfig.CAFile); err != nil {
			return fmt.Errorf("join: cluster CA: %w", err)
		}
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[pki.KubeconfigName] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: caData}
	cfg.AuthInfos[pki.KubeconfigName] = &clientcmdapi.AuthInfo{ClientCertificate: certPath, ClientKey: keyPath}
	cfg.Contexts[pki.KubeconfigName] = &clientcmdapi.Context{Cluster: pki.KubeconfigName, AuthInfo: pki.KubeconfigName}
	cfg.CurrentContext = pki.KubeconfigName
	if err := clientcmd.Write(cfg, j.kubeconfig); err != nil {
		return fmt.Errorf("join: %w", err)
	}
	if err := os.Remove(j.path(pendingKeyName)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("join: %w", err)
	}
	klog.InfoS("Client certificate issued", "subject", issued[0].Subject.CommonName, "notAfter", issued[0].NotAfter, "kubeconfig", j.kubeconfig)
	return nil
}

// pendingKey is the key of the request being made: the one a previous
// run left, or a new one written before the request is.
func (j *join) pendingKey() (crypto.Signer, error) {
	path := j.path(pendingKeyName)
	if b, err := os.ReadFile(path); err == nil {
		if key, err := cert.ParsePrivateKeyPEM(b); err == nil {
			return key, nil
		}
	}
	key, err := cert.NewPrivateKey()
	if err != nil {
		return nil, fmt.Errorf("join: %w", err)
	}
	b, err := cert.EncodePrivateKeyPEM(key)
	if err != nil {
		return nil, fmt.Errorf("join: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("join: %w", err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return nil, fmt.Errorf("join: %w", err)
	}
	return key, nil
}

// discoverCA reads kube-public/cluster-info from server without checking
// the server (it has no CA yet) and without credentials, and returns the
// CA there whose public key hash is wantHash: the hash, given out of
// band, is what makes the CA trustworthy.
func discoverCA(ctx context.Context, server, wantHash, userAgent string) ([]byte, error) {
	want, err := pki.ParseCACertHash(wantHash)
	if err != nil {
		return nil, err
	}
	cs, err := typed.NewForConfig(&rest.Config{Host: server, TLSClientConfig: rest.TLSClientConfig{Insecure: true}, UserAgent: userAgent})
	if err != nil {
		return nil, fmt.Errorf("join: client of %s: %w", server, err)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cm, err := cs.CoreV1().ConfigMaps(metav1.NamespacePublic).Get(ctx, bootstrappolicy.ClusterInfoName, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("join: read the cluster CA from %s%s: %w", server, bootstrappolicy.ClusterInfoPath, err)
	}
	info, err := clientcmd.Load([]byte(cm.Data[bootstrappolicy.ClusterInfoKey]))
	if err != nil {
		return nil, fmt.Errorf("join: %s/%s: %w", metav1.NamespacePublic, bootstrappolicy.ClusterInfoName, err)
	}
	var seen []string
	for _, cluster := range info.Clusters {
		cas, err := cert.ParseCertsPEM(cluster.CertificateAuthorityData)
		if err != nil {
			continue
		}
		for _, ca := range cas {
			h := pki.CACertHash(ca)
			if h == want {
				return cert.EncodeCertPEM(ca), nil
			}
			seen = append(seen, h)
		}
	}
	if len(seen) == 0 {
		return nil, fmt.Errorf("join: %s/%s holds no CA certificate", metav1.NamespacePublic, bootstrappolicy.ClusterInfoName)
	}
	return nil, fmt.Errorf("join: refusing to trust %s: its CA's public key hash is %s, not --ca-cert-hash %s", server, seen[0], want)
}

// csrName names a node's request after its key and node, so that asking
// again with the same key finds the same request.
func csrName(key crypto.Signer, node string) (string, error) {
	pub, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		return "", err
	}
	sum := sha512.Sum512(append(pub, []byte(node)...))
	return "node-csr-" + base64.RawURLEncoding.EncodeToString(sum[:16]), nil
}

// requestCertificate creates (or finds) the request of node's client
// certificate for key and waits until it is issued, denied or failed.
func requestCertificate(ctx context.Context, cs *typed.Clientset, key crypto.Signer, node string) ([]byte, error) {
	reqPEM, err := cert.NewCertificateRequestPEM(key, pkix.Name{CommonName: nodeUser(node), Organization: []string{"system:nodes"}})
	if err != nil {
		return nil, fmt.Errorf("join: %w", err)
	}
	name, err := csrName(key, node)
	if err != nil {
		return nil, fmt.Errorf("join: %w", err)
	}
	client := cs.CertificatesV1().CertificateSigningRequests()
	want := &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: certificatesv1.CertificateSigningRequestSpec{
			Request:    reqPEM,
			SignerName: certificatesv1.KubeAPIServerClientKubeletSignerName,
			Usages:     []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageClientAuth},
		},
	}
	ctx, cancel := context.WithTimeout(ctx, csrTimeout)
	defer cancel()
	csr, err := client.Create(ctx, want, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		csr, err = client.Get(ctx, name, metav1.GetOptions{})
	}
	switch {
	case apierrors.IsUnauthorized(err):
		return nil, errors.New("join: the API server refused the bootstrap token (401 Unauthorized): it is wrong, expired or deleted; make a new one with `kubecore token create`")
	case err != nil:
		return nil, fmt.Errorf("join: create certificate signing request %s: %w", name, err)
	}
	klog.InfoS("Waiting for the certificate signing request to be approved and issued", "csr", name)
	for {
		if done, certPEM, err := issued(csr); done {
			return certPEM, err
		}
		w, err := client.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name, ResourceVersion: csr.ResourceVersion})
		if err != nil {
			return nil, waitError(ctx, name, err)
		}
		for ev := range w.ResultChan() {
			if c, ok := ev.Object.(*certificatesv1.CertificateSigningRequest); ok && (ev.Type == watch.Added || ev.Type == watch.Modified) {
				csr = c
				if done, _, _ := issued(csr); done {
					break
				}
			} else if ev.Type == watch.Deleted {
				w.Stop()
				return nil, fmt.Errorf("join: certificate signing request %s was deleted", name)
			}
		}
		w.Stop()
		if ctx.Err() != nil {
			return nil, waitError(ctx, name, ctx.Err())
		}
		if done, _, _ := issued(csr); !done {
			// The watch ended early: read the request again and go on.
			if csr, err = client.Get(ctx, name, metav1.GetOptions{}); err != nil {
				return nil, waitError(ctx, name, err)
			}
		}
	}
}

// issued reports whether the request is settled: issued (its
// certificate), denied or failed (an error).
func issued(csr *certificatesv1.CertificateSigningRequest) (bool, []byte, error) {
	for _, c := range csr.Status.Conditions {
		if c.Status != corev1.ConditionTrue {
			continue
		}
		switch c.Type {
		case certificatesv1.CertificateDenied:
			return true, nil, fmt.Errorf("join: certificate signing request %s was denied: %s %s", csr.Name, c.Reason, c.Message)
		case certificatesv1.CertificateFailed:
			return true, nil, fmt.Errorf("join: certificate signing request %s failed: %s %s", csr.Name, c.Reason, c.Message)
		}
	}
	if len(csr.Status.Certificate) > 0 {
		return true, csr.Status.Certificate, nil
	}
	return false, nil, nil
}

func waitError(ctx context.Context, name string, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("join: certificate signing request %s was not approved and issued within %s (is a controller-manager with --cluster-signing-cert-file running?)", name, csrTimeout)
	}
	return fmt.Errorf("join: wait for certificate signing request %s: %w", name, err)
}
