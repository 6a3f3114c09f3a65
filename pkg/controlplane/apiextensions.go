package controlplane

import (
	"context"
	"errors"
	"fmt"

	apiextensionsv1 "kubecore.io/api/apiextensions/v1"

	apiextensionscontroller "kubecore.io/kubecore/pkg/apiextensions/controller"
	"kubecore.io/kubecore/pkg/apiextensions/customresource"
	"kubecore.io/kubecore/pkg/apiextensions/registry/customresourcedefinition"
	"kubecore.io/kubecore/pkg/apiserver"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// apiExtensions is the API extension server of the chain: the storage of
// CustomResourceDefinitions and the controller serving their resources in
// the dynamic groups.
type apiExtensions struct {
	groups     *apiserver.DynamicGroups
	controller *apiextensionscontroller.Controller
}

// newAPIExtensions builds the storage of CustomResourceDefinitions and
// returns its group version, ready to install.
func (in *Instance) newAPIExtensions(opts generic.StoreOptions) (apiserver.APIGroupInfo, error) {
	crds, err := customresourcedefinition.NewStorage(opts)
	if err != nil {
		return apiserver.APIGroupInfo{}, fmt.Errorf("storage of customresourcedefinitions: %w", err)
	}
	in.destroy = append(in.destroy, crds.CustomResourceDefinition.Destroy)
	groups := apiserver.NewDynamicGroups()
	in.extensions = &apiExtensions{groups: groups, controller: apiextensionscontroller.New(crds, groups, opts, &customresource.ConversionWebhooks{Locator: in.webhookObjects, Clients: in.webhookObjects.clients})}
	return apiserver.APIGroupInfo{
		GroupVersion: apiextensionsv1.SchemeGroupVersion,
		Storage: map[string]rest.Storage{
			"customresourcedefinitions":        crds.CustomResourceDefinition,
			"customresourcedefinitions/status": crds.Status,
		},
	}, nil
}

// DynamicGroups are the group versions of custom resources, for the API
// server's Config.Dynamic.
func (in *Instance) DynamicGroups() *apiserver.DynamicGroups { return in.extensions.groups }

// RunAPIExtensions serves the resources of CustomResourceDefinitions until
// ctx ends.
func (in *Instance) RunAPIExtensions(ctx context.Context) error {
	if err := in.extensions.controller.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// APIExtensionsReadyCheck fails until the resources of the definitions
// that existed at start are served.
func (in *Instance) APIExtensionsReadyCheck() apiserver.HealthCheck {
	return apiserver.HealthCheck{Name: "crd-informer-synced", Check: func(context.Context) error {
		select {
		case <-in.extensions.controller.Synced():
			return nil
		default:
			return errors.New("custom resources are not served yet")
		}
	}}
}
