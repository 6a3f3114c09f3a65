package controlplane

import (
	"context"
	"strings"

	admissionregistrationv1 "kubecore.io/api/admissionregistration/v1"
	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	admissionwebhook "kubecore.io/kubecore/pkg/admission/plugin/webhook"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
	"kubecore.io/kubecore/pkg/webhook"
)

// webhookObjects is what the admission webhook plugins read: the webhook
// configurations and namespaces from the watch cache, and the Services
// and Endpoints a webhook's service is resolved through.
type webhookObjects struct {
	mutating   cached[*admissionregistrationv1.MutatingWebhookConfiguration]
	validating cached[*admissionregistrationv1.ValidatingWebhookConfiguration]
	namespaces cached[*corev1.Namespace]
	resolver   webhook.Resolver
	clients    *webhook.Clients
	// served maps a built-in group/resource to its served versions.
	served map[schema.GroupResource][]string
}

var (
	_ admissionwebhook.Source  = (*webhookObjects)(nil)
	_ admissionwebhook.Locator = (*webhookObjects)(nil)
)

func (w *webhookObjects) MutatingWebhookConfigurations(ctx context.Context) ([]*admissionregistrationv1.MutatingWebhookConfiguration, error) {
	if w.mutating.store == nil {
		return nil, nil
	}
	return w.mutating.list(ctx, "", nil)
}

func (w *webhookObjects) ValidatingWebhookConfigurations(ctx context.Context) ([]*admissionregistrationv1.ValidatingWebhookConfiguration, error) {
	if w.validating.store == nil {
		return nil, nil
	}
	return w.validating.list(ctx, "", nil)
}

// Namespace reads through to etcd when the cache misses: a namespace
// created an instant ago is found.
func (w *webhookObjects) Namespace(ctx context.Context, name string) (*corev1.Namespace, error) {
	return w.namespaces.get(ctx, "", name, true)
}

func (w *webhookObjects) Locate(ctx context.Context, cc webhook.ClientConfig) (webhook.Location, error) {
	return w.resolver.Locate(ctx, cc)
}

// equivalents are the served versions of a built-in resource a write
// without a version (the API server's own) is matched as.
func (w *webhookObjects) equivalents(gvr schema.GroupVersionResource) []schema.GroupVersionResource {
	var out []schema.GroupVersionResource
	for _, v := range w.served[gvr.GroupResource()] {
		out = append(out, gvr.GroupResource().WithVersion(v))
	}
	return out
}

// builtAdmissionRegistration keeps the webhook configurations' stores.
func (in *Instance) builtAdmissionRegistration(rs strategy.Resources) {
	in.webhookObjects.mutating.store = storeOf(rs, "mutatingwebhookconfigurations")
	in.webhookObjects.validating.store = storeOf(rs, "validatingwebhookconfigurations")
}

// noteServedVersions records the version each built-in resource is served
// in, once every group is built.
func (in *Instance) noteServedVersions() {
	served := map[schema.GroupResource][]string{}
	for _, g := range in.Groups {
		for r := range g.Storage {
			if strings.Contains(r, "/") {
				continue
			}
			gr := schema.GroupResource{Group: g.GroupVersion.Group, Resource: r}
			served[gr] = append(served[gr], g.GroupVersion.Version)
		}
	}
	in.webhookObjects.served = served
}
