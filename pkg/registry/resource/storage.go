// Package resource provides the storage of the resource.k8s.io/v1 API
// group (dynamic resource allocation): the resources the API server
// serves for it, each built by its own package below.
package resource

import (
	resourcev1 "kubecore.io/api/resource/v1"

	"kubecore.io/kubecore/pkg/apis/resource/validation"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
	"kubecore.io/kubecore/pkg/registry/resource/deviceclass"
	"kubecore.io/kubecore/pkg/registry/resource/resourceclaim"
	"kubecore.io/kubecore/pkg/registry/resource/resourceclaimtemplate"
	"kubecore.io/kubecore/pkg/registry/resource/resourceslice"
)

// Provider builds the storage of resource.k8s.io/v1; sel compiles the
// CEL selectors of classes, claims and templates.
func Provider(sel validation.SelectorChecker) strategy.Group {
	return strategy.NewGroup(resourcev1.SchemeGroupVersion,
		strategy.Served("deviceclasses", deviceclass.NewREST(sel)),
		strategy.Served("resourceclaims", resourceclaim.NewStorage(sel)),
		strategy.Served("resourceclaimtemplates", resourceclaimtemplate.NewREST(sel)),
		strategy.Served("resourceslices", resourceslice.NewREST),
	)
}
