// Package controlplane assembles kubecore's API: the scheme with every
// group and its defaults, the storage of every resource, and the objects
// that must exist from the start.
package controlplane

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/klog/v2"

	appsv1 "kubecore.io/api/apps/v1"
	authenticationv1 "kubecore.io/api/authentication/v1"
	authorizationv1 "kubecore.io/api/authorization/v1"
	autoscalingv1 "kubecore.io/api/autoscaling/v1"
	batchv1 "kubecore.io/api/batch/v1"
	certificatesv1 "kubecore.io/api/certificates/v1"
	coordinationv1 "kubecore.io/api/coordination/v1"
	corev1 "kubecore.io/api/core/v1"
	discoveryv1 "kubecore.io/api/discovery/v1"
	policyv1 "kubecore.io/api/policy/v1"
	rbacv1 "kubecore.io/api/rbac/v1"
	schedulingv1 "kubecore.io/api/scheduling/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/admission"
	"kubecore.io/kubecore/pkg/admission/noderestriction"
	apiextensionsdefaults "kubecore.io/kubecore/pkg/apis/apiextensions/v1"
	appsdefaults "kubecore.io/kubecore/pkg/apis/apps/v1"
	batchdefaults "kubecore.io/kubecore/pkg/apis/batch/v1"
	coredefaults "kubecore.io/kubecore/pkg/apis/core/v1"
	discoverydefaults "kubecore.io/kubecore/pkg/apis/discovery/v1"
	rbacdefaults "kubecore.io/kubecore/pkg/apis/rbac/v1"
	schedulingdefaults "kubecore.io/kubecore/pkg/apis/scheduling/v1"
	"kubecore.io/kubecore/pkg/apiserver"
	"kubecore.io/kubecore/pkg/auth/authorizer/rbac"
	"kubecore.io/kubecore/pkg/printers"
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
	"kubecore.io/kubecore/pkg/registry/policy/poddisruptionbudget"
	rbacregistry "kubecore.io/kubecore/pkg/registry/rbac"
	"kubecore.io/kubecore/pkg/registry/rest"
	"kubecore.io/kubecore/pkg/registry/scheduling/priorityclass"
	"kubecore.io/kubecore/pkg/storage"
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
	// ClusterCA is the PEM of the cluster CA: Bootstrap publishes it with
	// the advertised URL in kube-public/cluster-info, for joining nodes.
	// Without it (or Advertise) that ConfigMap is not made.
	ClusterCA []byte
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
	priorityClasses     *priorityclass.REST
	clusterRoles        *rbacREST
	clusterRoleBindings *rbacREST
	roles               *rbacREST
	roleBindings        *rbacREST
	configMaps          objectWriter
	clusterCA           []byte
	rbac                *rbac.Authorizer
	services            *service.REST
	endpoints           *endpoints.REST
	endpointSlices      *endpointslice.REST
	advertise           Endpoint
	leases              apiServerLeases
	objects             *objectReader
	serviceAccountKey   *ecdsa.PrivateKey
	destroy             []func()
	extensions          *apiExtensions
}

// NewScheme returns a scheme with every served group and its defaults.
func NewScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		coredefaults.AddToScheme, appsdefaults.AddToScheme, autoscalingv1.AddToScheme, apiextensionsdefaults.AddToScheme,
		coordinationv1.AddToScheme, schedulingdefaults.AddToScheme, policyv1.AddToScheme,
		rbacdefaults.AddToScheme, authorizationv1.AddToScheme, certificatesv1.AddToScheme,
		authenticationv1.AddToScheme, discoverydefaults.AddToScheme, batchdefaults.AddToScheme,
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
	opts := generic.StoreOptions{
		Client:            cfg.EtcdClient,
		Prefix:            cfg.Prefix,
		Decorate:          cfg.Decorate,
		TableConvertorFor: printers.TableConvertorFor,
	}
	in := &Instance{Scheme: scheme, serviceAccountKey: cfg.ServiceAccountKey, objects: &objectReader{}, advertise: cfg.Advertise, clusterCA: cfg.ClusterCA, leases: apiServerLeases{client: cfg.EtcdClient, prefix: cfg.Prefix + "/masterleases/"}}
	var errs []error
	// keep records a resource's storage for Destroy.
	keep := func(st rest.Storage) { in.destroy = append(in.destroy, st.Destroy) }
	must := func(name string, err error) bool {
		if err != nil {
			errs = append(errs, fmt.Errorf("storage of %s: %w", name, err))
			return false
		}
		return true
	}

	// Namespaces come first: every namespaced Store checks them on create.
	ns, err := namespace.NewStorage(opts)
	if err != nil {
		return nil, fmt.Errorf("storage of namespaces: %w", err)
	}
	keep(ns.Namespace)
	in.namespaces = ns.Namespace
	in.NamespaceLifecycle = ns.Namespace.Lifecycle()
	opts.NamespaceLifecycle = in.NamespaceLifecycle

	core := map[string]rest.Storage{
		"namespaces": ns.Namespace, "namespaces/status": ns.Status, "namespaces/finalize": ns.Finalize,
	}
	var kubelets pod.KubeletConnectionGetter
	if n, err := node.NewStorage(opts); must("nodes", err) {
		keep(n.Node)
		core["nodes"], core["nodes/status"] = &admission.Store{Store: n.Node.Store, Admit: noderestriction.AdmitNode}, n.Status
		in.objects.nodes = cached[*corev1.Node]{n.Node.Store}
		kubelets = node.NewKubeletConnections(n.Node, cfg.Kubelet)
	}
	var pdbs *poddisruptionbudget.Storage
	if p, err := poddisruptionbudget.NewStorage(opts); must("poddisruptionbudgets", err) {
		keep(p.PodDisruptionBudget)
		pdbs = p
	}
	var checker pod.DisruptionChecker
	if pdbs != nil {
		checker = &budgetChecker{store: pdbs.PodDisruptionBudget.Store}
	}
	// Pods resolve their priority from the priority classes.
	if p, err := priorityclass.NewREST(opts); must("priorityclasses", err) {
		keep(p)
		in.priorityClasses = p
	}
	var priorities pod.PriorityClassGetter
	if in.priorityClasses != nil {
		priorities = &priorityClassReader{classes: cached[*schedulingv1.PriorityClass]{in.priorityClasses.Store}}
	}
	if p, err := pod.NewStorage(opts, checker, priorities, in.objects, kubelets); must("pods", err) {
		keep(p.Pod)
		core["pods"], core["pods/status"], core["pods/binding"], core["pods/eviction"] = p.Pod, p.Status, p.Binding, p.Eviction
		if p.Log != nil {
			core["pods/log"], core["pods/exec"] = p.Log, p.Exec
		}
		in.objects.pods = cached[*corev1.Pod]{p.Pod.Store}
	}
	if s, err := service.NewStorage(ctx, opts, service.Config{ServiceCIDR: cfg.ServiceCIDR, NodePortBase: cfg.NodePortBase, NodePortSize: cfg.NodePortSize}); must("services", err) {
		keep(s.Service)
		core["services"], core["services/status"] = s.Service, s.Status
		in.services = s.Service
	}
	if e, err := endpoints.NewREST(opts); must("endpoints", err) {
		keep(e)
		core["endpoints"] = e
		in.endpoints = e
	}
	if c, err := persistentvolumeclaim.NewStorage(opts); must("persistentvolumeclaims", err) {
		keep(c.PersistentVolumeClaim)
		core["persistentvolumeclaims"], core["persistentvolumeclaims/status"] = c.PersistentVolumeClaim, c.Status
		in.objects.claims = cached[*corev1.PersistentVolumeClaim]{c.PersistentVolumeClaim.Store}
	}
	if s, err := secret.NewREST(opts); must("secrets", err) {
		keep(s)
		core["secrets"] = s
		in.objects.secrets = cached[*corev1.Secret]{s.Store}
	}
	if s, err := serviceaccount.NewREST(opts); must("serviceaccounts", err) {
		keep(s)
		core["serviceaccounts"] = s
		if t := in.tokenREST(); t != nil {
			core["serviceaccounts/token"] = t
		}
		in.objects.serviceAccounts = cached[*corev1.ServiceAccount]{s.Store}
	}
	if v, err := persistentvolume.NewStorage(opts); must("persistentvolumes", err) {
		keep(v.PersistentVolume)
		core["persistentvolumes"], core["persistentvolumes/status"] = v.PersistentVolume, v.Status
	}
	for name, newREST := range map[string]func(generic.StoreOptions) (rest.Storage, error){
		"configmaps":   storageOf(configmap.NewREST),
		"events":       storageOf(event.NewREST),
		"podtemplates": storageOf(podtemplate.NewREST),
	} {
		if st, err := newREST(opts); must(name, err) {
			keep(st)
			core[name] = st
		}
	}
	in.configMaps, _ = core["configmaps"].(objectWriter)

	apps := map[string]rest.Storage{}
	if d, err := deployment.NewStorage(opts); must("deployments", err) {
		keep(d.Deployment)
		apps["deployments"], apps["deployments/status"], apps["deployments/scale"] = d.Deployment, d.Status, d.Scale
	}
	if r, err := replicaset.NewStorage(opts); must("replicasets", err) {
		keep(r.ReplicaSet)
		apps["replicasets"], apps["replicasets/status"], apps["replicasets/scale"] = r.ReplicaSet, r.Status, r.Scale
	}
	if s, err := statefulset.NewStorage(opts); must("statefulsets", err) {
		keep(s.StatefulSet)
		apps["statefulsets"], apps["statefulsets/status"], apps["statefulsets/scale"] = s.StatefulSet, s.Status, s.Scale
	}
	if d, err := daemonset.NewStorage(opts); must("daemonsets", err) {
		keep(d.DaemonSet)
		apps["daemonsets"], apps["daemonsets/status"] = d.DaemonSet, d.Status
	}
	if r, err := controllerrevision.NewREST(opts); must("controllerrevisions", err) {
		keep(r)
		apps["controllerrevisions"] = r
	}

	batch := map[string]rest.Storage{}
	if j, err := job.NewStorage(opts); must("jobs", err) {
		keep(j.Job)
		batch["jobs"], batch["jobs/status"] = j.Job, j.Status
	}
	if c, err := cronjob.NewStorage(opts); must("cronjobs", err) {
		keep(c.CronJob)
		batch["cronjobs"], batch["cronjobs/status"] = c.CronJob, c.Status
	}

	coordination := map[string]rest.Storage{}
	if l, err := lease.NewREST(opts); must("leases", err) {
		keep(l)
		coordination["leases"] = &admission.Store{Store: l.Store, Admit: noderestriction.AdmitLease}
	}
	scheduling := map[string]rest.Storage{}
	if in.priorityClasses != nil {
		scheduling["priorityclasses"] = in.priorityClasses
	}
	policy := map[string]rest.Storage{}
	if pdbs != nil {
		policy["poddisruptionbudgets"], policy["poddisruptionbudgets/status"] = pdbs.PodDisruptionBudget, pdbs.Status
	}
	rbacGroup := map[string]rest.Storage{}
	source := &rbacSource{}
	for name, newREST := range map[string]func(generic.StoreOptions) (*rbacREST, error){
		"roles": rbacregistry.NewRoles, "clusterroles": rbacregistry.NewClusterRoles,
		"rolebindings": rbacregistry.NewRoleBindings, "clusterrolebindings": rbacregistry.NewClusterRoleBindings,
	} {
		if st, err := newREST(opts); must(name, err) {
			keep(st)
			rbacGroup[name] = st
			switch name {
			case "roles":
				source.roles, in.roles = cached[*rbacv1.Role]{st.Store}, st
			case "clusterroles":
				source.clusterRoles, in.clusterRoles = cached[*rbacv1.ClusterRole]{st.Store}, st
			case "rolebindings":
				source.roleBindings, in.roleBindings = cached[*rbacv1.RoleBinding]{st.Store}, st
			case "clusterrolebindings":
				source.clusterRoleBindings, in.clusterRoleBindings = cached[*rbacv1.ClusterRoleBinding]{st.Store}, st
			}
		}
	}
	in.rbac = &rbac.Authorizer{Source: source}
	authz := in.Authorizer()
	authorizationGroup := map[string]rest.Storage{
		"subjectaccessreviews":     &authorization.SubjectAccessReviewREST{Authorizer: authz},
		"selfsubjectaccessreviews": &authorization.SelfSubjectAccessReviewREST{Authorizer: authz},
		"selfsubjectrulesreviews":  &authorization.SelfSubjectRulesReviewREST{Rules: in.rbac},
	}
	// Approving and signing requests is authorized per signer.
	certificates := map[string]rest.Storage{}
	if c, err := certificatesigningrequest.NewStorage(opts, authz); must("certificatesigningrequests", err) {
		keep(c.CertificateSigningRequest)
		certificates["certificatesigningrequests"] = c.CertificateSigningRequest
		certificates["certificatesigningrequests/status"], certificates["certificatesigningrequests/approval"] = c.Status, c.Approval
	}
	discovery := map[string]rest.Storage{}
	if e, err := endpointslice.NewREST(opts); must("endpointslices", err) {
		keep(e)
		discovery["endpointslices"] = e
		in.endpointSlices = e
	}
	if err := errors.Join(errs...); err != nil {
		in.Destroy()
		return nil, err
	}
	extensions, err := in.newAPIExtensions(opts)
	if err != nil {
		in.Destroy()
		return nil, err
	}
	in.Groups = []apiserver.APIGroupInfo{
		{GroupVersion: corev1.SchemeGroupVersion, Storage: core},
		{GroupVersion: appsv1.SchemeGroupVersion, Storage: apps},
		{GroupVersion: batchv1.SchemeGroupVersion, Storage: batch},
		{GroupVersion: coordinationv1.SchemeGroupVersion, Storage: coordination},
		{GroupVersion: schedulingv1.SchemeGroupVersion, Storage: scheduling},
		{GroupVersion: policyv1.SchemeGroupVersion, Storage: policy},
		{GroupVersion: rbacv1.SchemeGroupVersion, Storage: rbacGroup},
		{GroupVersion: authorizationv1.SchemeGroupVersion, Storage: authorizationGroup},
		{GroupVersion: certificatesv1.SchemeGroupVersion, Storage: certificates},
		{GroupVersion: discoveryv1.SchemeGroupVersion, Storage: discovery},
		extensions,
	}
	return in, nil
}

// storageOf adapts a resource's NewREST to return its rest.Storage.
func storageOf[R rest.Storage](newREST func(generic.StoreOptions) (R, error)) func(generic.StoreOptions) (rest.Storage, error) {
	return func(opts generic.StoreOptions) (rest.Storage, error) { return newREST(opts) }
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
// Endpoints, and (with Config.ClusterCA) the ConfigMap
// kube-public/cluster-info. A kubernetes Service whose cluster IP another Service holds
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
	if err := in.ReconcileKubernetesService(ctx); err != nil {
		if !apierrors.IsInvalid(err) {
			return err
		}
		klog.FromContext(ctx).Error(err, "Cannot create the kubernetes service")
	}
	if err := in.publishClusterInfo(ctx); err != nil {
		return err
	}
	return in.bootstrapPolicy(ctx)
}
