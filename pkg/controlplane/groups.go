package controlplane

import (
	"context"
	"errors"
	"fmt"

	appsv1 "kubecore.io/api/apps/v1"
	authorizationv1 "kubecore.io/api/authorization/v1"
	batchv1 "kubecore.io/api/batch/v1"
	certificatesv1 "kubecore.io/api/certificates/v1"
	coordinationv1 "kubecore.io/api/coordination/v1"
	corev1 "kubecore.io/api/core/v1"
	discoveryv1 "kubecore.io/api/discovery/v1"
	policyv1 "kubecore.io/api/policy/v1"
	rbacv1 "kubecore.io/api/rbac/v1"
	schedulingv1 "kubecore.io/api/scheduling/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/auth/authorizer/rbac"
	"kubecore.io/kubecore/pkg/registry/apps/controllerrevision"
	"kubecore.io/kubecore/pkg/registry/apps/daemonset"
	"kubecore.io/kubecore/pkg/registry/apps/deployment"
	"kubecore.io/kubecore/pkg/registry/apps/replicaset"
	"kubecore.io/kubecore/pkg/registry/apps/statefulset"
	"kubecore.io/kubecore/pkg/registry/authorization"
	"kubecore.io/kubecore/pkg/registry/batch/cronjob"
	"kubecore.io/kubecore/pkg/registry/batch/job"
	"kubecore.io/kubecore/pkg/registry/certificates/certificatesigningrequest"
	"kubecore.io/kubecore/pkg/registry/coordination/lease"
	"kubecore.io/kubecore/pkg/registry/core/configmap"
	"kubecore.io/kubecore/pkg/registry/core/endpoints"
	"kubecore.io/kubecore/pkg/registry/core/event"
	"kubecore.io/kubecore/pkg/registry/core/namespace"
	"kubecore.io/kubecore/pkg/registry/core/node"
	"kubecore.io/kubecore/pkg/registry/core/persistentvolume"
	"kubecore.io/kubecore/pkg/registry/core/persistentvolumeclaim"
	"kubecore.io/kubecore/pkg/registry/core/pod"
	"kubecore.io/kubecore/pkg/registry/core/podtemplate"
	"kubecore.io/kubecore/pkg/registry/core/secret"
	"kubecore.io/kubecore/pkg/registry/core/service"
	"kubecore.io/kubecore/pkg/registry/core/serviceaccount"
	"kubecore.io/kubecore/pkg/registry/discovery/endpointslice"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
	"kubecore.io/kubecore/pkg/registry/policy/poddisruptionbudget"
	rbacregistry "kubecore.io/kubecore/pkg/registry/rbac"
	"kubecore.io/kubecore/pkg/registry/scheduling/priorityclass"
)

// groupProvider builds the storage of one API group version: it adds each
// resource (and subresource) to rs, the map the API server serves.
type groupProvider struct {
	gv      schema.GroupVersion
	storage func(rs strategy.Resources, opts generic.StoreOptions) error
}

// groupProviders are the built-in group versions, in the order discovery
// lists them; each is built after those before it (the core group's
// namespaces first: every namespaced Store checks them on create).
func (in *Instance) groupProviders(ctx context.Context, cfg Config) []groupProvider {
	disruptions := &budgetChecker{}
	return []groupProvider{
		{corev1.SchemeGroupVersion, in.coreStorage(ctx, cfg, disruptions)},
		{appsv1.SchemeGroupVersion, appsStorage},
		{batchv1.SchemeGroupVersion, batchStorage},
		{coordinationv1.SchemeGroupVersion, coordinationStorage},
		{schedulingv1.SchemeGroupVersion, in.schedulingStorage},
		{policyv1.SchemeGroupVersion, func(rs strategy.Resources, opts generic.StoreOptions) error {
			err := strategy.Add(rs, "poddisruptionbudgets", opts, poddisruptionbudget.NewStorage)
			disruptions.store = storeOf(rs, "poddisruptionbudgets")
			return err
		}},
		{rbacv1.SchemeGroupVersion, in.rbacStorage},
		{authorizationv1.SchemeGroupVersion, in.authorizationStorage},
		{certificatesv1.SchemeGroupVersion, in.certificatesStorage},
		{discoveryv1.SchemeGroupVersion, in.discoveryStorage},
	}
}

// coreStorage is the provider of the core group: namespaces first, whose
// lifecycle check every later namespaced Store takes from opts.
func (in *Instance) coreStorage(ctx context.Context, cfg Config, disruptions pod.DisruptionChecker) func(strategy.Resources, generic.StoreOptions) error {
	return func(rs strategy.Resources, opts generic.StoreOptions) error {
		ns, err := namespace.NewStorage(opts)
		if err != nil {
			return fmt.Errorf("storage of namespaces: %w", err)
		}
		rs["namespaces"], rs["namespaces/status"], rs["namespaces/finalize"] = ns.Namespace, ns.Status, ns.Finalize
		in.namespaces, in.NamespaceLifecycle = ns.Namespace, ns.Namespace.Lifecycle()
		opts.NamespaceLifecycle = in.NamespaceLifecycle
		nodes, err := node.NewStorage(opts)
		if err != nil {
			return fmt.Errorf("storage of nodes: %w", err)
		}
		rs["nodes"], rs["nodes/status"] = nodes.Store, nodes.Status
		pods, err := pod.NewStorage(opts, disruptions, node.NewKubeletConnections(nodes.Store, cfg.Kubelet))
		if err != nil {
			return fmt.Errorf("storage of pods: %w", err)
		}
		rs["pods"], rs["pods/status"], rs["pods/binding"], rs["pods/eviction"] = pods.Pod, pods.Status, pods.Binding, pods.Eviction
		rs["pods/log"], rs["pods/exec"] = pods.Log, pods.Exec
		services, err := service.NewStorage(ctx, opts, service.Config{ServiceCIDR: cfg.ServiceCIDR, NodePortBase: cfg.NodePortBase, NodePortSize: cfg.NodePortSize})
		if err != nil {
			return fmt.Errorf("storage of services: %w", err)
		}
		rs["services"], rs["services/status"] = services.Service, services.Status
		in.services = services.Service
		err = errors.Join(
			strategy.Add(rs, "endpoints", opts, endpoints.NewREST),
			strategy.Add(rs, "persistentvolumeclaims", opts, persistentvolumeclaim.NewStorage),
			strategy.Add(rs, "secrets", opts, secret.NewREST),
			strategy.Add(rs, "serviceaccounts", opts, serviceaccount.NewREST),
			strategy.Add(rs, "persistentvolumes", opts, persistentvolume.NewStorage),
			strategy.Add(rs, "configmaps", opts, configmap.NewREST),
			strategy.Add(rs, "events", opts, event.NewREST),
			strategy.Add(rs, "podtemplates", opts, podtemplate.NewREST),
		)
		if t := in.tokenREST(); t != nil {
			rs["serviceaccounts/token"] = t
		}
		in.objects.nodes = cached[*corev1.Node]{nodes.Store}
		in.objects.pods = cached[*corev1.Pod]{pods.Pod.Store}
		in.objects.claims = cached[*corev1.PersistentVolumeClaim]{storeOf(rs, "persistentvolumeclaims")}
		in.objects.secrets = cached[*corev1.Secret]{storeOf(rs, "secrets")}
		in.objects.serviceAccounts = cached[*corev1.ServiceAccount]{storeOf(rs, "serviceaccounts")}
		in.endpoints = storeOf(rs, "endpoints")
		if cm := storeOf(rs, "configmaps"); cm != nil {
			in.configMaps = cm
		}
		return err
	}
}

func appsStorage(rs strategy.Resources, opts generic.StoreOptions) error {
	return errors.Join(
		strategy.Add(rs, "deployments", opts, deployment.NewStorage),
		strategy.Add(rs, "replicasets", opts, replicaset.NewStorage),
		strategy.Add(rs, "statefulsets", opts, statefulset.NewStorage),
		strategy.Add(rs, "daemonsets", opts, daemonset.NewStorage),
		strategy.Add(rs, "controllerrevisions", opts, controllerrevision.NewREST),
	)
}

func batchStorage(rs strategy.Resources, opts generic.StoreOptions) error {
	return errors.Join(
		strategy.Add(rs, "jobs", opts, job.NewStorage),
		strategy.Add(rs, "cronjobs", opts, cronjob.NewStorage),
	)
}

func coordinationStorage(rs strategy.Resources, opts generic.StoreOptions) error {
	return strategy.Add(rs, "leases", opts, lease.NewREST)
}

// schedulingStorage also gives Priority admission the classes to read.
func (in *Instance) schedulingStorage(rs strategy.Resources, opts generic.StoreOptions) error {
	err := strategy.Add(rs, "priorityclasses", opts, priorityclass.NewREST)
	in.priorityClasses = storeOf(rs, "priorityclasses")
	in.objects.priorityClasses = cached[*schedulingv1.PriorityClass]{in.priorityClasses}
	return err
}

// rbacStorage also builds the RBAC authorizer over the four resources.
func (in *Instance) rbacStorage(rs strategy.Resources, opts generic.StoreOptions) error {
	err := errors.Join(
		strategy.Add(rs, "roles", opts, rbacregistry.NewRoles),
		strategy.Add(rs, "clusterroles", opts, rbacregistry.NewClusterRoles),
		strategy.Add(rs, "rolebindings", opts, rbacregistry.NewRoleBindings),
		strategy.Add(rs, "clusterrolebindings", opts, rbacregistry.NewClusterRoleBindings),
	)
	if err != nil {
		return err
	}
	in.roles, in.clusterRoles = rs["roles"].(*rbacREST), rs["clusterroles"].(*rbacREST)
	in.roleBindings, in.clusterRoleBindings = rs["rolebindings"].(*rbacREST), rs["clusterrolebindings"].(*rbacREST)
	in.rbac = &rbac.Authorizer{Source: &rbacSource{
		roles: cached[*rbacv1.Role]{in.roles.Store}, clusterRoles: cached[*rbacv1.ClusterRole]{in.clusterRoles.Store},
		roleBindings: cached[*rbacv1.RoleBinding]{in.roleBindings.Store}, clusterRoleBindings: cached[*rbacv1.ClusterRoleBinding]{in.clusterRoleBindings.Store},
	}}
	return nil
}

func (in *Instance) authorizationStorage(rs strategy.Resources, _ generic.StoreOptions) error {
	authz := in.Authorizer()
	rs["subjectaccessreviews"] = &authorization.SubjectAccessReviewREST{Authorizer: authz}
	rs["selfsubjectaccessreviews"] = &authorization.SelfSubjectAccessReviewREST{Authorizer: authz}
	rs["selfsubjectrulesreviews"] = &authorization.SelfSubjectRulesReviewREST{Rules: in.rbac}
	return nil
}

// certificatesStorage authorizes approving and signing per signer.
func (in *Instance) certificatesStorage(rs strategy.Resources, opts generic.StoreOptions) error {
	c, err := certificatesigningrequest.NewStorage(opts, in.Authorizer())
	if err != nil {
		return fmt.Errorf("storage of certificatesigningrequests: %w", err)
	}
	rs["certificatesigningrequests"], rs["certificatesigningrequests/status"] = c.CertificateSigningRequest, c.Status
	rs["certificatesigningrequests/approval"] = c.Approval
	return nil
}

func (in *Instance) discoveryStorage(rs strategy.Resources, opts generic.StoreOptions) error {
	err := strategy.Add(rs, "endpointslices", opts, endpointslice.NewREST)
	in.endpointSlices = storeOf(rs, "endpointslices")
	return err
}

// storeOf is the Store a provider added for resource, nil when it failed.
func storeOf(rs strategy.Resources, resource string) *generic.Store {
	s, _ := rs[resource].(*generic.Store)
	return s
}
