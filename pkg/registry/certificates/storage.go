// Package certificates provides the storage of the certificates.k8s.io API
// group: certificatesigningrequests and their status and approval.
package certificates

import (
	"context"
	"fmt"

	certificatesv1 "kubecore.io/api/certificates/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/auth/authorizer"
	"kubecore.io/kubecore/pkg/registry/certificates/certificatesigningrequest"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// Provider builds the storage of certificates.k8s.io/v1.
type Provider struct {
	// Authorizer decides who may approve and sign for a signer.
	Authorizer authorizer.Authorizer
}

// GroupVersion is the group version served.
func (Provider) GroupVersion() schema.GroupVersion { return certificatesv1.SchemeGroupVersion }

// NewStorage adds every resource of the group to rs.
func (p Provider) NewStorage(_ context.Context, rs strategy.Resources, opts generic.StoreOptions) error {
	c, err := certificatesigningrequest.NewStorage(opts, p.Authorizer)
	if err != nil {
		return fmt.Errorf("storage of certificatesigningrequests: %w", err)
	}
	rs["certificatesigningrequests"], rs["certificatesigningrequests/status"] = c.CertificateSigningRequest, c.Status
	rs["certificatesigningrequests/approval"] = c.Approval
	return nil
}
