package controllermanager

import (
	"fmt"
	"os"

	"kubecore.io/kubecore/pkg/controller/rootcacert"
)

// newRootCACertPublisher publishes the CA the manager trusts the API
// server with (its kubeconfig's), as Kubernetes does without
// --root-ca-file.
func newRootCACertPublisher(cl Clients, cc ControllerContext) (*rootcacert.Controller, error) {
	tls := cc.RESTConfig.TLSClientConfig
	ca := tls.CAData
	if len(ca) == 0 && tls.CAFile != "" {
		var err error
		if ca, err = os.ReadFile(tls.CAFile); err != nil {
			return nil, fmt.Errorf("root CA publisher: %w", err)
		}
	}
	return rootcacert.New(cl, cc.InformerFactory, rootcacert.Options{CA: ca})
}
