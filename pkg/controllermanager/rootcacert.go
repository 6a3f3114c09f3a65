package controllermanager

import (
	"context"
	"fmt"
	"os"

	"kubecore.io/kubecore/pkg/controller/rootcacert"
)

// startRootCACertPublisher publishes the CA the manager trusts the API
// server with (its kubeconfig's), as Kubernetes does without
// --root-ca-file.
func startRootCACertPublisher(_ context.Context, cc ControllerContext) (RunFunc, error) {
	tls := cc.RESTConfig.TLSClientConfig
	ca := tls.CAData
	if len(ca) == 0 && tls.CAFile != "" {
		var err error
		if ca, err = os.ReadFile(tls.CAFile); err != nil {
			return nil, fmt.Errorf("root CA publisher: %w", err)
		}
	}
	c, err := rootcacert.New(cc.Client, cc.InformerFactory, ca)
	if err != nil {
		return nil, err
	}
	workers := cc.Workers(rootcacert.Name)
	return func(ctx context.Context) error { return c.Run(ctx, workers) }, nil
}
