package typed

import (
	appsv1 "kubecore.io/api/apps/v1"
	authorizationv1 "kubecore.io/api/authorization/v1"
	autoscalingv1 "kubecore.io/api/autoscaling/v1"
	autoscalingv2 "kubecore.io/api/autoscaling/v2"
	batchv1 "kubecore.io/api/batch/v1"
	certificatesv1 "kubecore.io/api/certificates/v1"
	coordinationv1 "kubecore.io/api/coordination/v1"
	corev1 "kubecore.io/api/core/v1"
	discoveryv1 "kubecore.io/api/discovery/v1"
	networkingv1 "kubecore.io/api/networking/v1"
	policyv1 "kubecore.io/api/policy/v1"
	rbacv1 "kubecore.io/api/rbac/v1"
	schedulingv1 "kubecore.io/api/scheduling/v1"
	storagev1 "kubecore.io/api/storage/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
)

// The built-in resources: each function returns the descriptor the generic
// client needs. Functions rather than variables, so that no caller can
// change the table.

func core[E, LE any, T interface {
	*E
	Object
}, L interface {
	*LE
	List
}](resource, kind string, namespaced bool) Resource[T, L] {
	return NewResource[E, LE, T, L](corev1.SchemeGroupVersion.WithResource(resource), kind, namespaced)
}

func apps[E, LE any, T interface {
	*E
	Object
}, L interface {
	*LE
	List
}](resource, kind string) Resource[T, L] {
	return NewResource[E, LE, T, L](appsv1.SchemeGroupVersion.WithResource(resource), kind, true)
}

// Core group (v1).
func PodsResource() Resource[*corev1.Pod, *corev1.PodList] {
	return core[corev1.Pod, corev1.PodList]("pods", "Pod", true)
}
func PodTemplatesResource() Resource[*corev1.PodTemplate, *corev1.PodTemplateList] {
	return core[corev1.PodTemplate, corev1.PodTemplateList]("podtemplates", "PodTemplate", true)
}
func NodesResource() Resource[*corev1.Node, *corev1.NodeList] {
	return core[corev1.Node, corev1.NodeList]("nodes", "Node", false)
}
func NamespacesResource() Resource[*corev1.Namespace, *corev1.NamespaceList] {
	return core[corev1.Namespace, corev1.NamespaceList]("namespaces", "Namespace", false)
}
func ServicesResource() Resource[*corev1.Service, *corev1.ServiceList] {
	return core[corev1.Service, corev1.ServiceList]("services", "Service", true)
}
func EndpointsResource() Resource[*corev1.Endpoints, *corev1.EndpointsList] {
	return core[corev1.Endpoints, corev1.EndpointsList]("endpoints", "Endpoints", true)
}
func ConfigMapsResource() Resource[*corev1.ConfigMap, *corev1.ConfigMapList] {
	return core[corev1.ConfigMap, corev1.ConfigMapList]("configmaps", "ConfigMap", true)
}
func SecretsResource() Resource[*corev1.Secret, *corev1.SecretList] {
	return core[corev1.Secret, corev1.SecretList]("secrets", "Secret", true)
}
func ServiceAccountsResource() Resource[*corev1.ServiceAccount, *corev1.ServiceAccountList] {
	return core[corev1.ServiceAccount, corev1.ServiceAccountList]("serviceaccounts", "ServiceAccount", true)
}
func EventsResource() Resource[*corev1.Event, *corev1.EventList] {
	return core[corev1.Event, corev1.EventList]("events", "Event", true)
}
func PersistentVolumesResource() Resource[*corev1.PersistentVolume, *corev1.PersistentVolumeList] {
	return core[corev1.PersistentVolume, corev1.PersistentVolumeList]("persistentvolumes", "PersistentVolume", false)
}
func PersistentVolumeClaimsResource() Resource[*corev1.PersistentVolumeClaim, *corev1.PersistentVolumeClaimList] {
	return core[corev1.PersistentVolumeClaim, corev1.PersistentVolumeClaimList]("persistentvolumeclaims", "PersistentVolumeClaim", true)
}
func ReplicationControllersResource() Resource[*corev1.ReplicationController, *corev1.ReplicationControllerList] {
	return core[corev1.ReplicationController, corev1.ReplicationControllerList]("replicationcontrollers", "ReplicationController", true)
}
func ResourceQuotasResource() Resource[*corev1.ResourceQuota, *corev1.ResourceQuotaList] {
	return core[corev1.ResourceQuota, corev1.ResourceQuotaList]("resourcequotas", "ResourceQuota", true)
}
func LimitRangesResource() Resource[*corev1.LimitRange, *corev1.LimitRangeList] {
	return core[corev1.LimitRange, corev1.LimitRangeList]("limitranges", "LimitRange", true)
}

// Group apps/v1.
func DeploymentsResource() Resource[*appsv1.Deployment, *appsv1.DeploymentList] {
	return apps[appsv1.Deployment, appsv1.DeploymentList]("deployments", "Deployment")
}
func ReplicaSetsResource() Resource[*appsv1.ReplicaSet, *appsv1.ReplicaSetList] {
	return apps[appsv1.ReplicaSet, appsv1.ReplicaSetList]("replicasets", "ReplicaSet")
}
func StatefulSetsResource() Resource[*appsv1.StatefulSet, *appsv1.StatefulSetList] {
	return apps[appsv1.StatefulSet, appsv1.StatefulSetList]("statefulsets", "StatefulSet")
}
func DaemonSetsResource() Resource[*appsv1.DaemonSet, *appsv1.DaemonSetList] {
	return apps[appsv1.DaemonSet, appsv1.DaemonSetList]("daemonsets", "DaemonSet")
}
func ControllerRevisionsResource() Resource[*appsv1.ControllerRevision, *appsv1.ControllerRevisionList] {
	return apps[appsv1.ControllerRevision, appsv1.ControllerRevisionList]("controllerrevisions", "ControllerRevision")
}

// Group batch/v1.
func JobsResource() Resource[*batchv1.Job, *batchv1.JobList] {
	return NewResource[batchv1.Job, batchv1.JobList](batchv1.SchemeGroupVersion.WithResource("jobs"), "Job", true)
}
func CronJobsResource() Resource[*batchv1.CronJob, *batchv1.CronJobList] {
	return NewResource[batchv1.CronJob, batchv1.CronJobList](batchv1.SchemeGroupVersion.WithResource("cronjobs"), "CronJob", true)
}

// Groups coordination.k8s.io/v1, scheduling.k8s.io/v1 and policy/v1.
func LeasesResource() Resource[*coordinationv1.Lease, *coordinationv1.LeaseList] {
	return NewResource[coordinationv1.Lease, coordinationv1.LeaseList](coordinationv1.SchemeGroupVersion.WithResource("leases"), "Lease", true)
}
func PriorityClassesResource() Resource[*schedulingv1.PriorityClass, *schedulingv1.PriorityClassList] {
	return NewResource[schedulingv1.PriorityClass, schedulingv1.PriorityClassList](schedulingv1.SchemeGroupVersion.WithResource("priorityclasses"), "PriorityClass", false)
}
func PodDisruptionBudgetsResource() Resource[*policyv1.PodDisruptionBudget, *policyv1.PodDisruptionBudgetList] {
	return NewResource[policyv1.PodDisruptionBudget, policyv1.PodDisruptionBudgetList](policyv1.SchemeGroupVersion.WithResource("poddisruptionbudgets"), "PodDisruptionBudget", true)
}

// Group certificates.k8s.io/v1.
func CertificateSigningRequestsResource() Resource[*certificatesv1.CertificateSigningRequest, *certificatesv1.CertificateSigningRequestList] {
	return NewResource[certificatesv1.CertificateSigningRequest, certificatesv1.CertificateSigningRequestList](certificatesv1.SchemeGroupVersion.WithResource("certificatesigningrequests"), "CertificateSigningRequest", false)
}

// Group discovery.k8s.io/v1.
func EndpointSlicesResource() Resource[*discoveryv1.EndpointSlice, *discoveryv1.EndpointSliceList] {
	return NewResource[discoveryv1.EndpointSlice, discoveryv1.EndpointSliceList](discoveryv1.SchemeGroupVersion.WithResource("endpointslices"), "EndpointSlice", true)
}

func RolesResource() Resource[*rbacv1.Role, *rbacv1.RoleList] {
	return NewResource[rbacv1.Role, rbacv1.RoleList](rbacv1.SchemeGroupVersion.WithResource("roles"), "Role", true)
}
func ClusterRolesResource() Resource[*rbacv1.ClusterRole, *rbacv1.ClusterRoleList] {
	return NewResource[rbacv1.ClusterRole, rbacv1.ClusterRoleList](rbacv1.SchemeGroupVersion.WithResource("clusterroles"), "ClusterRole", false)
}
func RoleBindingsResource() Resource[*rbacv1.RoleBinding, *rbacv1.RoleBindingList] {
	return NewResource[rbacv1.RoleBinding, rbacv1.RoleBindingList](rbacv1.SchemeGroupVersion.WithResource("rolebindings"), "RoleBinding", true)
}
func ClusterRoleBindingsResource() Resource[*rbacv1.ClusterRoleBinding, *rbacv1.ClusterRoleBindingList] {
	return NewResource[rbacv1.ClusterRoleBinding, rbacv1.ClusterRoleBindingList](rbacv1.SchemeGroupVersion.WithResource("clusterrolebindings"), "ClusterRoleBinding", false)
}

// ResourceInfo is the untyped row of the built-in table.
type ResourceInfo struct {
	GroupVersionResource schema.GroupVersionResource
	Kind                 string
	Namespaced           bool
	// Subresources served for the resource by kubecore, e.g. "status".
	Subresources []string
}

func info[T Object, L List](r Resource[T, L], subresources ...string) ResourceInfo {
	return ResourceInfo{GroupVersionResource: r.GroupVersionResource, Kind: r.Kind, Namespaced: r.Namespaced, Subresources: subresources}
}

// BuiltinResources returns every built-in resource the Clientset serves.
func BuiltinResources() []ResourceInfo {
	return []ResourceInfo{
		info(PodsResource(), "status", "binding", "eviction", "log"),
		info(PodTemplatesResource()),
		info(NodesResource(), "status"),
		info(NamespacesResource(), "status"),
		info(ServicesResource(), "status"),
		info(EndpointsResource()),
		info(ConfigMapsResource()),
		info(SecretsResource()),
		info(ServiceAccountsResource()),
		info(EventsResource()),
		info(PersistentVolumesResource(), "status"),
		info(PersistentVolumeClaimsResource(), "status"),
		info(DeploymentsResource(), "status", "scale"),
		info(ReplicaSetsResource(), "status", "scale"),
		info(StatefulSetsResource(), "status", "scale"),
		info(DaemonSetsResource(), "status"),
		info(ControllerRevisionsResource()),
		info(JobsResource(), "status"),
		info(CronJobsResource(), "status"),
		info(LeasesResource()),
		info(PriorityClassesResource()),
		info(PodDisruptionBudgetsResource(), "status"),
		info(EndpointSlicesResource()),
		info(RolesResource()),
		info(ClusterRolesResource()),
		info(RoleBindingsResource()),
		info(ClusterRoleBindingsResource()),
		info(StorageClassesResource()),
		info(ServiceCIDRsResource(), "status"),
		info(IPAddressesResource()),
	}
}

// NewScheme returns a scheme knowing every built-in kind (and meta/v1's
// Status and DeleteOptions, the bodies a client reads and sends besides
// objects), e.g. for rest.ClientOptions.Decoder.
func NewScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, appsv1.AddToScheme, autoscalingv1.AddToScheme, autoscalingv2.AddToScheme, batchv1.AddToScheme,
		coordinationv1.AddToScheme, schedulingv1.AddToScheme, policyv1.AddToScheme,
		rbacv1.AddToScheme, authorizationv1.AddToScheme, certificatesv1.AddToScheme,
		discoveryv1.AddToScheme, storagev1.AddToScheme, networkingv1.AddToScheme,
	} {
		if err := add(s); err != nil {
			return nil, err
		}
	}
	s.AddUnversionedTypes(metav1.Unversioned, &metav1.Status{}, &metav1.DeleteOptions{})
	return s, nil
}

// Autoscaling (autoscaling/v2).
func HorizontalPodAutoscalersResource() Resource[*autoscalingv2.HorizontalPodAutoscaler, *autoscalingv2.HorizontalPodAutoscalerList] {
	return NewResource[autoscalingv2.HorizontalPodAutoscaler, autoscalingv2.HorizontalPodAutoscalerList](autoscalingv2.SchemeGroupVersion.WithResource("horizontalpodautoscalers"), "HorizontalPodAutoscaler", true)
}
