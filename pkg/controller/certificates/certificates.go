// Package certificates holds the controllers of certificate signing
// requests: the approver, which approves kubelets' client certificate
// requests that their requester may make, and the signer, which issues
// approved kubelet client certificates with the cluster CA.
package certificates

import (
	"crypto/x509"
	"fmt"
	"slices"
	"strings"

	certificatesv1 "kubecore.io/api/certificates/v1"
	"kubecore.io/client/controller"
	"kubecore.io/client/informers"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/util/cert"
)

// The identity of kubelets' client certificates.
const (
	NodeUserPrefix = "system:node:"
	NodesGroup     = "system:nodes"
)

type csr = certificatesv1.CertificateSigningRequest

// queued is what both controllers are made of: a Controller whose queue
// of request names every add and update feeds, and the requests' lister.
type queued struct {
	*controller.Controller
	lister cache.Lister[*csr]
}

// init makes the controller name, whose workers call sync.
func (q *queued) init(factory *informers.SharedInformerFactory, name string, sync controller.SyncFunc) error {
	q.Controller = controller.New(name, sync)
	inf := controller.Informer(q.Controller, factory, informers.CertificateSigningRequests)
	q.lister = inf.Lister()
	controller.Watch(q, inf, controller.Upserts(controller.KeyOf[*csr]))
	return q.Err()
}

// hasCondition reports whether c has a true condition of type t.
func hasCondition(c *csr, t certificatesv1.RequestConditionType) bool {
	return slices.ContainsFunc(c.Status.Conditions, func(cond certificatesv1.CertificateSigningRequestCondition) bool {
		return cond.Type == t && cond.Status != "False"
	})
}

// kubeletClientUsages are the usage sets of a kubelet client certificate
// request: ECDSA keys need no key encipherment, RSA keys ask for it.
var kubeletClientUsages = [][]certificatesv1.KeyUsage{
	{certificatesv1.UsageDigitalSignature, certificatesv1.UsageClientAuth},
	{certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment, certificatesv1.UsageClientAuth},
}

// KubeletClientRequest parses a request and checks that it asks for
// exactly a kubelet's client certificate: signer
// kubernetes.io/kube-apiserver-client-kubelet, subject
// CN=system:node:NAME, O=system:nodes and nothing else, no alternative
// names, client-auth usages. It returns the node's name.
func KubeletClientRequest(c *csr) (*x509.CertificateRequest, string, error) {
	if c.Spec.SignerName != certificatesv1.KubeAPIServerClientKubeletSignerName {
		return nil, "", fmt.Errorf("signer %q is not %s", c.Spec.SignerName, certificatesv1.KubeAPIServerClientKubeletSignerName)
	}
	req, err := cert.ParseCertificateRequestPEM(c.Spec.Request)
	if err != nil {
		return nil, "", fmt.Errorf("request: %w", err)
	}
	node, ok := strings.CutPrefix(req.Subject.CommonName, NodeUserPrefix)
	s := req.Subject
	switch {
	case !ok || node == "":
		return nil, "", fmt.Errorf("common name %q does not start with %q and a node name", s.CommonName, NodeUserPrefix)
	case !slices.Equal(s.Organization, []string{NodesGroup}):
		return nil, "", fmt.Errorf("organizations %q are not exactly [%s]", s.Organization, NodesGroup)
	case len(s.OrganizationalUnit)+len(s.Country)+len(s.Province)+len(s.Locality)+len(s.StreetAddress)+len(s.PostalCode) > 0 || s.SerialNumber != "":
		return nil, "", fmt.Errorf("the subject names more than a common name and an organization")
	case len(req.DNSNames)+len(req.IPAddresses)+len(req.EmailAddresses)+len(req.URIs) > 0:
		return nil, "", fmt.Errorf("the request names subject alternative names")
	}
	usages := slices.Clone(c.Spec.Usages)
	slices.Sort(usages)
	if !slices.ContainsFunc(kubeletClientUsages, func(want []certificatesv1.KeyUsage) bool {
		w := slices.Clone(want)
		slices.Sort(w)
		return slices.Equal(usages, w)
	}) {
		return nil, "", fmt.Errorf("usages %q are not those of a client certificate (digital signature, client auth, optionally key encipherment)", c.Spec.Usages)
	}
	return req, node, nil
}
