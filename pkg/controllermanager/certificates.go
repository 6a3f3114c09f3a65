package controllermanager

import (
	"context"
	"errors"
	"fmt"

	"kubecore.io/client/util/cert"

	"kubecore.io/kubecore/pkg/controller/certificates"
)

// startCSRSigner loads the cluster CA named by cc.ClusterSigning and
// builds the signer.
func startCSRSigner(_ context.Context, cc ControllerContext) (RunFunc, error) {
	cs := cc.ClusterSigning
	if cs.CertFile == "" || cs.KeyFile == "" {
		return nil, errors.New("--cluster-signing-cert-file and --cluster-signing-key-file are required")
	}
	caCert, caKey, err := cert.LoadCertAndKey(cs.CertFile, cs.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("cluster signing CA: %w", err)
	}
	s, err := certificates.NewSigner(cc.Client, cc.InformerFactory, certificates.SignerConfig{CACert: caCert, CAKey: caKey, Duration: cs.Duration})
	if err != nil {
		return nil, err
	}
	workers := cc.Workers(certificates.SignerName)
	return func(ctx context.Context) error { return s.Run(ctx, workers) }, nil
}
