// Package service serves services: it allocates cluster IPs from the
// service CIDR and node ports from their range, and keeps them once set.
package service

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"k8s.io/klog/v2"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/apis/core/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
	"kubecore.io/kubecore/pkg/registry/rest"
	"kubecore.io/kubecore/pkg/storage/etcd3"
)

// Config says where services take their addresses from.
type Config struct {
	// ServiceCIDR is the cluster IP range ("10.96.0.0/12").
	ServiceCIDR string
	// NodePortBase and NodePortSize are the node port range (30000, 2768).
	NodePortBase, NodePortSize int
}

// Storage is the storage of services and their status.
type Storage struct {
	Service *REST
	Status  *strategy.StatusREST
}

// REST serves services and owns their allocations: a ClusterIP is an
// IPAddress object, the node ports a bitmap in etcd, so that API servers
// sharing one etcd never hand out one twice.
type REST struct {
	*generic.Store
	ips   *ipAllocator
	ports *portAllocator

	// portLeaks counts, per port, the repairs in a row that found it
	// allocated with no service holding it.
	leakMu    sync.Mutex
	portLeaks map[int]int
}

// NewStrategy returns the service strategy.
func NewStrategy() *strategy.Strategy[*corev1.Service] {
	return &strategy.Strategy[*corev1.Service]{
		Namespaced:         true,
		StatusSubresource:  true,
		ValidateFunc:       validation.ValidateService,
		ValidateUpdateFunc: validation.ValidateServiceUpdate,
	}
}

// NewStorage returns the storage of services. Its ClusterIP allocator
// needs the IPAddress and ServiceCIDR storage, which SetNetworkingStores
// gives once the networking group is built.
func NewStorage(_ context.Context, opts generic.StoreOptions, cfg Config) (*Storage, error) {
	if cfg.ServiceCIDR == "" {
		cfg.ServiceCIDR = "10.96.0.0/12"
	}
	if cfg.NodePortSize == 0 {
		cfg.NodePortBase, cfg.NodePortSize = 30000, 2768
	}
	ips, err := newIPAllocator(cfg.ServiceCIDR)
	if err != nil {
		return nil, err
	}
	store, err := strategy.NewStore(opts, strategy.Of[corev1.Service, corev1.ServiceList](corev1.Resource("services"), "service", NewStrategy()).Short("svc").InCategories("all"))
	if err != nil {
		return nil, err
	}
	if opts.Client == nil {
		return nil, errors.New("storage of services: the node port allocator needs an etcd client")
	}
	ranges, err := etcd3.New(etcd3.Config{
		Client: opts.Client, Prefix: opts.Prefix,
		NewFunc:       func() runtime.Object { return &rangeAllocation{} },
		GroupResource: corev1.Resource("rangeallocations"),
	})
	if err != nil {
		return nil, fmt.Errorf("storage of the node port range: %w", err)
	}
	r := &REST{Store: store, ips: ips, ports: newPortAllocator(cfg.NodePortBase, cfg.NodePortSize, ranges), portLeaks: map[int]int{}}
	// Freed after every delete, DeleteCollection's included.
	store.AfterDelete = func(ctx context.Context, obj runtime.Object) {
		if svc, ok := obj.(*corev1.Service); ok {
			r.releaseAll(context.WithoutCancel(ctx), svc)
		}
	}
	return &Storage{Service: r, Status: strategy.NewStatusREST(store, &strategy.StatusStrategy[*corev1.Service]{Namespaced: true})}, nil
}

// SetNetworkingStores gives the ClusterIP allocator the storage of
// IPAddresses, and that of the ServiceCIDRs whose ranges it hands out
// beside its own.
func (r *REST) SetNetworkingStores(addresses AddressStore, cidrs Lister) {
	r.ips.setStores(addresses, cidrs)
}

// FirstIP is the first service address (the kubernetes service's).
func (r *REST) FirstIP() string { return r.ips.First() }

// ServiceCIDR is the range services take their ClusterIPs from.
func (r *REST) ServiceCIDR() string { return r.ips.prefix.String() }

func needsNodePorts(t corev1.ServiceType) bool {
	return t == corev1.ServiceTypeNodePort || t == corev1.ServiceTypeLoadBalancer
}

// allocation records what one write reserved, to undo it on failure.
type allocation struct {
	r      *REST
	owner  owner
	dryRun bool
	ip     string
	ports  []int
}

func (a *allocation) undo(ctx context.Context) {
	if !a.dryRun {
		ctx = context.WithoutCancel(ctx)
		logger := klog.FromContext(ctx)
		if a.ip != "" {
			if err := a.r.ips.Release(ctx, a.ip, a.owner); err != nil {
				logger.Error(err, "Release a cluster IP; the repair loop frees it", "ip", a.ip)
			}
		}
		for _, p := range a.ports {
			if err := a.r.ports.Release(ctx, p); err != nil {
				logger.Error(err, "Release a node port; the repair loop frees it", "port", p)
			}
		}
	}
	*a = allocation{r: a.r, owner: a.owner, dryRun: a.dryRun}
}

// allocate fills svc's cluster IP and node ports, keeping those of old.
func (r *REST) allocate(ctx context.Context, svc, old *corev1.Service, dryRun bool) (*allocation, error) {
	a := &allocation{r: r, owner: owner{svc.Namespace, svc.Name}, dryRun: dryRun}
	sp := field.NewPath("spec")
	if old != nil {
		dropTypeDependentFields(svc, old)
	}
	if svc.Spec.Type != corev1.ServiceTypeExternalName {
		if old != nil && svc.Spec.ClusterIP == "" && old.Spec.ClusterIP != "" {
			svc.Spec.ClusterIP, svc.Spec.ClusterIPs = old.Spec.ClusterIP, old.Spec.ClusterIPs
			svc.Spec.IPFamilies, svc.Spec.IPFamilyPolicy = old.Spec.IPFamilies, old.Spec.IPFamilyPolicy
		}
		switch ip := svc.Spec.ClusterIP; {
		case ip == corev1.ClusterIPNone:
		case ip == "":
			next, err := r.ips.AllocateNext(ctx, a.owner, dryRun)
			if err != nil {
				return nil, apierrors.NewInternalError(fmt.Errorf("failed to allocate a serviceIP: %w", err))
			}
			svc.Spec.ClusterIP, a.ip = next, next
		case old != nil && ip == old.Spec.ClusterIP:
		default:
			if err := r.ips.Allocate(ctx, ip, a.owner, dryRun); err != nil {
				if !isAllocationRefusal(err) {
					return nil, err
				}
				ips := svc.Spec.ClusterIPs
				if len(ips) == 0 {
					ips = []string{ip}
				}
				return nil, apierrors.NewInvalid(corev1.SchemeGroupVersion.WithKind("Service").GroupKind(), svc.Name,
					field.ErrorList{field.Invalid(sp.Child("clusterIPs"), ips, fmt.Sprintf("failed to allocate IP %s: %v", ip, err))})
			}
			a.ip = ip
		}
		if svc.Spec.ClusterIP != "" {
			svc.Spec.ClusterIPs = []string{svc.Spec.ClusterIP}
		}
		if len(svc.Spec.IPFamilies) == 0 {
			svc.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol}
			if ip := svc.Spec.ClusterIP; ip != "" && ip != corev1.ClusterIPNone && slices.Contains([]byte(ip), ':') {
				svc.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv6Protocol}
			}
		}
		if svc.Spec.IPFamilyPolicy == nil {
			p := corev1.IPFamilyPolicySingleStack
			svc.Spec.IPFamilyPolicy = &p
		}
	}
	if !needsNodePorts(svc.Spec.Type) {
		return a, nil
	}
	oldPorts := map[string]int32{}
	if old != nil {
		for _, p := range old.Spec.Ports {
			oldPorts[fmt.Sprintf("%d/%s", p.Port, p.Protocol)] = p.NodePort
		}
	}
	for i := range svc.Spec.Ports {
		p := &svc.Spec.Ports[i]
		prev := oldPorts[fmt.Sprintf("%d/%s", p.Port, p.Protocol)]
		switch {
		case p.NodePort == 0 && prev != 0:
			p.NodePort = prev
		case p.NodePort == 0:
			n, err := r.ports.AllocateNext(ctx, dryRun)
			if err != nil {
				a.undo(ctx)
				return nil, apierrors.NewInternalError(fmt.Errorf("failed to allocate a nodePort: %w", err))
			}
			p.NodePort, a.ports = int32(n), append(a.ports, n)
		case p.NodePort == prev:
		default:
			if err := r.ports.Allocate(ctx, int(p.NodePort), dryRun); err != nil {
				a.undo(ctx)
				if !errors.Is(err, errPortAllocated) && !strings.HasPrefix(err.Error(), "provided port is not") {
					return nil, apierrors.NewInternalError(fmt.Errorf("failed to allocate nodePort %d: %w", p.NodePort, err))
				}
				return nil, apierrors.NewInvalid(corev1.SchemeGroupVersion.WithKind("Service").GroupKind(), svc.Name,
					field.ErrorList{field.Invalid(sp.Child("ports").Index(i).Child("nodePort"), p.NodePort, err.Error())})
			}
			a.ports = append(a.ports, int(p.NodePort))
		}
	}
	return a, nil
}

// dropTypeDependentFields clears, when an update changes svc's type, the
// fields of old's type that the new one does not have and the request left
// as they were (one that sets them anew is answered by validation), as
// Kubernetes does: a ClusterIP service turned ExternalName gives up its
// cluster IPs and families, a NodePort one turned ClusterIP its node ports.
// Update releases what was held and is no longer.
func dropTypeDependentFields(svc, old *corev1.Service) {
	if svc.Spec.Type == old.Spec.Type {
		return
	}
	spec, prev := &svc.Spec, &old.Spec
	if spec.Type == corev1.ServiceTypeExternalName {
		if spec.ClusterIP == prev.ClusterIP {
			spec.ClusterIP = ""
		}
		if slices.Equal(spec.ClusterIPs, prev.ClusterIPs) {
			spec.ClusterIPs = nil
		}
		if slices.Equal(spec.IPFamilies, prev.IPFamilies) {
			spec.IPFamilies = nil
		}
		if equalPtr(spec.IPFamilyPolicy, prev.IPFamilyPolicy) {
			spec.IPFamilyPolicy = nil
		}
		if equalPtr(spec.InternalTrafficPolicy, prev.InternalTrafficPolicy) {
			spec.InternalTrafficPolicy = nil
		}
	}
	if !needsNodePorts(spec.Type) && needsNodePorts(prev.Type) {
		same := len(spec.Ports) == len(prev.Ports)
		for i := range spec.Ports {
			same = same && spec.Ports[i].NodePort == prev.Ports[i].NodePort
		}
		if same {
			for i := range spec.Ports {
				spec.Ports[i].NodePort = 0
			}
		}
		if spec.ExternalTrafficPolicy == prev.ExternalTrafficPolicy {
			spec.ExternalTrafficPolicy = ""
		}
	}
	if spec.Type != corev1.ServiceTypeLoadBalancer && prev.Type == corev1.ServiceTypeLoadBalancer {
		if spec.HealthCheckNodePort == prev.HealthCheckNodePort {
			spec.HealthCheckNodePort = 0
		}
		if equalPtr(spec.AllocateLoadBalancerNodePorts, prev.AllocateLoadBalancerNodePorts) {
			spec.AllocateLoadBalancerNodePorts = nil
		}
		if equalPtr(spec.LoadBalancerClass, prev.LoadBalancerClass) {
			spec.LoadBalancerClass = nil
		}
	}
}

func equalPtr[T comparable](a, b *T) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// releaseAll frees what svc holds.
func (r *REST) releaseAll(ctx context.Context, svc *corev1.Service) {
	logger := klog.FromContext(ctx)
	if ip := svc.Spec.ClusterIP; ip != "" && ip != corev1.ClusterIPNone {
		if err := r.ips.Release(ctx, ip, owner{svc.Namespace, svc.Name}); err != nil {
			logger.Error(err, "Release a cluster IP; the repair loop frees it", "service", klog.KObj(svc), "ip", ip)
		}
	}
	for _, p := range svc.Spec.Ports {
		if p.NodePort != 0 {
			if err := r.ports.Release(ctx, int(p.NodePort)); err != nil {
				logger.Error(err, "Release a node port; the repair loop frees it", "service", klog.KObj(svc), "port", p.NodePort)
			}
		}
	}
}

var (
	_ rest.Creater = (*REST)(nil)
	_ rest.Updater = (*REST)(nil)
	_ rest.Applier = (*REST)(nil)
)

func dryRun(d []string) bool { return slices.Contains(d, metav1.DryRunAll) }

// Create implements rest.Creater: it allocates, then stores.
func (r *REST) Create(ctx context.Context, obj runtime.Object, validate rest.ValidateObjectFunc, opts *metav1.CreateOptions) (runtime.Object, error) {
	svc, ok := obj.(*corev1.Service)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a Service: %T", obj))
	}
	// The IPAddress names its service: a generated name is chosen now.
	if svc.Name == "" && svc.GenerateName != "" {
		svc.Name = rest.SimpleNameGenerator(svc.GenerateName)
	}
	if svc.Namespace == "" {
		svc.Namespace = apirequest.NamespaceValue(ctx)
	}
	// The Store validates after the allocation, which an invalid service
	// gives back.
	a, err := r.allocate(ctx, svc, nil, opts != nil && dryRun(opts.DryRun))
	if err != nil {
		return nil, err
	}
	out, err := r.Store.Create(ctx, svc, validate, opts)
	if err != nil {
		a.undo(ctx)
	}
	return out, err
}

// Update implements rest.Updater: it keeps the allocations of the stored
// service and allocates what a new type or port needs.
func (r *REST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	isDryRun := opts != nil && dryRun(opts.DryRun)
	info := &allocatingInfo{r: r, inner: objInfo, dryRun: isDryRun}
	out, created, err := r.Store.Update(ctx, name, info, createValidation, updateValidation, forceAllowCreate, opts)
	if err != nil || isDryRun {
		if info.alloc != nil {
			info.alloc.undo(ctx)
		}
		return out, created, err
	}
	// Release what the old service held and the new one does not.
	if info.old != nil {
		if svc, ok := out.(*corev1.Service); ok {
			held := map[int32]bool{}
			for _, p := range svc.Spec.Ports {
				held[p.NodePort] = true
			}
			logger := klog.FromContext(ctx)
			for _, p := range info.old.Spec.Ports {
				if p.NodePort != 0 && !held[p.NodePort] {
					if err := r.ports.Release(ctx, int(p.NodePort)); err != nil {
						logger.Error(err, "Release a node port; the repair loop frees it", "service", klog.KObj(svc), "port", p.NodePort)
					}
				}
			}
			if ip := info.old.Spec.ClusterIP; ip != "" && ip != corev1.ClusterIPNone && ip != svc.Spec.ClusterIP {
				if err := r.ips.Release(ctx, ip, owner{svc.Namespace, svc.Name}); err != nil {
					logger.Error(err, "Release a cluster IP; the repair loop frees it", "service", klog.KObj(svc), "ip", ip)
				}
			}
		}
	}
	return out, created, nil
}

// Apply implements rest.Applier through Update, so that a service applied
// server-side (created or changed) gets its allocations as one created or
// updated otherwise does.
func (r *REST) Apply(ctx context.Context, name string, cfg map[string]any, force bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return r.Store.ApplyThrough(ctx, r, name, cfg, force, opts)
}

// allocatingInfo allocates inside the update loop; a retry first undoes
// the previous attempt's allocations.
type allocatingInfo struct {
	r      *REST
	inner  rest.UpdatedObjectInfo
	alloc  *allocation
	old    *corev1.Service
	dryRun bool
}

func (i *allocatingInfo) Preconditions() *metav1.Preconditions { return i.inner.Preconditions() }

// RecordsManagedFields forwards the inner info's (an apply's) to the Store.
func (i *allocatingInfo) RecordsManagedFields() bool { return generic.RecordsManagedFields(i.inner) }

func (i *allocatingInfo) UpdatedObject(ctx context.Context, old runtime.Object) (runtime.Object, error) {
	if i.alloc != nil {
		i.alloc.undo(ctx)
		i.alloc = nil
	}
	obj, err := i.inner.UpdatedObject(ctx, old)
	if err != nil {
		return nil, err
	}
	svc, ok := obj.(*corev1.Service)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a Service: %T", obj))
	}
	var prev *corev1.Service
	if old != nil {
		prev, _ = old.(*corev1.Service)
	}
	i.old = prev
	if svc.Namespace == "" {
		svc.Namespace = apirequest.NamespaceValue(ctx)
	}
	if svc.Name == "" && prev != nil {
		svc.Name = prev.Name
	}
	a, err := i.r.allocate(ctx, svc, prev, i.dryRun)
	if err != nil {
		return nil, err
	}
	i.alloc = a
	return svc, nil
}
