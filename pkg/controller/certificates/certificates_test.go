package certificates

import (
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"net/url"
	"testing"

	certificatesv1 "kubecore.io/api/certificates/v1"
	"kubecore.io/client/util/cert"
)

func TestKubeletClientRequest(t *testing.T) {
	key, err := cert.NewPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	node := pkix.Name{CommonName: "system:node:n1", Organization: []string{"system:nodes"}}
	client := []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth, certificatesv1.UsageDigitalSignature}
	for _, tc := range []struct {
		name   string
		tmpl   x509.CertificateRequest
		usages []certificatesv1.KeyUsage
		signer string
		ok     bool
	}{
		{"node client", x509.CertificateRequest{Subject: node}, client, "", true},
		{"with key encipherment", x509.CertificateRequest{Subject: node}, append(client, certificatesv1.UsageKeyEncipherment), "", true},
		{"other signer", x509.CertificateRequest{Subject: node}, client, certificatesv1.KubeAPIServerClientSignerName, false},
		{"no node prefix", x509.CertificateRequest{Subject: pkix.Name{CommonName: "n1", Organization: []string{"system:nodes"}}}, client, "", false},
		{"empty node name", x509.CertificateRequest{Subject: pkix.Name{CommonName: "system:node:", Organization: []string{"system:nodes"}}}, client, "", false},
		{"masters too", x509.CertificateRequest{Subject: pkix.Name{CommonName: "system:node:n1", Organization: []string{"system:nodes", "system:masters"}}}, client, "", false},
		{"organizational unit", x509.CertificateRequest{Subject: pkix.Name{CommonName: "system:node:n1", Organization: []string{"system:nodes"}, OrganizationalUnit: []string{"x"}}}, client, "", false},
		{"DNS name", x509.CertificateRequest{Subject: node, DNSNames: []string{"n1"}}, client, "", false},
		{"URI", x509.CertificateRequest{Subject: node, URIs: []*url.URL{{Scheme: "spiffe", Host: "x"}}}, client, "", false},
		{"server auth", x509.CertificateRequest{Subject: node}, []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageServerAuth}, "", false},
		{"client auth only", x509.CertificateRequest{Subject: node}, []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			der, err := x509.CreateCertificateRequest(rand.Reader, &tc.tmpl, key)
			if err != nil {
				t.Fatal(err)
			}
			signer := tc.signer
			if signer == "" {
				signer = certificatesv1.KubeAPIServerClientKubeletSignerName
			}
			c := &certificatesv1.CertificateSigningRequest{Spec: certificatesv1.CertificateSigningRequestSpec{
				Request: pem.EncodeToMemory(&pem.Block{Type: cert.CertificateRequestBlockType, Bytes: der}), SignerName: signer, Usages: tc.usages,
			}}
			_, name, err := KubeletClientRequest(c)
			if (err == nil) != tc.ok {
				t.Fatalf("err %v, want ok %v", err, tc.ok)
			}
			if tc.ok && name != "n1" {
				t.Errorf("node %q, want n1", name)
			}
		})
	}
}
