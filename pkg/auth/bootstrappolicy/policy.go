// Package bootstrappolicy holds the ClusterRoles and ClusterRoleBindings a
// cluster starts with: cluster-admin, admin, edit and view for users, and
// the system roles the components and every authenticated user need.
package bootstrappolicy

import (
	rbacv1 "kubecore.io/api/rbac/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// Well-known users and groups.
const (
	MastersGroup           = "system:masters"
	AuthenticatedGroup     = "system:authenticated"
	UnauthenticatedGroup   = "system:unauthenticated"
	NodesGroup             = "system:nodes"
	SchedulerUser          = "system:kube-scheduler"
	ControllerManagerUser  = "system:kube-controller-manager"
	ProxyUser              = "system:kube-proxy"
	DNSUser                = "system:kube-dns"
	ServiceAccountsGroup   = "system:serviceaccounts"
	BootstrappersGroup     = "system:bootstrappers"
	AnonymousUser          = "system:anonymous"
	autoupdateAnnotation   = "rbac.authorization.kubernetes.io/autoupdate"
	bootstrappingLabelKey  = "kubernetes.io/bootstrapping"
	bootstrappingLabelText = "rbac-defaults"
)

// The verb sets roles grant; each call returns a new slice.
func readVerbs() []string { return []string{"get", "list", "watch"} }

func readWriteVerbs() []string {
	return append(readVerbs(), "create", "delete", "deletecollection", "patch", "update")
}

// rule builds a PolicyRule of verbs on resources of one group.
func rule(verbs []string, group string, resources ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: verbs, APIGroups: []string{group}, Resources: resources}
}

func urls(verbs []string, paths ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: verbs, NonResourceURLs: paths}
}

func role(name string, rules ...rbacv1.PolicyRule) rbacv1.ClusterRole {
	return rbacv1.ClusterRole{ObjectMeta: meta(name), Rules: rules}
}

func meta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name:        name,
		Labels:      map[string]string{bootstrappingLabelKey: bootstrappingLabelText},
		Annotations: map[string]string{autoupdateAnnotation: "true"},
	}
}

// namespacedContent are the rules of view (read) and edit (read-write) on
// the objects of a namespace.
func namespacedContent(verbs []string) []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		rule(verbs, "", "pods", "configmaps", "endpoints", "persistentvolumeclaims", "replicationcontrollers", "replicationcontrollers/scale", "services", "serviceaccounts", "events", "podtemplates"),
		rule(verbs, "apps", "deployments", "deployments/scale", "replicasets", "replicasets/scale", "statefulsets", "statefulsets/scale", "daemonsets", "controllerrevisions"),
		rule(verbs, "autoscaling", "horizontalpodautoscalers"),
		rule(verbs, "batch", "jobs", "cronjobs"),
		rule(verbs, "policy", "poddisruptionbudgets"),
		rule(verbs, "coordination.k8s.io", "leases"),
		rule(verbs, "networking.k8s.io", "ingresses", "networkpolicies"),
		rule(verbs, "resource.k8s.io", "resourceclaims", "resourceclaimtemplates"),
	}
}

// ClusterRoles returns the default cluster roles.
func ClusterRoles() []rbacv1.ClusterRole {
	viewRules := append(namespacedContent(readVerbs()),
		rule(readVerbs(), "", "pods/log", "pods/status", "namespaces", "namespaces/status", "resourcequotas", "resourcequotas/status", "limitranges", "persistentvolumeclaims/status", "replicationcontrollers/status", "services/status"),
		rule(readVerbs(), "apps", "deployments/status", "replicasets/status", "statefulsets/status", "daemonsets/status"),
		rule(readVerbs(), "batch", "jobs/status", "cronjobs/status"),
		rule(readVerbs(), "networking.k8s.io", "ingresses/status"),
		rule(readVerbs(), "autoscaling", "horizontalpodautoscalers/status"),
		rule(readVerbs(), "resource.k8s.io", "resourceclaims/status"),
		// As in Kubernetes since v1.22, edit and admin only read slices.
		rule(readVerbs(), "discovery.k8s.io", "endpointslices"),
	)
	editRules := append(append(namespacedContent(readWriteVerbs()), viewRules...),
		rule(readWriteVerbs(), "", "secrets", "pods/proxy", "services/proxy"),
		rule([]string{"create"}, "", "pods/exec", "pods/attach", "pods/portforward", "pods/eviction", "serviceaccounts/token"),
		rule([]string{"get"}, "", "pods/exec", "pods/attach", "pods/portforward"),
	)
	adminRules := append(append([]rbacv1.PolicyRule(nil), editRules...),
		rule(readWriteVerbs(), "rbac.authorization.k8s.io", "roles", "rolebindings"),
		rule([]string{"create"}, "authorization.k8s.io", "localsubjectaccessreviews"),
	)
	return []rbacv1.ClusterRole{
		role("cluster-admin",
			rbacv1.PolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
			urls([]string{"*"}, "*")),
		role("admin", adminRules...),
		role("edit", editRules...),
		role("view", viewRules...),
		role("system:basic-user",
			rule([]string{"create"}, "authorization.k8s.io", "selfsubjectaccessreviews", "selfsubjectrulesreviews"),
			rule([]string{"create"}, "authentication.k8s.io", "selfsubjectreviews")),
		// Granted to servers that delegate authentication and
		// authorization to the API server (webhooks, aggregated APIs).
		role("system:auth-delegator",
			rule([]string{"create"}, "authentication.k8s.io", "tokenreviews"),
			rule([]string{"create"}, "authorization.k8s.io", "subjectaccessreviews")),
		role("system:discovery",
			urls([]string{"get"}, "/api", "/api/*", "/apis", "/apis/*", "/openapi", "/openapi/*", "/version", "/version/", "/healthz", "/livez", "/readyz")),
		role("system:public-info-viewer",
			urls([]string{"get"}, "/healthz", "/livez", "/readyz", "/version", "/version/")),
		// Lets service accounts read the issuer's discovery document and
		// keys, to verify each other's tokens.
		role("system:service-account-issuer-discovery",
			urls([]string{"get"}, "/.well-known/openid-configuration", "/.well-known/openid-configuration/", "/openid/v1/jwks", "/openid/v1/jwks/")),
		role(SchedulerUser,
			rule(append(readVerbs(), "delete"), "", "pods"),
			rule([]string{"create"}, "", "pods/binding", "bindings"),
			rule([]string{"patch", "update"}, "", "pods/status"),
			rule(readVerbs(), "", "nodes", "namespaces", "services", "replicationcontrollers", "persistentvolumeclaims", "persistentvolumes"),
			// The volume binding plugin records the chosen node on claims
			// (system:volume-scheduler in Kubernetes).
			rule([]string{"patch", "update"}, "", "persistentvolumeclaims"),
			rule(readVerbs(), "apps", "replicasets", "statefulsets"),
			rule(readVerbs(), "policy", "poddisruptionbudgets"),
			rule(readVerbs(), "scheduling.k8s.io", "priorityclasses"),
			rule(readVerbs(), "storage.k8s.io", "storageclasses", "csinodes", "csidrivers", "csistoragecapacities", "volumeattachments"),
			rule([]string{"create", "patch", "update"}, "", "events"),
			rule([]string{"create", "patch", "update"}, "events.k8s.io", "events"),
			rule([]string{"create", "get", "list", "watch", "update"}, "coordination.k8s.io", "leases"),
			rule([]string{"create"}, "authentication.k8s.io", "tokenreviews"),
			rule([]string{"create"}, "authorization.k8s.io", "subjectaccessreviews")),
		// The controllers include the garbage collector and the namespace
		// controller, which read and delete every kind of object: the
		// controller-manager's role spans every resource.
		role(ControllerManagerUser,
			rbacv1.PolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}),
		// The disruption controller's own role, as Kubernetes names it,
		// for a controller run under its service account.
		role(DisruptionControllerRole,
			rule(readVerbs(), "apps", "deployments", "replicasets", "statefulsets"),
			rule(readVerbs(), "", "pods", "replicationcontrollers"),
			rule(readVerbs(), "policy", "poddisruptionbudgets"),
			rule([]string{"update"}, "policy", "poddisruptionbudgets/status"),
			rule([]string{"patch", "update"}, "", "pods/status"),
			rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{"*"}, Resources: []string{"*/scale"}},
			rule([]string{"create", "patch", "update"}, "", "events"),
			rule([]string{"create", "patch", "update"}, "events.k8s.io", "events")),
		// Kubelets are authorized by the Node authorizer; the role exists
		// for clusters that bind it explicitly.
		role("system:node",
			rule(readVerbs(), "", "nodes", "pods", "services", "endpoints", "configmaps", "secrets", "persistentvolumeclaims", "persistentvolumes"),
			rule([]string{"create", "update", "patch", "delete"}, "", "nodes", "nodes/status", "pods", "pods/status"),
			rule([]string{"create", "patch", "update"}, "", "events"),
			rule([]string{"create", "patch", "update"}, "events.k8s.io", "events"),
			rule(readVerbs(), "node.k8s.io", "runtimeclasses"),
			rule([]string{"create", "get", "update", "patch", "delete"}, "coordination.k8s.io", "leases")),
		// The service proxy and the cluster DNS, as `kubecore proxy` and
		// `kubecore dns` (and all-in-one) run them under their own users.
		role(ProxyUser,
			rule(readVerbs(), "", "services", "nodes"),
			rule(readVerbs(), "discovery.k8s.io", "endpointslices"),
			rule([]string{"create", "patch", "update"}, "", "events"),
			rule([]string{"create", "patch", "update"}, "events.k8s.io", "events")),
		role(DNSUser,
			rule(readVerbs(), "", "namespaces"),
			rule(append(readVerbs(), "create"), "", "services"),
			rule(append(readVerbs(), "create", "update", "delete"), "discovery.k8s.io", "endpointslices")),
		role("system:node-bootstrapper",
			rule([]string{"create", "get", "list", "watch"}, "certificates.k8s.io", "certificatesigningrequests")),
		// The CSR approver approves a kubelet's client certificate request
		// when its requester may create these subresources: nodeclient
		// for a new node, selfnodeclient for a node renewing its own.
		role(NodeClientApprovalRole,
			rule([]string{"create"}, "certificates.k8s.io", "certificatesigningrequests/nodeclient")),
		role(SelfNodeClientApprovalRole,
			rule([]string{"create"}, "certificates.k8s.io", "certificatesigningrequests/selfnodeclient")),
	}
}

// DisruptionControllerRole is the ClusterRole of the disruption
// controller, bound to its service account kube-system/disruption-controller.
const DisruptionControllerRole = "system:controller:disruption-controller"

// The roles whose subresources the CSR approver checks.
const (
	NodeClientApprovalRole     = "system:certificates.k8s.io:certificatesigningrequests:nodeclient"
	SelfNodeClientApprovalRole = "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient"
)

// The ConfigMap kube-public/cluster-info holds, under ClusterInfoKey, a
// kubeconfig with the cluster's CA and server (no credentials), as
// kubeadm publishes it: joining nodes read it before they have
// credentials, at ClusterInfoPath.
const (
	ClusterInfoName = "cluster-info"
	ClusterInfoKey  = "kubeconfig"
	ClusterInfoPath = "/api/v1/namespaces/" + metav1.NamespacePublic + "/configmaps/" + ClusterInfoName
)

// clusterInfoViewer names the Role and RoleBinding letting anonymous
// users read that one ConfigMap, as kubeadm names them.
const clusterInfoViewer = "kubecore:bootstrap-signer-clusterinfo"

// Roles returns the default namespaced roles: reading cluster-info in
// kube-public, and nothing else there.
func Roles() []rbacv1.Role {
	m := meta(clusterInfoViewer)
	m.Namespace = metav1.NamespacePublic
	ext := meta(ExtensionAuthenticationReader)
	ext.Namespace = metav1.NamespaceSystem
	return []rbacv1.Role{{ObjectMeta: m, Rules: []rbacv1.PolicyRule{{
		Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{ClusterInfoName},
	}}}, {ObjectMeta: ext, Rules: []rbacv1.PolicyRule{{
		Verbs: []string{"get", "list", "watch"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{ExtensionAuthenticationName},
	}}}}
}

// ExtensionAuthenticationName is the ConfigMap in kube-system that says
// how the API server authenticates clients and front proxies, for
// extension API servers; ExtensionAuthenticationReader is the Role in
// kube-system that lets them read it, as Kubernetes names them.
const (
	ExtensionAuthenticationName   = "extension-apiserver-authentication"
	ExtensionAuthenticationReader = "extension-apiserver-authentication-reader"
)

// RoleBindings returns the default namespaced role bindings.
func RoleBindings() []rbacv1.RoleBinding {
	m := meta(clusterInfoViewer)
	m.Namespace = metav1.NamespacePublic
	return []rbacv1.RoleBinding{{
		ObjectMeta: m,
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: clusterInfoViewer},
		Subjects:   []rbacv1.Subject{user(AnonymousUser)},
	}}
}

func binding(name, roleName string, subjects ...rbacv1.Subject) rbacv1.ClusterRoleBinding {
	return rbacv1.ClusterRoleBinding{
		ObjectMeta: meta(name),
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: roleName},
		Subjects:   subjects,
	}
}

func group(name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: name}
}

func user(name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: name}
}

// ClusterRoleBindings returns the default cluster role bindings.
func ClusterRoleBindings() []rbacv1.ClusterRoleBinding {
	return []rbacv1.ClusterRoleBinding{
		binding("cluster-admin", "cluster-admin", group(MastersGroup)),
		binding("system:basic-user", "system:basic-user", group(AuthenticatedGroup)),
		binding("system:discovery", "system:discovery", group(AuthenticatedGroup)),
		binding("system:public-info-viewer", "system:public-info-viewer", group(AuthenticatedGroup), group(UnauthenticatedGroup)),
		binding("system:service-account-issuer-discovery", "system:service-account-issuer-discovery", group(ServiceAccountsGroup)),
		binding(SchedulerUser, SchedulerUser, user(SchedulerUser)),
		binding(ControllerManagerUser, ControllerManagerUser, user(ControllerManagerUser)),
		binding(ProxyUser, ProxyUser, user(ProxyUser)),
		binding(DNSUser, DNSUser, user(DNSUser)),
		binding(DisruptionControllerRole, DisruptionControllerRole, rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: metav1.NamespaceSystem, Name: "disruption-controller"}),
		// Holders of bootstrap tokens may request a node client certificate,
		// which the approver approves; nodes renew theirs.
		binding("system:node-bootstrapper", "system:node-bootstrapper", group(BootstrappersGroup)),
		binding(NodeClientApprovalRole, NodeClientApprovalRole, group(BootstrappersGroup)),
		binding(SelfNodeClientApprovalRole, SelfNodeClientApprovalRole, group(NodesGroup)),
	}
}
