package controllermanager

import (
	"errors"
	"fmt"

	"kubecore.io/client/util/cert"

	"kubecore.io/kubecore/pkg/controller/certificates"
)

// newCSRSigner loads the cluster CA named by cc.ClusterSigning and builds
// the signer.
func newCSRSigner(cl Clients, cc ControllerContext) (*certificates.Signer, error) {
	cs := cc.ClusterSigning
	if cs.CertFile == "" || cs.KeyFile == "" {
		return nil, errors.New("--cluster-signing-cert-file and --cluster-signing-key-file are required")
	}
	caCert, caKey, err := cert.LoadCertAndKey(cs.CertFile, cs.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("cluster signing CA: %w", err)
	}
	return certificates.NewSigner(cl, cc.InformerFactory, certificates.SignerConfig{CACert: caCert, CAKey: caKey, Duration: cs.Duration})
}
