package informers

import (
	appsv1 "kubecore.io/api/apps/v1"
	autoscalingv2 "kubecore.io/api/autoscaling/v2"
	batchv1 "kubecore.io/api/batch/v1"
	certificatesv1 "kubecore.io/api/certificates/v1"
	coordinationv1 "kubecore.io/api/coordination/v1"
	corev1 "kubecore.io/api/core/v1"
	discoveryv1 "kubecore.io/api/discovery/v1"
	"kubecore.io/client/tools/cache"
)

// The shared informers of the resources the control plane watches.

// Pods returns the shared pod informer.
func Pods(f *SharedInformerFactory) (*cache.Informer[*corev1.Pod], error) {
	return For[*corev1.Pod](f, corev1.SchemeGroupVersion.WithResource("pods"))
}

// Nodes returns the shared node informer.
func Nodes(f *SharedInformerFactory) (*cache.Informer[*corev1.Node], error) {
	return For[*corev1.Node](f, corev1.SchemeGroupVersion.WithResource("nodes"))
}

// Namespaces returns the shared namespace informer.
func Namespaces(f *SharedInformerFactory) (*cache.Informer[*corev1.Namespace], error) {
	return For[*corev1.Namespace](f, corev1.SchemeGroupVersion.WithResource("namespaces"))
}

// Services returns the shared service informer.
func Services(f *SharedInformerFactory) (*cache.Informer[*corev1.Service], error) {
	return For[*corev1.Service](f, corev1.SchemeGroupVersion.WithResource("services"))
}

// ConfigMaps returns the shared config map informer.
func ConfigMaps(f *SharedInformerFactory) (*cache.Informer[*corev1.ConfigMap], error) {
	return For[*corev1.ConfigMap](f, corev1.SchemeGroupVersion.WithResource("configmaps"))
}

// Secrets returns the shared secret informer.
func Secrets(f *SharedInformerFactory) (*cache.Informer[*corev1.Secret], error) {
	return For[*corev1.Secret](f, corev1.SchemeGroupVersion.WithResource("secrets"))
}

// ReplicationControllers returns the shared replication controller informer.
func ReplicationControllers(f *SharedInformerFactory) (*cache.Informer[*corev1.ReplicationController], error) {
	return For[*corev1.ReplicationController](f, corev1.SchemeGroupVersion.WithResource("replicationcontrollers"))
}

// ResourceQuotas returns the shared resource quota informer.
func ResourceQuotas(f *SharedInformerFactory) (*cache.Informer[*corev1.ResourceQuota], error) {
	return For[*corev1.ResourceQuota](f, corev1.SchemeGroupVersion.WithResource("resourcequotas"))
}

// LimitRanges returns the shared limit range informer.
func LimitRanges(f *SharedInformerFactory) (*cache.Informer[*corev1.LimitRange], error) {
	return For[*corev1.LimitRange](f, corev1.SchemeGroupVersion.WithResource("limitranges"))
}

// Deployments returns the shared deployment informer.
func Deployments(f *SharedInformerFactory) (*cache.Informer[*appsv1.Deployment], error) {
	return For[*appsv1.Deployment](f, appsv1.SchemeGroupVersion.WithResource("deployments"))
}

// ReplicaSets returns the shared replica set informer.
func ReplicaSets(f *SharedInformerFactory) (*cache.Informer[*appsv1.ReplicaSet], error) {
	return For[*appsv1.ReplicaSet](f, appsv1.SchemeGroupVersion.WithResource("replicasets"))
}

// StatefulSets returns the shared stateful set informer.
func StatefulSets(f *SharedInformerFactory) (*cache.Informer[*appsv1.StatefulSet], error) {
	return For[*appsv1.StatefulSet](f, appsv1.SchemeGroupVersion.WithResource("statefulsets"))
}

// ControllerRevisions returns the shared controller revision informer.
func ControllerRevisions(f *SharedInformerFactory) (*cache.Informer[*appsv1.ControllerRevision], error) {
	return For[*appsv1.ControllerRevision](f, appsv1.SchemeGroupVersion.WithResource("controllerrevisions"))
}

// Jobs returns the shared job informer.
func Jobs(f *SharedInformerFactory) (*cache.Informer[*batchv1.Job], error) {
	return For[*batchv1.Job](f, batchv1.SchemeGroupVersion.WithResource("jobs"))
}

// CronJobs returns the shared cron job informer.
func CronJobs(f *SharedInformerFactory) (*cache.Informer[*batchv1.CronJob], error) {
	return For[*batchv1.CronJob](f, batchv1.SchemeGroupVersion.WithResource("cronjobs"))
}

// EndpointSlices returns the shared endpoint slice informer.
func EndpointSlices(f *SharedInformerFactory) (*cache.Informer[*discoveryv1.EndpointSlice], error) {
	return For[*discoveryv1.EndpointSlice](f, discoveryv1.SchemeGroupVersion.WithResource("endpointslices"))
}

// Leases returns the shared lease informer.
func Leases(f *SharedInformerFactory) (*cache.Informer[*coordinationv1.Lease], error) {
	return For[*coordinationv1.Lease](f, coordinationv1.SchemeGroupVersion.WithResource("leases"))
}

// DaemonSets returns the shared DaemonSet informer.
func DaemonSets(f *SharedInformerFactory) (*cache.Informer[*appsv1.DaemonSet], error) {
	return For[*appsv1.DaemonSet](f, appsv1.SchemeGroupVersion.WithResource("daemonsets"))
}

// Endpoints returns the shared Endpoints informer.
func Endpoints(f *SharedInformerFactory) (*cache.Informer[*corev1.Endpoints], error) {
	return For[*corev1.Endpoints](f, corev1.SchemeGroupVersion.WithResource("endpoints"))
}

// ServiceAccounts returns the shared ServiceAccount informer.
func ServiceAccounts(f *SharedInformerFactory) (*cache.Informer[*corev1.ServiceAccount], error) {
	return For[*corev1.ServiceAccount](f, corev1.SchemeGroupVersion.WithResource("serviceaccounts"))
}

// PersistentVolumes returns the shared PersistentVolume informer.
func PersistentVolumes(f *SharedInformerFactory) (*cache.Informer[*corev1.PersistentVolume], error) {
	return For[*corev1.PersistentVolume](f, corev1.SchemeGroupVersion.WithResource("persistentvolumes"))
}

// PersistentVolumeClaims returns the shared PersistentVolumeClaim informer.
func PersistentVolumeClaims(f *SharedInformerFactory) (*cache.Informer[*corev1.PersistentVolumeClaim], error) {
	return For[*corev1.PersistentVolumeClaim](f, corev1.SchemeGroupVersion.WithResource("persistentvolumeclaims"))
}

// CertificateSigningRequests returns the shared CertificateSigningRequest
// informer.
func CertificateSigningRequests(f *SharedInformerFactory) (*cache.Informer[*certificatesv1.CertificateSigningRequest], error) {
	return For[*certificatesv1.CertificateSigningRequest](f, certificatesv1.SchemeGroupVersion.WithResource("certificatesigningrequests"))
}

// HorizontalPodAutoscalers returns the shared HorizontalPodAutoscaler
// informer (autoscaling/v2).
func HorizontalPodAutoscalers(f *SharedInformerFactory) (*cache.Informer[*autoscalingv2.HorizontalPodAutoscaler], error) {
	return For[*autoscalingv2.HorizontalPodAutoscaler](f, autoscalingv2.SchemeGroupVersion.WithResource("horizontalpodautoscalers"))
}
