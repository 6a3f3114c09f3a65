package controlplane

import (
	"context"

	corev1 "kubecore.io/api/core/v1"
	rbacv1 "kubecore.io/api/rbac/v1"
	schedulingv1 "kubecore.io/api/scheduling/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/auth/authorizer/rbac"
	"kubecore.io/kubecore/pkg/registry/apps"
	"kubecore.io/kubecore/pkg/registry/authorization"
	"kubecore.io/kubecore/pkg/registry/batch"
	"kubecore.io/kubecore/pkg/registry/certificates"
	"kubecore.io/kubecore/pkg/registry/coordination"
	"kubecore.io/kubecore/pkg/registry/core"
	"kubecore.io/kubecore/pkg/registry/core/namespace"
	"kubecore.io/kubecore/pkg/registry/core/pod"
	"kubecore.io/kubecore/pkg/registry/core/service"
	"kubecore.io/kubecore/pkg/registry/discovery"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
	"kubecore.io/kubecore/pkg/registry/policy"
	rbacregistry "kubecore.io/kubecore/pkg/registry/rbac"
	"kubecore.io/kubecore/pkg/registry/scheduling"
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
	return []groupStorage{
		{provider(core.Provider{
			Services:    service.Config{ServiceCIDR: cfg.ServiceCIDR, NodePortBase: cfg.NodePortBase, NodePortSize: cfg.NodePortSize},
			Kubelet:     cfg.Kubelet,
			Disruptions: disruptions,
			Token:       in.tokenREST(),
		}), in.builtCore},
		{provider(apps.Provider()), nil},
		{provider(batch.Provider()), nil},
		{provider(coordination.Provider()), nil},
		{provider(scheduling.Provider()), func(rs strategy.Resources) {
			in.priorityClasses = storeOf(rs, "priorityclasses")
			in.objects.priorityClasses = cached[*schedulingv1.PriorityClass]{in.priorityClasses}
		}},
		{provider(policy.Provider()), func(rs strategy.Resources) { disruptions.store = storeOf(rs, "poddisruptionbudgets") }},
		{provider(rbacregistry.Provider()), in.builtRBAC},
		{func() storageProvider { return authorization.Provider{Authorizer: in.Authorizer(), Rules: in.rbac} }, nil},
		{func() storageProvider { return certificates.Provider{Authorizer: in.Authorizer()} }, nil},
		{provider(discovery.Provider()), func(rs strategy.Resources) { in.endpointSlices = storeOf(rs, "endpointslices") }},
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
