package controlplane

import (
	"context"

	corev1 "kubecore.io/api/core/v1"
	nodev1 "kubecore.io/api/node/v1"
	rbacv1 "kubecore.io/api/rbac/v1"
	schedulingv1 "kubecore.io/api/scheduling/v1"
	storagev1 "kubecore.io/api/storage/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/auth/authorizer/rbac"
	kcel "kubecore.io/kubecore/pkg/cel"
	"kubecore.io/kubecore/pkg/registry/admissionregistration"
	"kubecore.io/kubecore/pkg/registry/apiregistration"
	"kubecore.io/kubecore/pkg/registry/apps"
	"kubecore.io/kubecore/pkg/registry/authentication"
	"kubecore.io/kubecore/pkg/registry/authorization"
	"kubecore.io/kubecore/pkg/registry/autoscaling"
	"kubecore.io/kubecore/pkg/registry/batch"
	"kubecore.io/kubecore/pkg/registry/certificates"
	"kubecore.io/kubecore/pkg/registry/coordination"
	"kubecore.io/kubecore/pkg/registry/core"
	"kubecore.io/kubecore/pkg/registry/core/namespace"
	"kubecore.io/kubecore/pkg/registry/core/pod"
	"kubecore.io/kubecore/pkg/registry/core/service"
	"kubecore.io/kubecore/pkg/registry/discovery"
	"kubecore.io/kubecore/pkg/registry/events"
	"kubecore.io/kubecore/pkg/registry/flowcontrol"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
	"kubecore.io/kubecore/pkg/registry/networking"
	"kubecore.io/kubecore/pkg/registry/node"
	"kubecore.io/kubecore/pkg/registry/policy"
	rbacregistry "kubecore.io/kubecore/pkg/registry/rbac"
	resourceregistry "kubecore.io/kubecore/pkg/registry/resource"
	"kubecore.io/kubecore/pkg/registry/rest"
	"kubecore.io/kubecore/pkg/registry/scheduling"
	storageregistry "kubecore.io/kubecore/pkg/registry/storage"
	"kubecore.io/kubecore/pkg/webhook"
)

// storageProvider builds the storage of one API group version: each group
// of pkg/registry has one, which adds the group's resources (and
// subresources) to the map the API server serves.
type storageProvider interface {
	GroupVersion() schema.GroupVersion
	NewStorage(ctx context.Context, rs strategy.Resources, opts generic.StoreOptions) error
}

var (
	_ storageProvider = core.Provider{}
	_ storageProvider = strategy.Group{}
	_ storageProvider = authorization.Provider{}
	_ storageProvider = events.Provider{}
)

// groupStorage makes a group's provider when its turn comes, and takes
// from the storage it built what the control plane's own checks and
// writes use.
type groupStorage struct {
	provider func() storageProvider
	built    func(rs strategy.Resources)
}

// provider returns p as groupStorage wants it.
func provider(p storageProvider) func() storageProvider { return func() storageProvider { return p } }

// groups are the built-in group versions, in the order discovery lists
// them; each is built after those before it, the core group first (its
// namespaces are checked by every later namespaced Store). The providers
// of authorization and certificates ask the RBAC group's authorizer,
// built before them.
func (in *Instance) groups(cfg Config) []groupStorage {
	disruptions := &budgetChecker{}
	var coreEvents *generic.Store
	var autoscalingV2 strategy.Resources
	return []groupStorage{
		{provider(core.Provider{
			Services:    service.Config{ServiceCIDR: cfg.ServiceCIDR, NodePortBase: cfg.NodePortBase, NodePortSize: cfg.NodePortSize},
			Kubelet:     cfg.Kubelet,
			Disruptions: disruptions,
			Token:       in.tokenREST(),
			Components:  cfg.Components,
		}), func(rs strategy.Resources) { in.builtCore(rs); coreEvents = storeOf(rs, "events") }},
		{provider(apiregistration.Provider()), func(rs strategy.Resources) {
			in.apiServices = storeOf(rs, "apiservices")
			in.apiServiceStatus, _ = rs["apiservices/status"].(rest.Updater)
		}},
		{provider(apps.Provider()), nil},
		{func() storageProvider { return events.Provider{CoreEvents: coreEvents} }, nil},
		{provider(autoscaling.ProviderV2()), func(rs strategy.Resources) { autoscalingV2 = rs }},
		{func() storageProvider { return autoscaling.ProviderV1{V2: autoscalingV2} }, nil},
		{provider(batch.Provider()), nil},
		{provider(coordination.Provider()), nil},
		{provider(scheduling.Provider()), func(rs strategy.Resources) {
			in.priorityClasses = storeOf(rs, "priorityclasses")
			in.objects.priorityClasses = cached[*schedulingv1.PriorityClass]{in.priorityClasses}
		}},
		{provider(policy.Provider()), func(rs strategy.Resources) { disruptions.store = storeOf(rs, "poddisruptionbudgets") }},
		{provider(rbacregistry.Provider()), in.builtRBAC},
		{provider(authentication.Provider{Reviewer: tokenReviewer{in: in, static: cfg.StaticTokens}, APIAudiences: apiAudiences()}), nil},
		{func() storageProvider { return authorization.Provider{Authorizer: in.Authorizer(), Rules: in.rbac} }, nil},
		{func() storageProvider { return certificates.Provider{Authorizer: in.Authorizer()} }, nil},
		{provider(networking.Provider()), in.builtNetworking},
		{provider(discovery.Provider()), func(rs strategy.Resources) { in.endpointSlices = storeOf(rs, "endpointslices") }},
		{provider(node.Provider()), func(rs strategy.Resources) {
			in.objects.runtimeClasses = cached[*nodev1.RuntimeClass]{storeOf(rs, "runtimeclasses")}
		}},
		{provider(admissionregistration.Provider()), in.builtAdmissionRegistration},
		{provider(flowcontrol.Provider()), in.builtFlowControl},
		{provider(resourceregistry.Provider(&kcel.DeviceSelectors{})), nil},
		{provider(storageregistry.Provider()), func(rs strategy.Resources) {
			in.storageClasses = storeOf(rs, "storageclasses")
			in.objects.storageClasses = cached[*storagev1.StorageClass]{in.storageClasses}
		}},
	}
}

// builtCore keeps the core stores the control plane reads and writes.
func (in *Instance) builtCore(rs strategy.Resources) {
	in.namespaces = rs["namespaces"].(*namespace.REST)
	in.NamespaceLifecycle = in.namespaces.Lifecycle()
	in.services = rs["services"].(*service.REST)
	in.endpoints = storeOf(rs, "endpoints")
	in.configMaps = storeOf(rs, "configmaps")
	in.objects.nodes = cached[*corev1.Node]{storeOf(rs, "nodes")}
	in.objects.pods = cached[*corev1.Pod]{rs["pods"].(*pod.REST).Store}
	in.objects.claims = cached[*corev1.PersistentVolumeClaim]{storeOf(rs, "persistentvolumeclaims")}
	in.objects.secrets = cached[*corev1.Secret]{storeOf(rs, "secrets")}
	in.objects.serviceAccounts = cached[*corev1.ServiceAccount]{storeOf(rs, "serviceaccounts")}
	in.objects.quotas = cached[*corev1.ResourceQuota]{storeOf(rs, "resourcequotas")}
	in.objects.limitRanges = cached[*corev1.LimitRange]{storeOf(rs, "limitranges")}
	in.objects.namespaces = cached[*corev1.Namespace]{in.namespaces.Store}
	in.webhookObjects.namespaces = cached[*corev1.Namespace]{in.namespaces.Store}
	in.webhookObjects.resolver = webhook.Resolver{Services: in.services, Endpoints: in.endpoints}
}

// builtRBAC builds the RBAC authorizer over the four resources.
func (in *Instance) builtRBAC(rs strategy.Resources) {
	in.roles, in.clusterRoles = rs["roles"].(*rbacREST), rs["clusterroles"].(*rbacREST)
	in.roleBindings, in.clusterRoleBindings = rs["rolebindings"].(*rbacREST), rs["clusterrolebindings"].(*rbacREST)
	in.rbac = &rbac.Authorizer{Source: &rbacSource{
		roles: cached[*rbacv1.Role]{in.roles.Store}, clusterRoles: cached[*rbacv1.ClusterRole]{in.clusterRoles.Store},
		roleBindings: cached[*rbacv1.RoleBinding]{in.roleBindings.Store}, clusterRoleBindings: cached[*rbacv1.ClusterRoleBinding]{in.clusterRoleBindings.Store},
	}}
}

// storeOf is the Store a provider added for resource.
func storeOf(rs strategy.Resources, resource string) *generic.Store {
	s, _ := rs[resource].(*generic.Store)
	return s
}
