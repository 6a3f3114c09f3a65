// Package admissionregistration provides the storage of the
// admissionregistration.k8s.io/v1 API group: the resources the API server
// serves for it, each built by its own package below. They are stored,
// listed and watched here; what they do to requests is admission's.
package admissionregistration

import (
	admissionregistrationv1 "kubecore.io/api/admissionregistration/v1"

	"kubecore.io/kubecore/pkg/registry/admissionregistration/mutatingadmissionpolicy"
	"kubecore.io/kubecore/pkg/registry/admissionregistration/mutatingadmissionpolicybinding"
	"kubecore.io/kubecore/pkg/registry/admissionregistration/mutatingwebhookconfiguration"
	"kubecore.io/kubecore/pkg/registry/admissionregistration/validatingadmissionpolicy"
	"kubecore.io/kubecore/pkg/registry/admissionregistration/validatingadmissionpolicybinding"
	"kubecore.io/kubecore/pkg/registry/admissionregistration/validatingwebhookconfiguration"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// Provider builds the storage of admissionregistration.k8s.io/v1.
func Provider() strategy.Group {
	return strategy.NewGroup(admissionregistrationv1.SchemeGroupVersion,
		strategy.Served("validatingwebhookconfigurations", validatingwebhookconfiguration.NewREST),
		strategy.Served("mutatingwebhookconfigurations", mutatingwebhookconfiguration.NewREST),
		strategy.Served("validatingadmissionpolicies", validatingadmissionpolicy.NewStorage),
		strategy.Served("validatingadmissionpolicybindings", validatingadmissionpolicybinding.NewREST),
		strategy.Served("mutatingadmissionpolicies", mutatingadmissionpolicy.NewREST),
		strategy.Served("mutatingadmissionpolicybindings", mutatingadmissionpolicybinding.NewREST),
	)
}
