// Package service serves services: it allocates cluster IPs from the
// service CIDR and node ports from their range, and keeps them once set.
package service

import (
	"context"
	"fmt"
	"slices"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apis/core/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
	"kubecore.io/kubecore/pkg/registry/rest"
	"kubecore.io/kubecore/pkg/storage"
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

// REST serves services and owns their allocations.
type REST struct {
	*generic.Store
	ips   *ipAllocator
	ports *portAllocator
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

// NewStorage returns the storage of services, its allocators filled from
// the services already stored.
func NewStorage(ctx context.Context, opts generic.StoreOptions, cfg Config) (*Storage, error) {
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
	r := &REST{Store: store, ips: ips, ports: newPortAllocator(cfg.NodePortBase, cfg.NodePortSize)}
	// Freed after every delete, DeleteCollection's included.
	store.AfterDelete = func(_ context.Context, obj runtime.Object) {
		if svc, ok := obj.(*corev1.Service); ok {
			r.releaseAll(svc)
		}
	}
	if err := r.restore(ctx); err != nil {
		return nil, err
	}
	return &Storage{Service: r, Status: strategy.NewStatusREST(store, &strategy.StatusStrategy[*corev1.Service]{Namespaced: true})}, nil
}

// restore marks the addresses and ports of stored services as used.
func (r *REST) restore(ctx context.Context) error {
	list, err := r.Storage.GetList(ctx, r.KeyPrefix(), storage.ListOptions{Recursive: true, Predicate: storage.SelectionPredicate{}})
	if err != nil {
		return fmt.Errorf("list services to restore allocations: %w", err)
	}
	for _, obj := range list.Items {
		if e, ok := obj.(*storage.EncodedObject); ok {
			obj = e.DeepCopyObject()
		}
		svc, ok := obj.(*corev1.Service)
		if !ok {
			continue
		}
		if ip := svc.Spec.ClusterIP; ip != "" && ip != corev1.ClusterIPNone {
			_ = r.ips.Allocate(ip) // an address outside the range stays its own
		}
		for _, p := range svc.Spec.Ports {
			if p.NodePort != 0 {
				_ = r.ports.Allocate(int(p.NodePort))
			}
		}
	}
	return nil
}

// FirstIP is the first service address (the kubernetes service's).
func (r *REST) FirstIP() string { return r.ips.First() }

func needsNodePorts(t corev1.ServiceType) bool {
	return t == corev1.ServiceTypeNodePort || t == corev1.ServiceTypeLoadBalancer
}

// allocation records what one write reserved, to undo it on failure.
type allocation struct {
	r     *REST
	ip    string
	ports []int
}

func (a *allocation) undo() {
	if a.ip != "" {
		a.r.ips.Release(a.ip)
	}
	for _, p := range a.ports {
		a.r.ports.Release(p)
	}
	*a = allocation{r: a.r}
}

// allocate fills svc's cluster IP and node ports, keeping those of old.
func (r *REST) allocate(svc, old *corev1.Service) (*allocation, error) {
	a := &allocation{r: r}
	sp := field.NewPath("spec")
	if svc.Spec.Type != corev1.ServiceTypeExternalName {
		if old != nil && svc.Spec.ClusterIP == "" && old.Spec.ClusterIP != "" {
			svc.Spec.ClusterIP, svc.Spec.ClusterIPs = old.Spec.ClusterIP, old.Spec.ClusterIPs
			svc.Spec.IPFamilies, svc.Spec.IPFamilyPolicy = old.Spec.IPFamilies, old.Spec.IPFamilyPolicy
		}
		switch ip := svc.Spec.ClusterIP; {
		case ip == corev1.ClusterIPNone:
		case old != nil && ip == old.Spec.ClusterIP:
		case ip == "":
			next, err := r.ips.AllocateNext()
			if err != nil {
				return nil, apierrors.NewInternalError(fmt.Errorf("failed to allocate a serviceIP: %w", err))
			}
			svc.Spec.ClusterIP, a.ip = next, next
		default:
			if err := r.ips.Allocate(ip); err != nil {
				return nil, apierrors.NewInvalid(corev1.SchemeGroupVersion.WithKind("Service").GroupKind(), svc.Name,
					field.ErrorList{field.Invalid(sp.Child("clusterIPs"), []string{ip}, err.Error())})
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
			n, err := r.ports.AllocateNext()
			if err != nil {
				a.undo()
				return nil, apierrors.NewInternalError(fmt.Errorf("failed to allocate a nodePort: %w", err))
			}
			p.NodePort, a.ports = int32(n), append(a.ports, n)
		case p.NodePort == prev:
		default:
			if err := r.ports.Allocate(int(p.NodePort)); err != nil {
				a.undo()
				return nil, apierrors.NewInvalid(corev1.SchemeGroupVersion.WithKind("Service").GroupKind(), svc.Name,
					field.ErrorList{field.Invalid(sp.Child("ports").Index(i).Child("nodePort"), p.NodePort, err.Error())})
			}
			a.ports = append(a.ports, int(p.NodePort))
		}
	}
	return a, nil
}

// releaseAll frees what svc holds.
func (r *REST) releaseAll(svc *corev1.Service) {
	if ip := svc.Spec.ClusterIP; ip != "" && ip != corev1.ClusterIPNone {
		r.ips.Release(ip)
	}
	for _, p := range svc.Spec.Ports {
		if p.NodePort != 0 {
			r.ports.Release(int(p.NodePort))
		}
	}
}

var (
	_ rest.Creater = (*REST)(nil)
	_ rest.Updater = (*REST)(nil)
)

func dryRun(d []string) bool { return slices.Contains(d, metav1.DryRunAll) }

// Create implements rest.Creater: it allocates, then stores.
func (r *REST) Create(ctx context.Context, obj runtime.Object, validate rest.ValidateObjectFunc, opts *metav1.CreateOptions) (runtime.Object, error) {
	svc, ok := obj.(*corev1.Service)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a Service: %T", obj))
	}
	// The Store validates after the allocation, which an invalid service
	// gives back.
	a, err := r.allocate(svc, nil)
	if err != nil {
		return nil, err
	}
	out, err := r.Store.Create(ctx, svc, validate, opts)
	if err != nil || (opts != nil && dryRun(opts.DryRun)) {
		a.undo()
	}
	return out, err
}

// Update implements rest.Updater: it keeps the allocations of the stored
// service and allocates what a new type or port needs.
func (r *REST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	info := &allocatingInfo{r: r, inner: objInfo}
	out, created, err := r.Store.Update(ctx, name, info, createValidation, updateValidation, forceAllowCreate, opts)
	if err != nil || (opts != nil && dryRun(opts.DryRun)) {
		if info.alloc != nil {
			info.alloc.undo()
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
			for _, p := range info.old.Spec.Ports {
				if p.NodePort != 0 && !held[p.NodePort] {
					r.ports.Release(int(p.NodePort))
				}
			}
			if ip := info.old.Spec.ClusterIP; ip != "" && ip != corev1.ClusterIPNone && ip != svc.Spec.ClusterIP {
				r.ips.Release(ip)
			}
		}
	}
	return out, created, nil
}

// allocatingInfo allocates inside the update loop; a retry first undoes
// the previous attempt's allocations.
type allocatingInfo struct {
	r     *REST
	inner rest.UpdatedObjectInfo
	alloc *allocation
	old   *corev1.Service
}

func (i *allocatingInfo) Preconditions() *metav1.Preconditions { return i.inner.Preconditions() }

func (i *allocatingInfo) UpdatedObject(ctx context.Context, old runtime.Object) (runtime.Object, error) {
	if i.alloc != nil {
		i.alloc.undo()
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
	a, err := i.r.allocate(svc, prev)
	if err != nil {
		return nil, err
	}
	i.alloc = a
	return svc, nil
}
