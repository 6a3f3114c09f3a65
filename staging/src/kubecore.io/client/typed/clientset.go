package typed

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"

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
	"kubecore.io/apimachinery/pkg/runtime/protobuf"
	"kubecore.io/client/rest"
)

// Clientset holds one REST client per built-in group version, sharing one
// transport (connections) and one client-side rate limiter.
type Clientset struct {
	core          *rest.Client
	apps          *rest.Client
	batch         *rest.Client
	coordination  *rest.Client
	scheduling    *rest.Client
	policy        *rest.Client
	rbac          *rest.Client
	authorization *rest.Client
	certificates  *rest.Client
	discovery     *rest.Client
	storage       *rest.Client
	autoscaling   *rest.Client
	networking    *rest.Client
}

// NewForConfig returns a Clientset for config's server.
func NewForConfig(config *rest.Config) (*Clientset, error) {
	if config == nil {
		return nil, fmt.Errorf("clientset: nil config")
	}
	server, err := config.ServerURL()
	if err != nil {
		return nil, err
	}
	rt, err := rest.TransportFor(config)
	if err != nil {
		return nil, fmt.Errorf("transport for server %s: %w", server, err)
	}
	opts := rest.ClientOptions{HTTPClient: &http.Client{Transport: rt}}
	if config.ContentType == protobuf.ContentType {
		scheme, err := NewScheme()
		if err != nil {
			return nil, err
		}
		opts.Protobuf = protobuf.NewSerializer(scheme)
	}
	if config.QPS > 0 {
		opts.RateLimiter = rest.NewTokenBucket(config.QPS, config.Burst)
	}
	cs := &Clientset{}
	for _, gv := range []struct {
		gv  string
		out **rest.Client
	}{
		{"v1", &cs.core},
		{appsv1.SchemeGroupVersion.String(), &cs.apps},
		{batchv1.SchemeGroupVersion.String(), &cs.batch},
		{coordinationv1.SchemeGroupVersion.String(), &cs.coordination},
		{schedulingv1.SchemeGroupVersion.String(), &cs.scheduling},
		{policyv1.SchemeGroupVersion.String(), &cs.policy},
		{rbacv1.SchemeGroupVersion.String(), &cs.rbac},
		{authorizationv1.SchemeGroupVersion.String(), &cs.authorization},
		{certificatesv1.SchemeGroupVersion.String(), &cs.certificates},
		{discoveryv1.SchemeGroupVersion.String(), &cs.discovery},
		{storagev1.SchemeGroupVersion.String(), &cs.storage},
		{autoscalingv2.SchemeGroupVersion.String(), &cs.autoscaling},
		{networkingv1.SchemeGroupVersion.String(), &cs.networking},
	} {
		o := opts
		o.GroupVersion = gv.gv
		// Each group has its own API root; a custom APIPath applies to none.
		cfg := rest.CopyConfig(config)
		cfg.APIPath = ""
		c, err := rest.NewClient(cfg, o)
		if err != nil {
			return nil, err
		}
		*gv.out = c
	}
	return cs, nil
}

// SetWarningHandler sets the handler of Warning headers of every group.
func (cs *Clientset) SetWarningHandler(h rest.WarningHandler) {
	for _, c := range []*rest.Client{cs.core, cs.apps, cs.batch, cs.coordination, cs.scheduling, cs.policy, cs.rbac, cs.authorization, cs.certificates, cs.discovery, cs.storage, cs.autoscaling, cs.networking} {
		c.SetWarningHandler(h)
	}
}

// CoreV1 returns the clients of the core group.
func (cs *Clientset) CoreV1() CoreV1 { return CoreV1{rc: cs.core} }

// AppsV1 returns the clients of apps/v1.
func (cs *Clientset) AppsV1() AppsV1 { return AppsV1{rc: cs.apps} }

// BatchV1 returns the clients of batch/v1.
func (cs *Clientset) BatchV1() BatchV1 { return BatchV1{rc: cs.batch} }

// CoordinationV1 returns the clients of coordination.k8s.io/v1.
func (cs *Clientset) CoordinationV1() CoordinationV1 { return CoordinationV1{rc: cs.coordination} }

// SchedulingV1 returns the clients of scheduling.k8s.io/v1.
func (cs *Clientset) SchedulingV1() SchedulingV1 { return SchedulingV1{rc: cs.scheduling} }

// PolicyV1 returns the clients of policy/v1.
func (cs *Clientset) PolicyV1() PolicyV1 { return PolicyV1{rc: cs.policy} }

// RbacV1 returns the clients of rbac.authorization.k8s.io/v1.
func (cs *Clientset) RbacV1() RbacV1 { return RbacV1{rc: cs.rbac} }

// AuthorizationV1 returns the clients of authorization.k8s.io/v1.
func (cs *Clientset) AuthorizationV1() AuthorizationV1 {
	return AuthorizationV1{rc: cs.authorization}
}

// CertificatesV1 returns the clients of certificates.k8s.io/v1.
func (cs *Clientset) CertificatesV1() CertificatesV1 { return CertificatesV1{rc: cs.certificates} }

// DiscoveryV1 returns the clients of discovery.k8s.io/v1.
func (cs *Clientset) DiscoveryV1() DiscoveryV1 { return DiscoveryV1{rc: cs.discovery} }

// AutoscalingV2 returns the clients of autoscaling/v2.
func (cs *Clientset) AutoscalingV2() AutoscalingV2 { return AutoscalingV2{rc: cs.autoscaling} }

// AutoscalingV2 is autoscaling/v2's client accessors.
type AutoscalingV2 struct{ rc *rest.Client }

func (g AutoscalingV2) HorizontalPodAutoscalers(namespace string) *Client[*autoscalingv2.HorizontalPodAutoscaler, *autoscalingv2.HorizontalPodAutoscalerList] {
	return NewClient(g.rc, HorizontalPodAutoscalersResource(), namespace)
}

// CoreV1 is the core group's client accessors.
type CoreV1 struct{ rc *rest.Client }

// RESTClient returns the group's REST client.
func (g CoreV1) RESTClient() *rest.Client { return g.rc }

func (g CoreV1) Pods(namespace string) *PodClient {
	return &PodClient{Client: NewClient(g.rc, PodsResource(), namespace)}
}
func (g CoreV1) PodTemplates(namespace string) *Client[*corev1.PodTemplate, *corev1.PodTemplateList] {
	return NewClient(g.rc, PodTemplatesResource(), namespace)
}
func (g CoreV1) Nodes() *Client[*corev1.Node, *corev1.NodeList] {
	return NewClient(g.rc, NodesResource(), "")
}
func (g CoreV1) Namespaces() *Client[*corev1.Namespace, *corev1.NamespaceList] {
	return NewClient(g.rc, NamespacesResource(), "")
}
func (g CoreV1) Services(namespace string) *Client[*corev1.Service, *corev1.ServiceList] {
	return NewClient(g.rc, ServicesResource(), namespace)
}
func (g CoreV1) Endpoints(namespace string) *Client[*corev1.Endpoints, *corev1.EndpointsList] {
	return NewClient(g.rc, EndpointsResource(), namespace)
}
func (g CoreV1) ConfigMaps(namespace string) *Client[*corev1.ConfigMap, *corev1.ConfigMapList] {
	return NewClient(g.rc, ConfigMapsResource(), namespace)
}
func (g CoreV1) Secrets(namespace string) *Client[*corev1.Secret, *corev1.SecretList] {
	return NewClient(g.rc, SecretsResource(), namespace)
}
func (g CoreV1) ServiceAccounts(namespace string) *Client[*corev1.ServiceAccount, *corev1.ServiceAccountList] {
	return NewClient(g.rc, ServiceAccountsResource(), namespace)
}
func (g CoreV1) Events(namespace string) *Client[*corev1.Event, *corev1.EventList] {
	return NewClient(g.rc, EventsResource(), namespace)
}
func (g CoreV1) PersistentVolumes() *Client[*corev1.PersistentVolume, *corev1.PersistentVolumeList] {
	return NewClient(g.rc, PersistentVolumesResource(), "")
}
func (g CoreV1) PersistentVolumeClaims(namespace string) *Client[*corev1.PersistentVolumeClaim, *corev1.PersistentVolumeClaimList] {
	return NewClient(g.rc, PersistentVolumeClaimsResource(), namespace)
}
func (g CoreV1) ReplicationControllers(namespace string) *ScalableClient[*corev1.ReplicationController, *corev1.ReplicationControllerList] {
	return &ScalableClient[*corev1.ReplicationController, *corev1.ReplicationControllerList]{Client: NewClient(g.rc, ReplicationControllersResource(), namespace)}
}
func (g CoreV1) ResourceQuotas(namespace string) *Client[*corev1.ResourceQuota, *corev1.ResourceQuotaList] {
	return NewClient(g.rc, ResourceQuotasResource(), namespace)
}
func (g CoreV1) LimitRanges(namespace string) *Client[*corev1.LimitRange, *corev1.LimitRangeList] {
	return NewClient(g.rc, LimitRangesResource(), namespace)
}

// AppsV1 is apps/v1's client accessors.
type AppsV1 struct{ rc *rest.Client }

// RESTClient returns the group's REST client.
func (g AppsV1) RESTClient() *rest.Client { return g.rc }

func (g AppsV1) Deployments(namespace string) *ScalableClient[*appsv1.Deployment, *appsv1.DeploymentList] {
	return &ScalableClient[*appsv1.Deployment, *appsv1.DeploymentList]{Client: NewClient(g.rc, DeploymentsResource(), namespace)}
}
func (g AppsV1) ReplicaSets(namespace string) *ScalableClient[*appsv1.ReplicaSet, *appsv1.ReplicaSetList] {
	return &ScalableClient[*appsv1.ReplicaSet, *appsv1.ReplicaSetList]{Client: NewClient(g.rc, ReplicaSetsResource(), namespace)}
}
func (g AppsV1) StatefulSets(namespace string) *ScalableClient[*appsv1.StatefulSet, *appsv1.StatefulSetList] {
	return &ScalableClient[*appsv1.StatefulSet, *appsv1.StatefulSetList]{Client: NewClient(g.rc, StatefulSetsResource(), namespace)}
}
func (g AppsV1) DaemonSets(namespace string) *Client[*appsv1.DaemonSet, *appsv1.DaemonSetList] {
	return NewClient(g.rc, DaemonSetsResource(), namespace)
}
func (g AppsV1) ControllerRevisions(namespace string) *Client[*appsv1.ControllerRevision, *appsv1.ControllerRevisionList] {
	return NewClient(g.rc, ControllerRevisionsResource(), namespace)
}

// BatchV1 is batch/v1's client accessors.
type BatchV1 struct{ rc *rest.Client }

func (g BatchV1) Jobs(namespace string) *Client[*batchv1.Job, *batchv1.JobList] {
	return NewClient(g.rc, JobsResource(), namespace)
}
func (g BatchV1) CronJobs(namespace string) *Client[*batchv1.CronJob, *batchv1.CronJobList] {
	return NewClient(g.rc, CronJobsResource(), namespace)
}

// CoordinationV1 is coordination.k8s.io/v1's client accessors.
type CoordinationV1 struct{ rc *rest.Client }

func (g CoordinationV1) Leases(namespace string) *Client[*coordinationv1.Lease, *coordinationv1.LeaseList] {
	return NewClient(g.rc, LeasesResource(), namespace)
}

// SchedulingV1 is scheduling.k8s.io/v1's client accessors.
type SchedulingV1 struct{ rc *rest.Client }

func (g SchedulingV1) PriorityClasses() *Client[*schedulingv1.PriorityClass, *schedulingv1.PriorityClassList] {
	return NewClient(g.rc, PriorityClassesResource(), "")
}

// PolicyV1 is policy/v1's client accessors.
type PolicyV1 struct{ rc *rest.Client }

func (g PolicyV1) PodDisruptionBudgets(namespace string) *Client[*policyv1.PodDisruptionBudget, *policyv1.PodDisruptionBudgetList] {
	return NewClient(g.rc, PodDisruptionBudgetsResource(), namespace)
}

// DiscoveryV1 is discovery.k8s.io/v1's client accessors.
type DiscoveryV1 struct{ rc *rest.Client }

func (g DiscoveryV1) EndpointSlices(namespace string) *Client[*discoveryv1.EndpointSlice, *discoveryv1.EndpointSliceList] {
	return NewClient(g.rc, EndpointSlicesResource(), namespace)
}

// CertificatesV1 is certificates.k8s.io/v1's client accessors.
type CertificatesV1 struct{ rc *rest.Client }

// CertificateSigningRequests returns the client of the requests: approve
// or deny with UpdateApproval, issue with UpdateStatus.
func (g CertificatesV1) CertificateSigningRequests() *CSRClient {
	return &CSRClient{Client: NewClient(g.rc, CertificateSigningRequestsResource(), "")}
}

// CSRClient is the client of certificatesigningrequests.
type CSRClient struct {
	*Client[*certificatesv1.CertificateSigningRequest, *certificatesv1.CertificateSigningRequestList]
}

// UpdateApproval replaces the Approved and Denied conditions of the
// request named by csr (subresource approval).
func (c *CSRClient) UpdateApproval(ctx context.Context, csr *certificatesv1.CertificateSigningRequest, opts metav1.UpdateOptions) (*certificatesv1.CertificateSigningRequest, error) {
	return c.put(ctx, csr, opts, "approval")
}

// RbacV1 is rbac.authorization.k8s.io/v1's client accessors.
type RbacV1 struct{ rc *rest.Client }

func (g RbacV1) Roles(namespace string) *Client[*rbacv1.Role, *rbacv1.RoleList] {
	return NewClient(g.rc, RolesResource(), namespace)
}
func (g RbacV1) ClusterRoles() *Client[*rbacv1.ClusterRole, *rbacv1.ClusterRoleList] {
	return NewClient(g.rc, ClusterRolesResource(), "")
}
func (g RbacV1) RoleBindings(namespace string) *Client[*rbacv1.RoleBinding, *rbacv1.RoleBindingList] {
	return NewClient(g.rc, RoleBindingsResource(), namespace)
}
func (g RbacV1) ClusterRoleBindings() *Client[*rbacv1.ClusterRoleBinding, *rbacv1.ClusterRoleBindingList] {
	return NewClient(g.rc, ClusterRoleBindingsResource(), "")
}

// AuthorizationV1 is authorization.k8s.io/v1's client accessors: access
// reviews, which are only created.
type AuthorizationV1 struct{ rc *rest.Client }

func (g AuthorizationV1) SubjectAccessReviews() ReviewClient[*authorizationv1.SubjectAccessReview] {
	return ReviewClient[*authorizationv1.SubjectAccessReview]{rc: g.rc, resource: "subjectaccessreviews"}
}
func (g AuthorizationV1) SelfSubjectAccessReviews() ReviewClient[*authorizationv1.SelfSubjectAccessReview] {
	return ReviewClient[*authorizationv1.SelfSubjectAccessReview]{rc: g.rc, resource: "selfsubjectaccessreviews"}
}
func (g AuthorizationV1) SelfSubjectRulesReviews() ReviewClient[*authorizationv1.SelfSubjectRulesReview] {
	return ReviewClient[*authorizationv1.SelfSubjectRulesReview]{rc: g.rc, resource: "selfsubjectrulesreviews"}
}

// ReviewClient creates a review and returns it with the server's answer.
type ReviewClient[T Object] struct {
	rc       *rest.Client
	resource string
}

// Create sends review and returns the answered review.
func (c ReviewClient[T]) Create(ctx context.Context, review T, opts metav1.CreateOptions) (T, error) {
	out := review.DeepCopyObject().(T)
	if err := c.rc.Post().Resource(c.resource).VersionedParams(&opts).Body(review).Do(ctx).Into(out); err != nil {
		var zero T
		return zero, err
	}
	return out, nil
}

// ScalableClient is the client of a workload with a scale subresource
// (autoscaling/v1 Scale).
type ScalableClient[T Object, L List] struct {
	*Client[T, L]
}

// GetScale returns the scale of the named workload.
func (c *ScalableClient[T, L]) GetScale(ctx context.Context, name string, opts metav1.GetOptions) (*autoscalingv1.Scale, error) {
	out := &autoscalingv1.Scale{}
	if err := c.subresource(ctx, http.MethodGet, name, "scale", &opts, nil, out); err != nil {
		return nil, err
	}
	return out, nil
}

// UpdateScale sets the desired replicas of the named workload.
func (c *ScalableClient[T, L]) UpdateScale(ctx context.Context, name string, scale *autoscalingv1.Scale, opts metav1.UpdateOptions) (*autoscalingv1.Scale, error) {
	if scale == nil {
		return nil, fmt.Errorf("update scale of %s %q: scale is nil", c.res.GroupResource(), name)
	}
	out := &autoscalingv1.Scale{}
	if err := c.subresource(ctx, http.MethodPut, name, "scale", &opts, scale, out); err != nil {
		return nil, err
	}
	return out, nil
}

// PodClient is the pods client with the pod subresources.
type PodClient struct {
	*Client[*corev1.Pod, *corev1.PodList]
}

// Bind binds the pod named by binding to binding.Target (a node).
func (c *PodClient) Bind(ctx context.Context, binding *corev1.Binding, opts metav1.CreateOptions) error {
	if binding == nil {
		return fmt.Errorf("bind pod: binding is nil")
	}
	return c.subresource(ctx, http.MethodPost, binding.Name, "binding", &opts, binding, nil)
}

// Evict asks for the pod named by eviction to be deleted, subject to its
// disruption budgets (429 TooManyRequests when a budget forbids it now).
func (c *PodClient) Evict(ctx context.Context, eviction *policyv1.Eviction) error {
	if eviction == nil {
		return fmt.Errorf("evict pod: eviction is nil")
	}
	return c.subresource(ctx, http.MethodPost, eviction.Name, "eviction", nil, eviction, nil)
}

// GetLogs streams the log of a container of the named pod; the caller
// closes the stream. With Follow it lasts until the container ends or ctx
// is cancelled.
func (c *PodClient) GetLogs(ctx context.Context, name string, opts *PodLogOptions) (io.ReadCloser, error) {
	req, err := c.item(http.MethodGet, name)
	if err != nil {
		return nil, err
	}
	req.SubResource("log")
	if opts != nil {
		req.VersionedParams(opts)
	}
	return req.Stream(ctx)
}

// PodLogOptions are the query parameters of pods/log.
type PodLogOptions struct {
	// Container names the container; it may be empty for a pod with one.
	Container string
	// Follow keeps the stream open for new lines.
	Follow bool
	// Previous returns the log of the previous, terminated instance.
	Previous bool
	// SinceSeconds returns only lines newer than this many seconds.
	SinceSeconds *int64
	// SinceTime returns only lines newer than this time.
	SinceTime *metav1.Time
	// Timestamps prefixes each line with its RFC 3339 timestamp.
	Timestamps bool
	// TailLines returns only the last lines.
	TailLines *int64
	// LimitBytes caps the bytes returned.
	LimitBytes *int64
}

// ToQuery returns the query parameters of o.
func (o *PodLogOptions) ToQuery() url.Values {
	q := url.Values{}
	if o == nil {
		return q
	}
	if o.Container != "" {
		q.Set("container", o.Container)
	}
	for name, set := range map[string]bool{"follow": o.Follow, "previous": o.Previous, "timestamps": o.Timestamps} {
		if set {
			q.Set(name, "true")
		}
	}
	for name, v := range map[string]*int64{"sinceSeconds": o.SinceSeconds, "tailLines": o.TailLines, "limitBytes": o.LimitBytes} {
		if v != nil {
			q.Set(name, strconv.FormatInt(*v, 10))
		}
	}
	if o.SinceTime != nil {
		q.Set("sinceTime", o.SinceTime.UTC().Format("2006-01-02T15:04:05Z07:00"))
	}
	return q
}

var _ rest.Queryer = (*PodLogOptions)(nil)
