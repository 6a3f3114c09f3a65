// Package controlplane assembles kubecore's API: the scheme with every
// group and its defaults, the storage of every resource, and the objects
// that must exist from the start.
package controlplane

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/klog/v2"

	authenticationv1 "kubecore.io/api/authentication/v1"
	authorizationv1 "kubecore.io/api/authorization/v1"
	certificatesv1 "kubecore.io/api/certificates/v1"
	coordinationv1 "kubecore.io/api/coordination/v1"
	corev1 "kubecore.io/api/core/v1"
	eventsv1 "kubecore.io/api/events/v1"
	nodev1 "kubecore.io/api/node/v1"
	policyv1 "kubecore.io/api/policy/v1"
	schedulingv1 "kubecore.io/api/scheduling/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/protobuf"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	admissionwebhook "kubecore.io/kubecore/pkg/admission/plugin/webhook"
	admissionregistrationdefaults "kubecore.io/kubecore/pkg/apis/admissionregistration/v1"
	apiextensionsdefaults "kubecore.io/kubecore/pkg/apis/apiextensions/v1"
	apiregistrationdefaults "kubecore.io/kubecore/pkg/apis/apiregistration/v1"
	appsdefaults "kubecore.io/kubecore/pkg/apis/apps/v1"
	autoscalingv1defaults "kubecore.io/kubecore/pkg/apis/autoscaling/v1"
	autoscalingv2defaults "kubecore.io/kubecore/pkg/apis/autoscaling/v2"
	batchdefaults "kubecore.io/kubecore/pkg/apis/batch/v1"
	coredefaults "kubecore.io/kubecore/pkg/apis/core/v1"
	discoverydefaults "kubecore.io/kubecore/pkg/apis/discovery/v1"
	flowcontroldefaults "kubecore.io/kubecore/pkg/apis/flowcontrol/v1"
	networkingdefaults "kubecore.io/kubecore/pkg/apis/networking/v1"
	rbacdefaults "kubecore.io/kubecore/pkg/apis/rbac/v1"
	resourcedefaults "kubecore.io/kubecore/pkg/apis/resource/v1"
	schedulingdefaults "kubecore.io/kubecore/pkg/apis/scheduling/v1"
	storagedefaults "kubecore.io/kubecore/pkg/apis/storage/v1"
	"kubecore.io/kubecore/pkg/apiserver"
	"kubecore.io/kubecore/pkg/auth/authenticator"
	"kubecore.io/kubecore/pkg/auth/authorizer/rbac"
	"kubecore.io/kubecore/pkg/fieldmanager"
	"kubecore.io/kubecore/pkg/printers"
	"kubecore.io/kubecore/pkg/registry/core/componentstatus"
	"kubecore.io/kubecore/pkg/registry/core/namespace"
	"kubecore.io/kubecore/pkg/registry/core/node"
	"kubecore.io/kubecore/pkg/registry/core/service"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
	rbacregistry "kubecore.io/kubecore/pkg/registry/rbac"
	"kubecore.io/kubecore/pkg/registry/rest"
	"kubecore.io/kubecore/pkg/storage"
	"kubecore.io/kubecore/pkg/storage/etcd3"
	"kubecore.io/kubecore/pkg/webhook"
)

// Config is what the control plane's storage needs.
type Config struct {
	// EtcdClient talks to etcd. Required.
	EtcdClient *clientv3.Client
	// Prefix is the etcd key prefix ("/registry" when empty).
	Prefix string
	// Decorate wraps each resource's storage (the watch cache); nil serves
	// from etcd.
	Decorate func(s storage.Interface, store *generic.Store) (storage.Interface, func(), error)
	// ServiceCIDR is the cluster IP range ("10.96.0.0/12" when empty).
	ServiceCIDR string
	// NodePortBase and NodePortSize are the node port range (30000-32767
	// when zero).
	NodePortBase, NodePortSize int
	// ServiceAccountKey signs and checks service account tokens; without
	// it they are not accepted.
	ServiceAccountKey *ecdsa.PrivateKey
	// Kubelet says how pods/log and pods/exec reach kubelets: the client
	// certificate they require, the preferred node address types.
	Kubelet node.KubeletClientConfig
	// Advertise is where pods reach this API server: Bootstrap makes the
	// Service default/kubernetes and its Endpoints point at it. Without
	// it (zero) they are not made.
	Advertise Endpoint
	// Components replace the componentstatuses' default probes of the
	// same names (etcd's members, the scheduler's and controller-manager's
	// health ports).
	Components []componentstatus.Probe
	// StaticTokens is the API server's static token file, which
	// TokenReviews ask too; nil without one.
	StaticTokens authenticator.Token
	// ClusterCA is the PEM of the cluster CA: Bootstrap publishes it with
	// the advertised URL in kube-public/cluster-info, for joining nodes.
	// Without it (or Advertise) that ConfigMap is not made.
	ClusterCA []byte
	// FrontProxyCA is the PEM of the front-proxy CA: Bootstrap publishes
	// it with ClusterCA in kube-system/extension-apiserver-authentication
	// for aggregated API servers.
	FrontProxyCA []byte
	// EventTTL is how long events live after their last write (zero:
	// until deleted), as Kubernetes' --event-ttl.
	EventTTL time.Duration
	// NoManagedFields records no managedFields and serves no server-side
	// apply (a benchmark's baseline).
	NoManagedFields bool
	// StorageJSON writes built-in objects to etcd as JSON; protobuf, as
	// Kubernetes stores them, by default. Either is read whatever it says.
	StorageJSON bool
	// DisableAdmissionPlugins leaves these admission plugins (Kubernetes'
	// names, among DisableableAdmissionPlugins()) out of the chain.
	DisableAdmissionPlugins []string
}

// rbacREST is the storage of one RBAC resource.
type rbacREST = rbacregistry.REST

// Instance is the assembled API.
type Instance struct {
	// Scheme knows every served kind and its defaults.
	Scheme *runtime.Scheme
	// Groups are the served group versions, the core group first.
	Groups []apiserver.APIGroupInfo
	// NamespaceLifecycle is the namespace check every namespaced Store
	// runs on create (already installed in them).
	NamespaceLifecycle func(ctx context.Context, namespace string) error

	namespaces          *namespace.REST
	priorityClasses     *generic.Store
	storageClasses      *generic.Store
	clusterRoles        *rbacREST
	clusterRoleBindings *rbacREST
	roles               *rbacREST
	roleBindings        *rbacREST
	configMaps          objectWriter
	clusterCA           []byte
	frontProxyCA        []byte
	rbac                *rbac.Authorizer
	services            *service.REST
	endpoints           *generic.Store
	endpointSlices      *generic.Store
	serviceCIDRs        *generic.Store
	serviceCIDRStatus   *strategy.StatusREST
	apiServices         *generic.Store
	apiServiceStatus    rest.Updater
	flowSchemas         *generic.Store
	flowSchemaStatus    rest.Updater
	priorityLevels      *generic.Store
	advertise           Endpoint
	leases              apiServerLeases
	objects             *objectReader
	webhookObjects      *webhookObjects
	admission           rest.Admission
	serviceAccountKey   *ecdsa.PrivateKey
	destroy             []func()
	extensions          *apiExtensions
	policies            admissionPolicies
}

// NewScheme returns a scheme with every served group and its defaults.
func NewScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		coredefaults.AddToScheme, appsdefaults.AddToScheme, autoscalingv1defaults.AddToScheme, apiextensionsdefaults.AddToScheme,
		coordinationv1.AddToScheme, schedulingdefaults.AddToScheme, policyv1.AddToScheme,
		rbacdefaults.AddToScheme, authorizationv1.AddToScheme, certificatesv1.AddToScheme,
		authenticationv1.AddToScheme, discoverydefaults.AddToScheme, batchdefaults.AddToScheme,
		networkingdefaults.AddToScheme, nodev1.AddToScheme, eventsv1.AddToScheme,
		admissionregistrationdefaults.AddToScheme, apiregistrationdefaults.AddToScheme, flowcontroldefaults.AddToScheme,
		storagedefaults.AddToScheme, autoscalingv2defaults.AddToScheme, resourcedefaults.AddToScheme,
	} {
		if err := add(s); err != nil {
			return nil, fmt.Errorf("build scheme: %w", err)
		}
	}
	return s, nil
}

// New builds the storage of every resource. ctx bounds the reads made at
// start (the service allocations).
func New(ctx context.Context, cfg Config) (*Instance, error) {
	if cfg.EtcdClient == nil {
		return nil, errors.New("controlplane: EtcdClient is required")
	}
	if cfg.Prefix == "" {
		cfg.Prefix = "/registry"
	}
	scheme, err := NewScheme()
	if err != nil {
		return nil, err
	}
	typeConverter, err := fieldmanager.NewSchemeTypeConverter(scheme)
	if err != nil {
		return nil, fmt.Errorf("build the schemas of server-side apply: %w", err)
	}
	objects := &objectReader{}
	policies, err := newAdmissionPolicies(scheme, typeConverter)
	if err != nil {
		return nil, fmt.Errorf("build the admission policies: %w", err)
	}
	webhookClients := &webhook.Clients{}
	hooks := &webhookObjects{clients: webhookClients}
	webhooks, err := admissionwebhook.New(admissionwebhook.Config{Source: hooks, Namespaces: hooks, Locator: hooks, Clients: webhookClients, Equivalents: hooks.equivalents, Default: scheme.Default})
	if err != nil {
		return nil, fmt.Errorf("build the admission webhooks: %w", err)
	}
	in := &Instance{Scheme: scheme, serviceAccountKey: cfg.ServiceAccountKey, objects: objects, webhookObjects: hooks, destroy: []func(){webhookClients.Close}, admission: newAdmission(objects, webhooks, policies, cfg.DisableAdmissionPlugins), advertise: cfg.Advertise, clusterCA: cfg.ClusterCA, frontProxyCA: cfg.FrontProxyCA, leases: apiServerLeases{client: cfg.EtcdClient, prefix: cfg.Prefix + "/masterleases/"}}
	policies.sources.in, in.policies = in, policies
	opts := generic.StoreOptions{
		Client:            cfg.EtcdClient,
		Prefix:            cfg.Prefix,
		Decorate:          cfg.Decorate,
		TableConvertorFor: printers.TableConvertorFor,
		Admission:         in.admission,
		TTLFor: func(gr schema.GroupResource) time.Duration {
			if gr == corev1.Resource("events") {
				return cfg.EventTTL
			}
			return 0
		},
		FieldManagers: &fieldmanager.Builder{Scheme: scheme, TypeConverter: typeConverter},
	}
	if cfg.NoManagedFields {
		opts.FieldManagers = nil
	}
	pb := protobuf.NewSerializer(scheme)
	opts.Codec = func(newFunc func() runtime.Object) etcd3.Codec {
		return etcd3.ProtobufCodec{Serializer: pb, New: newFunc, WriteJSON: cfg.StorageJSON}
	}
	for _, g := range in.groups(cfg) {
		p := g.provider()
		rs := strategy.Resources{}
		err := p.NewStorage(ctx, rs, opts)
		for _, st := range rs {
			in.destroy = append(in.destroy, st.Destroy)
		}
		if err != nil {
			in.Destroy()
			return nil, fmt.Errorf("storage of %s: %w", p.GroupVersion(), err)
		}
		if g.built != nil {
			g.built(rs)
		}
		in.Groups = append(in.Groups, apiserver.APIGroupInfo{GroupVersion: p.GroupVersion(), Storage: rs})
		// Every namespaced Store after the core group's checks namespaces.
		opts.NamespaceLifecycle = in.NamespaceLifecycle
	}
	extensions, err := in.newAPIExtensions(opts)
	if err != nil {
		in.Destroy()
		return nil, err
	}
	in.Groups = append(in.Groups, extensions)
	in.noteServedVersions()
	return in, nil
}

// Destroy releases every resource's storage.
func (in *Instance) Destroy() {
	for _, d := range in.destroy {
		d()
	}
	in.destroy = nil
}

// Bootstrap creates the objects every cluster starts with, when missing:
// the namespaces default, kube-system, kube-public and kube-node-lease,
// the system priority classes, the default cluster roles and bindings,
// and (with Config.Advertise) the Service default/kubernetes and its
// Endpoints, and (with Config.ClusterCA) the ConfigMaps
// kube-public/cluster-info and kube-system/extension-apiserver-authentication. A kubernetes Service whose cluster IP another Service holds
// (a data dir older than it) is logged, not fatal: RunKubernetesService
// retries it.
func (in *Instance) Bootstrap(ctx context.Context) error {
	for _, name := range []string{metav1.NamespaceDefault, metav1.NamespaceSystem, metav1.NamespacePublic, corev1.NamespaceNodeLease} {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
		in.Scheme.Default(ns)
		if _, err := in.namespaces.Create(ctx, ns, nil, &metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create namespace %s: %w", name, err)
		}
	}
	for _, pc := range schedulingv1.SystemPriorityClasses() {
		in.Scheme.Default(pc)
		if _, err := in.priorityClasses.Create(ctx, pc, nil, &metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create priority class %s: %w", pc.Name, err)
		}
	}
	if err := in.ReconcileServiceCIDR(ctx); err != nil {
		return err
	}
	if err := in.RepairServiceAllocations(ctx); err != nil {
		return fmt.Errorf("repair service allocations: %w", err)
	}
	if err := in.ReconcileKubernetesService(ctx); err != nil {
		if !apierrors.IsInvalid(err) {
			return err
		}
		klog.FromContext(ctx).Error(err, "Cannot create the kubernetes service")
	}
	if err := in.publishClusterInfo(ctx); err != nil {
		return err
	}
	if err := in.publishExtensionAuthentication(ctx); err != nil {
		return err
	}
	if err := in.EnsureLocalAPIServices(ctx); err != nil {
		return err
	}
	if err := in.EnsureFlowControl(ctx); err != nil {
		return err
	}
	if err := in.bootstrapStorageClass(ctx); err != nil {
		return err
	}
	return in.bootstrapPolicy(ctx)
}
