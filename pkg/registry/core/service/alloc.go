package service

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"net/netip"
	"sync"

	networkingv1 "kubecore.io/api/networking/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/registry/rest"
)

// errRangeFull is the error of an allocation from a range with no free
// member.
var errRangeFull = errors.New("range is full")

// errAllocated is the error of an allocation of a taken member.
var errAllocated = errors.New("provided IP is already allocated")

// AddressStore is what the ClusterIP allocator needs of the storage of
// networking.k8s.io/v1 IPAddresses: creating one reserves its address
// (the create fails when another writer, on any API server, has it).
type AddressStore interface {
	rest.Getter
	rest.Creater
	rest.GracefulDeleter
	List(ctx context.Context, opts *rest.ListOptions) (runtime.Object, error)
}

// ipAllocator hands out the addresses of a service CIDR by creating one
// IPAddress object per address; the network address (and the broadcast
// address of an IPv4 range) are never handed out. It keeps no state of
// its own: several API servers share one range safely.
type ipAllocator struct {
	prefix netip.Prefix
	// last is the largest usable offset in the range.
	last int

	mu    sync.RWMutex
	store AddressStore
}

// maxCandidates bounds the offsets of a large (IPv6) range the allocator
// looks at.
const maxCandidates = 1 << 20

func newIPAllocator(cidr string) (*ipAllocator, error) {
	p, err := netip.ParsePrefix(cidr)
	if err != nil {
		return nil, fmt.Errorf("parse service CIDR %q: %w", cidr, err)
	}
	p = p.Masked()
	bits := p.Addr().BitLen() - p.Bits()
	last := maxCandidates
	if bits < 20 {
		last = 1<<bits - 1
		if p.Addr().Is4() {
			last-- // the broadcast address
		}
	}
	if last < 1 {
		return nil, fmt.Errorf("service CIDR %s has no usable address", cidr)
	}
	return &ipAllocator{prefix: p, last: last}, nil
}

// setStore gives the allocator the IPAddress storage, built after the
// services'.
func (a *ipAllocator) setStore(s AddressStore) {
	a.mu.Lock()
	a.store = s
	a.mu.Unlock()
}

func (a *ipAllocator) addresses() (AddressStore, error) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	if a.store == nil {
		return nil, errors.New("the IPAddress storage is not ready")
	}
	return a.store, nil
}

func (a *ipAllocator) addr(i int) netip.Addr {
	n := new(big.Int).SetBytes(a.prefix.Addr().AsSlice())
	n.Add(n, big.NewInt(int64(i)))
	b := n.FillBytes(make([]byte, len(a.prefix.Addr().AsSlice())))
	ip, _ := netip.AddrFromSlice(b)
	return ip
}

// First returns the first usable address (the kubernetes service's).
func (a *ipAllocator) First() string { return a.addr(1).String() }

// Contains reports whether ip is one the allocator hands out.
func (a *ipAllocator) Contains(ip netip.Addr) bool {
	if !a.prefix.Contains(ip) || ip == a.prefix.Addr() {
		return false
	}
	return !(a.prefix.Addr().Is4() && a.prefix.Bits() < 31 && ip == a.addr(a.last+1))
}

// owner is the service an address or port is allocated to.
type owner struct{ namespace, name string }

func (a *ipAllocator) object(ip netip.Addr, o owner) *networkingv1.IPAddress {
	return &networkingv1.IPAddress{
		ObjectMeta: metav1.ObjectMeta{Name: ip.String(), Labels: map[string]string{
			networkingv1.LabelIPAddressFamily: family(ip), networkingv1.LabelManagedBy: networkingv1.ServiceIPAllocatorManager,
		}},
		Spec: networkingv1.IPAddressSpec{ParentRef: &networkingv1.ParentReference{Resource: "services", Namespace: o.namespace, Name: o.name}},
	}
}

func family(ip netip.Addr) string {
	if ip.Is4() {
		return "IPv4"
	}
	return "IPv6"
}

// Allocate reserves ip, which must be in the range and free, for o. With
// dryRun it only checks.
func (a *ipAllocator) Allocate(ctx context.Context, ip string, o owner, dryRun bool) error {
	addr, err := netip.ParseAddr(ip)
	if err != nil || !a.Contains(addr) {
		return fmt.Errorf("failed to allocate IP %s: the provided IP (%s) is not in the valid range. The range of valid IPs is %s", ip, ip, a.prefix)
	}
	store, err := a.addresses()
	if err != nil {
		return err
	}
	if dryRun {
		_, err := store.Get(ctx, addr.String(), &metav1.GetOptions{})
		switch {
		case err == nil:
			return fmt.Errorf("failed to allocate IP %s: %w", ip, errAllocated)
		case apierrors.IsNotFound(err):
			return nil
		}
		return err
	}
	_, err = store.Create(ctx, a.object(addr, o), nil, &metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("failed to allocate IP %s: %w", ip, errAllocated)
	}
	return err
}

// randomTries is how many random addresses AllocateNext tries before it
// lists the allocated ones.
const randomTries = 8

// AllocateNext reserves a free address for o: a few random ones first,
// then the free ones the stored IPAddresses leave, from a random start.
// With dryRun it only finds one.
func (a *ipAllocator) AllocateNext(ctx context.Context, o owner, dryRun bool) (string, error) {
	store, err := a.addresses()
	if err != nil {
		return "", err
	}
	try := func(ip netip.Addr) (bool, error) {
		if dryRun {
			_, err := store.Get(ctx, ip.String(), &metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return true, nil
			}
			return false, err
		}
		_, err := store.Create(ctx, a.object(ip, o), nil, &metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return false, nil
		}
		return err == nil, err
	}
	for range min(randomTries, a.last) {
		ip := a.addr(1 + rand.IntN(a.last))
		if ok, err := try(ip); ok || err != nil {
			return ip.String(), err
		}
	}
	used, err := a.used(ctx, store)
	if err != nil {
		return "", err
	}
	start := rand.IntN(a.last)
	for i := range a.last {
		ip := a.addr(1 + (start+i)%a.last)
		if used[ip] {
			continue
		}
		if ok, err := try(ip); ok || err != nil {
			return ip.String(), err
		}
	}
	return "", errRangeFull
}

// used returns the allocated addresses of the range, as the IPAddress
// storage has them.
func (a *ipAllocator) used(ctx context.Context, store AddressStore) (map[netip.Addr]bool, error) {
	obj, err := store.List(ctx, &rest.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list IP addresses: %w", err)
	}
	list, ok := obj.(*networkingv1.IPAddressList)
	if !ok {
		return nil, fmt.Errorf("list IP addresses: got %T", obj)
	}
	used := make(map[netip.Addr]bool, len(list.Items))
	for _, it := range list.Items {
		if ip, err := netip.ParseAddr(it.Name); err == nil && a.prefix.Contains(ip) {
			used[ip] = true
		}
	}
	return used, nil
}

// Release frees ip, when o holds it.
func (a *ipAllocator) Release(ctx context.Context, ip string, o owner) error {
	addr, err := netip.ParseAddr(ip)
	if err != nil || !a.prefix.Contains(addr) {
		return nil
	}
	store, err := a.addresses()
	if err != nil {
		return err
	}
	obj, err := store.Get(ctx, addr.String(), &metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if ref := obj.(*networkingv1.IPAddress).Spec.ParentRef; ref == nil || ref.Resource != "services" || ref.Namespace != o.namespace || ref.Name != o.name {
		return nil // another service's since
	}
	uid := obj.(*networkingv1.IPAddress).UID
	_, _, err = store.Delete(ctx, addr.String(), nil, &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	return err
}
